"""``--fix``, ``--unsafe-fixes`` and ``--diff`` around the edits themselves (those are
tests/fix_cases/): what is marked, what is not fixed, stale files, the diff, exit codes."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from hypothesis import given, settings, strategies as st
import properties  # noqa: F401  (Hypothesis's profile, before the first @settings)

import fanout_lint.cli.main
import fanout_lint.run.engine
from fanout_lint.cli.main import main
from fanout_lint.results.records import Edit
from fanout_lint.fixes.apply import prepare
from fanout_lint.fixes.sources import digest
from repo_paths import TESTS

CASES = os.path.join(TESTS, "fix_cases")

# One safe fix (VisibilityTimeout) and one unsafe fix (FunctionResponseTypes).
TEMPLATE = """\
Resources:
  Queue:
    Type: AWS::SQS::Queue
    Properties:
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

DIFF = """\
--- stack.yaml
+++ stack.yaml
@@ -2,7 +2,7 @@
   Queue:
     Type: AWS::SQS::Queue
     Properties:
-      VisibilityTimeout: 30
+      VisibilityTimeout: 360
       RedrivePolicy: {deadLetterTargetArn: !GetAtt DLQ.Arn, maxReceiveCount: 5}
   DLQ:
     Type: AWS::SQS::Queue
"""


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(["check", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def stack(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "stack.yaml"
    path.write_text(TEMPLATE, encoding="utf-8")
    return path


def test_the_report_marks_what_fix_would_apply_and_counts_the_rest(stack, capsys):
    code, out, _ = run(capsys, "stack.yaml")
    lines = out.splitlines()
    assert code == 1
    assert any(line.startswith("stack.yaml:5:7: FL202 [*] [error] ") for line in lines)
    assert any(line.startswith("stack.yaml:15:3: FL204 [warning] ") for line in lines)  # unsafe: unmarked
    assert lines[-1] == "2 findings (1 error, 1 warning); 1 unit checked; [*] 1 fixable with --fix; " \
                        "1 more with --fix --unsafe-fixes"
    _, out, _ = run(capsys, "stack.yaml", "--unsafe-fixes")
    lines = out.splitlines()
    assert any(line.startswith("stack.yaml:15:3: FL204 [*] [warning] ") for line in lines)
    assert lines[-1].endswith("; [*] 2 fixable with --fix --unsafe-fixes")
    assert stack.read_text(encoding="utf-8") == TEMPLATE  # marking writes nothing


def test_fix_applies_the_safe_fixes_and_reports_what_is_left(stack, capsys):
    code, out, err = run(capsys, "stack.yaml", "--fix")
    assert code == 1  # FL204 is left: its fix is unsafe
    assert stack.read_text(encoding="utf-8") == TEMPLATE.replace("VisibilityTimeout: 30", "VisibilityTimeout: 360")
    assert [line.split(" ")[1] for line in out.splitlines()[:-1]] == ["FL204"]
    assert err == "fanout-lint: fixed 1 finding in 1 file; 1 more with --unsafe-fixes\n"
    code, out, err = run(capsys, "stack.yaml", "--fix", "--unsafe-fixes")
    assert code == 0 and out == "0 findings; 1 unit checked\n"
    assert err == "fanout-lint: fixed 1 finding in 1 file\n"
    assert stack.read_text(encoding="utf-8").endswith(
        "      FunctionName: !Ref Worker\n      FunctionResponseTypes: [ReportBatchItemFailures]\n")


def test_diff_prints_what_fix_would_change_and_writes_nothing(stack, capsys):
    code, out, err = run(capsys, "stack.yaml", "--diff")
    assert (code, out) == (1, DIFF)
    assert err == "fanout-lint: would fix 1 finding in 1 file; 1 more with --unsafe-fixes\n"
    assert stack.read_text(encoding="utf-8") == TEMPLATE
    code, out, err = run(capsys, "stack.yaml", "--diff", "--fix", "--unsafe-fixes")  # --diff never writes
    assert code == 1 and out.startswith(DIFF) and "+      FunctionResponseTypes: [ReportBatchItemFailures]\n" in out
    assert err == "fanout-lint: would fix 2 findings in 1 file\n"
    assert stack.read_text(encoding="utf-8") == TEMPLATE
    run(capsys, "stack.yaml", "--fix", "--unsafe-fixes")
    code, out, err = run(capsys, "stack.yaml", "--diff")
    assert (code, out, err) == (0, "", "fanout-lint: would fix 0 findings in 0 files\n")


def test_diff_can_go_to_a_file(stack, capsys):
    code, out, err = run(capsys, "stack.yaml", "--diff", "--output", "fix.diff")
    assert (code, out) == (1, "") and err.startswith("fanout-lint: would fix 1 finding")
    assert open("fix.diff", encoding="utf-8").read() == DIFF
    assert stack.read_text(encoding="utf-8") == TEMPLATE


def test_diff_marks_a_last_line_without_a_break_and_escapes_invisible_characters(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = TEMPLATE.replace("Queue:\n    Type: AWS::SQS::Queue\n    Properties:\n",
                            "Queue:\n    Type: AWS::SQS::Queue\n    Properties:  # \u202eevil\n", 1).rstrip("\n")
    (tmp_path / "stack.yaml").write_text(text, encoding="utf-8")
    code, out, _ = run(capsys, "stack.yaml", "--diff", "--unsafe-fixes")
    assert code == 1 and "\u202e" not in out and "     Properties:  # \\u202eevil\n" in out
    assert out.endswith("-      FunctionName: !Ref Worker\n\\ No newline at end of file\n"
                        "+      FunctionName: !Ref Worker\n"
                        "+      FunctionResponseTypes: [ReportBatchItemFailures]\n\\ No newline at end of file\n")


def test_a_file_changed_since_it_was_read_is_not_written(stack, capsys, monkeypatch):
    lint_paths = fanout_lint.run.engine.lint_paths

    def lint_then_edit(*args, **kwargs):
        result = lint_paths(*args, **kwargs)
        stack.write_text("# edited meanwhile\n" + TEMPLATE, encoding="utf-8")
        return result

    monkeypatch.setattr(fanout_lint.cli.main, "lint_paths", lint_then_edit)  # the command line's own name
    code, out, err = run(capsys, "stack.yaml", "--fix")
    assert code == 2
    assert stack.read_text(encoding="utf-8") == "# edited meanwhile\n" + TEMPLATE
    assert out.splitlines()[0] == "stack.yaml: error: changed since it was read; not fixed"
    assert err == "fanout-lint: fixed 0 findings in 0 files; 1 more with --unsafe-fixes\n"


def test_edits_that_would_leave_a_file_unparseable_are_not_made(tmp_path):
    path = tmp_path / "stack.yaml"
    path.write_text(TEMPLATE, encoding="utf-8")
    broken = Edit(str(path), 5, 26, 5, 28, "[360")
    changes, errors = prepare({str(path): [broken]}, {str(path): digest(TEMPLATE)})
    assert changes == []
    (error,) = errors
    assert error.message.startswith("the fixes would make it unparseable (invalid YAML: ") and error.line is None


def test_parameter_variable_and_conditional_values_get_no_fix(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "unit").mkdir()
    (tmp_path / "unit" / "main.tf").write_text("""\
variable "visibility" {
  default = 30
}
variable "prod" {}

resource "aws_sqs_queue" "from_variable" {
  visibility_timeout_seconds = var.visibility
}

resource "aws_sqs_queue" "conditional" {
  visibility_timeout_seconds = var.prod ? 20 : 30
}

resource "aws_lambda_function" "worker" {
  timeout = 60
}
""" + "".join(f"""
resource "aws_lambda_event_source_mapping" "{name}" {{
  event_source_arn        = aws_sqs_queue.{name}.arn
  function_name           = aws_lambda_function.worker.arn
  function_response_types = ["ReportBatchItemFailures"]
}}
""" for name in ("from_variable", "conditional")), encoding="utf-8")
    shutil.copyfile(os.path.join(CASES, "yaml-not-fixable", "input.yaml"), tmp_path / "stack.yaml")
    _, out, _ = run(capsys, ".", "--format", "json")
    findings = json.loads(out)["findings"]
    timeouts = [f for f in findings if f["rule"] == "FL202"]
    assert len(timeouts) == 6 and not [f for f in findings if "fix" in f]
    before = {p: p.read_bytes() for p in (tmp_path / "unit" / "main.tf", tmp_path / "stack.yaml")}
    code, _, err = run(capsys, ".", "--fix", "--unsafe-fixes")
    assert code == 1 and err == "fanout-lint: fixed 0 findings in 0 files\n"
    assert {p: p.read_bytes() for p in before} == before


def test_suppressed_and_baselined_findings_are_not_fixed(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    suppressed = TEMPLATE.replace(
        "  Queue:\n    Type: AWS::SQS::Queue\n",
        "  Queue:\n    Type: AWS::SQS::Queue\n    Metadata:\n      fanout-lint:\n"
        "        ignore: [FL202]\n        reason: sized by the platform team\n", 1)
    (tmp_path / "suppressed.yaml").write_text(suppressed, encoding="utf-8")
    (tmp_path / "baselined.yaml").write_text(TEMPLATE, encoding="utf-8")
    assert run(capsys, "baselined.yaml", "--write-baseline", "baseline.json")[0] == 0
    code, out, err = run(capsys, "suppressed.yaml", "baselined.yaml", "--baseline", "baseline.json",
                         "--fix", "--unsafe-fixes")
    assert (tmp_path / "baselined.yaml").read_text(encoding="utf-8") == TEMPLATE
    fixed = (tmp_path / "suppressed.yaml").read_text(encoding="utf-8")
    assert "VisibilityTimeout: 30\n" in fixed and "FunctionResponseTypes: [ReportBatchItemFailures]" in fixed
    assert code == 0 and out.startswith("0 findings; 2 units checked; 1 suppressed inline; 2 in baseline")
    assert err == "fanout-lint: fixed 1 finding in 1 file\n"


def test_generated_and_linked_files_are_never_edited(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for case in ("cdk-output", "plan-json"):
        shutil.copyfile(os.path.join(CASES, case, "input.json"), tmp_path / f"{case}.json")
    (tmp_path / "real.yaml").write_text(TEMPLATE, encoding="utf-8")
    (tmp_path / "linked").mkdir()
    os.symlink(tmp_path / "real.yaml", tmp_path / "linked" / "stack.yaml")
    before = {p: p.read_bytes() for p in tmp_path.glob("*.json")}
    code, out, err = run(capsys, "cdk-output.json", "plan-json.json", "linked/stack.yaml", "--fix")
    assert {p: p.read_bytes() for p in before} == before
    assert (tmp_path / "real.yaml").read_text(encoding="utf-8") == TEMPLATE
    assert os.path.islink(tmp_path / "linked" / "stack.yaml")
    # named on the command line, the link is refused before anything is read (confine.py)
    assert code == 2 and ("linked/stack.yaml: error: not read: a symbolic link (fanout-lint follows no "
                          "symbolic link inside a repository)") in out.splitlines()
    assert err.startswith("fanout-lint: fixed 0 findings in 0 files")


def test_fix_in_parallel_workers_fixes_every_unit(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for i in range(3):
        (tmp_path / f"stack{i}.yaml").write_text(TEMPLATE, encoding="utf-8")
    code, _, err = run(capsys, ".", "--fix", "-j", "2")
    assert code == 1 and err.startswith("fanout-lint: fixed 3 findings in 3 files")
    assert all("VisibilityTimeout: 360\n" in (tmp_path / f"stack{i}.yaml").read_text(encoding="utf-8")
               for i in range(3))


def test_fix_cannot_be_combined_with_write_baseline(stack, capsys):
    code, _, err = run(capsys, "stack.yaml", "--fix", "--write-baseline", "b.json")
    assert code == 2 and "cannot be combined" in err
    assert stack.read_text(encoding="utf-8") == TEMPLATE and not os.path.exists("b.json")


def test_json_output_documents_each_fix(stack, capsys):
    _, out, _ = run(capsys, "stack.yaml", "--format", "json")
    fixes = {f["rule"]: f["fix"] for f in json.loads(out)["findings"]}
    assert fixes["FL202"] == {
        "description": "VisibilityTimeout: 360", "title": "Set VisibilityTimeout to 360", "applicability": "safe",
        "edits": [{"file": "stack.yaml", "line": 5, "column": 26, "end_line": 5, "end_column": 28,
                   "content": "360"}],
    }
    assert fixes["FL204"]["applicability"] == "unsafe"
    assert fixes["FL204"]["edits"][0]["content"] == "\n      FunctionResponseTypes: [ReportBatchItemFailures]"


def _finding(edits):
    from fanout_lint.results.records import Finding, FindingFix, Severity
    from fanout_lint.model.nodes import Loc
    from fanout_lint.rule import Applicability

    fix = FindingFix("d", "Set d", Applicability.SAFE, tuple(edits))
    return Finding("FL202", "x", Severity.ERROR, "m", "Q", Loc("f", 1, 1), fix=fix)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 3), st.integers(1, 4), st.integers(0, 2), st.integers(0, 3),
                          st.sampled_from(["a", "b"])), max_size=12))
def test_selection_takes_the_first_of_overlapping_fixes_in_finding_order(spans):
    from fanout_lint.fixes.select import overlaps, select

    findings = [_finding([Edit("f", line, column, line + lines, column + width if not lines else width + 1, text)])
                for line, column, lines, width, text in spans]
    selection = select(findings, unsafe=False)
    kinds = {id(f): kind for kind in ("chosen", "duplicates", "waiting") for f in getattr(selection, kind)}
    taken: list = []  # the rule, checked the slow way: each fix against every one taken before it
    for finding in findings:
        (edit,) = finding.fix.edits
        if any(finding.fix.edits == other.fix.edits for other in taken):
            assert kinds[id(finding)] == "duplicates"
        elif any(overlaps(edit, other.fix.edits[0]) for other in taken):
            assert kinds[id(finding)] == "waiting"
        else:
            assert kinds[id(finding)] == "chosen"
            taken.append(finding)
    assert len(selection.chosen) + len(selection.duplicates) + len(selection.waiting) == len(findings)


def test_diff_shows_the_first_round_and_counts_what_overlaps_it(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copyfile(os.path.join(CASES, "yaml-overlap-two-rounds", "input.yaml"), tmp_path / "stack.yaml")
    code, out, err = run(capsys, "stack.yaml", "--diff")
    added = [line for line in out.splitlines() if line.startswith("+") and not line.startswith("+++")]
    assert code == 1 and added == ["+    Properties:", "+      MessageRetentionPeriod: 1209600"]
    assert err == "fanout-lint: would fix 1 finding in 1 file; 1 more overlap them and take a second round of --fix\n"


def test_words_and_digits_are_literals_without_a_yaml_parse():
    # what render._yaml_literal takes as literal without PyYAML: YAML reads each as a scalar
    import yaml

    from fanout_lint.fixes.render import _PLAIN_WORD_OR_DIGITS, _scalars

    for text in ("30", "0", "0123", "08", "1209600", "true", "False", "no", "Off", "null", "NULL", "y",
                 "sqs", "ReportBatchItemFailures", "a-b_c", "x1"):
        assert _PLAIN_WORD_OR_DIGITS.match(text)
        for column in (1, 7):
            assert _scalars(yaml.safe_load(" " * (column - 1) + text))
    for text in ("1.5", "-1", "2024-01-01", "=", "<<", "a b", "a:b", "30 ", "a\n", ".inf", "~"):
        assert not _PLAIN_WORD_OR_DIGITS.match(text)


SHARED = """\
Defaults: &function
  Timeout: 900
QueueDefaults: &queue
  VisibilityTimeout: 900
Resources:
  Worker:
    Type: AWS::Lambda::Function
    Properties:
      <<: *function
  Short:
    Type: AWS::Lambda::Function
    Properties: {Timeout: 60}
  Merged:
    Type: AWS::SQS::Queue
    Properties:
      <<: *queue
  Explicit:
    Type: AWS::SQS::Queue
    Properties:
      VisibilityTimeout: 360
  Anchored:
    Type: AWS::SQS::Queue
    Properties: &anchored
      VisibilityTimeout: 30
  Aliased:
    Type: AWS::SQS::Queue
    Properties: *anchored
  InlineMerge:
    Type: AWS::SQS::Queue
    Properties:
      <<: [{VisibilityTimeout: 30}, *queue]
  Overridden:
    Type: AWS::SQS::Queue
    Properties:
      <<: *queue
      VisibilityTimeout: 45
""" + "".join(f"""\
  {queue}Mapping:
    Type: AWS::Lambda::EventSourceMapping
    Properties:
      EventSourceArn: !GetAtt {queue}.Arn
      FunctionName: !Ref {function}
      FunctionResponseTypes: [ReportBatchItemFailures]
""" for queue, function in (("Merged", "Short"), ("Explicit", "Worker"), ("Anchored", "Short"),
                            ("Aliased", "Short"), ("InlineMerge", "Short"), ("Overridden", "Short")))


def test_merge_keys_are_read_and_no_fix_goes_through_an_anchor_alias_or_merge_key(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "stack.yaml"
    path.write_text(SHARED, encoding="utf-8")
    _, out, _ = run(capsys, "stack.yaml", "--format", "json")
    timeouts = {f["resource"]: f for f in json.loads(out)["findings"] if f["rule"] in ("FL202", "FL203")}
    # the merged 900 s is read: Merged's queue is long enough, Explicit's 360 s is below Worker's 900 s
    assert "Merged" not in timeouts
    assert "Timeout 900 s of Worker" in timeouts["Explicit"]["message"]
    assert timeouts["Explicit"]["fix"]["edits"][0]["content"] == "5400"
    # the first mapping of a merged sequence wins (30 s), an explicit key wins over any merge (45 s)
    assert "VisibilityTimeout 30 s of InlineMerge" in timeouts["InlineMerge"]["message"]
    assert "VisibilityTimeout 45 s of Overridden" in timeouts["Overridden"]["message"]
    # what an anchor, an alias or a merge key shares is not fixed; what is written in place is
    assert {name for name, f in timeouts.items() if "fix" in f} == {"Explicit", "Overridden"}
    assert {"Anchored", "Aliased", "InlineMerge"} <= set(timeouts)
    code, _, err = run(capsys, "stack.yaml", "--fix")
    assert err == "fanout-lint: fixed 2 findings in 1 file\n"
    fixed = path.read_text(encoding="utf-8")
    assert fixed == SHARED.replace("VisibilityTimeout: 360", "VisibilityTimeout: 5400").replace(
        "VisibilityTimeout: 45", "VisibilityTimeout: 360")


def test_a_literal_past_the_aws_maximum_is_unknown_so_no_finding_and_no_fix(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "stack.yaml"
    # a 34-digit timeout (FL202 would ask for 35 digits), a source retention past 14 days
    # (FL103 would ask for a longer DLQ retention than SQS allows)
    path.write_text(TEMPLATE.replace("Timeout: 60", "Timeout: 1234567890123456789012345678901234")
                    .replace("VisibilityTimeout: 30\n", "VisibilityTimeout: 30\n      MessageRetentionPeriod: 1209601\n"),
                    encoding="utf-8")
    code, out, _ = run(capsys, "stack.yaml", "--format", "json")
    findings = json.loads(out)["findings"]
    assert {f["rule"] for f in findings} == {"FL204"}  # no timeout or retention finding rests on them
    code, out, err = run(capsys, "stack.yaml", "--diff")
    assert out == ""


@pytest.mark.parametrize("timeout, known", [(900, True), (901, False), (10**6, False), (1, True)])
def test_a_function_timeout_is_known_within_the_lambda_range_only(tmp_path, capsys, monkeypatch, timeout, known):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "stack.yaml").write_text(TEMPLATE.replace("Timeout: 60", f"Timeout: {timeout}")
                                         .replace("VisibilityTimeout: 30", "VisibilityTimeout: 0"), encoding="utf-8")
    _, out, _ = run(capsys, "stack.yaml", "--format", "json")
    assert any(f["rule"] == "FL202" for f in json.loads(out)["findings"]) is known


@pytest.mark.parametrize("value, planned", [(43_200, True), (43_201, False), (10**34, False)])
def test_no_fix_writes_a_value_past_the_aws_maximum(tmp_path, value, planned):
    from fanout_lint.run.discover import discover
    from fanout_lint.fixes import Planner
    from fanout_lint.loaders import load_candidate
    from fanout_lint.model.nodes import Queue
    from fanout_lint.rule import Applicability, Fix

    path = tmp_path / "stack.yaml"
    path.write_text(TEMPLATE, encoding="utf-8")
    (candidate,), _ = discover([str(path)], ())
    (graph,), _ = load_candidate(candidate)
    queue = next(q for q in graph.all(Queue) if q.id == "Queue")
    assert (Planner(graph).plan(queue, Fix("visibility_timeout", value, Applicability.SAFE)) is not None) is planned
