"""The note on what a unit holds and the graph does not model: one per unit, in every
format, hidden by -q, counted by --statistics."""

from __future__ import annotations

import json
import os

import pytest

from fanout_lint.model.format import Format
from fanout_lint.cli.main import main
from repo_paths import ROOT

SCHEMA = os.path.join(ROOT, "tests", "schemas", "sarif-schema-2.1.0.json")  # in the repository: never skipped

TEMPLATE = """\
AWSTemplateFormatVersion: "2010-09-09"
Transform: AWS::Serverless-2016-10-31
Resources:
  Jobs:
    Type: AWS::SQS::Queue
  Worker:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: python3.12
      Handler: app.handler
      CodeUri: .
      Events:
        Orders:
          Type: MSK
          Properties:
            Stream: arn:aws:kafka:us-east-1:123456789012:cluster/c/1
            Topics: [orders]
  Pipe:
    Type: AWS::Pipes::Pipe
    Properties:
      Source: arn:aws:sqs:us-east-1:123456789012:elsewhere
      Target: arn:aws:sns:us-east-1:123456789012:t
      RoleArn: arn:aws:iam::123456789012:role/r
  Notifications:
    Type: Custom::S3BucketNotifications
    Properties:
      ServiceToken: arn:aws:lambda:us-east-1:123456789012:function:f
  Child:
    Type: AWS::CloudFormation::Stack
    Properties:
      TemplateURL: https://s3.amazonaws.com/bucket/child.yaml
  Brokered:
    Type: AWS::Lambda::EventSourceMapping
    Properties:
      EventSourceArn: arn:aws:mq:us-east-1:123456789012:broker:b:1
      FunctionName: !Ref Worker
      Queues: [jobs]
"""

TERRAFORM = """\
resource "aws_sqs_queue" "jobs" {}
resource "aws_pipes_pipe" "p" {
  name     = "p"
  role_arn = "arn:aws:iam::123456789012:role/r"
  source   = aws_sqs_queue.jobs.arn
  target   = "arn:aws:sns:us-east-1:123456789012:t"
}
resource "aws_lambda_event_source_mapping" "kafka" {
  event_source_arn = "arn:aws:kafka:us-east-1:123456789012:cluster/c/1"
  function_name    = "f"
  topics           = ["orders"]
}
resource "aws_lambda_event_source_mapping" "sqs" {
  event_source_arn = aws_sqs_queue.jobs.arn
  function_name    = "f"
}
resource "aws_lambda_event_source_mapping" "hidden" {
  event_source_arn = "arn:aws:kafka:us-east-1:123456789012:cluster/c/1"
  function_name    = "f"
}
"""

SERVICE = """\
service: s
provider:
  name: aws
  runtime: python3.12
plugins:
  - serverless-step-functions
functions:
  f:
    handler: a.b
"""


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "stack.yaml").write_text(TEMPLATE, encoding="utf-8")
    return tmp_path


def test_one_note_per_unit_names_each_construct_with_its_line(work, capsys):
    code, out, err = run(capsys, "stack.yaml")
    notes = [line for line in err.splitlines() if ": note: " in line]
    assert code == 0 and len(notes) == 1, err
    note = notes[0]
    assert note.startswith("stack.yaml:13:9: note: 4 messaging constructs not modelled")
    assert "Worker.Orders (line 13): MSK event source, SAM event Type MSK" in note
    assert "Pipe (line" not in note and "AWS::Pipes::Pipe" not in note  # a pipe is a node
    assert "Notifications (line 24): S3 bucket notifications made by a CDK custom resource" in note
    assert "Child (line 28): nested stack with a remote TemplateURL" in note
    assert "Brokered (line 32): Amazon MQ event source mapping" in note
    assert "note" not in out


def test_quiet_hides_the_note(work, capsys):
    _, _, err = run(capsys, "stack.yaml", "-q")
    assert err == ""


def test_a_template_with_everything_modelled_has_no_note(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "q.yaml").write_text("Resources:\n  Q:\n    Type: AWS::SQS::Queue\n", encoding="utf-8")
    code, out, err = run(capsys, "q.yaml", "--statistics")
    assert code == 0 and err == ""
    assert "coverage: 1 of 1 messaging resource modelled" in out.splitlines()


def test_statistics_counts_modelled_of_seen(work, capsys):
    _, out, _ = run(capsys, "stack.yaml", "--statistics")
    # the queue and the pipe: the MQ mapping is a node, but not modelled as what it reads
    assert "coverage: 2 of 6 messaging resources modelled (4 not modelled: see the notes)" in out.splitlines()


