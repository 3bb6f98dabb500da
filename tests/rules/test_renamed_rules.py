"""Renamed rules keep working under their former names: configuration, command-line
selection, inline suppressions and `explain` accept them with a notice naming the new
name, and baselines (which match by rule ID) need nothing."""

from __future__ import annotations

import json
import os
import textwrap

from fanout_lint.cli.main import main
from fanout_lint.rules import ALL_RULES
from fanout_lint.policy.settings import find_rule, renamed
from repo_paths import TESTS

PERMISSION = os.path.join(TESTS, "fixtures", "lambda-permission-missing", "cfn_fires.yaml")

SUPPRESSED = """\
Resources:
  Topic: {Type: AWS::SNS::Topic}
  Fn: {Type: AWS::Lambda::Function}
  Sub:
    Type: AWS::SNS::Subscription
    Metadata:
      fanout-lint:
        ignore: [sns-lambda-permission-missing, sns-to-lambda-direct]
        reason: the permission comes from another stack
    Properties: {TopicArn: !Ref Topic, Protocol: lambda, Endpoint: !GetAtt Fn.Arn}
"""


def test_former_names_find_the_renamed_rules():
    assert find_rule(ALL_RULES, "sns-lambda-permission-missing").id == "FL304"
    assert find_rule(ALL_RULES, "sns-to-kms-managed-key").id == "FL303"
    assert renamed(ALL_RULES, "lambda-permission-missing") is None
    assert "'lambda-permission-missing' (FL304)" in renamed(ALL_RULES, "sns-lambda-permission-missing")


def test_the_configuration_accepts_a_former_name_with_a_notice(tmp_path, capsys, monkeypatch):
    (tmp_path / ".fanout-lint.toml").write_text(textwrap.dedent("""\
        ignore = ["sns-lambda-permission-missing"]
        [severity]
        sns-to-kms-managed-key = "warning"
    """))
    monkeypatch.chdir(tmp_path)
    code = main(["check", "--format", "json", PERMISSION])
    captured = capsys.readouterr()
    rules = {f["rule"] for f in json.loads(captured.out)["findings"]}
    assert "FL304" not in rules and code == 1
    assert ".fanout-lint.toml:1: warning: rule 'sns-lambda-permission-missing' is now named " \
           "'lambda-permission-missing' (FL304)" in captured.err
    assert ".fanout-lint.toml:3: warning: rule 'sns-to-kms-managed-key' is now named" in captured.err


def test_the_command_line_accepts_a_former_name_with_a_notice(capsys):
    main(["check", "--format", "json", "--select", "sns-lambda-permission-missing", PERMISSION])
    captured = capsys.readouterr()
    assert {f["rule"] for f in json.loads(captured.out)["findings"]} == {"FL304"}
    assert "now named 'lambda-permission-missing'" in captured.err


def test_a_suppression_by_former_name_still_applies_with_a_notice(tmp_path, capsys):
    path = tmp_path / "t.yaml"
    path.write_text(SUPPRESSED)
    code = main(["check", str(path)])
    captured = capsys.readouterr()
    assert code == 0 and "FL304" not in captured.out
    assert "suppression: rule 'sns-lambda-permission-missing' is now named 'lambda-permission-missing'" in captured.err


def test_explain_accepts_a_former_name_with_a_notice(capsys):
    assert main(["explain", "sns-to-kms-managed-key"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("# delivery-to-kms-managed-key (FL303)")
    assert "Formerly named `sns-to-kms-managed-key`" in captured.out
    assert "now named 'delivery-to-kms-managed-key'" in captured.err


def test_a_baseline_written_under_the_former_name_still_matches(tmp_path, capsys):
    # baselines match by fingerprint, built from the rule ID: an entry recorded when FL304
    # was sns-lambda-permission-missing still hides the finding
    baseline = tmp_path / "baseline.json"
    assert main(["check", "--write-baseline", str(baseline), PERMISSION]) == 0
    document = json.loads(baseline.read_text())
    for entry in document["findings"]:
        if entry["rule"] == "FL304":
            entry["name"] = "sns-lambda-permission-missing"
    baseline.write_text(json.dumps(document))
    capsys.readouterr()
    assert main(["check", "--baseline", str(baseline), PERMISSION]) == 0
