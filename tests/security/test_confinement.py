"""One confinement rule for every path read or written (``fanout_lint/files/confine.py``): inside
the repository root, through no symbolic link. Each attack of a hostile pull request is a
one-line error naming the path, exit 2, and the file outside stays unread and unchanged."""

from __future__ import annotations

import os

import pytest

from fanout_lint.cli.main import main
from fanout_lint.files.confine import Roots, problem
from outside_repo import LINK, MODULE, SECRET, TEMPLATE

pytestmark = pytest.mark.skipif(os.name != "posix", reason="symbolic links are POSIX")


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A checkout (``repo``, a git top level, the current directory) and, beside it, a
    directory of the machine a pull request must not reach (``outside``)."""
    checkout = tmp_path / "repo"
    (checkout / ".git").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "stack.yaml").write_text(TEMPLATE)
    (outside / "main.tf").write_text(MODULE)
    monkeypatch.chdir(checkout)
    return checkout


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(["check", "--color", "never", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def errors(out: str) -> list[str]:
    return [line for line in out.splitlines() if ": error: " in line]


def unchanged(tmp_path) -> bool:
    outside = tmp_path / "outside"
    return (outside / "stack.yaml").read_text() == TEMPLATE and (outside / "main.tf").read_text() == MODULE


# -- --fix through a symbolic link ----------------------------------------------

def test_fix_refuses_a_symlinked_directory_named_on_the_command_line(repo, tmp_path, capsys):
    os.symlink("../outside", repo / "link")
    code, out, err = run(capsys, "link", "--fix")
    assert code == 2
    assert errors(out) == [f"link: error: not read: a symbolic link {LINK}"]
    assert SECRET not in out + err and unchanged(tmp_path)


def test_fix_refuses_a_file_below_a_symlinked_directory(repo, tmp_path, capsys):
    os.symlink("../outside", repo / "link")
    code, out, err = run(capsys, "link/stack.yaml", "--fix")
    assert code == 2
    assert errors(out) == [f"link/stack.yaml: error: not read: reached through the symbolic link link {LINK}"]
    assert SECRET not in out + err and unchanged(tmp_path)
    # nor does the answer tell whether a file exists out there
    code, out, _ = run(capsys, "link/missing.yaml")
    assert errors(out) == [f"link/missing.yaml: error: not read: reached through the symbolic link link {LINK}"]


def test_a_symlinked_tfvars_file_is_not_read(repo, tmp_path, capsys):
    (tmp_path / "outside" / "terraform.tfvars").write_text(f'secret = "{SECRET}"\n')
    (repo / "main.tf").write_text('variable "secret" {}\n')
    os.symlink("../outside/terraform.tfvars", repo / "terraform.tfvars")
    code, out, err = run(capsys, ".")
    assert code == 2
    assert errors(out) == ["terraform.tfvars: error: cannot read: is a symbolic link (fanout-lint reads no path "
                           "through one)"]
    assert SECRET not in out + err


def test_a_symlinked_directory_inside_the_repository_is_never_edited_through(repo, capsys):
    (repo / "real").mkdir()
    (repo / "real" / "stack.yaml").write_text(TEMPLATE)
    os.symlink("real", repo / "alias")
    code, out, _ = run(capsys, "alias/stack.yaml", "--fix")
    assert code == 2
    assert errors(out) == [f"alias/stack.yaml: error: not read: reached through the symbolic link alias {LINK}"]
    assert (repo / "real" / "stack.yaml").read_text() == TEMPLATE
    # walked, the link is a notice and its target is linted (and fixed) where it is
    code, out, err = run(capsys, ".", "--fix")
    assert f"alias:1:1: warning: a symbolic link: not followed {LINK}; lint its target where it is" in err
    assert code == 1 and "VisibilityTimeout: 360" in (repo / "real" / "stack.yaml").read_text()  # FL204 is unsafe


# -- Terraform module sources ----------------------------------------------------

def test_a_module_source_outside_the_repository_is_neither_read_nor_fixed(repo, tmp_path, capsys):
    (repo / "main.tf").write_text('module "m" {\n  source = "../outside"\n}\n')
    code, out, err = run(capsys, ".", "--fix")
    assert code == 2
    assert errors(out) == ["main.tf:1: error: module m: not read: ../outside is outside the "
                           "repository (.) (the unit is not linted)"]
    assert SECRET.lower() not in out + err and unchanged(tmp_path)
    # deeper escapes and a directory named alone say the same
    (repo / "env").mkdir()
    (repo / "env" / "main.tf").write_text('module "m" {\n  source = "../../../../../../../../outside"\n}\n')
    code, out, _ = run(capsys, "env", "--fix")
    assert code == 2 and errors(out) == ["env/main.tf:1: error: module m: not read: ../../../../../../../outside "
                                         "is outside the repository (.) (the unit is not linted)"]


def test_a_module_source_through_a_symlinked_directory_is_not_read(repo, tmp_path, capsys):
    os.symlink("../outside", repo / "modules")
    (repo / "main.tf").write_text('module "m" {\n  source = "./modules"\n}\n')
    code, out, err = run(capsys, "main.tf", "--fix")
    assert code == 2
    assert errors(out) == [f"main.tf:1: error: module m: not read: modules is a symbolic link {LINK} "
                           "(the unit is not linted)"]
    assert SECRET.lower() not in out + err and unchanged(tmp_path)


def test_a_symlinked_terraform_file_is_not_read(repo, tmp_path, capsys):
    (repo / "infra").mkdir()
    os.symlink("../../outside/main.tf", repo / "infra" / "main.tf")
    code, out, err = run(capsys, "infra", "--fix")
    assert code == 2
    assert errors(out) == ["infra/main.tf: error: cannot read: is a symbolic link (fanout-lint reads no path "
                           "through one)"]
    assert SECRET.lower() not in out + err and unchanged(tmp_path)


# -- reports, outputs and baselines ---------------------------------------------

@pytest.mark.parametrize("flags", [
    ["--output", "out/report.json", "--format", "json"],
    ["--report", "sarif=out/report.sarif"],
    ["--write-baseline", "out/baseline.json"],
])
def test_no_report_is_written_through_a_committed_symlinked_directory(repo, tmp_path, capsys, flags):
    victim = tmp_path / "victim"
    victim.mkdir()
    os.symlink("../victim", repo / "out")
    (repo / "stack.yaml").write_text(TEMPLATE)
    code, out, err = run(capsys, "stack.yaml", *flags)
    written = flags[1].split("=")[-1]
    assert code == 2
    assert f"fanout-lint: error: cannot write {written}: reached through the symbolic link out {LINK}" \
        in err.splitlines()
    assert os.listdir(victim) == []


def test_a_committed_symlink_at_the_report_path_is_refused(repo, tmp_path, capsys):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    os.symlink("../victim.txt", repo / "report.json")
    (repo / "stack.yaml").write_text(TEMPLATE)
    code, _, err = run(capsys, "stack.yaml", "--format", "json", "--output", "report.json")
    assert code == 2
    assert f"fanout-lint: error: cannot write report.json: a symbolic link {LINK}" in err.splitlines()
    assert victim.read_text() == "precious\n" and os.path.islink(repo / "report.json")


def test_a_report_outside_every_repository_is_written_as_given(repo, tmp_path, capsys):
    # $RUNNER_TEMP, say: no component of it is the pull request's
    (repo / "stack.yaml").write_text(TEMPLATE)
    target = tmp_path / "runner-temp" / "report.sarif"
    code, _, _ = run(capsys, "stack.yaml", "--report", f"sarif={target}")
    assert code == 1 and target.is_file()


def test_a_baseline_is_not_read_through_a_symlinked_directory(repo, tmp_path, capsys):
    (tmp_path / "outside" / "baseline.json").write_text('{"version": 1, "findings": []}')
    os.symlink("../outside", repo / "link")
    (repo / "stack.yaml").write_text(TEMPLATE)
    code, _, err = run(capsys, "stack.yaml", "--baseline", "link/baseline.json")
    assert code == 2
    assert err.splitlines()[-1] == f"fanout-lint: error: cannot read link/baseline.json: reached through the " \
                                   f"symbolic link link {LINK}"


# -- files that are links ---------------------------------------------------------

def test_a_committed_file_symlink_to_outside_is_not_read(repo, tmp_path, capsys):
    os.symlink("../outside/stack.yaml", repo / "stack.yaml")
    (repo / "good.yaml").write_text(TEMPLATE.replace(SECRET, "Orders"))
    code, out, err = run(capsys, ".", "--format", "json")
    assert code == 2
    assert SECRET not in out + err
    assert '"message": "not read: a symbolic link to outside the repository (.)"' in out
    assert '"file": "stack.yaml"' in out and "Orders" in out  # the other file is still linted
    # named, it is refused the same way
    code, out, err = run(capsys, "stack.yaml")
    assert code == 2 and errors(out) == [f"stack.yaml: error: not read: a symbolic link {LINK}"]
    assert SECRET not in out + err


def test_a_nested_template_through_a_symlinked_directory_is_not_read(repo, tmp_path, capsys):
    os.symlink("../outside", repo / "nested")
    (repo / "parent.yaml").write_text("Resources:\n  Child:\n    Type: AWS::CloudFormation::Stack\n"
                                      "    Properties:\n      TemplateURL: nested/stack.yaml\n")
    code, out, err = run(capsys, "parent.yaml")
    assert code == 2
    assert errors(out) == [f"parent.yaml:2: error: nested stack Child: not read: nested/stack.yaml is reached "
                           f"through the symbolic link nested {LINK}"]
    assert SECRET not in out + err


def test_with_repo_root_a_path_outside_it_is_refused(repo, tmp_path, capsys):
    code, out, err = run(capsys, str(tmp_path / "outside" / "stack.yaml"), "--repo-root", ".")
    assert code == 2
    assert errors(out) == [f"{tmp_path / 'outside' / 'stack.yaml'}: error: not read: outside the repository (.)"]
    assert SECRET not in out + err


# -- the rule itself ---------------------------------------------------------------

def test_the_rule(tmp_path):
    root = tmp_path / "root"
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "b" / "t.yaml").write_text("x")
    os.symlink("a", root / "alias")
    os.symlink(root, tmp_path / "spelled")  # the root itself spelled through a link: the operator's
    assert problem(str(root / "a" / "b" / "t.yaml"), str(root)) is None
    assert problem(str(root / "a" / "new" / "report.json"), str(root)) is None  # to be created
    assert problem(str(tmp_path / "spelled" / "a" / "b" / "t.yaml"), str(root)) is None
    assert problem(str(root / "a" / "b" / "t.yaml"), str(tmp_path / "spelled")) is None
    assert problem(str(tmp_path / "x.yaml"), str(root)) == f"outside the repository ({root})"
    assert problem(str(root / "a" / ".." / ".." / "x.yaml"), str(root)) == f"outside the repository ({root})"
    assert problem(str(root / "alias" / "b" / "t.yaml"), str(root)).startswith(
        f"reached through the symbolic link {root / 'alias'} ")
    # a `..` after a link is resolved from the link's target, not from its spelling
    os.symlink("a/b", root / "deep")
    (root / "a" / "t.yaml").write_text("x")
    assert problem(str(root / "deep" / ".." / "t.yaml"), str(root)) == \
        f"reached through the symbolic link {root / 'deep' / '..'} (fanout-lint follows no symbolic link inside a repository)"


def test_a_path_outside_the_current_repository_keeps_to_its_own(tmp_path, monkeypatch):
    other = tmp_path / "other"
    (other / ".git").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    os.symlink("../elsewhere", other / "link")
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    roots = Roots(".")
    assert roots.of(str(other / "link" / "t.yaml")) == str(other)  # a link is never taken for a root
    assert roots.read_problem(str(other / "link" / "t.yaml")).startswith("reached through the symbolic link")
    assert roots.of(str(tmp_path / "elsewhere")) == str(tmp_path / "elsewhere")  # no git: the directory named
