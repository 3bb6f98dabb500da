"""The gate's trust boundary: no option from a file name, no forged line from a template
or a configuration, and no configuration that lowers the gate without saying so.

A pull request's author controls the templates, their file names and the configuration
file the pull request adds; the workflow (its command line, ``--config``, ``--isolated``)
is what the gate trusts.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess

import pytest
import yaml

from fanout_lint.cli.main import main
from repo_paths import ROOT

FIXTURES = os.path.join(ROOT, "tests", "fixtures", "shared-queue")
PACKAGE = '{"name": "victim"}\n'


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _commands(text: str) -> list[str]:
    # the GitHub runner strips leading whitespace before it looks for "::"
    return [line for line in text.split("\n") if line.lstrip().startswith("::")]


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A repository (``.git``) with a broken template and two files named like options."""
    work = tmp_path / "repo"
    work.mkdir()
    (work / ".git").mkdir()
    shutil.copy(os.path.join(FIXTURES, "cfn_fires.yaml"), work / "broken.yaml")
    (work / "package.json").write_text(PACKAGE, encoding="utf-8")
    for name in ("--write-baseline=b.json", "--output=package.json"):
        (work / name).write_text("{}\n", encoding="utf-8")
    monkeypatch.chdir(work)
    return work


# --- 1. No option from a file name ---------------------------------------------------


def _hook():
    with open(os.path.join(ROOT, ".pre-commit-hooks.yaml"), encoding="utf-8") as handle:
        (hook,) = yaml.safe_load(handle)
    return hook


def _as_pre_commit(args: list[str] | None, files: list[str]) -> list[str]:
    """The command line pre-commit builds: the entry, the args (the user's, else the
    manifest's), then the file names; without the program name, for ``main``."""
    hook = _hook()
    command = shlex.split(hook["entry"]) + (hook.get("args", []) if args is None else args) + files
    assert command[0] == "fanout-lint"
    return command[1:]


FILES = ["--output=package.json", "--write-baseline=b.json", "broken.yaml"]


def test_the_hook_passes_file_names_after_the_end_of_options(repo, capsys):
    code, out, err = run(capsys, *_as_pre_commit(None, FILES))
    assert code == 1, err  # the broken template fails the hook
    assert "broken.yaml:5:3: FL201 [error]" in out
    assert not (repo / "b.json").exists()  # no baseline written from a file name
    assert (repo / "package.json").read_text(encoding="utf-8") == PACKAGE  # no report over a tracked file


def test_user_args_ending_with_dashes_keep_the_files_paths(repo, capsys):
    code, out, _ = run(capsys, *_as_pre_commit(["--fail-on", "error", "--"], FILES))
    assert code == 1 and "FL201" in out
    assert not (repo / "b.json").exists() and (repo / "package.json").read_text(encoding="utf-8") == PACKAGE


def test_user_args_without_dashes_are_refused_rather_than_guessed(repo, capsys):
    # pre-commit appends the files after the user's args: without `--`, a file named like
    # an option cannot be told from one, so the hook refuses (the commit fails) and says how
    code, out, err = run(capsys, *_as_pre_commit(["--fail-on", "error"], FILES))
    assert code == 2 and out == ""
    assert 'end the hook\'s `args:` in .pre-commit-config.yaml with "--"' in err
    assert not (repo / "b.json").exists() and (repo / "package.json").read_text(encoding="utf-8") == PACKAGE
    # plain file names and no option: nothing to mistake, the run goes ahead
    code, out, _ = run(capsys, *_as_pre_commit([], ["broken.yaml"]))
    assert code == 1 and "FL201" in out


def test_a_file_named_dashes_is_a_path_too(repo, capsys):
    (repo / "--").write_text("{}\n", encoding="utf-8")
    code, out, _ = run(capsys, *_as_pre_commit(None, ["--", "--output=package.json", "broken.yaml"]))
    assert code == 1 and "FL201" in out
    assert (repo / "package.json").read_text(encoding="utf-8") == PACKAGE


def test_dashes_end_the_options_of_check_and_graph(repo, capsys):
    code, out, _ = run(capsys, "check", "--format", "json", "--", "--output=package.json", "broken.yaml")
    assert code == 1 and json.loads(out)["findings"][0]["rule"] == "FL201"
    code, out, _ = run(capsys, "broken.yaml", "--", "--write-baseline=b.json")  # paths before and after
    assert code == 1 and "FL201" in out
    code, out, _ = run(capsys, "graph", "--format", "json", "--", "--output=package.json", "broken.yaml")
    assert code == 0 and json.loads(out)["units"]
    code, out, _ = run(capsys, "explain", "--", "FL201")
    assert code == 0 and "shared-queue" in out
    assert not (repo / "b.json").exists() and (repo / "package.json").read_text(encoding="utf-8") == PACKAGE
    # what the hole looked like: the same name before `--` is an option
    assert main(["check", "--write-baseline=b.json", "broken.yaml"]) == 0 and (repo / "b.json").exists()


