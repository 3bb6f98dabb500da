"""Serverless Framework services: the Framework's logical IDs, its variables, what it
generates from functions and events, and findings in its vocabulary."""

from __future__ import annotations

import json
import os
import re

import pytest

from fanout_lint.loaders.parsing.budget import Budget
from fanout_lint.cli.main import main
from fanout_lint.run.engine import lint_paths
from fanout_lint.loaders.serverless import naming
from fanout_lint.loaders import is_service
from fanout_lint.loaders.serverless.variables import resolve_variables
from fanout_lint.model.nodes import EventSourceMapping, Function, LambdaPermission, QueuePolicy, Subscription, Topic
from fanout_lint.model.values import Known
from fanout_lint.rules import ALL_RULES
from fanout_lint.policy.settings import Settings
from repo_paths import ROOT

FIXTURES = os.path.join(ROOT, "tests", "fixtures", "serverless")


def _graph(tmp_path, text: str, name: str = "serverless.yml"):
    path = tmp_path / name
    path.write_text(text)
    result = lint_paths([str(path)], ALL_RULES, Settings(jobs=1), keep_graphs=True)
    return result, (result.graphs[0] if result.graphs else None)


SERVICE = """\
service: shop
provider:
  name: aws
"""


# -- naming, as the Framework's naming.js ---------------------------------------------

@pytest.mark.parametrize("function, expected", [
    ("worker", "WorkerLambdaFunction"),
    ("send-email", "SendDashemailLambdaFunction"),
    ("send_email", "SendUnderscoreemailLambdaFunction"),
    ("a.b", "A.bLambdaFunction"),
])
def test_function_logical_ids(function, expected):
    assert naming.function_id(function) == expected


def test_event_logical_ids():
    assert naming.sqs_mapping_id("send-email", "orders-queue.fifo") == "SendDashemailEventSourceMappingSQSOrdersqueuefifo"
    assert naming.sns_subscription_id("worker", "order-created") == "WorkerSnsSubscriptionOrdercreated"
    assert naming.sns_permission_id("worker", "order-created") == "WorkerLambdaPermissionOrdercreatedSNS"
    assert naming.topic_id("order-created") == "SNSTopicOrdercreated"
    assert naming.topic_dlq_policy_id("worker", "orders") == "OrdersToWorkerDLQPolicy"
    assert naming.invoke_config_id("worker") == "WorkerLambdaEvConf"


# -- recognition -------------------------------------------------------------------------

@pytest.mark.parametrize("data, expected", [
    ({"service": "a", "provider": {"name": "aws"}}, True),
    ({"service": "a", "functions": {}}, True),
    ({"service": {"name": "a"}, "provider": {"name": "aws"}, "functions": {}}, True),
    ({"service": "a", "provider": {"name": "google"}, "functions": {}}, False),
    ({"services": {"web": {}}}, False),  # docker compose
    ({"service": "a"}, False),
])
def test_a_service_is_recognised_by_its_content(data, expected):
    assert is_service(data) is expected


def test_other_yaml_with_service_is_skipped(tmp_path):
    result, graph = _graph(tmp_path, "apiVersion: v1\nkind: Service\nmetadata: {name: web}\n", "svc.yaml")
    assert graph is None and result.errors == []


# -- variables ---------------------------------------------------------------------------

def _resolved(data: dict) -> dict:
    resolve_variables(data, Budget())
    return data


def test_self_variables_resolve_within_the_file():
    data = _resolved({
        "custom": {"t": 30, "q": "orders", "dlq": "${self:custom.q}-dlq", "missing": "${self:custom.nope, 'x'}",
                   "number": "${self:custom.nope, 10}", "obj": {"a": "${self:custom.q}"}},
        "provider": {"timeout": "${self:custom.t}", "name": "${self:custom.obj}", "lit": "${Name}",
                     "pseudo": "${AWS::Region}"},
    })
    assert data["custom"]["dlq"] == "orders-dlq"
    assert data["custom"]["missing"] == "x" and data["custom"]["number"] == 10
    assert data["provider"]["timeout"] == 30  # the whole string: the value, typed
    assert data["provider"]["name"] == {"a": "orders"}
    assert data["provider"]["lit"] == "${Name}" and data["provider"]["pseudo"] == "${AWS::Region}"


def test_region_and_account_become_the_stacks_pseudo_parameters():
    data = _resolved({"arn": "arn:aws:sqs:${aws:region}:${aws:accountId}:jobs",
                      "sub": {"Fn::Sub": "arn:${AWS::Partition}:sqs:${aws:region}:1:q-${Suffix}"}})
    assert data["arn"] == {"Fn::Sub": "arn:aws:sqs:${AWS::Region}:${AWS::AccountId}:jobs"}
    assert data["sub"] == {"Fn::Sub": "arn:${AWS::Partition}:sqs:${AWS::Region}:1:q-${Suffix}"}


