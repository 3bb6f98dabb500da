"""Configuration per unit: each unit is linted under its nearest configuration file, up
to the repository root (as ruff finds its own), and the file is read only as the
confinement rule allows."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from fanout_lint.cli.main import main
from fanout_lint.policy.config import ConfigError, Flags
from fanout_lint.policy.hierarchy import Hierarchy
from fanout_lint.rules import ALL_RULES
from repo_paths import ROOT

SHARED = os.path.join(ROOT, "tests", "fixtures", "shared-queue", "cfn_fires.yaml")  # FL201, an error
MISSING = os.path.join(ROOT, "tests", "fixtures", "missing-dlq", "cfn_fires.yaml")  # FL101 twice
LOWERS = "this configuration lowers the gate"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def findings(out: str, prefix: str = "") -> list[tuple[str, str, str]]:
    return [(prefix + f["file"], f["rule"], f["severity"]) for f in json.loads(out)["findings"]]


def write(path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A repository with two sibling services, each with its own configuration file:
    ``a`` lowers FL201 to a warning and fails only on errors; ``b`` ignores missing-dlq."""
    work = tmp_path / "repo"
    (work / ".git").mkdir(parents=True)
    for service in ("a", "b"):
        (work / service).mkdir()
        shutil.copy(SHARED, work / service / "shared.yaml")
        shutil.copy(MISSING, work / service / "missing.yaml")
    write(work / "a" / ".fanout-lint.toml", 'fail-on = "error"\n[severity]\nshared-queue = "warning"\n')
    write(work / "b" / "pyproject.toml", '[project]\nname = "b"\n\n[tool.fanout-lint]\nignore = ["missing-dlq"]\n')
    monkeypatch.chdir(work)
    return work


def test_running_from_the_parent_equals_running_in_each_directory(repo, capsys, monkeypatch):
    code, out, err = run(capsys, "check", "a", "b", "--format", "json")
    from_parent = findings(out)
    assert from_parent == [
        ("a/missing.yaml", "FL101", "error"), ("a/missing.yaml", "FL101", "error"),
        ("a/shared.yaml", "FL201", "warning"),
        ("b/shared.yaml", "FL201", "error"),
    ]
    assert code == 1
    inside = []
    for service in ("a", "b"):
        monkeypatch.chdir(repo / service)
        _, out, _ = run(capsys, "check", ".", "--format", "json")
        inside += findings(out, f"{service}/")
    assert inside == from_parent
    monkeypatch.chdir(repo)
    _, out, _ = run(capsys, "check", ".", "--format", "json")  # the walk finds both files too
    assert findings(out) == from_parent


def test_the_exit_code_takes_each_findings_own_fail_level(repo, capsys):
    write(repo / "a" / ".fanout-lint.toml", 'fail-on = "error"\n[severity]\nshared-queue = "warning"\n'
                                            'missing-dlq = "warning"\n')
    code, out, _ = run(capsys, "check", "a", "--format", "json")
    assert code == 0 and {f[2] for f in findings(out)} == {"warning"}  # below a's fail level
    assert run(capsys, "check", "b")[0] == 1  # an error, at or above b's (the default, warning)
    assert run(capsys, "check", "a", "b")[0] == 1  # b's finding fails the run, a's do not
    assert run(capsys, "check", "a", "--fail-on", "warning")[0] == 1  # the command line overrides every file
    assert run(capsys, "check", "a", "b", "--exit-zero")[0] == 0


def test_the_junit_report_fails_each_finding_by_its_own_level(repo, capsys):
    code, out, _ = run(capsys, "check", "a/shared.yaml", "b/shared.yaml", "--format", "junit")
    assert code == 1
    assert out.count("<failure") == 1  # b's error; a's warning is below a's fail-on


