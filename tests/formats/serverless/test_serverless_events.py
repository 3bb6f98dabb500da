"""Serverless Framework schedule, eventBridge, s3 and stream events, function
destinations, ``${file(...)}`` of functions and resources, and ``resources.extensions``
of what the Framework generates."""

from __future__ import annotations

import os

from fanout_lint.run.engine import lint_paths
from fanout_lint.loaders.serverless import naming
from fanout_lint.model.nodes import (
    EventSourceMapping,
    EventTarget,
    Function,
    InvokeConfig,
    LambdaPermission,
    Notification,
)
from fanout_lint.model.values import Known
from fanout_lint.rules import ALL_RULES
from fanout_lint.policy.settings import Settings

SERVICE = """\
service: shop
provider:
  name: aws
"""


def _lint(path):
    return lint_paths([str(path)], ALL_RULES, Settings(jobs=1), keep_graphs=True)


def _graph(tmp_path, text: str, name: str = "serverless.yml"):
    path = tmp_path / name
    path.write_text(text)
    result = _lint(path)
    return result, (result.graphs[0] if result.graphs else None)


def _ids(graph, kind) -> list[str]:
    return sorted(n.resource for n in graph.all(kind))


# -- naming, as the Framework's naming.js and event-bridge/utils.js -----------------------

def test_logical_ids_of_the_other_events():
    assert naming.schedule_rule_id("send-email", 2) == "SendDashemailEventsRuleSchedule2"
    assert naming.schedule_permission_id("send-email", 2) == "SendDashemailLambdaPermissionEventsRuleSchedule2"
    assert naming.scheduler_schedule_id("worker", 1) == "WorkerSchedulerSchedule1"
    assert naming.event_bridge_rule_id("shop-dev-send-email", 3) == "Shopdevsendemailrule3EventBridgeRule"
    assert naming.event_bridge_permission_id("send-email", 3) == "SendDashemailEventBridgeLambdaPermission3"
    assert naming.event_bus_id("shop-events") == "ShopDasheventsEventBridgeEventBus"
    assert naming.bucket_id("shop-uploads.v2") == "S3BucketShopuploadsv2"
    assert naming.s3_permission_id("send-email", "shop-uploads") == "SendDashemailLambdaPermissionShopuploadsS3"
    assert naming.stream_mapping_id("worker", "dynamodb", "orders-table") == (
        "WorkerEventSourceMappingDynamodbOrderstable")
    assert naming.log_group_id("send-email") == "SendDashemailLogGroup"


# -- the events ----------------------------------------------------------------------------

def test_schedules_count_their_expressions_across_the_functions_events(tmp_path):
    result, graph = _graph(tmp_path, SERVICE + """\
functions:
  report:
    events:
      - schedule: rate(1 day)
      - sqs: arn:aws:sqs:eu-west-1:123456789012:jobs
      - schedule: {rate: [rate(1 hour), rate(2 hours)], enabled: false}
      - schedule: {rate: [rate(3 hours)], method: scheduler}
""")
    targets = {t.resource: t for t in graph.all(EventTarget)}
    assert sorted(targets) == ["ReportEventsRuleSchedule1", "ReportEventsRuleSchedule2", "ReportEventsRuleSchedule3",
                               "ReportSchedulerSchedule4"]
    assert targets["ReportSchedulerSchedule4"].scheduler
    assert _ids(graph, LambdaPermission) == ["ReportLambdaPermissionEventsRuleSchedule1",
                                             "ReportLambdaPermissionEventsRuleSchedule2",
                                             "ReportLambdaPermissionEventsRuleSchedule3"]
    # the disabled ones are not reported; the third event's rules are located at their rates
    reported = sorted((f.resource, f.loc.line) for f in result.findings if f.name == "eventbridge-target-without-dlq")
    assert reported == [("ReportEventsRuleSchedule1", 7), ("ReportSchedulerSchedule4", 10)]


def test_event_bridge_rules_are_named_after_the_deployed_function(tmp_path):
    result, graph = _graph(tmp_path, SERVICE + """\
  stage: prod
functions:
  a:
    events:
      - eventBridge: {pattern: {source: [x]}, deadLetterQueueArn: arn:aws:sqs:eu-west-1:1:dlq,
                      retryPolicy: {maximumRetryAttempts: 2, maximumEventAge: 600}}
  b:
    name: ${opt:name}
    events:
      - eventBridge: {pattern: {source: [y]}}
""")
    targets = {t.resource: t for t in graph.all(EventTarget)}
    assert sorted(targets) == ["B<events[0]>EventBridgeRule", "Shopprodarule1EventBridgeRule"]
    target = targets["Shopprodarule1EventBridgeRule"]
    assert target.retry_attempts == Known(2) and target.event_age == Known(600)
    assert target.dead_letter.value and target.dead_letter.site.entry().line == 8
    assert "AEventBridgeLambdaPermission1" in _ids(graph, LambdaPermission)
    (finding,) = [f for f in result.findings if f.name == "eventbridge-target-without-dlq"]
    assert "set deadLetterQueueArn to a standard SQS queue" in finding.message
    assert "retryPolicy.maximumRetryAttempts" in finding.message


