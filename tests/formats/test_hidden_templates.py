"""A file is a template when its parsed top level says so: a key written with an escape,
or YAML in a file named JSON, is read as the parser reads it, never passed over because
its bytes lack a word."""

from __future__ import annotations

import json
import os

import pytest

from fanout_lint.cli import main as cli
from fanout_lint.loaders import _worth_parsing
from fanout_lint.loaders.parsing.escapes import may_hide_words, may_hide_words_in_bytes

# A subscription to a queue without a policy: FL301 fires on Queue.
TEMPLATE = {
    "Resources": {
        "Topic": {"Type": "AWS::SNS::Topic"},
        "Queue": {"Type": "AWS::SQS::Queue"},
        "Sub": {"Type": "AWS::SNS::Subscription",
                "Properties": {"TopicArn": {"Ref": "Topic"}, "Protocol": "sqs",
                               "Endpoint": {"Fn::GetAtt": ["Queue", "Arn"]}}},
    }
}
YAML_BODY = """\
  Topic:
    Type: AWS::SNS::Topic
  Queue:
    Type: AWS::SQS::Queue
  Sub:
    Type: AWS::SNS::Subscription
    Properties:
      TopicArn: !Ref Topic
      Protocol: sqs
      Endpoint: !GetAtt Queue.Arn
"""
HIDDEN = {
    "x-escape.yaml": '"Re\\x73ources":\n' + YAML_BODY,
    "u-escape.yaml": '"\\u0052esources":\n' + YAML_BODY,
    "line-break.yaml": '? "Re\\\n  sources"\n:\n' + YAML_BODY,  # an escaped line break joins
    "u-escape.json": json.dumps(TEMPLATE, indent=2).replace('"Resources"', '"\\u0052esources"'),
    "flow.json": "{Resources: {Topic: {Type: AWS::SNS::Topic}, Queue: {Type: AWS::SQS::Queue},\n"
                 " Sub: {Type: AWS::SNS::Subscription, Properties: {TopicArn: !Ref Topic, Protocol: sqs,\n"
                 " Endpoint: !GetAtt Queue.Arn}}}}\n",
    "single-quoted.json": "{'Resources': " + json.dumps(TEMPLATE["Resources"]) + "}",
    "block.json": "Resources:\n" + YAML_BODY,  # YAML, whatever the name
    "trailing-comma.json": json.dumps(TEMPLATE)[:-1] + ",}",  # not JSON, but YAML
}


def _run(capsys, *paths) -> tuple[int, dict]:
    code = cli.main(["check", "--no-cache", "--format", "json", "-j", "1", *map(str, paths)])
    return code, json.loads(capsys.readouterr().out)


def _fired(report) -> list[tuple[str, str, str]]:
    return sorted((os.path.basename(f["file"]), f["rule"], f["resource"]) for f in report["findings"]
                  if f["rule"] == "FL301")


@pytest.mark.parametrize("name", sorted(HIDDEN))
def test_a_template_that_hides_its_words_is_linted(capsys, tmp_path, name):
    path = tmp_path / name
    path.write_text(HIDDEN[name])
    code, report = _run(capsys, path)
    assert report["errors"] == []
    assert _fired(report) == [(name, "FL301", "Queue")]
    assert code == 1


def test_in_a_run_with_other_files_none_is_passed_over(capsys, tmp_path):
    for name, text in HIDDEN.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "plain.yaml").write_text("Resources:\n" + YAML_BODY)
    (tmp_path / "package.json").write_text('{"name": "x", "description": "a service for Resources"}')
    (tmp_path / "workflow.yaml").write_text('on: push\njobs: {a: {steps: [{run: "echo \\x41"}]}}\n')
    code, report = _run(capsys, tmp_path)
    assert report["errors"] == []
    assert _fired(report) == sorted((name, "FL301", "Queue") for name in [*HIDDEN, "plain.yaml"])
    assert report["summary"]["units"] == len(HIDDEN) + 1