@pytest.mark.parametrize("text", [
    "${opt:stage}", "${opt:stage, 'dev'}", "${env:X}", "${ssm:/a/b}", "${cf:stack.Output}", "${file(./x.yml):y}",
    "${sls:stage}", "${self:custom.${opt:stage}}", "prefix-${env:X}", "${self:custom.loop}",
])
def test_other_sources_are_unknown(text):
    data = _resolved({"custom": {"loop": "${self:custom.loop}"}, "value": text})
    assert set(data["value"]) == {"Ref"}  # a parameter without default: unknown


def test_a_variable_that_would_make_the_file_contain_itself_is_unknown():
    data = _resolved({"custom": {"inner": {"me": "${self:custom}"}}})
    assert set(data["custom"]["inner"]["me"]) == {"Ref"}


def test_variables_are_bounded():
    chain = {f"v{i}": f"${{self:custom.v{i + 1}}}" for i in range(200)}
    chain["v200"] = "end"
    from fanout_lint.loaders.parsing.budget import BudgetExceeded

    with pytest.raises(BudgetExceeded):
        _resolved({"custom": chain, "x": "${self:custom.v0}"})


# -- what the Framework generates ---------------------------------------------------------

def test_functions_and_sqs_events(tmp_path):
    _, graph = _graph(tmp_path, SERVICE + """\
  timeout: 20
functions:
  send-email:
    handler: a.b
    events:
      - sqs:
          arn: !GetAtt Jobs.Arn
          batchSize: 0
          maximumBatchingWindow: 5
          functionResponseType: ReportBatchItemFailures
  default-timeout:
    timeout: 0
    events:
      - sqs: arn:aws:sqs:us-east-1:123456789012:jobs
      - sqs:
          arn: {"Fn::ImportValue": shared-queue-arn}
resources:
  Resources:
    Jobs:
      Type: AWS::SQS::Queue
      Properties: {QueueName: jobs}
""")
    functions = {f.id: f for f in graph.all(Function)}
    assert functions["SendDashemailLambdaFunction"].timeout.value == 20  # provider.timeout
    assert functions["SendDashemailLambdaFunction"].timeout.site.entry().line == 4
    assert functions["DefaultDashtimeoutLambdaFunction"].timeout.value == 20  # a zero timeout is unset
    mappings = {m.id: m for m in graph.all(EventSourceMapping)}
    assert set(mappings) == {"SendDashemailEventSourceMappingSQSJobs", "DefaultDashtimeoutEventSourceMappingSQSJobs",
                             "DefaultDashtimeoutEventSourceMappingSQSSharedqueuearn"}
    mapping = mappings["SendDashemailEventSourceMappingSQSJobs"]
    assert (mapping.source, mapping.function) == ("Jobs", "SendDashemailLambdaFunction")
    assert mapping.batch_size.value == 10  # 0 is the Framework's default
    assert mapping.batching_window.value == 5 and mapping.batching_window.site.entry().line == 12
    assert mapping.response_types.value == ("ReportBatchItemFailures",)
    assert mapping.response_types.site.entry().line == 13
    assert mappings["DefaultDashtimeoutEventSourceMappingSQSJobs"].source == "Jobs"  # the literal ARN names it


def test_the_framework_default_timeout(tmp_path):
    _, graph = _graph(tmp_path, SERVICE + "functions:\n  f:\n    handler: a.b\n")
    (function,) = graph.all(Function)
    assert function.timeout == Known(6, "default")


def test_sns_events(tmp_path):
    _, graph = _graph(tmp_path, SERVICE + """\
functions:
  notify:
    events:
      - sns: order-created
      - sns: arn:aws:sns:us-east-1:123456789012:external-topic
      - sns:
          topicName: refunds
          filterPolicy: {kind: [refund]}
      - sns:
          arn: !Ref Orders
          topicName: orders
          redrivePolicy:
            deadLetterTargetRef: NotifyDLQ
  other:
    events:
      - sns: order-created
resources:
  Resources:
    Orders:
      Type: AWS::SNS::Topic
    NotifyDLQ:
      Type: AWS::SQS::Queue
""")
    topics = {t.id for t in graph.all(Topic)}
    assert topics == {"SNSTopicOrdercreated", "SNSTopicRefunds", "Orders"}
    subscriptions = {s.id: s for s in graph.all(Subscription)}
    assert set(subscriptions) == {
        "SNSTopicOrdercreated.Subscription[0]", "SNSTopicOrdercreated.Subscription[1]",
        "NotifySnsSubscriptionExternaltopic", "NotifySnsSubscriptionRefunds", "NotifySnsSubscriptionOrders",
    }
    assert subscriptions["SNSTopicOrdercreated.Subscription[1]"].endpoint == "OtherLambdaFunction"
    assert subscriptions["NotifySnsSubscriptionRefunds"].filter_policy is True
    orders = subscriptions["NotifySnsSubscriptionOrders"]
    assert (orders.topic, orders.redrive_dlq.value) == ("Orders", "NotifyDLQ")
    permissions = {p.id: p.function for p in graph.all(LambdaPermission)}
    assert permissions["NotifyLambdaPermissionOrdercreatedSNS"] == "NotifyLambdaFunction"
    assert permissions["OtherLambdaPermissionOrdercreatedSNS"] == "OtherLambdaFunction"
    (policy,) = graph.all(QueuePolicy)
    assert (policy.id, policy.queues) == ("OrdersToNotifyDLQPolicy", ("NotifyDLQ",))
    (statement,) = policy.statements.value
    assert statement.condition_keys == {"aws:sourcearn"}