def test_json_carries_the_note_with_its_kind(work, capsys):
    _, out, _ = run(capsys, "stack.yaml", "--format", "json")
    notices = json.loads(out)["notices"]
    assert [n["kind"] for n in notices] == ["not-modelled"] and notices[0]["line"] == 13


def test_sarif_carries_the_note_as_a_notification_and_validates(work, capsys):
    _, out, _ = run(capsys, "stack.yaml", "--format", "sarif")
    document = json.loads(out)
    notifications = document["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert [n["level"] for n in notifications] == ["note"]
    assert "not modelled" in notifications[0]["message"]["text"]
    assert notifications[0]["locations"][0]["physicalLocation"]["region"]["startLine"] == 13
    import jsonschema

    with open(SCHEMA, encoding="utf-8") as handle:
        schema = json.load(handle)
    validator = jsonschema.validators.validator_for(schema)(schema)
    assert not list(validator.iter_errors(document))


def test_github_format_writes_a_notice_command(work, capsys):
    _, out, _ = run(capsys, "stack.yaml", "--format", "github")
    commands = [line for line in out.splitlines() if line.startswith("::notice ")]
    assert len(commands) == 1 and "title=not modelled by fanout-lint" in commands[0]


def test_terraform_pipes_and_kafka_mappings_with_topics_are_modelled(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "infra").mkdir()
    (tmp_path / "infra" / "main.tf").write_text(TERRAFORM, encoding="utf-8")
    _, out, err = run(capsys, "infra", "--statistics")
    notes = [line for line in err.splitlines() if ": note: " in line]
    assert len(notes) == 1 and "1 messaging construct not modelled" in notes[0]
    assert "aws_pipes_pipe.p" not in notes[0]
    # a Kafka mapping naming its topics is read as Kafka; one that does not is still noted
    assert "aws_lambda_event_source_mapping.kafka" not in notes[0]
    assert "aws_lambda_event_source_mapping.hidden (line 17): MSK event source mapping" in notes[0]
    assert "aws_lambda_event_source_mapping.sqs" not in notes[0]
    assert "coverage: 4 of 5 messaging resources modelled (1 not modelled: see the notes)" in out.splitlines()


def test_serverless_plugins_are_named(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "serverless.yml").write_text(SERVICE, encoding="utf-8")
    _, _, err = run(capsys, "serverless.yml")
    assert "serverless.yml:6:5: note: 1 messaging construct not modelled, so no rule checks it: " \
           "serverless-step-functions (line 6): Serverless plugin: the resources it adds" in err


def test_a_cdk_nested_stack_with_its_asset_is_not_noted(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.yaml").write_text(
        "Resources:\n  Nested:\n    Type: AWS::CloudFormation::Stack\n    Properties:\n"
        "      TemplateURL: https://s3.amazonaws.com/b/nested.json\n"
        "    Metadata:\n      aws:asset:path: nested.json\n", encoding="utf-8")
    _, _, err = run(capsys, "s.yaml")
    assert "not modelled" not in err


def test_the_hook_records_on_a_list_or_a_graph():
    from fanout_lint.model.graph import Graph
    from fanout_lint.model.nodes import Loc, Unit
    from fanout_lint.results.not_modelled import note, notice_of

    graph = Graph(Unit("s.yml", Format.SERVERLESS), [])
    note(graph, "EventBridge rule made by a custom resource", "f.events[0]", Loc("s.yml", 9, 7))
    listed: list = []
    note(listed, "S3 bucket with existing: true", "f.events[1]", Loc("s.yml", 12, 7))
    graph.not_modelled.extend(listed)
    notice = notice_of(graph)
    assert notice is not None and notice.kind == "not-modelled" and (notice.loc.line, notice.loc.column) == (9, 7)
    assert notice.message.startswith("2 messaging constructs not modelled")


def test_a_plan_notes_its_kafka_mappings_without_topics_once_and_not_its_pipes(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    resources = [
        {"address": "aws_pipes_pipe.p", "mode": "managed", "type": "aws_pipes_pipe", "name": "p", "values": {}},
        {"address": 'aws_lambda_event_source_mapping.k["a"]', "mode": "managed",
         "type": "aws_lambda_event_source_mapping", "name": "k",
         "values": {"event_source_arn": "arn:aws:kafka:us-east-1:1:cluster/c/1", "topics": None}},
        {"address": 'aws_lambda_event_source_mapping.k["b"]', "mode": "managed",
         "type": "aws_lambda_event_source_mapping", "name": "k",
         "values": {"event_source_arn": "arn:aws:kafka:us-east-1:1:cluster/c/1", "topics": None}},
        {"address": "aws_lambda_event_source_mapping.t", "mode": "managed",
         "type": "aws_lambda_event_source_mapping", "name": "t",
         "values": {"event_source_arn": "arn:aws:kafka:us-east-1:1:cluster/c/1", "topics": ["t"]}},
        {"address": "aws_lambda_event_source_mapping.q", "mode": "managed",
         "type": "aws_lambda_event_source_mapping", "name": "q",
         "values": {"event_source_arn": "arn:aws:sqs:us-east-1:1:q", "topics": None, "queues": []}},
    ]
    plan = {"format_version": "1.2", "terraform_version": "1.9.0",
            "planned_values": {"root_module": {"resources": resources}}}
    (tmp_path / "plan.json").write_text(json.dumps(plan, indent=1), encoding="utf-8")
    _, _, err = run(capsys, "plan.json")
    notes = [line for line in err.splitlines() if ": note: " in line]
    assert len(notes) == 1 and "1 messaging construct not modelled" in notes[0], err
    assert "aws_lambda_event_source_mapping.k (line" in notes[0] and "aws_lambda_event_source_mapping.q" not in notes[0]
    assert "aws_pipes_pipe" not in notes[0] and "aws_lambda_event_source_mapping.t " not in notes[0]


def test_the_note_is_bounded_however_many_and_long_the_names(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    plugins = "".join(f"  - plugin-{i}-{'x' * 5000}\n" for i in range(40))
    (tmp_path / "serverless.yml").write_text(SERVICE.replace("  - serverless-step-functions\n", plugins),
                                             encoding="utf-8")
    _, _, err = run(capsys, "serverless.yml")
    [note] = [line for line in err.splitlines() if ": note: " in line]
    assert note.startswith("serverless.yml:6:5: note: 40 messaging constructs not modelled")
    assert note.endswith("; and 30 more") and len(note) < 2500


def test_a_documentdb_mapping_is_noted_and_an_sqs_one_is_not(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.yaml").write_text(
        "Resources:\n"
        "  Docs:\n    Type: AWS::Lambda::EventSourceMapping\n    Properties:\n"
        "      EventSourceArn: arn:aws:rds:us-east-1:123456789012:cluster:docs\n      FunctionName: f\n"
        "      DocumentDBEventSourceConfig: {DatabaseName: db}\n"
        "  Jobs:\n    Type: AWS::Lambda::EventSourceMapping\n    Properties:\n"
        "      EventSourceArn: arn:aws:sqs:us-east-1:123456789012:jobs\n      FunctionName: f\n"
        "      FunctionResponseTypes: [ReportBatchItemFailures]\n", encoding="utf-8")
    _, _, err = run(capsys, "s.yaml")
    assert "s.yaml:2:3: note: 1 messaging construct not modelled, so no rule checks it: " \
           "Docs (line 2): DocumentDB event source mapping" in err


def test_build_only_serverless_plugins_are_not_named(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    build = "".join(f"  - {name}\n" for name in ("serverless-webpack", "serverless-python-requirements",
                                                  "serverless-esbuild", "serverless-offline",
                                                  "serverless-prune-plugin", "serverless-dotenv-plugin",
                                                  "serverless-wsgi", "serverless-rack", "serverless-rust",
                                                  "serverless-offline-direct-lambda", "serverless-export-env"))
    (tmp_path / "serverless.yml").write_text(SERVICE.replace("plugins:\n", "plugins:\n" + build), encoding="utf-8")
    _, _, err = run(capsys, "serverless.yml")
    notes = [line for line in err.splitlines() if ": note: " in line]
    assert len(notes) == 1 and "1 messaging construct not modelled" in notes[0]
    assert "serverless-step-functions (line 17)" in notes[0] and "webpack" not in notes[0]
    # the modules: form, and a build-only plugin alone says nothing
    (tmp_path / "serverless.yml").write_text(
        SERVICE.replace("plugins:\n  - serverless-step-functions\n",
                        "plugins:\n  modules:\n    - serverless-bundle\n    - serverless-plugin-typescript\n"),
        encoding="utf-8")
    _, _, err = run(capsys, "serverless.yml")
    assert "not modelled" not in err
    # a plugin that rewrites values ("#{AWS::Region}" into Fn::Sub) is named: what it
    # writes is not what the service file says
    (tmp_path / "serverless.yml").write_text(
        SERVICE.replace("plugins:\n  - serverless-step-functions\n", "plugins:\n  - serverless-pseudo-parameters\n"),
        encoding="utf-8")
    _, _, err = run(capsys, "serverless.yml")
    assert "not modelled, so no rule checks it: serverless-pseudo-parameters (line 6)" in err
