"""Issue 26: the habits of the ecosystem, each through the real command line.

Stale baseline entries, what -q hides, extend-select / extend-ignore and per-file-ignores
as ruff has them, var files as tflint and checkov take them, standard input as editors
send it, mistyped and misplaced flags, FORCE_COLOR, and graph -o.
"""

from __future__ import annotations

import io
import json
import os
import shutil

import pytest

from fanout_lint.cli.main import main
from repo_paths import ROOT

FIXTURES = os.path.join(ROOT, "tests", "fixtures")
SHARED_QUEUE = os.path.join(FIXTURES, "shared-queue", "cfn_fires.yaml")  # FL201, an error
RAW_DELIVERY = os.path.join(FIXTURES, "raw-delivery-off", "cfn_fires.yaml")  # warnings only


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copy(SHARED_QUEUE, tmp_path / "stack.yaml")
    shutil.copy(RAW_DELIVERY, tmp_path / "topics.yaml")
    return tmp_path


def _rules(out: str) -> set[tuple[str, str]]:
    return {(f["file"], f["rule"]) for f in json.loads(out)["findings"]}


# -- the baseline: stale entries ----------------------------------------------------

def test_stale_baseline_entries_are_counted_with_how_to_drop_them(work, capsys):
    assert run(capsys, ".", "--write-baseline", "baseline.json")[0] == 0
    code, _, err = run(capsys, ".", "--baseline", "baseline.json")
    assert code == 0 and "baseline" not in err.replace("in baseline", "")  # nothing stale yet
    os.remove(work / "topics.yaml")  # its three findings are gone
    code, out, err = run(capsys, ".", "--baseline", "baseline.json")
    assert code == 0 and "1 in baseline" in out
    assert ("fanout-lint: 3 baseline entries match no finding any more (fixed, or the resource is gone); "
            "drop them by rewriting the baseline: --write-baseline baseline.json") in err.splitlines()
    # a run on one file says nothing about the entries of the others
    assert "match no finding" not in run(capsys, "stack.yaml", "--baseline", "baseline.json")[2]
    assert run(capsys, ".", "--baseline", "baseline.json", "-q")[2] == ""
    # rewriting drops them
    run(capsys, ".", "--write-baseline", "baseline.json")
    assert "match no finding" not in run(capsys, ".", "--baseline", "baseline.json")[2]


def test_an_entry_of_a_file_that_could_not_be_linted_is_not_stale(work, capsys):
    run(capsys, ".", "--write-baseline", "baseline.json")
    (work / "topics.yaml").write_text("Resources:\n  Q: [\n", encoding="utf-8")  # now broken
    code, out, err = run(capsys, ".", "--baseline", "baseline.json")
    assert code == 2 and "topics.yaml:" in out and "match no finding" not in err


# -- -q: findings and errors only ---------------------------------------------------

def test_quiet_hides_suppression_notices_and_keeps_errors(work, capsys):
    text = open(SHARED_QUEUE, encoding="utf-8").read()
    (work / "stack.yaml").write_text("# fanout-lint: ignore-file=FL105 -- nothing to hide\n" + text, encoding="utf-8")
    (work / "bad.yaml").write_text("Resources:\n  Q: [\n", encoding="utf-8")
    _, _, err = run(capsys, "stack.yaml", "bad.yaml")
    assert "suppresses nothing" in err
    code, out, err = run(capsys, "stack.yaml", "bad.yaml", "-q")
    assert code == 2 and "suppresses nothing" not in err + out
    assert "bad.yaml:" in out + err and "FL201" in out  # the errors and findings stay


# -- extend-select, extend-ignore, per-file-ignores ---------------------------------

def test_extend_select_adds_to_the_select_in_force(work, capsys):
    (work / ".fanout-lint.toml").write_text('select = ["FL201"]\n', encoding="utf-8")
    assert {r for _, r in _rules(run(capsys, ".", "--format", "json")[1])} == {"FL201"}
    out = run(capsys, ".", "--format", "json", "--extend-select", "raw-delivery-off")[1]
    assert {r for _, r in _rules(out)} == {"FL201", "FL002"}
    (work / ".fanout-lint.toml").write_text('select = ["FL201"]\nextend-select = ["FL0"]\n', encoding="utf-8")
    assert {r for _, r in _rules(run(capsys, ".", "--format", "json")[1])} == {"FL201", "FL002"}
    # as in ruff, --select replaces the file's select and extend-select; --extend-select adds
    assert _rules(run(capsys, ".", "--format", "json", "--select", "FL105")[1]) == set()
    out = run(capsys, ".", "--format", "json", "--select", "FL105", "--extend-select", "FL201")[1]
    assert {r for _, r in _rules(out)} == {"FL201"}