def test_event_bridge_custom_resources_are_recorded_as_not_modelled(tmp_path):
    result, graph = _graph(tmp_path, SERVICE + """\
  eventBridge: {useCloudFormation: false}
functions:
  a:
    events:
      - eventBridge: {pattern: {source: [x]}}
""")
    assert graph.all(EventTarget) == []
    unmodelled = [n for n in graph.not_modelled if n.name.startswith("functions.")]
    assert [(n.name, n.loc.line) for n in unmodelled] == [("functions.a.events[0].eventBridge", 8)]
    assert "ACustomEventBridge1" in unmodelled[0].kind
    assert result.findings == []


def test_an_existing_buckets_notification_is_what_the_custom_resource_writes(tmp_path):
    # the Framework's Custom::S3 <Fn>CustomS31 writes every existing-bucket event of the
    # function into its bucket's notification and lets S3 invoke the function
    result, graph = _graph(tmp_path, SERVICE + """\
functions:
  a:
    events:
      - s3: {bucket: old-bucket, existing: true, rules: [{prefix: in/}]}
      - s3: {bucket: old-bucket, existing: true, event: "s3:ObjectRemoved:*"}
""")
    notifications = graph.all(Notification)
    assert [n.resource for n in notifications] == ["ACustomS31", "ACustomS31"]
    assert [n.loc.line for n in notifications] == [7, 8]
    assert "ACustomS31<permission>" in _ids(graph, LambdaPermission)
    assert not [n for n in graph.not_modelled if n.name.startswith("functions.")]
    assert [f.name for f in result.findings] == ["async-invoke-without-failure-destination"]


def test_a_second_existing_bucket_of_a_function_is_the_frameworks_error(tmp_path):
    result, _ = _graph(tmp_path, SERVICE + """\
functions:
  a:
    events:
      - s3: {bucket: old-bucket, existing: true}
      - s3: {bucket: other-bucket, existing: true}
""")
    [error] = result.errors
    assert error.line == 8 and "only one existing bucket can be configured per function" in error.message


def test_two_existing_bucket_events_naming_one_bucket_the_linter_cannot_resolve_are_one_bucket(tmp_path):
    result, graph = _graph(tmp_path, SERVICE + """\
functions:
  a:
    events:
      - s3: {bucket: "${construct:uploads.bucketName}", existing: true}
      - s3: {bucket: "${construct:uploads.bucketName}", existing: true, event: "s3:ObjectRemoved:*"}
""")
    assert result.errors == []
    assert [n.resource for n in graph.all(Notification)] == ["ACustomS31", "ACustomS31"]


def test_s3_events_share_the_bucket_they_name(tmp_path):
    result, graph = _graph(tmp_path, SERVICE + """\
  s3:
    uploads: {name: shop-uploads-bucket, versioningConfiguration: {Status: Enabled}}
functions:
  a:
    events:
      - s3: uploads
  b:
    events:
      - s3: {bucket: uploads, event: "s3:ObjectRemoved:*", rules: [{prefix: in/}]}
      - s3: other-bucket
""")
    notifications = sorted((n.resource, n.destination) for n in graph.all(Notification))
    assert notifications == [("S3BucketOtherbucket", "BLambdaFunction"), ("S3BucketUploads", "ALambdaFunction"),
                             ("S3BucketUploads", "BLambdaFunction")]
    assert _ids(graph, LambdaPermission) == ["ALambdaPermissionUploadsS3", "BLambdaPermissionOtherbucketS3",
                                             "BLambdaPermissionUploadsS3"]
    assert not [f for f in result.findings if f.name == "lambda-permission-missing"]


def test_stream_events_and_their_settings(tmp_path):
    result, graph = _graph(tmp_path, SERVICE + """\
functions:
  w:
    events:
      - stream:
          arn: arn:aws:kinesis:eu-west-1:1:stream/clicks
          batchSize: 50
          maximumRetryAttempts: 2
          bisectBatchOnFunctionError: true
          destinations: {onFailure: arn:aws:sqs:eu-west-1:1:failures}
      - stream: {type: dynamodb, arn: "${ssm:/table-stream}"}
""")
    mappings = {m.resource: m for m in graph.all(EventSourceMapping)}
    assert sorted(mappings) == ["WEventSourceMapping<events[1]>", "WEventSourceMappingKinesisClicks"]
    clicks = mappings["WEventSourceMappingKinesisClicks"]
    assert clicks.batch_size == Known(50) and clicks.maximum_retry_attempts == Known(2) and clicks.bisect == Known(True)
    assert clicks.on_failure.value and clicks.batch_size.site.entry().line == 9
    (finding,) = [f for f in result.findings if f.name == "stream-mapping-without-failure-handling"]
    assert finding.resource == "WEventSourceMapping<events[1]>" and "destinations.onFailure" in finding.message


