"""Baseline files and the fingerprints behind them: stable across moved lines and CDK re-synthesis."""

from __future__ import annotations

import json
import os

from fanout_lint.cli.main import main
from fanout_lint.run.engine import lint_paths
from fanout_lint.policy.fingerprint import fingerprint
from fanout_lint.rules import ALL_RULES
from fanout_lint.policy.settings import Settings
from repo_paths import TESTS

CFN = os.path.join(TESTS, "fixtures", "shared-queue", "cfn_fires.yaml")
CDK = os.path.join(TESTS, "fixtures", "shared-queue", "cdk_fires.json")

SECOND_SHARED_QUEUE = """\
  # a second queue read by two functions: a new finding
  AuditQueue:
    Type: AWS::SQS::Queue
    Properties:
      RedrivePolicy:
        deadLetterTargetArn: !GetAtt OrdersDLQ.Arn
        maxReceiveCount: 5
  AuditMappingA:
    Type: AWS::Lambda::EventSourceMapping
    Properties:
      EventSourceArn: !GetAtt AuditQueue.Arn
      FunctionName: !Ref EmailFunction
      FunctionResponseTypes: [ReportBatchItemFailures]
  AuditMappingB:
    Type: AWS::Lambda::EventSourceMapping
    Properties:
      EventSourceArn: !GetAtt AuditQueue.Arn
      FunctionName: !Ref StockFunction
      FunctionResponseTypes: [ReportBatchItemFailures]
"""


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def _fingerprints(path: str, root: str) -> set[tuple[str, str]]:
    result = lint_paths([path], ALL_RULES, Settings(select=("shared-queue",)))
    assert result.findings, "the input must fire for the comparison to mean anything"
    return {(f.rule, fingerprint(f, root)) for f in result.findings}


def test_write_then_use_a_baseline_reports_only_new_findings(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "stack.yaml").write_text(_read(CFN), encoding="utf-8")
    assert main(["stack.yaml", "--select", "shared-queue", "--write-baseline", "baseline.json"]) == 0
    assert "wrote 1 finding(s) to baseline.json" in capsys.readouterr().err
    recorded = json.loads((tmp_path / "baseline.json").read_text(encoding="utf-8"))
    assert [(e["rule"], e["file"], e["resource"]) for e in recorded["findings"]] == [
        ("FL201", "stack.yaml", "OrdersQueue")]

    assert main(["stack.yaml", "--select", "shared-queue", "--baseline", "baseline.json"]) == 0
    out = capsys.readouterr().out
    assert "FL201" not in out and "1 in baseline" in out

    (tmp_path / "stack.yaml").write_text(_read(CFN) + SECOND_SHARED_QUEUE, encoding="utf-8")
    assert main(["stack.yaml", "--select", "shared-queue", "--baseline", "baseline.json"]) == 1
    out = capsys.readouterr().out
    assert "(AuditQueue)" in out and "(OrdersQueue)" not in out


def test_a_baseline_that_is_not_one_is_a_one_line_error(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "stack.yaml").write_text(_read(CFN), encoding="utf-8")
    (tmp_path / "baseline.json").write_text("{\n  nope\n", encoding="utf-8")
    assert main(["stack.yaml", "--baseline", "baseline.json"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fanout-lint: error: baseline.json:2: baseline is not valid JSON") and err.count("\n") == 1
    (tmp_path / "baseline.json").write_text('{"findings": []}', encoding="utf-8")
    assert main(["stack.yaml", "--baseline", "baseline.json"]) == 2
    assert "not a fanout-lint baseline" in capsys.readouterr().err


def test_moving_a_resource_in_the_file_keeps_its_fingerprint(tmp_path):
    original = _read(CFN)
    head, queue_and_rest = original.split("  # expect: shared-queue\n")
    queue, rest = queue_and_rest.split("  OrdersDLQ:\n")
    moved = head + "\n\n# more lines above\n" + "  OrdersDLQ:\n" + rest + "\n" + queue
    assert moved != original
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "stack.yaml").write_text(original, encoding="utf-8")
    (tmp_path / "b" / "stack.yaml").write_text(moved, encoding="utf-8")
    before = lint_paths([str(tmp_path / "a" / "stack.yaml")], ALL_RULES, Settings(select=("shared-queue",)))
    after = lint_paths([str(tmp_path / "b" / "stack.yaml")], ALL_RULES, Settings(select=("shared-queue",)))
    assert before.findings[0].loc.line != after.findings[0].loc.line
    assert fingerprint(before.findings[0], str(tmp_path / "a")) == fingerprint(after.findings[0], str(tmp_path / "b"))


def test_renamed_cdk_logical_id_hashes_keep_the_fingerprint(tmp_path):
    original = _read(CDK)
    document = json.loads(original)
    renamed = original
    for logical_id in document["Resources"]:  # every hash suffix changes on re-synthesis
        renamed = renamed.replace(logical_id, logical_id[:-8] + "99ZZ99ZZ")
    assert renamed != original
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "cdk.json").write_text(original, encoding="utf-8")
    (tmp_path / "b" / "cdk.json").write_text(renamed, encoding="utf-8")
    assert _fingerprints(str(tmp_path / "a" / "cdk.json"), str(tmp_path / "a")) == \
        _fingerprints(str(tmp_path / "b" / "cdk.json"), str(tmp_path / "b"))


def test_fingerprints_tell_rules_files_and_resources_apart(tmp_path):
    (tmp_path / "stack.yaml").write_text(_read(CFN) + SECOND_SHARED_QUEUE, encoding="utf-8")
    (tmp_path / "other.yaml").write_text(_read(CFN), encoding="utf-8")
    findings = lint_paths([str(tmp_path)], ALL_RULES, Settings(select=("shared-queue",))).findings
    assert len(findings) == 3
    assert len({fingerprint(f, str(tmp_path)) for f in findings}) == 3