def test_extend_ignore_adds_to_ignore_and_extend_select_takes_it_back(work, capsys):
    (work / ".fanout-lint.toml").write_text('ignore = ["FL201"]\nextend-ignore = ["FL002"]\n', encoding="utf-8")
    code, out, _ = run(capsys, ".", "--format", "json")
    assert code == 0 and _rules(out) == set()
    out = run(capsys, ".", "--format", "json", "--extend-select", "FL201")[1]
    assert {r for _, r in _rules(out)} == {"FL201"}
    (work / ".fanout-lint.toml").unlink()
    out = run(capsys, ".", "--format", "json", "--extend-ignore", "FL0,shared-queue")[1]
    assert _rules(out) == set()


def test_extend_keys_are_validated_like_select(work, capsys):
    (work / ".fanout-lint.toml").write_text('extend-select = ["shared-queu"]\n', encoding="utf-8")
    code, _, err = run(capsys, ".")
    assert code == 2 and "1: unknown rule 'shared-queu' in 'extend-select' (did you mean shared-queue?)" in err
    (work / ".fanout-lint.toml").unlink()
    code, _, err = run(capsys, ".", "--extend-ignore", "FL999")
    assert code == 2 and "unknown rule 'FL999'" in err


def test_per_file_ignores_take_globs_relative_to_the_configuration(work, capsys, monkeypatch):
    (work / "legacy" / "old").mkdir(parents=True)
    shutil.copy(SHARED_QUEUE, work / "legacy" / "old" / "stack.yaml")
    (work / ".fanout-lint.toml").write_text(
        '[per-file-ignores]\n"legacy/**" = ["shared-queue"]\n"topics.yaml" = ["FL0"]\n', encoding="utf-8")
    out = run(capsys, ".", "--format", "json")[1]
    assert _rules(out) == {("stack.yaml", "FL201")}
    monkeypatch.chdir(work / "legacy")  # the globs stay relative to the file's directory
    code, out, _ = run(capsys, ".", "--format", "json")
    assert code == 0 and _rules(out) == set()
    monkeypatch.chdir(work)
    (work / ".fanout-lint.toml").write_text('[per-file-ignores]\n"*.yaml" = ["FL201"]\n', encoding="utf-8")
    assert {r for _, r in _rules(run(capsys, ".", "--format", "json")[1])} == {"FL002"}  # by file name
    show = run(capsys, "--show-settings")[1]
    assert "per-file-ignores: *.yaml = FL201" in show


def test_per_file_ignores_must_name_rules(work, capsys):
    (work / ".fanout-lint.toml").write_text('[per-file-ignores]\n"legacy/**" = ["shraed-queue"]\n')
    code, _, err = run(capsys, ".")
    assert code == 2 and "unknown rule 'shraed-queue' in 'legacy/**' (did you mean shared-queue?)" in err
    (work / ".fanout-lint.toml").write_text('per-file-ignores = ["legacy/**"]\n')
    code, _, err = run(capsys, ".")
    assert code == 2 and "'per-file-ignores' must be a table" in err


def test_glob_matching():
    from fanout_lint.policy.file_ignores import matches

    assert matches("legacy/**", "legacy/a/b.tf") and matches("legacy/*", "legacy/a/b.tf")
    assert matches("**/generated/*.json", "generated/x.json") and matches("**/generated/*.json", "a/generated/x.json")
    assert matches("*.tf", "deep/dir/main.tf") and matches("./infra/*", "infra/main.tf")
    assert not matches("legacy/**", "other/legacy.yaml") and not matches("infra/*.tf", "main.tf")
    assert not matches("*" * 40 + "x", "a" * 200)  # no pattern backtracks without bound


# -- var files ------------------------------------------------------------------------

VISIBILITY_TF = """\
variable "visibility" {}

resource "aws_sqs_queue" "jobs" {
  visibility_timeout_seconds = var.visibility
  redrive_policy             = jsonencode({ deadLetterTargetArn = aws_sqs_queue.jobs_dlq.arn, maxReceiveCount = 5 })
}

resource "aws_sqs_queue" "jobs_dlq" {
  message_retention_seconds = 1209600
}

resource "aws_lambda_function" "jobs" {
  function_name = "jobs"
  timeout       = 60
}

resource "aws_lambda_event_source_mapping" "jobs" {
  event_source_arn        = aws_sqs_queue.jobs.arn
  function_name           = aws_lambda_function.jobs.arn
  function_response_types = ["ReportBatchItemFailures"]
}
"""