def test_resources_merge_into_what_the_framework_generates_and_extensions(tmp_path):
    result, graph = _graph(tmp_path, SERVICE + """\
functions:
  worker:
    timeout: 10
    events:
      - sqs: {arn: !GetAtt Jobs.Arn, batchSize: 5}
resources:
  Resources:
    Jobs:
      Type: AWS::SQS::Queue
      Properties: {VisibilityTimeout: 360}
    WorkerLambdaFunction:
      Properties:
        Timeout: 60
  extensions:
    WorkerEventSourceMappingSQSJobs:
      Metadata:
        fanout-lint:
          ignore: [batch-item-failures-off]
          reason: the worker is idempotent
    Missing:
      Properties: {}
""")
    (function,) = graph.all(Function)
    assert function.timeout.value == 60 and function.timeout.site.entry().line == 16
    assert [s.finding.name for s in result.suppressed] == ["batch-item-failures-off"]
    assert [e.message for e in result.errors] == ["resources.extensions.Missing extends no resource of the service"]


def test_an_arn_the_framework_cannot_name_is_one_error(tmp_path):
    result, graph = _graph(tmp_path, SERVICE + "functions:\n  f:\n    events:\n      - sqs:\n          arn: !Ref Q\n")
    (error,) = result.errors
    assert "cannot name the event source mapping" in error.message and error.line == 7
    assert graph.all(EventSourceMapping) == []


def test_names_the_file_does_not_prove_name_the_resource_by_its_event(tmp_path):
    _, graph = _graph(tmp_path, SERVICE + "functions:\n  f:\n    events:\n      - sqs: ${cf:other.QueueArn}\n")
    (mapping,) = graph.all(EventSourceMapping)
    assert mapping.id == "FEventSourceMappingSQS<events[0]>"
    assert mapping.source.startswith("external: ")


def test_topics_whose_names_the_file_does_not_prove_are_one_each(tmp_path):
    # Held out (a public service): two functions subscribe to two topics whose names hold
    # an unresolved stage. Named by the event alone, both were "SNSTopic<events[0]>", one
    # topic with two subscribers, and the second function's finding said the first's path.
    _, graph = _graph(tmp_path, SERVICE + """\
  stage: ${opt:stage, "development"}
functions:
  one:
    events:
      - sns: orders-${self:provider.stage}-one
  two:
    events:
      - sns: orders-${self:provider.stage}-two
      - sns: orders-${self:provider.stage}-three
""")
    assert sorted(t.id for t in graph.all(Topic)) == [
        "SNSTopicOne<events[0]>", "SNSTopicTwo<events[0]>", "SNSTopicTwo<events[1]>"]
    assert all(len(graph.subscriptions_of(t.id)) == 1 for t in graph.all(Topic))


def test_hidden_functions_make_every_topic_exported(tmp_path):
    base = SERVICE + """\
resources:
  Resources:
    Orders:
      Type: AWS::SNS::Topic
    Q:
      Type: AWS::SQS::Queue
    Sub:
      Type: AWS::SNS::Subscription
      Properties: {TopicArn: !Ref Orders, Protocol: sqs, Endpoint: !GetAtt Q.Arn, RawMessageDelivery: true}
"""
    shown, _ = _graph(tmp_path, base + "functions: {}\n")
    assert "single-subscriber-topic" in {f.name for f in shown.findings}
    hidden, graph = _graph(tmp_path, base + "functions: ${file(./functions.yml)}\n")
    assert "single-subscriber-topic" not in {f.name for f in hidden.findings}
    assert graph.get("Orders").exported