def test_a_nested_file_applies_alone_stricter_or_looser(tmp_path, capsys, monkeypatch):
    work = tmp_path / "repo"
    (work / ".git").mkdir(parents=True)
    shutil.copy(SHARED, work / "top.yaml")
    for name in ("strict", "loose"):
        (work / name).mkdir()
        shutil.copy(SHARED, work / name / "stack.yaml")
    write(work / ".fanout-lint.toml", 'ignore = ["shared-queue"]\n')
    write(work / "strict" / ".fanout-lint.toml", "# the defaults: the file above is not merged in\n")
    write(work / "loose" / ".fanout-lint.toml", 'ignore = ["shared-queue"]\nfail-on = "none"\n')
    monkeypatch.chdir(work)
    code, out, err = run(capsys, "check", ".", "--format", "json")
    assert findings(out) == [("strict/stack.yaml", "FL201", "error")]
    assert code == 1
    code, out, _ = run(capsys, "check", "loose", "top.yaml", "--format", "json")
    assert code == 0 and findings(out) == []
    monkeypatch.chdir(work / "strict")
    assert run(capsys, "check", ".")[0] == 1


def test_each_file_that_governs_part_of_the_run_is_said_to_lower_the_gate(repo, capsys):
    code, out, err = run(capsys, "check", "a", "b", "--format", "json")
    lines = [line for line in err.splitlines() if LOWERS in line]
    assert len(lines) == 2
    assert lines[0].startswith("a/.fanout-lint.toml:1:1: warning: " + LOWERS + ": fail-on = error")
    assert lines[1].startswith("b/pyproject.toml:1:1: warning: " + LOWERS + ": ignores 1 rule: FL101")
    notices = [n["message"] for n in json.loads(out)["notices"] if LOWERS in n["message"]]
    assert len(notices) == 2
    _, _, err = run(capsys, "check", "a")  # b's file governs nothing of this run
    assert "b/pyproject.toml" not in err and "a/.fanout-lint.toml" in err
    _, _, err = run(capsys, "check", "a", "b", "-q")  # said whatever -q says
    assert sum(LOWERS in line for line in err.splitlines()) == 2
    _, _, err = run(capsys, "check", "a", "b", "--isolated")
    assert LOWERS not in err


def test_show_settings_names_the_file_each_path_is_linted_under(repo, capsys):
    code, out, err = run(capsys, "check", "--show-settings", "a/shared.yaml")
    assert code == 0 and out.startswith(f"configuration: {repo / 'a' / '.fanout-lint.toml'}\nrepo-root: ")
    assert "fail-on: error\n" in out and "FL201  shared-queue  warning  on" in out
    assert "a/.fanout-lint.toml:1:1: warning: " + LOWERS in err
    _, out, _ = run(capsys, "check", "--show-settings", "b")
    assert out.startswith(f"configuration: {repo / 'b' / 'pyproject.toml'}\n")
    code, out, _ = run(capsys, "check", "--show-settings", "a", "b/shared.yaml")
    blocks = out.split("\n\n")
    assert code == 0 and len(blocks) == 2
    assert blocks[0].startswith(f"configuration: {repo / 'a' / '.fanout-lint.toml'}\npaths: a\n")
    assert blocks[1].startswith(f"configuration: {repo / 'b' / 'pyproject.toml'}\npaths: b/shared.yaml\n")
    _, out, _ = run(capsys, "check", "--show-settings", "--isolated", "a", "b")
    assert out.startswith("configuration: (none found; defaults)\n")


def test_an_exclude_pattern_is_relative_to_its_own_file(repo, capsys, monkeypatch):
    write(repo / "a" / ".fanout-lint.toml", 'exclude = ["old/*"]\n')
    shutil.copy(SHARED, repo / "a" / "shared.yaml")
    (repo / "a" / "old").mkdir()
    shutil.copy(SHARED, repo / "a" / "old" / "x.yaml")
    (repo / "b" / "old").mkdir()
    shutil.copy(SHARED, repo / "b" / "old" / "x.yaml")  # b's file does not exclude it
    _, out, _ = run(capsys, "check", ".", "--format", "json")
    files = {f[0] for f in findings(out)}
    assert "a/old/x.yaml" not in files and "b/old/x.yaml" in files and "a/shared.yaml" in files
    monkeypatch.chdir(repo / "a")
    _, out, _ = run(capsys, "check", ".", "old/x.yaml", "--format", "json")
    assert "old/x.yaml" not in {f[0] for f in findings(out)}  # a named file too, as pre-commit names it


def test_parallel_workers_get_each_units_own_settings(repo, capsys):
    serial = run(capsys, "check", "a", "b", "--format", "json", "-j", "1")
    parallel = run(capsys, "check", "a", "b", "--format", "json", "-j", "2")
    assert serial[:2] == parallel[:2]
    assert ("a/shared.yaml", "FL201", "warning") in findings(parallel[1])


