"""End-to-end behaviour of the command line, through a real process where it matters."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from fanout_lint.cli.main import main
from repo_paths import ROOT

BROKEN = os.path.join(ROOT, "examples", "broken")
CLEAN = os.path.join(ROOT, "examples", "clean")
TEXT_LINE = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<id>FL\d{3})(?: \[\*\])? \[(error|warning|info)\] .+ \((?P<resource>[^)]+)\)$")

GOOD_TEMPLATE = """\
AWSTemplateFormatVersion: "2010-09-09"
Resources:
  Topic:
    Type: AWS::SNS::Topic
  Fn:
    Type: AWS::Lambda::Function
  Sub:
    Type: AWS::SNS::Subscription
    Properties:
      TopicArn: !Ref Topic
      Protocol: lambda
      Endpoint: !GetAtt Fn.Arn
  Permission:
    Type: AWS::Lambda::Permission
    Properties:
      FunctionName: !Ref Fn
      Action: lambda:InvokeFunction
      Principal: sns.amazonaws.com
      SourceArn: !Ref Topic
"""


def run(*args: str, cwd: str = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "fanout_lint", *args],
        cwd=cwd, capture_output=True, text=True, timeout=120,
    )


def test_broken_example_fails_and_clean_example_passes():
    broken = run("examples/broken")
    assert broken.returncode == 1
    ids = {m.group("id") for m in map(TEXT_LINE.match, broken.stdout.splitlines()) if m}
    assert {"FL001", "FL002", "FL101", "FL102", "FL103", "FL201", "FL202"} <= ids
    terraform = [line for line in broken.stdout.splitlines() if line.startswith("examples/broken/terraform/")]
    assert any("FL201" in line and "(aws_sqs_queue.dispatch)" in line for line in terraform)
    clean = run("examples/clean")
    assert clean.returncode == 0, clean.stdout
    assert "0 findings" in clean.stdout


def test_text_lines_are_sorted_and_end_with_a_summary():
    out = run("examples/broken").stdout.splitlines()
    rows = [TEXT_LINE.match(line) for line in out[:-1]]
    assert all(rows), out
    keys = [(m.group("file"), int(m.group("line"))) for m in rows]
    assert keys == sorted(keys)
    assert re.match(r"^\d+ findings \(\d+ error, \d+ warning, \d+ info\); 2 units checked"
                    r"(; \[\*\] \d+ fixable with --fix)?(; \d+ more with --fix --unsafe-fixes)?$", out[-1])


def test_json_output_is_the_documented_interface():
    proc = run("--format", "json", "examples/broken")
    document = json.loads(proc.stdout)
    assert set(document) >= {"version", "findings", "errors"}
    assert document["errors"] == []
    finding = document["findings"][0]
    assert set(finding) >= {"rule", "name", "severity", "file", "line", "column", "resource", "message", "related"}
    shared = next(f for f in document["findings"] if f["name"] == "shared-queue")
    assert shared["resource"] == "NotificationsQueue"
    assert {r["resource"] for r in shared["related"]} >= {"EmailFunction", "InvoiceFunction"}
    assert all({"resource", "file", "line"} <= set(r) for r in shared["related"])
    visibility = next(f for f in document["findings"] if f["name"] == "visibility-timeout-below-function-timeout")
    assert "30 s" in visibility["message"] and "60 s" in visibility["message"]
    assert any(r["resource"] == "EmailFunction" for r in visibility["related"])


def test_fail_on_error_ignores_warnings(tmp_path):
    (tmp_path / "t.yaml").write_text(GOOD_TEMPLATE)
    assert main(["check", str(tmp_path)]) == 1  # sns-to-lambda-direct is a warning
    assert main(["check", "--fail-on", "error", str(tmp_path)]) == 0


def test_files_that_are_not_templates_are_skipped_silently(tmp_path, capsys):
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    (tmp_path / ".github" / "workflows" / "ci.yml").write_text("on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n")
    (tmp_path / "deploy.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  Resources: none\n")
    (tmp_path / "package.json").write_text('{"name": "x", "version": "1.0.0"}')
    (tmp_path / "empty.yaml").write_text("")
    assert main([str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.strip() == "0 findings; 0 units checked"


def test_malformed_yaml_is_reported_with_its_line_and_the_rest_is_still_linted(tmp_path):
    (tmp_path / "bad.yaml").write_text("Resources:\n  Queue:\n    Type: AWS::SQS::Queue\n    Properties: [unclosed\n")
    (tmp_path / "good.yaml").write_text(GOOD_TEMPLATE)
    proc = run(str(tmp_path))
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr + proc.stdout
    error = next(line for line in proc.stdout.splitlines() if "bad.yaml" in line)
    assert re.match(r".*bad\.yaml:\d+:\d+: error: invalid YAML: .+", error)
    assert "good.yaml:11:7: FL001 [warning]" in proc.stdout  # on Protocol: lambda


def test_malformed_json_is_reported_with_its_line(tmp_path):
    # not YAML either (the last brace is missing): YAML would be linted as YAML
    (tmp_path / "bad.json").write_text('{\n  "Resources": {\n    "Q": {"Type": "AWS::SQS::Queue",}\n  }\n')
    proc = run("--format", "json", str(tmp_path))
    assert proc.returncode == 2
    errors = json.loads(proc.stdout)["errors"]
    assert len(errors) == 1 and errors[0]["line"] == 3 and errors[0]["file"].endswith("bad.json")


def test_missing_path_and_unknown_rule_are_errors(tmp_path, capsys):
    assert main([str(tmp_path / "nope.yaml")]) == 2
    assert "no such file or directory" in capsys.readouterr().out
    assert main(["--select", "no-such-rule", str(tmp_path)]) == 2
    assert "unknown rule" in capsys.readouterr().err


def test_usage_error_exits_2_without_traceback():
    proc = run("check", "--format", "yaml-please", "examples")
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "invalid choice" in proc.stderr


def test_select_and_ignore_accept_ids_and_names(capsys):
    assert main(["--select", "FL201", BROKEN]) == 1
    out = capsys.readouterr().out
    assert "FL201" in out and "FL202" not in out
    main(["--ignore", "shared-queue,FL202", BROKEN])
    out = capsys.readouterr().out
    assert "FL201" not in out and "FL202" not in out and "FL101" in out


def test_cdk_path_is_shown_with_the_resource(capsys):
    fixture = os.path.join(ROOT, "tests", "fixtures", "shared-queue", "cdk_fires.json")
    main([fixture])
    assert "(OrdersQueue62717381, Stack/OrdersQueue/Resource)" in capsys.readouterr().out


def test_rules_lists_every_rule_as_json(capsys):
    assert main(["rules", "--format", "json"]) == 0
    rules = json.loads(capsys.readouterr().out)
    names = {r["name"] for r in rules}
    assert {"shared-queue", "sns-to-lambda-direct", "missing-dlq", "dlq-only-on-subscription",
            "dlq-retention-not-longer", "visibility-timeout-below-function-timeout", "raw-delivery-off"} <= names
    assert all(set(r) >= {"id", "name", "severity", "summary"} for r in rules)


@pytest.mark.parametrize("key", ["shared-queue", "FL201", "fl201"])
def test_explain_prints_the_rule_documentation(key, capsys):
    assert main(["explain", key]) == 0
    text = capsys.readouterr().out
    for section in ("# shared-queue (FL201)", "## What it does", "## Why is this bad?", "## How to fix", "https://docs.aws.amazon.com/"):
        assert section in text


def test_explain_unknown_rule(capsys):
    assert main(["explain", "nope"]) == 2
    assert "unknown rule" in capsys.readouterr().err