def test_comment_suppressions_on_functions_and_events(tmp_path):
    result, _ = _graph(tmp_path, SERVICE + """\
functions:
  # fanout-lint: ignore=sns-to-lambda-direct -- every event of this function
  a:
    events:
      - sns: one
  b:
    events:
      # fanout-lint: ignore=FL001 -- this event only
      - sns: two
      - sns: three
""")
    assert sorted(s.finding.resource for s in result.suppressed) == ["SNSTopicOne", "SNSTopicTwo"]
    assert [f.resource for f in result.findings if f.name == "sns-to-lambda-direct"] == ["SNSTopicThree"]


# -- the Framework's vocabulary ---------------------------------------------------------

FRAMEWORK_FOR_CFN = {"FunctionResponseTypes": "functionResponseType", "MaximumBatchingWindowInSeconds":
                     "maximumBatchingWindow", "BatchSize": "batchSize", "Timeout": "timeout"}


def _fixture_findings():
    for name in sorted(os.listdir(FIXTURES)):
        if name.endswith((".yml", ".yaml", ".json")) and not name.endswith(".expected.yaml"):
            yield from lint_paths([os.path.join(FIXTURES, name)], ALL_RULES, Settings(jobs=1)).findings


def test_findings_on_what_the_framework_generates_speak_its_vocabulary():
    findings = list(_fixture_findings())
    assert findings
    words = {w for f in findings for w in re.findall(r"[A-Za-z][A-Za-z0-9_]*", f.message)}
    for cloudformation, framework in FRAMEWORK_FOR_CFN.items():
        assert cloudformation not in words, cloudformation
    assert {"functionResponseType", "maximumBatchingWindow", "timeout"} <= words
    assert not {w for w in words if "_" in w and w.islower()}, "a Terraform argument in a Serverless finding"


@pytest.mark.parametrize("fmt", ["json", "sarif", "github", "junit", "text"])
def test_every_output_format(tmp_path, capsys, fmt):
    service = tmp_path / "svc"
    service.mkdir()
    with open(os.path.join(FIXTURES, "sls_fires.yml"), encoding="utf-8") as handle:
        (service / "serverless.yml").write_text(handle.read())
    assert main([str(tmp_path), "--format", fmt]) == 1
    out = capsys.readouterr().out
    assert "serverless.yml" in out
    if fmt == "json":
        assert {f["resource"] for f in json.loads(out)["findings"]} >= {"JobsQueue", "SNSTopicOrdercreated"}


# -- fixes: never through a variable ---------------------------------------------------

VARIABLES = SERVICE + """\
custom:
  visibility: 30
  properties:
    VisibilityTimeout: 30
functions:
  worker:
    handler: a.b
    timeout: 60
    events:
""" + "".join(f"""\
      - sqs:
          arn: {{"Fn::GetAtt": [{queue}, Arn]}}
          functionResponseType: ReportBatchItemFailures
""" for queue in ("ByVariable", "Quoted", "WholeProperties", "ReadByVariable", "Reader", "Plain")) + """\
resources:
  Resources:
    ByVariable:
      Type: AWS::SQS::Queue
      Properties:
        VisibilityTimeout: ${self:custom.visibility}
    Quoted:
      Type: AWS::SQS::Queue
      Properties:
        VisibilityTimeout: "${self:custom.visibility}"
    WholeProperties:
      Type: AWS::SQS::Queue
      Properties: ${self:custom.properties}
    ReadByVariable:
      Type: AWS::SQS::Queue
      Properties:
        VisibilityTimeout: 30
    Reader:
      Type: AWS::SQS::Queue
      Properties:
        VisibilityTimeout: ${self:resources.Resources.ReadByVariable.Properties.VisibilityTimeout}
    Plain:
      Type: AWS::SQS::Queue
      Properties:
        VisibilityTimeout: 30
"""


@pytest.mark.parametrize("name", ["serverless.yml", "serverless.json"])
def test_no_fix_overwrites_a_variable_or_what_a_variable_reads(tmp_path, capsys, monkeypatch, name):
    import yaml

    monkeypatch.chdir(tmp_path)
    path = tmp_path / name
    path.write_text(VARIABLES if name.endswith(".yml") else json.dumps(yaml.safe_load(VARIABLES), indent=2))
    main(["check", "--format", "json", name])
    findings = json.loads(capsys.readouterr().out)["findings"]
    timeouts = {f["resource"]: f for f in findings if f["rule"] == "FL202"}
    # every queue's 30 s is read, through its variable too
    assert set(timeouts) == {"ByVariable", "Quoted", "WholeProperties", "ReadByVariable", "Reader", "Plain"}
    # only what is written in place, and read from nowhere else, is fixed
    assert {queue for queue, f in timeouts.items() if "fix" in f} == {"Plain"}
    before = path.read_text()
    main(["check", "--fix", name])
    capsys.readouterr()
    after = path.read_text()
    assert after != before
    assert after.count("${self:") == before.count("${self:") == 4
    assert after.count("360") == 1