def test_each_directory_is_looked_up_once(repo, monkeypatch):
    hierarchy = Hierarchy(Flags(), ALL_RULES, str(repo))
    looked: list[str] = []
    original = hierarchy._file_in
    monkeypatch.setattr(hierarchy, "_file_in", lambda directory: looked.append(directory) or original(directory))
    deep = repo / "b" / "x" / "y" / "z"
    for _ in range(3):
        assert hierarchy.scope_of(str(deep)).path == str(repo / "b" / "pyproject.toml")
        hierarchy.scope_of(str(repo / "b" / "x"))
    assert sorted(looked) == sorted(str(p) for p in (deep, deep.parent, deep.parent.parent, repo / "b"))


def test_a_configuration_above_the_repository_governs_none_of_it(tmp_path, capsys, monkeypatch):
    write(tmp_path / ".fanout-lint.toml", 'fail-on = "none"\n')
    work = tmp_path / "checkout"
    (work / ".git").mkdir(parents=True)
    (work / "svc").mkdir()
    shutil.copy(SHARED, work / "svc" / "stack.yaml")
    monkeypatch.chdir(work / "svc")
    code, _, err = run(capsys, "check", ".")
    assert code == 1 and LOWERS not in err


# --- the configuration is read as every path is: inside the repository, through no link ---


def test_a_found_configuration_that_is_a_symbolic_link_is_refused_unread(repo, capsys, tmp_path):
    outside = tmp_path / "outside.toml"
    write(outside, 'fail-on = "none"\n')
    os.symlink(outside, repo / "a" / ".fanout-lint.toml.link")
    (repo / "a" / ".fanout-lint.toml").unlink()
    os.rename(repo / "a" / ".fanout-lint.toml.link", repo / "a" / ".fanout-lint.toml")
    for argv in (("a",), (".",), ("a/shared.yaml",)):
        code, out, err = run(capsys, "check", *argv)
        assert code == 2, argv
        assert err.splitlines() == [
            f"fanout-lint: error: {repo / 'a' / '.fanout-lint.toml'}: configuration not read: a symbolic link "
            "(fanout-lint follows no symbolic link inside a repository)"]
        assert out == ""


def test_a_symlinked_pyproject_is_refused_before_it_is_read(repo, capsys):
    fifo = repo / "b" / "pipe"
    os.mkfifo(fifo)  # reading it would block the run: it must not be opened
    (repo / "b" / "pyproject.toml").unlink()
    os.symlink("pipe", repo / "b" / "pyproject.toml")
    code, _, err = run(capsys, "check", "b")
    assert code == 2 and "b/pyproject.toml: configuration not read: a symbolic link" in err


def test_a_configuration_below_a_symlinked_directory_is_refused(repo, capsys):
    os.symlink("a", repo / "alias")
    code, _, err = run(capsys, "check", "alias/shared.yaml")
    assert code == 2
    assert err.splitlines()[0] == (
        f"fanout-lint: error: {repo / 'alias' / '.fanout-lint.toml'}: configuration not read: reached through "
        "the symbolic link alias (fanout-lint follows no symbolic link inside a repository)")


def test_config_keeps_to_the_root_of_the_file_it_names(repo, capsys, tmp_path):
    gate = tmp_path / "gate.toml"  # the operator's, outside the checkout (from the base branch)
    write(gate, 'select = ["FL2"]\n')
    code, out, _ = run(capsys, "check", "--config", str(gate), "a", "b", "--format", "json")
    assert code == 1 and findings(out) == [("a/shared.yaml", "FL201", "error"), ("b/shared.yaml", "FL201", "error")]
    os.symlink("a", repo / "alias")
    code, _, err = run(capsys, "check", "--config", "alias/.fanout-lint.toml", "a")
    assert code == 2 and err.splitlines() == [
        "fanout-lint: error: alias/.fanout-lint.toml: not read: reached through the symbolic link alias "
        "(fanout-lint follows no symbolic link inside a repository)"]
    os.symlink(gate, repo / "gate.toml")
    code, _, err = run(capsys, "check", "--config", "gate.toml", "a")
    assert code == 2 and "gate.toml: not read: a symbolic link" in err