@pytest.fixture
def tf(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "infra").mkdir()
    (tmp_path / "infra" / "main.tf").write_text(VISIBILITY_TF, encoding="utf-8")
    (tmp_path / "envs").mkdir()
    (tmp_path / "envs" / "prod.tfvars").write_text("visibility = 30\n", encoding="utf-8")
    (tmp_path / "envs" / "big.tfvars.json").write_text('{"visibility": 600}\n', encoding="utf-8")
    return tmp_path


def _fl202(out: str) -> int:
    return sum(1 for f in json.loads(out)["findings"] if f["rule"] == "FL202")


def test_a_var_file_gives_known_values(tf, capsys):
    assert _fl202(run(capsys, "infra", "--format", "json")[1]) == 0  # unknown: silent
    code, out, _ = run(capsys, "infra", "--format", "json", "--var-file", "envs/prod.tfvars")
    assert code == 1 and _fl202(out) == 1
    # later files win, as with terraform's -var-file
    out = run(capsys, "infra", "--format", "json", "--var-file", "envs/prod.tfvars", "--var-file",
              "envs/big.tfvars.json")[1]
    assert _fl202(out) == 0
    out = run(capsys, "infra", "--format", "json", "--var-file", "envs/big.tfvars.json", "--var-file",
              "envs/prod.tfvars")[1]
    assert _fl202(out) == 1


def test_var_files_come_after_the_directorys_own_tfvars(tf, capsys):
    (tf / "infra" / "terraform.tfvars").write_text("visibility = 600\n", encoding="utf-8")
    (tf / "infra" / "z.auto.tfvars").write_text("visibility = 900\n", encoding="utf-8")
    assert _fl202(run(capsys, "infra", "--format", "json")[1]) == 0
    assert _fl202(run(capsys, "infra", "--format", "json", "--var-file", "envs/prod.tfvars")[1]) == 1


def test_var_files_in_the_configuration_are_relative_to_it(tf, capsys, monkeypatch):
    (tf / ".fanout-lint.toml").write_text('var-files = ["envs/prod.tfvars"]\n', encoding="utf-8")
    monkeypatch.chdir(tf / "infra")
    assert _fl202(run(capsys, ".", "--format", "json")[1]) == 1
    assert "var-files: " in run(capsys, "--show-settings")[1]
    # the flag's files come after the configuration's
    assert _fl202(run(capsys, ".", "--format", "json", "--var-file", "../envs/big.tfvars.json")[1]) == 0


def test_a_var_file_that_cannot_be_read_is_one_error(tf, capsys):
    code, out, err = run(capsys, "infra", "--var-file", "envs/missing.tfvars")
    assert code == 2 and out == ""
    assert err == "fanout-lint: error: --var-file: cannot read envs/missing.tfvars: No such file or directory\n"
    code, _, err = run(capsys, "infra", "--var-file", "envs")
    assert code == 2 and "envs is not a regular file" in err
    (tf / "envs" / "bad.tfvars").write_text("visibility = [\n", encoding="utf-8")
    code, out, _ = run(capsys, "infra", "--var-file", "envs/bad.tfvars")
    assert code == 2 and "envs/bad.tfvars:" in out  # a parse error of the file, with its line


def test_a_configuration_names_no_var_file_outside_the_repository(tf, capsys, tmp_path_factory):
    outside = tmp_path_factory.mktemp("elsewhere") / "secret.tfvars"
    outside.write_text("visibility = 30\n", encoding="utf-8")
    (tf / ".git").mkdir()
    (tf / ".fanout-lint.toml").write_text(f'var-files = ["{outside}"]\n', encoding="utf-8")
    code, _, err = run(capsys, "infra")
    assert code == 2 and "is outside the repository" in err
    (tf / ".fanout-lint.toml").write_text("", encoding="utf-8")
    assert run(capsys, "infra", "--var-file", str(outside))[0] == 1  # the user's own flag may


# -- standard input -------------------------------------------------------------------

def _stdin(monkeypatch, data: bytes) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))