def test_function_destinations_and_retries_are_the_invoke_configuration(tmp_path):
    result, graph = _graph(tmp_path, SERVICE + """\
functions:
  a:
    maximumRetryAttempts: 0
    maximumEventAge: 3600
    destinations: {onSuccess: arn:aws:sqs:eu-west-1:1:done, onFailure: b}
    events:
      - s3: uploads
  b:
    events:
      - s3: more
""")
    (config,) = graph.all(InvokeConfig)
    assert config.resource == "ALambdaEvConf" and config.function == "ALambdaFunction"
    assert config.maximum_retry_attempts == Known(0) and config.maximum_event_age == Known(3600)
    assert config.on_failure == Known("BLambdaFunction")
    (finding,) = [f for f in result.findings if f.name == "async-invoke-without-failure-destination"]
    assert finding.resource == "BLambdaFunction" and "set destinations.onFailure, or onError" in finding.message


# -- ${file(...)} ---------------------------------------------------------------------------

def test_files_of_functions_and_resources_are_read(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "fns.yml").write_text("w:\n  timeout: 30\n  events:\n    - sqs: {arn: !GetAtt Q.Arn}\n")
    (tmp_path / "res.yml").write_text("Resources:\n  Q:\n    Type: AWS::SQS::Queue\n")
    result, graph = _graph(tmp_path, SERVICE + "functions: ${file(./fns.yml)}\nresources: ${file(./res.yml)}\n")
    assert result.errors == []
    (function,) = graph.all(Function)
    assert function.timeout.value == 30 and function.timeout.site.entry().file.endswith("fns.yml")
    assert set(graph.unit.files) == {str(tmp_path / name) for name in ("serverless.yml", "fns.yml", "res.yml")}
    assert {(os.path.basename(f.loc.file), f.name) for f in result.findings} >= {("res.yml", "missing-dlq")}


def test_files_outside_the_repository_or_through_a_link_are_not_read(tmp_path):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (tmp_path / "outside.yml").write_text("w: {events: [{sqs: arn:aws:sqs:eu-west-1:1:q}]}\n")
    (repo / "inside.yml").write_text("w: {events: [{sqs: arn:aws:sqs:eu-west-1:1:q}]}\n")
    os.symlink(repo / "inside.yml", repo / "link.yml")
    result, graph = _graph(repo, SERVICE + """\
functions:
  - ${file(../outside.yml)}
  - ${file(./link.yml)}
  - ${file(./missing.yml)}
""")
    messages = sorted(e.message for e in result.errors)
    # the one confinement rule's words (confine.py)
    assert messages == [f"${{file(../outside.yml)}}: outside the repository ({repo}); not read",
                        "${file(./link.yml)}: a symbolic link (fanout-lint follows no symbolic link inside a "
                        "repository); not read",
                        "${file(./missing.yml)}: cannot read: No such file or directory"]
    assert graph.all(Function) == []


# -- resources.extensions -------------------------------------------------------------------

def test_extensions_of_what_the_framework_generates(tmp_path):
    result, graph = _graph(tmp_path, SERVICE + """\
functions:
  send-email: {handler: a.b}
resources:
  extensions:
    SendDashemailLogGroup: {Properties: {RetentionInDays: 14}}
    IamRoleLambdaExecution: {Properties: {PermissionsBoundary: arn:aws:iam::1:policy/b}}
    SendDashemailLambdaFunction: {DeletionPolicy: Retain, Properties: {Timeout: 20}}
    OtherLambdaFunction: {Properties: {}}
    SendDashemailLogGroupIA: {Type: AWS::Logs::LogGroup}
""")
    assert sorted(e.message.split(" ")[0].rstrip(":") for e in result.errors) == [
        "resources.extensions.OtherLambdaFunction", "resources.extensions.SendDashemailLogGroupIA"]
    assert "cannot extend Type" in [e.message for e in result.errors if "IA" in e.message][0]
    (function,) = graph.all(Function)
    assert function.timeout == Known(20)


# -- findings name the serverless.yml keys ---------------------------------------------------