def test_an_invalid_nested_file_is_an_error_before_anything_is_linted(repo, capsys):
    write(repo / "b" / "deep" / ".fanout-lint.toml", 'selct = ["FL2"]\n')
    shutil.copy(SHARED, repo / "b" / "deep" / "x.yaml")
    code, out, err = run(capsys, "check", ".")
    assert code == 2 and out == ""
    assert err.splitlines() == [f"fanout-lint: error: {repo / 'b' / 'deep' / '.fanout-lint.toml'}:1: unknown key "
                                "'selct' in .fanout-lint.toml (did you mean select?)"]
    with pytest.raises(ConfigError):
        Hierarchy(Flags(), ALL_RULES, str(repo)).scope_of(str(repo / "b" / "deep"))


def test_terraform_directories_and_applications_take_their_own_file(tmp_path, capsys, monkeypatch):
    work = tmp_path / "repo"
    (work / ".git").mkdir(parents=True)
    terraform = os.path.join(ROOT, "tests", "fixtures", "shared-queue", "tf_fires")
    for name in ("tf1", "tf2"):
        shutil.copytree(terraform, work / name)
    write(work / "tf1" / ".fanout-lint.toml", '[severity]\nshared-queue = "info"\n')
    linked = os.path.join(ROOT, "tests", "fixtures", "shared-queue", "link_fires")
    # one application over two directories: it takes the file of its first template
    for directory, name in (("a", "shared.yaml"), ("b", "billing.yaml"), ("b", "shipping.yaml")):
        (work / "app" / directory).mkdir(parents=True, exist_ok=True)
        shutil.copy(os.path.join(linked, name), work / "app" / directory / name)
    write(work / "app" / "a" / ".fanout-lint.toml", '[severity]\nshared-queue = "warning"\n')
    monkeypatch.chdir(work)
    _, out, _ = run(capsys, "check", "tf1", "tf2", "app", "--format", "json")
    assert [(f, s) for f, _, s in findings(out)] == [
        ("app/a/shared.yaml", "warning"), ("tf1/main.tf", "info"), ("tf2/main.tf", "error")]
    monkeypatch.chdir(work / "tf1")
    _, out, _ = run(capsys, "check", ".", "--format", "json")
    assert [s for _, _, s in findings(out)] == ["info"]


def test_graph_draws_each_unit_under_its_own_file(repo, capsys):
    code, out, err = run(capsys, "graph", "a/shared.yaml", "b/shared.yaml", "--format", "json")
    assert code == 0
    drawn = json.loads(out)["findings"]
    assert [(f["file"], f["rule"], f["severity"]) for f in drawn] == [
        ("a/shared.yaml", "FL201", "warning"), ("b/shared.yaml", "FL201", "error")]
    assert sum(LOWERS in line for line in err.splitlines()) == 2


def test_the_cfnlint_plugin_reads_the_file_nearest_the_template(repo):
    from fanout_lint.integrations.cfnlint_adapter import configured

    settings, problems = configured(None, "b/shared.yaml", str(repo))
    assert problems == [] and settings.ignore == ("FL101",)
    settings, _ = configured(None, str(repo / "a" / "shared.yaml"), str(repo))
    assert settings.ignore == ()


def test_files_met_only_in_the_search_of_the_repository_govern_nothing(repo, capsys):
    # a named template links with the rest of its repository: the walk for that meets b's
    # file and an invalid one, neither of which governs a unit of this run
    write(repo / "c" / ".fanout-lint.toml", 'selct = ["FL2"]\n')
    shutil.copy(SHARED, repo / "c" / "x.yaml")
    linked = os.path.join(ROOT, "tests", "fixtures", "shared-queue", "link_fires")
    shutil.copy(os.path.join(linked, "shared.yaml"), repo / "a" / "linked.yaml")  # it exports: it may link
    for name in ("billing.yaml", "shipping.yaml"):
        shutil.copy(os.path.join(linked, name), repo / "b" / name)
    code, out, err = run(capsys, "check", "a/linked.yaml", "--format", "json")
    # linked with b's consumers, under a's file (the named template's); its finding a warning
    assert code == 0 and findings(out) == [("a/linked.yaml", "FL201", "warning")]
    assert "b/pyproject.toml" not in err and "c/.fanout-lint.toml" not in err
    assert run(capsys, "check", "c/x.yaml")[0] == 2  # the run it governs stops on it