def test_standard_input_is_linted_as_the_file_it_names(work, capsys, monkeypatch):
    _stdin(monkeypatch, open(RAW_DELIVERY, "rb").read())  # stack.yaml on disk has FL201 instead
    code, out, _ = run(capsys, "check", "--stdin-filename", "stack.yaml", "-", "--format", "json")
    assert code == 1 and _rules(out) == {("stack.yaml", "FL002")}
    assert open(work / "stack.yaml", encoding="utf-8").read() == open(SHARED_QUEUE, encoding="utf-8").read()


def test_a_tf_file_on_standard_input_is_linted_in_its_directory(tf, capsys, monkeypatch):
    # the variable is declared in another file of the directory, and given by its tfvars
    (tf / "infra" / "variables.tf").write_text('variable "visibility" {}\n', encoding="utf-8")
    (tf / "infra" / "terraform.tfvars").write_text("visibility = 30\n", encoding="utf-8")
    (tf / "infra" / "main.tf").write_text("# being written\n", encoding="utf-8")
    assert _fl202(run(capsys, "infra", "--format", "json")[1]) == 0
    _stdin(monkeypatch, VISIBILITY_TF.replace('variable "visibility" {}\n', "").encode())
    code, out, _ = run(capsys, "--stdin-filename", "infra/main.tf", "-", "--format", "json")
    assert code == 1 and [f["file"] for f in json.loads(out)["findings"] if f["rule"] == "FL202"] == ["infra/main.tf"]


def test_standard_input_is_bounded_like_a_file(tf, capsys, monkeypatch):
    from fanout_lint.files.regular_files import HCL_FILE_BYTES

    _stdin(monkeypatch, b"#" * (HCL_FILE_BYTES + 1))
    code, out, err = run(capsys, "--stdin-filename", "infra/main.tf", "-")
    assert code == 2 and out == ""
    assert err == "fanout-lint: error: infra/main.tf: standard input is larger than 512 KiB, the limit for this file\n"


@pytest.mark.parametrize("argv, message", [
    (["-"], "reading standard input (-) needs --stdin-filename PATH"),
    (["--stdin-filename", "stack.yaml"], "give - as the only path"),
    (["--stdin-filename", "stack.yaml", "-", "topics.yaml"], "give - as the only path"),
    (["--stdin-filename", "stack.yaml", "-", "--fix"], "--fix would write standard input's text over the file"),
    (["--stdin-filename", "nowhere.yaml", "-"], "--stdin-filename: nowhere.yaml: No such file or directory"),
    (["--stdin-filename", ".", "-"], "--stdin-filename: . is not a regular file"),
])
def test_standard_input_requests_that_cannot_run(work, capsys, monkeypatch, argv, message):
    _stdin(monkeypatch, b"")
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and message in err and len(err.splitlines()) == 1


def test_standard_input_names_no_file_outside_the_repository(work, capsys, monkeypatch, tmp_path_factory):
    outside = tmp_path_factory.mktemp("elsewhere") / "stack.yaml"
    shutil.copy(SHARED_QUEUE, outside)
    os.symlink(outside, work / "link.yaml")  # a link inside pointing outside is outside too
    (work / ".git").mkdir()
    for name in (str(outside), "link.yaml"):
        _stdin(monkeypatch, b"")
        code, _, err = run(capsys, "--stdin-filename", name, "-")
        # outside, or through a link (confine.py): refused either way
        assert code == 2 and ("is outside the repository" in err or "is a symbolic link" in err)


def test_diff_of_standard_input_is_against_the_text_sent(work, capsys, monkeypatch):
    _stdin(monkeypatch, open(RAW_DELIVERY, "rb").read())
    code, out, _ = run(capsys, "--stdin-filename", "stack.yaml", "-", "--diff", "--unsafe-fixes")
    assert code == 1 and out.startswith("--- stack.yaml\n+++ stack.yaml\n") and "+      RawMessageDelivery: true" in out
    assert open(work / "stack.yaml", encoding="utf-8").read() == open(SHARED_QUEUE, encoding="utf-8").read()


# -- flags: mistyped, misplaced; colour; graph -o ----------------------------------

@pytest.mark.parametrize("argv, hint", [
    (["--selct", "FL201"], "unrecognized arguments: --selct (did you mean --select?)"),
    (["check", "--extend-selct=FL2"], "unrecognized arguments: --extend-selct=FL2 (did you mean --extend-select?)"),
    (["--ignroe", "x", "--baselnie", "b.json"],
     "(--ignroe: did you mean --ignore?; --baselnie: did you mean --baseline?)"),
    (["graph", "--hosp", "1"], "unrecognized arguments: --hosp (did you mean --hops?)"),
])
def test_a_mistyped_flag_gets_the_nearest_one(work, capsys, argv, hint):
    with pytest.raises(SystemExit) as exit:
        main(argv)
    err = capsys.readouterr().err
    last = err.splitlines()[-1]
    assert exit.value.code == 2 and last.startswith("fanout-lint: error: unrecognized arguments: ")
    assert last.endswith(hint)