def test_findings_name_the_keys_that_wrote_them(tmp_path):
    result, _ = _graph(tmp_path, SERVICE + """\
functions:
  send-email:
    events:
      - sns: arn:aws:sns:eu-west-1:1:orders
      - sqs: {arn: "arn:aws:sqs:eu-west-1:1:jobs"}
      - eventBridge: {pattern: {source: [x]}}
resources:
  Resources:
    Plain:
      Type: AWS::SQS::Queue
      Properties: {VisibilityTimeout: 30}
    PlainReader:
      Type: AWS::Lambda::EventSourceMapping
      Properties: {EventSourceArn: !GetAtt Plain.Arn, FunctionName: !Ref SendDashemailLambdaFunction}
""")
    prefixes = {(f.resource, f.message.split(": ", 1)[0]) for f in result.findings}
    assert ("SendDashemailEventSourceMappingSQSJobs", "functions.send-email.events[1].sqs") in prefixes
    assert ("Shopdevsendemailrule3EventBridgeRule", "functions.send-email.events[2].eventBridge") in prefixes
    assert ("SendDashemailLambdaFunction", "functions.send-email") in prefixes
    # a resource of resources.Resources is plain CloudFormation, named by its logical ID alone
    plain = [f for f in result.findings if f.resource in ("Plain", "PlainReader")]
    assert plain and all(not f.message.startswith("functions.") for f in plain)


def test_a_safe_fix_is_made_in_the_included_file_that_holds_the_setting(tmp_path, capsys):
    from fanout_lint.cli.main import main

    (tmp_path / ".git").mkdir()
    (tmp_path / "res.yml").write_text("Resources:\n  Q:\n    Type: AWS::SQS::Queue\n    Properties:\n"
                                      "      VisibilityTimeout: 20\n")
    service = tmp_path / "serverless.yml"
    service.write_text(SERVICE + "functions:\n  w:\n    timeout: 30\n    events:\n      - sqs: {arn: !GetAtt Q.Arn}\n"
                       "resources: ${file(./res.yml)}\n")
    before = service.read_text()
    main(["check", "--fix", "--select", "visibility-timeout-below-function-timeout", str(service)])
    capsys.readouterr()
    assert "VisibilityTimeout: 180" in (tmp_path / "res.yml").read_text()
    assert service.read_text() == before


def test_values_of_the_wrong_kind_are_refused_quietly(tmp_path):
    result, graph = _graph(tmp_path, """\
service: shop
provider:
  name: aws
  s3: {b: 5, c: {name: 7, "NotificationConfiguration": 3}}
  eventBridge: 5
functions:
  a:
    role: [1]
    events:
      - schedule: 5
      - schedule: {rate: 5}
      - schedule: {rate: [[1], {a: 1}, null], method: [x], enabled: "false"}
      - schedule: {rate: [rate(1 day)], method: scheduler, enabled: "${opt:x}"}
      - eventBridge: 7
      - eventBridge: {eventBus: 9, pattern: 3, retryPolicy: [1], deadLetterQueueArn: {}}
      - s3: 5
      - s3: {bucket: b, rules: [1, {a: 1, b: 2}, {prefix: x}], existing: "yes"}
      - s3: {bucket: c}
      - s3: {bucket: [1]}
      - stream: 5
      - stream: {arn: 5, type: 9, destinations: 5}
      - stream: {arn: {"Fn::Join": [":", [1]]}, destinations: {onFailure: {type: sqs}}}
      - stream: {arn: "arn:aws", type: kinesis}
      - stream: {arn: {"Fn::GetAtt": "X.Arn"}, type: kinesis}
      - stream: {arn: {"Ref": 5}, type: kinesis}
    destinations: 5
    maximumRetryAttempts: x
  b:
    destinations: {onSuccess: 5, onFailure: {arn: null}}
  c:
    destinations: ${opt:d}
""")
    assert result.errors == []
    # what the Framework refuses makes nothing; what it accepts is modelled or recorded
    assert _ids(graph, EventTarget) == ["ASchedulerSchedule1"]
    assert sorted(m.resource for m in graph.all(EventSourceMapping)) == [
        f"AEventSourceMapping<events[{i}]>" for i in range(12, 16)]
    assert [n.name for n in graph.not_modelled if n.name.startswith("functions.")] == [
        "functions.a.events[2].schedule", "functions.a.events[4].eventBridge", "functions.a.events[5].eventBridge",
        "functions.a.events[6].s3", "functions.a.events[7].s3", "functions.a.events[8].s3", "functions.a.events[9].s3",
        "functions.a.events[12].stream"]


def test_a_file_of_the_other_syntax_stays_unknown(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "fns.json").write_text('{"w": {"events": [{"sqs": "arn:aws:sqs:eu-west-1:1:q"}]}}')
    result, graph = _graph(tmp_path, SERVICE + "functions: ${file(./fns.json)}\n")
    assert result.errors == [] and graph.all(Function) == [] and set(graph.unit.files) == {str(tmp_path / "serverless.yml")}