# --- 2. No forged line: the diff, docs-url, --show-settings ----------------------------

DIFF_TEMPLATE = """\
Resources:
  Queue:
    Type: AWS::SQS::Queue
    Properties:
      Tags:
        - Key: note
          Value: |
            ::error file=x.yaml,line=1::forged
              ::add-mask::secret
      VisibilityTimeout: 30
      RedrivePolicy: {deadLetterTargetArn: !GetAtt DLQ.Arn, maxReceiveCount: 5}
  DLQ:
    Type: AWS::SQS::Queue
    Properties:
      MessageRetentionPeriod: 1209600
  Worker:
    Type: AWS::Lambda::Function
    Properties:
      Timeout: 60
  Mapping:
    Type: AWS::Lambda::EventSourceMapping
    Properties:
      EventSourceArn: !GetAtt Queue.Arn
      FunctionName: !Ref Worker
"""


def test_a_diff_never_starts_a_line_with_a_workflow_command_and_still_applies(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "stack.yaml").write_text(DIFF_TEMPLATE, encoding="utf-8")
    code, out, _ = run(capsys, "check", "stack.yaml", "--diff")
    assert code == 1 and "+      VisibilityTimeout: 360\n" in out
    assert _commands(out) == []
    # the context lines that read as commands are shown removed and added again
    assert "-            ::error file=x.yaml,line=1::forged\n+            ::error file=x.yaml,line=1::forged\n" in out
    assert "-              ::add-mask::secret\n+              ::add-mask::secret\n" in out
    (tmp_path / "fix.diff").write_text(out, encoding="utf-8")
    if shutil.which("patch") is None:
        pytest.skip("patch is not installed")
    done = subprocess.run(["patch", "-p0", "-i", "fix.diff"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "stack.yaml").read_text(encoding="utf-8") == DIFF_TEMPLATE.replace(
        "VisibilityTimeout: 30", "VisibilityTimeout: 360")


@pytest.mark.parametrize("url", [
    "docs/", "ftp://x.test/", "https://", "https://x.test/a b/", "https://x.test/\n## forged",
    "https://x.test/<img src=x>/", "https://x.test/`x`/", "https://x.test/" + "a" * 1000,
])
def test_a_docs_url_that_is_no_absolute_http_url_is_a_config_error(tmp_path, capsys, monkeypatch, url):
    monkeypatch.chdir(tmp_path)
    shutil.copy(os.path.join(FIXTURES, "cfn_fires.yaml"), tmp_path / "t.yaml")
    (tmp_path / ".fanout-lint.toml").write_text(f"docs-url = {json.dumps(url)}\n", encoding="utf-8")
    for command in (["check"], ["graph", "--format", "markdown"]):
        code, out, err = run(capsys, *command, "t.yaml")
        assert code == 2 and out == "" and ".fanout-lint.toml:1: 'docs-url' must be an absolute http(s) URL" in err
        assert len(err.splitlines()) == 1
    code, _, err = run(capsys, "check", "--isolated", "--docs-url", url, "t.yaml")
    assert code == 2 and "--docs-url must be an absolute http(s) URL" in err


def test_a_docs_url_is_normalised_and_escaped_in_the_summary(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copy(os.path.join(FIXTURES, "cfn_fires.yaml"), tmp_path / "t.yaml")
    (tmp_path / ".fanout-lint.toml").write_text('docs-url = "https://x.test/a)(b"\n', encoding="utf-8")
    _, out, _ = run(capsys, "check", "t.yaml", "--format", "sarif")
    rule = json.loads(out)["runs"][0]["tool"]["driver"]["rules"]
    assert {r["helpUri"] for r in rule if r["id"] == "FL201"} == {"https://x.test/a)(b/shared-queue.md"}
    _, out, _ = run(capsys, "graph", "--format", "markdown", "t.yaml")
    assert "(https://x.test/a%29%28b/shared-queue.md)" in out and "a)(b" not in out


def test_the_summary_stays_under_its_limit_whatever_it_holds(tmp_path, capsys, monkeypatch):
    from fanout_lint.policy.gate import lowered
    from fanout_lint.reports import markdown
    from fanout_lint.reports.topology import build
    from fanout_lint.run.engine import lint_paths
    from fanout_lint.rules import ALL_RULES
    from fanout_lint.policy.settings import Settings

    shutil.copy(os.path.join(FIXTURES, "cfn_fires.yaml"), tmp_path / "t.yaml")
    result = lint_paths([str(tmp_path / "t.yaml")], ALL_RULES, Settings(), keep_graphs=True)
    view = build(result.graphs, result.findings, result.errors)
    notice = lowered("c.toml", ALL_RULES, fail_on="none", select=None, ignore=(), exclude=("x" * 5000,),
                     severity={})
    whole = markdown.render(view, "https://x.test/", gate=(notice,))
    assert len(notice.message) < 400 and notice.message in whole and _commands(whole) == []
    cut = markdown.render(view, "https://x.test/", limit=len(whole.encode("utf-8")) // 2, gate=(notice,))
    assert len(cut.encode("utf-8")) <= len(whole.encode("utf-8")) // 2
    assert markdown.TOO_LARGE in cut and notice.message in cut  # the warning is never what is cut


def test_show_settings_prints_configuration_strings_as_untrusted_text(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".fanout-lint.toml").write_text(
        'exclude = ["a\\u001b[31m", "b\\n::error::forged", "\\n  ::warning::x"]\n', encoding="utf-8")
    code, out, _ = run(capsys, "check", "--show-settings")
    assert code == 0 and "\x1b" not in out and _commands(out) == []
    assert "exclude: a\\x1b[31m, b\\x0a::error::forged, \\x0a  ::warning::x" in out


# --- 3. The gate is not turned off quietly ---------------------------------------------

LOWERING = {
    'fail-on = "none"': "fail-on = none (findings never fail the run)",
    'fail-on = "error"': "fail-on = error (findings below error do not fail the run)",
    'exclude = ["*"]': "excludes 1 path pattern: *",
    'ignore = ["FL"]': "ignores ",
    'select = ["FL1"]': "selects 6 of ",
    '[severity]\nshared-queue = "info"': "lowers the severity of FL201 error -> info",
}


@pytest.mark.parametrize("setting", list(LOWERING))
def test_a_configuration_that_lowers_the_gate_says_so_everywhere(repo, capsys, setting):
    (repo / ".fanout-lint.toml").write_text(setting + "\n", encoding="utf-8")
    code, out, err = run(capsys, "check", "broken.yaml")
    (line,) = [line for line in err.splitlines() if "lowers the gate" in line]
    assert line.startswith(".fanout-lint.toml:1:1: warning: this configuration lowers the gate: ")
    assert LOWERING[setting] in line and line.endswith("(pin the gate in CI with --config FILE or --isolated)")
    _, out, _ = run(capsys, "check", "broken.yaml", "--format", "json")
    notices = [n for n in json.loads(out)["notices"] if "lowers the gate" in n["message"]]
    assert [n["file"] for n in notices] == [".fanout-lint.toml"]
    _, out, _ = run(capsys, "check", "broken.yaml", "--format", "sarif")
    (run_,) = json.loads(out)["runs"]
    texts = [n["message"]["text"] for n in run_["invocations"][0]["toolExecutionNotifications"]]
    assert any("lowers the gate" in t for t in texts)
    _, out, _ = run(capsys, "check", "broken.yaml", "--format", "github")
    assert any(c.startswith("::warning file=.fanout-lint.toml,line=1") and "lowers the gate" in c
               for c in _commands(out))
    _, out, _ = run(capsys, "graph", "--format", "markdown", "broken.yaml")
    assert "> **Warning:** `.fanout-lint.toml`: `this configuration lowers the gate: " in out
    _, out, _ = run(capsys, "check", "--show-settings", "broken.yaml")
    assert "gate: this configuration lowers the gate: " in out


def test_a_configuration_that_lowers_nothing_says_nothing(repo, capsys):
    (repo / ".fanout-lint.toml").write_text(
        'fail-on = "info"\n[severity]\nmissing-dlq = "error"\nraw-delivery-off = "error"\n', encoding="utf-8")
    _, _, err = run(capsys, "check", "broken.yaml")
    assert "lowers the gate" not in err
    # a setting the command line overrides is the workflow's, not the file's
    (repo / ".fanout-lint.toml").write_text('fail-on = "none"\nselect = ["FL1"]\n', encoding="utf-8")
    code, _, err = run(capsys, "check", "broken.yaml", "--fail-on", "warning", "--select", "FL")
    assert code == 1 and "lowers the gate" not in err


def test_isolated_and_config_pin_the_gate(repo, tmp_path, capsys):
    (repo / ".fanout-lint.toml").write_text('fail-on = "none"\n', encoding="utf-8")
    assert run(capsys, "check", "broken.yaml")[0] == 0  # the pull request's file turned the gate off
    code, out, err = run(capsys, "check", "--isolated", "broken.yaml")
    assert code == 1 and "FL201" in out and "lowers the gate" not in err
    gate = tmp_path / "gate.toml"  # as from `git show origin/main:.fanout-lint.toml`
    gate.write_text('select = ["FL2"]\n', encoding="utf-8")
    code, out, err = run(capsys, "check", "--config", str(gate), "broken.yaml")
    assert code == 1 and "FL201" in out
    code, _, err = run(capsys, "check", "--isolated", "--config", str(gate), "broken.yaml")
    assert code == 2 and "--isolated reads no configuration file" in err
    code, out, _ = run(capsys, "graph", "--isolated", "--format", "markdown", "broken.yaml")
    assert code == 0 and "lowers the gate" not in out and "1 finding (1 error)" in out
    code, out, _ = run(capsys, "rules", "--isolated")
    assert code == 0 and "shared-queue" in out


def test_a_configuration_above_the_repository_does_not_govern_it(tmp_path, capsys, monkeypatch):
    (tmp_path / ".fanout-lint.toml").write_text('fail-on = "none"\n', encoding="utf-8")
    work = tmp_path / "checkout"
    (work / ".git").mkdir(parents=True)
    shutil.copy(os.path.join(FIXTURES, "cfn_fires.yaml"), work / "broken.yaml")
    monkeypatch.chdir(work)
    code, out, err = run(capsys, "check", "broken.yaml")
    assert code == 1 and "FL201" in out and "lowers the gate" not in err
    _, out, _ = run(capsys, "check", "--show-settings")
    assert out.startswith("configuration: (none found; defaults)\n")


def test_the_configuration_is_the_one_nearest_each_path(repo, capsys, monkeypatch):
    service = repo / "svc"
    service.mkdir()
    shutil.copy(os.path.join(FIXTURES, "cfn_fires.yaml"), service / "stack.yaml")
    (service / ".fanout-lint.toml").write_text('[severity]\nshared-queue = "warning"\n', encoding="utf-8")
    from_parent = run(capsys, "check", "svc", "--format", "json")
    monkeypatch.chdir(service)
    inside = run(capsys, "check", ".", "--format", "json")
    assert from_parent[0] == inside[0] == 1
    findings = [{k: f[k] for k in ("rule", "severity", "line")} for f in json.loads(from_parent[1])["findings"]]
    assert findings == [{k: f[k] for k in ("rule", "severity", "line")} for f in json.loads(inside[1])["findings"]]
    assert findings == [{"rule": "FL201", "severity": "warning", "line": 5}]
    monkeypatch.chdir(repo)
    _, out, _ = run(capsys, "check", "--show-settings", "svc/stack.yaml")
    assert out.startswith(f"configuration: {service / '.fanout-lint.toml'}\n")
    _, out, _ = run(capsys, "check", "--show-settings", "broken.yaml")
    assert out.startswith("configuration: (none found; defaults)\n")
    # paths with different files: each is linted under its own, and the run says what svc's lowers
    code, out, err = run(capsys, "check", "broken.yaml", "svc/stack.yaml", "--format", "json")
    assert code == 1 and "does not apply" not in err
    assert [(f["file"], f["severity"]) for f in json.loads(out)["findings"]] == [
        ("broken.yaml", "error"), ("svc/stack.yaml", "warning")]
    assert "svc/.fanout-lint.toml:1:1: warning: this configuration lowers the gate" in err


def test_a_near_miss_table_is_a_warning_naming_the_right_one(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copy(os.path.join(FIXTURES, "cfn_fires.yaml"), tmp_path / "t.yaml")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.fanout_lint]\nfail-on = "none"\n',
                                             encoding="utf-8")
    code, _, err = run(capsys, "check", "t.yaml")
    assert code == 1  # the table is not read
    assert f"{tmp_path / 'pyproject.toml'}:4: warning: [tool.fanout_lint] is not read: the table of fanout-lint " \
           "is [tool.fanout-lint]" in err


def test_the_current_directorys_file_above_the_checkout_does_not_govern_it(tmp_path, capsys, monkeypatch):
    # a workspace that holds the checkout: run from the workspace, the path's repository
    # has no file, and the workspace's is above the repository
    (tmp_path / ".fanout-lint.toml").write_text('fail-on = "none"\n', encoding="utf-8")
    work = tmp_path / "checkout"
    (work / ".git").mkdir(parents=True)
    shutil.copy(os.path.join(FIXTURES, "cfn_fires.yaml"), work / "broken.yaml")
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "check", "checkout/broken.yaml")
    assert code == 1 and "FL201" in out and "lowers the gate" not in err
    # a directory beside the repository is the user's own: its file applies, as before
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / ".fanout-lint.toml").write_text('fail-on = "none"\n', encoding="utf-8")
    monkeypatch.chdir(elsewhere)
    code, _, err = run(capsys, "check", str(work / "broken.yaml"))
    assert code == 0 and "lowers the gate" in err