def test_a_flag_far_from_every_flag_gets_no_guess(work, capsys):
    with pytest.raises(SystemExit):
        main(["--zzzzzz"])
    assert capsys.readouterr().err.splitlines()[-1] == "fanout-lint: error: unrecognized arguments: --zzzzzz"


def test_flags_that_do_not_apply_are_errors(work, capsys):
    code, out, err = run(capsys, "graph", "stack.yaml", "--hops", "1")
    assert code == 2 and out == "" and err == (
        "fanout-lint: error: --hops applies only with --focus RESOURCE (the whole topology is drawn otherwise)\n")
    assert run(capsys, "graph", "stack.yaml", "--focus", "OrdersQueue", "--hops", "1")[0] == 0
    code, out, err = run(capsys, "--show-settings", "--format", "json")
    assert code == 2 and out == "" and "--show-settings prints text only" in err
    code, out, err = run(capsys, "stack.yaml", "--write-baseline", "b.json", "-o", "report.txt")
    assert code == 2 and "run it without --output" in err and not os.path.exists("b.json")


def test_force_color_colours_a_pipe_and_no_color_wins(work, capsys, monkeypatch):
    for name in ("NO_COLOR", "FORCE_COLOR", "TERM"):
        monkeypatch.delenv(name, raising=False)
    assert "\x1b[" not in run(capsys, "stack.yaml")[1]  # captured: no terminal
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert "\x1b[" in run(capsys, "stack.yaml")[1]
    monkeypatch.setenv("TERM", "dumb")
    assert "\x1b[" in run(capsys, "stack.yaml")[1]  # forced is forced
    assert "\x1b[" not in run(capsys, "stack.yaml", "--color", "never")[1]  # the flag wins
    assert "\x1b[" not in open_report(capsys, work)  # a report file stays plain
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in run(capsys, "stack.yaml")[1]
    assert "\x1b[" in run(capsys, "stack.yaml", "--color", "always")[1]
    monkeypatch.setenv("NO_COLOR", "")  # empty: as if unset
    assert "\x1b[" in run(capsys, "stack.yaml")[1]


def open_report(capsys, work) -> str:
    run(capsys, "stack.yaml", "-o", "report.txt")
    return (work / "report.txt").read_text(encoding="utf-8")


def test_graph_writes_to_a_file(work, capsys):
    code, out, _ = run(capsys, "graph", "stack.yaml")
    assert code == 0 and out.startswith("flowchart")
    code, printed, err = run(capsys, "graph", "stack.yaml", "-o", "topology.mmd")
    assert code == 0 and printed == "" and err == ""
    assert (work / "topology.mmd").read_text(encoding="utf-8") == out
    code, _, err = run(capsys, "graph", "stack.yaml", "--output", "stack.yaml/x.mmd")
    assert code == 2 and err.startswith("fanout-lint: error: cannot write stack.yaml/x.mmd: ")


def test_graph_reads_the_configurations_var_files_within_the_repository(tf, capsys, tmp_path_factory):
    (tf / ".fanout-lint.toml").write_text('var-files = ["envs/prod.tfvars"]\n', encoding="utf-8")
    code, out, _ = run(capsys, "graph", "infra", "--format", "json")
    assert code == 0 and any(f["rule"] == "FL202" for f in json.loads(out)["findings"])
    outside = tmp_path_factory.mktemp("elsewhere") / "x.tfvars"
    outside.write_text("visibility = 30\n", encoding="utf-8")
    (tf / ".git").mkdir()
    (tf / ".fanout-lint.toml").write_text(f'var-files = ["{outside}"]\n', encoding="utf-8")
    code, out, err = run(capsys, "graph", "infra")
    assert code == 2 and out == "" and "is outside the repository" in err


def test_quiet_hides_configuration_warnings_too(work, capsys):
    _, _, err = run(capsys, "stack.yaml", "--ignore", "sns-to-kms-managed-key")
    assert "fanout-lint: warning: rule 'sns-to-kms-managed-key' is now named" in err
    code, out, err = run(capsys, "stack.yaml", "--ignore", "sns-to-kms-managed-key", "-q")
    assert code == 1 and err == "" and "FL201" in out