@pytest.mark.parametrize("text", [
    '"ser\\x76ice": 1\nbroken: [\n',  # may hide a word, does not parse: no template, as before
    '{"a": "\\u0041", "b": [1, 2}',
    '{"a": "\\u0041"}',
    "{a: 1, b: [x, y]}\n",
])
def test_a_file_only_a_parse_could_make_a_template_is_no_error(capsys, tmp_path, text):
    for name in ("f.yaml", "f.json"):
        (tmp_path / name).write_text(text)
    (tmp_path / "plain.yaml").write_text("Resources:\n" + YAML_BODY)
    code, report = _run(capsys, tmp_path)
    assert report["errors"] == [] and _fired(report) == [("plain.yaml", "FL301", "Queue")]


def test_json_that_names_the_words_in_values_is_still_not_parsed():
    for text in ('{"name": "x", "description": "the service", "keywords": ["Resources"]}',
                 '{"a": "Resources, services, planned_values", "b": "http://x/%41"}'):
        assert _worth_parsing(text, "package.json") is None
    assert _worth_parsing('{"x": 1, "Resources": {}}', "t.json") == ("json", True)
    assert _worth_parsing("{Resources: {}}", "t.json") == ("json", False)
    assert _worth_parsing('{"x": &r Resources, *r : {}}', "t.json") == ("json", False)
    assert _worth_parsing('{"\\u0052esources": {}}', "t.json") == ("json", False)
    assert _worth_parsing("a: 1\n", "t.yaml") is None


@pytest.mark.parametrize("text, hides", [
    ('"Re\\x73ources": {}', True),
    ('"\\u0052esources": {}', True),
    ('"\\U00000052esources": {}', True),
    ('"Re\\\nsources": {}', True),
    ('"Re\\\r\nsources": {}', True),
    ('"Re\\\u2028sources": {}', True),
    ("a: !Import%56alue x", True),
    ("%TAG !e! !Import\n---\na: !e!Value x", True),
    ('{"a": "line\\nbreak \\"quoted\\" \\\\ tab\\t"}', False),
    ('{"pattern": "^(system\\\\x2e)"}', False),  # an escaped backslash, then "x2e"
    ('{"pattern": "^(system\\\\\\x2e)"}', True),  # and then an escape
    ('{"name": "caf\\u00e9"}', False),  # no ASCII letter: no word is spelled with it
    ("run: |\n  aws s3 cp a b \\\n    --recursive\n", False),  # a shell's continuation
    ('a: "Serverless:\\\n  :Application"', True),
    ("a: http://x/%41?b=1", False),
    ("a: !Sub '%41'", False),
    ("Resources: {}", False),
])
def test_escapes_that_may_hide_a_word(text, hides):
    assert may_hide_words(text) is hides
    assert may_hide_words_in_bytes(text.encode()) is hides


SHARED = """\
Resources:
  OrdersQueue:
    Type: AWS::SQS::Queue
    Properties:
      VisibilityTimeout: 60
Outputs:
  OrdersQueueArn:
    Value: !GetAtt OrdersQueue.Arn
    %(export)s: {Name: orders-queue-arn}
"""
CONSUMER = """\
Resources:
  Consumer:
    Type: AWS::Lambda::Function
    Properties:
      Timeout: %(timeout)s
  Mapping:
    Type: AWS::Lambda::EventSourceMapping
    Properties:
      EventSourceArn:
        %(imports)s orders-queue-arn
      FunctionName: !Ref Consumer
      FunctionResponseTypes: [ReportBatchItemFailures]
"""


@pytest.mark.parametrize("export, imports", [
    ("Export", "Fn::ImportValue:"),  # the plain spelling: the test's control
    ("Export", '"Fn::Import\\x56alue":'),
    ("Export", '"Fn::\\u0049mportValue":'),
    ("Export", "!Import%56alue"),
    ('"E\\x78port"', "Fn::ImportValue:"),
])
def test_an_escaped_import_or_export_still_links(capsys, tmp_path, export, imports):
    (tmp_path / "shared.yaml").write_text(SHARED % {"export": export})
    for who in ("billing", "shipping"):
        (tmp_path / f"{who}.yaml").write_text(CONSUMER % {"imports": imports, "timeout": 5})
    code, report = _run(capsys, tmp_path)
    assert report["errors"] == []
    (shared,) = [f for f in report["findings"] if f["name"] == "shared-queue"]
    assert os.path.basename(shared["file"]) == "shared.yaml"
    assert sorted({os.path.basename(r["file"]) for r in shared["related"]}) == ["billing.yaml", "shipping.yaml"]
