"""Shapes a team would not act on are reported lower, with the reason; options restore
the rule's level; SAM state machine events and SQS events are read as SAM writes them."""

from __future__ import annotations

import os
import textwrap

import pytest

from fanout_lint.policy.config import ConfigError, load_config
from fanout_lint.run.engine import lint_paths
from fanout_lint.results.records import Severity
from fanout_lint.loaders.cloudformation.loader import load_template
from fanout_lint.loaders.parsing.yaml_source import parse_yaml
from fanout_lint.model.nodes import EventRule, EventTarget, Queue, QueuePolicy
from fanout_lint.model.values import Known, verdict
from fanout_lint.rules import ALL_RULES, common
from fanout_lint.policy.settings import Settings
from repo_paths import TESTS

FIXTURES = os.path.join(TESTS, "fixtures")


def graph_of(text: str, name: str = "t.yaml"):
    return load_template(parse_yaml(textwrap.dedent(text), name), name)


def findings(path: str, rule: str, options: dict | None = None) -> dict[str, tuple[str, str]]:
    """(resource -> (severity, message)) of one rule's findings."""
    settings = Settings(select=(rule,), options=options or {})
    return {f.resource: (f.severity.value, f.message) for f in lint_paths([path], ALL_RULES, settings).findings}


def test_a_schedule_only_target_is_info_and_says_why_and_the_option_restores_it():
    path = os.path.join(FIXTURES, "eventbridge-target-without-dlq", "cfn_schedules.yaml")
    lowered = findings(path, "FL401")
    assert lowered["CronRule"][0] == "info" and lowered["HourlySchedule"][0] == "info"
    assert "only a recurring schedule triggers it" in lowered["CronRule"][1]
    for kept in ("ScheduleAndPatternRule", "PatternRule", "ExpressionFromParameter", "OneTimeSchedule"):
        assert lowered[kept][0] == "error" and "reported as" not in lowered[kept][1]
    restored = findings(path, "FL401", {"FL401": {"schedules": "error"}})
    assert {r: s for r, (s, _) in restored.items()} == dict.fromkeys(lowered, "error")
    # at the rule's own level the message is the one it always was
    assert restored["CronRule"][1] == lowered["CronRule"][1].split("; reported as info")[0]
    warned = findings(path, "FL401", {"FL401": {"schedules": "warning"}})
    assert warned["CronRule"][0] == "warning" and "reported as warning" in warned["CronRule"][1]


def test_a_function_only_schedules_invoke_is_info_unless_something_else_may_invoke_it():
    path = os.path.join(FIXTURES, "async-invoke-without-failure-destination", "cfn_schedules.yaml")
    got = findings(path, "FL402")
    assert got["CleanupFunction"][0] == "info"
    assert "only recurring schedules invoke it" in got["CleanupFunction"][1]
    assert got["SyncFunction"][0] == "warning"  # an event pattern too
    assert got["DigestFunction"][0] == "warning"  # a permission for SNS
    restored = findings(path, "FL402", {"FL402": {"schedules": "warning"}})
    assert {s for s, _ in restored.values()} == {"warning"}


def test_a_topic_only_alarms_and_budgets_publish_to_is_info_and_names_them():
    path = os.path.join(FIXTURES, "sns-to-lambda-direct", "cfn_notifiers.yaml")
    got = findings(path, "FL001")
    assert got["SlackSubscription"][0] == "info" and "AWS::CloudWatch::Alarm ErrorsAlarm" in got["SlackSubscription"][1]
    assert got["BudgetTopic"][0] == "info" and "AWS::Budgets::Budget MonthlyBudget" in got["BudgetTopic"][1]
    for kept in ("OrdersTopic", "UploadsTopic", "SharedAlarmTopic"):  # no publisher, S3 as well, exported
        assert got[kept][0] == "warning" and "reported as" not in got[kept][1]
    restored = findings(path, "FL001", {"FL001": {"notifiers": "warning"}})
    assert {s for s, _ in restored.values()} == {"warning"}


def test_a_level_option_takes_only_a_level(tmp_path):
    path = tmp_path / ".fanout-lint.toml"
    path.write_text('[options.eventbridge-target-without-dlq]\nschedules = "loud"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="must be one of info, warning, error"):
        load_config(str(path), ALL_RULES)
    path.write_text('[options.eventbridge-target-without-dlq]\nschedules = "warning"\n', encoding="utf-8")
    assert load_config(str(path), ALL_RULES).options["FL401"] == {"schedules": "warning"}


def test_sam_rules_write_their_schedule_and_pattern():
    graph = graph_of("""
        Transform: AWS::Serverless-2016-10-31
        Resources:
          Fn:
            Type: AWS::Serverless::Function
            Properties:
              Events:
                Tick: {Type: Schedule, Properties: {Schedule: rate(1 hour)}}
                Bus: {Type: EventBridgeRule, Properties: {Pattern: {source: [x]}}}
                Tock: {Type: ScheduleV2, Properties: {ScheduleExpression: cron(0 3 * * ? *)}}
    """)
    tick, bus = graph.get("FnTick"), graph.get("FnBus")
    assert isinstance(tick, EventRule) and tick.schedule == Known("rate(1 hour)") and tick.pattern == Known(False)
    assert isinstance(bus, EventRule) and bus.schedule == Known(None) and bus.pattern == Known(True)
    tock = graph.get("FnTock")
    assert isinstance(tock, EventTarget) and tock.scheduler and tock.schedule == Known("cron(0 3 * * ? *)")


def test_sam_state_machine_events_become_rules_and_schedules_that_start_it():
    graph = graph_of("""
        Transform: AWS::Serverless-2016-10-31
        Resources:
          Flow:
            Type: AWS::Serverless::StateMachine
            Properties:
              DefinitionUri: flow.asl.json
              Events:
                Nightly: {Type: Schedule, Properties: {Schedule: rate(1 day), DeadLetterConfig: {Type: SQS}}}
                Orders: {Type: EventBridgeRule, Properties: {Pattern: {source: [shop]}}}
                Old: {Type: CloudWatchEvent, Properties: {Pattern: {source: [shop]}}}
                Hourly: {Type: ScheduleV2, Properties: {ScheduleExpression: rate(1 hour)}}
                Start: {Type: Api, Properties: {Path: /start, Method: post, RestApiId: !Ref Api}}
    """)
    targets = {t.id: t for t in graph.all(EventTarget)}
    assert set(targets) == {"FlowNightly.Targets[0]", "FlowOrders.Targets[0]", "FlowOld.Targets[0]", "FlowHourly"}
    assert {t.target for t in targets.values()} == {"Flow"}
    for rule in ("FlowNightly", "FlowOrders", "FlowOld"):
        assert isinstance(graph.get(rule), EventRule)
    # each starts the execution with the role SAM creates for the event: written, so no
    # Lambda-style resource policy is asked for
    assert all(verdict(lambda role: role is None, t.role) is not True for t in targets.values())
    assert targets["FlowHourly"].scheduler
    assert graph.get("FlowNightly").schedule.value == "rate(1 day)"
    assert graph.get("FlowOrders").pattern.value is True
    # a DeadLetterConfig of Type SQS makes the queue and the policy that lets the rule send
    assert isinstance(graph.get("FlowNightlyQueue"), Queue)
    assert isinstance(graph.get("FlowNightlyQueuePolicy"), QueuePolicy)
    assert targets["FlowNightly.Targets[0]"].dead_letter.value == "FlowNightlyQueue"
    assert graph.get("FlowStart") is None  # an Api event starts it through API Gateway


def test_an_sqs_event_proves_its_mapping_reads_a_queue_whatever_its_arn():
    path = os.path.join(FIXTURES, "mapping-concurrency-above-reserved", "sam_imported_queue.yaml")
    assert set(findings(path, "FL205")) == {"OrdersFunctionOrders", "OrdersFunctionJobs"}
    # a plain mapping whose source is a parameter proves nothing
    text = """
        Parameters:
          QueueArn: {Type: String}
        Resources:
          Fn:
            Type: AWS::Lambda::Function
            Properties: {ReservedConcurrentExecutions: 5}
          Mapping:
            Type: AWS::Lambda::EventSourceMapping
            Properties: {EventSourceArn: !Ref QueueArn, FunctionName: !Ref Fn}
    """
    graph = graph_of(text)
    from fanout_lint.rules import mapping_concurrency_above_reserved

    assert list(mapping_concurrency_above_reserved.check(graph, {})) == []


def test_cfn_lint_takes_only_a_level_too():
    pytest.importorskip("cfnlint")
    from fanout_lint.integrations import cfnlint_adapter

    rule = next(r for r in ALL_RULES if r.id == "FL401")
    assert cfnlint_adapter.read_options(rule, "EFL401", {"schedules": "error"}) == ({"schedules": "error"}, [])
    options, problems = cfnlint_adapter.read_options(rule, "EFL401", {"schedules": "loud"})
    assert options == {} and "must be one of info, warning, error" in problems[0]


def test_a_queue_behind_a_topic_only_failures_reach_is_a_dead_letter_store():
    path = os.path.join(FIXTURES, "missing-dlq", "cfn_dead_letter_topic.yaml")
    assert set(findings(path, "FL101")) == {"MixedQueue"}  # an alarm publishes to its topic too
    raw = findings(path, "FL002")
    assert raw["FailuresSubscription"][0] == "info"
    assert "a dead-letter path: only failures reach the topic (WorkerFunction's DeadLetterConfig.TargetArn)" \
        in raw["FailuresSubscription"][1]
    assert raw["MixedSubscription"][0] == "warning" and "reported as" not in raw["MixedSubscription"][1]
    restored = findings(path, "FL002", {"FL002": {"dead-letters": "warning"}})
    assert {s for s, _ in restored.values()} == {"warning"}
    assert restored["FailuresSubscription"][1] == raw["FailuresSubscription"][1].split("; reported as info")[0]
    single = findings(path, "FL003")
    assert single["FailuresTopic"][0] == "info" and "a dead-letter path" in single["FailuresTopic"][1]


def test_a_dead_letter_topic_stays_info_when_the_rule_is_raised_and_terraform_reads_the_same():
    path = os.path.join(FIXTURES, "missing-dlq", "tf_dead_letter_topic")
    settings = Settings(select=("FL003",), severity={"FL003": Severity.WARNING})
    levels = {f.resource: f.severity.value for f in lint_paths([path], ALL_RULES, settings).findings}
    assert levels == {"aws_sns_topic.errors": "info", "aws_sns_topic.uploads": "warning"}
    assert set(findings(path, "FL101")) == {"aws_sqs_queue.uploads"}  # S3 publishes to its topic too
    assert findings(path, "FL002")["aws_sns_topic_subscription.errors"][0] == "info"


def test_a_queue_an_on_success_destination_names_is_no_dead_letter_store():
    text = """
        Resources:
          Fn:
            Type: AWS::Lambda::Function
            Properties: {DeadLetterConfig: {TargetArn: !Ref Failures}}
          Failures:
            Type: AWS::SNS::Topic
          Sub:
            Type: AWS::SNS::Subscription
            Properties: {TopicArn: !Ref Failures, Protocol: sqs, Endpoint: !GetAtt Store.Arn}
          Store:
            Type: AWS::SQS::Queue
          Config:
            Type: AWS::Lambda::EventInvokeConfig
            Properties:
              FunctionName: !Ref Fn
              Qualifier: $LATEST
              DestinationConfig: {OnSuccess: {Destination: DESTINATION}}
    """
    graph = graph_of(text.replace("DESTINATION", "!GetAtt Store.Arn"))  # results reach the queue too
    assert [u.user for u in common.dead_letter_topic_uses(graph, graph.get("Failures"))] == ["Fn"]
    assert not common.is_dead_letter_store(graph, graph.get("Store"))
    graph = graph_of(text.replace("DESTINATION", "!Ref Failures"))  # and here the topic
    assert common.dead_letter_topic_uses(graph, graph.get("Failures")) == []
    assert not common.is_dead_letter_store(graph, graph.get("Store"))
    graph = graph_of(text.replace("DESTINATION", "arn:aws:sqs:us-east-1:123456789012:elsewhere"))
    assert common.is_dead_letter_store(graph, graph.get("Store"))


def test_a_dlq_and_source_both_at_the_maximum_retention_is_info_and_the_option_restores_it():
    for path, long_dlq, short_dlq in (
        (os.path.join(FIXTURES, "dlq-retention-not-longer", "cfn_fires.yaml"), "LongDLQ", "ShortDLQ"),
        (os.path.join(FIXTURES, "dlq-retention-not-longer", "tf_fires"), "aws_sqs_queue.long_dlq",
         "aws_sqs_queue.short_dlq"),
    ):
        got = findings(path, "FL103")
        assert got[long_dlq][0] == "info" and "both keep the maximum of 14 days" in got[long_dlq][1]
        assert "shorten the source queue's" in got[long_dlq][1]
        assert got[short_dlq][0] == "warning" and "reported as" not in got[short_dlq][1]  # 4 days under 14
        assert {s for r, (s, _) in got.items() if r != long_dlq} == {"warning"}
        restored = findings(path, "FL103", {"FL103": {"at-maximum": "warning"}})
        assert {s for s, _ in restored.values()} == {"warning"}
        assert restored[long_dlq][1] == got[long_dlq][1].split("; reported as info")[0]


def test_a_function_that_keeps_what_fails_is_info_says_why_and_the_option_restores_the_warning():
    unknown = {  # a dead-letter queue under a condition, a variable in the block's place
        os.path.join(FIXTURES, "sns-to-lambda-direct", "cfn_keeps_failures.yaml"): "ReportSubscription",
        os.path.join(FIXTURES, "sns-to-lambda-direct", "tf_keeps_failures"): "aws_sns_topic_subscription.report",
    }
    for path, names in (
        (os.path.join(FIXTURES, "sns-to-lambda-direct", "cfn_keeps_failures.yaml"),
         {"EmailSubscription": "DeadLetterConfig.TargetArn",
          "AuditSubscription": "DestinationConfig.OnFailure.Destination (AuditInvokeConfig)"}),
        (os.path.join(FIXTURES, "sns-to-lambda-direct", "tf_keeps_failures"),
         {"aws_sns_topic_subscription.email": "dead_letter_config.target_arn",
          "aws_sns_topic_subscription.audit": "destination_config.on_failure.destination",
          "aws_sns_topic_subscription.legacy": "dead_letter_config.target_arn"}),
    ):
        got = findings(path, "FL001")
        restored = findings(path, "FL001", {"FL001": {"keeps-failures": "warning"}})
        assert set(got) == set(names) | {unknown[path]}
        assert got[unknown[path]] == restored[unknown[path]] and got[unknown[path]][0] == "warning"
        for resource, setting in names.items():
            severity, message = got[resource]
            assert severity == "info" and f"the function's {setting}" in message
            assert "keeps messages the function fails on" not in message and "absorbs spikes" in message
            assert "reported as info because the function keeps what fails" in message
            assert f"expires to its {setting.split(' (')[0]}, so nothing is lost" in message
            # at the rule's own level the message is the one it always was
            assert restored[resource] == ("warning", message.split("; reported as info")[0])
    # a function with neither keeps the message it always had
    plain = findings(os.path.join(FIXTURES, "sns-to-lambda-direct", "cfn_fires.yaml"), "FL001")
    assert all("no queue absorbs spikes or keeps messages the function fails on" in m for _, m in plain.values())


def test_a_loop_granted_only_on_every_resource_is_info_and_the_option_restores_it():
    for path, broad, named in (
        (os.path.join(FIXTURES, "recursive-delivery-loop", "cfn_wildcard.yaml"), "BroadMapping", "NamedMapping"),
        (os.path.join(FIXTURES, "recursive-delivery-loop", "tf_wildcard"), "aws_sns_topic_subscription.broad",
         "aws_sns_topic_subscription.named"),
    ):
        got = findings(path, "FL405")
        assert got[broad][0] == "info" and 'only on every resource (Resource "*")' in got[broad][1]
        assert got[named][0] == "warning" and "reported as" not in got[named][1]
        restored = findings(path, "FL405", {"FL405": {"wildcard": "warning"}})
        assert restored[broad] == ("warning", got[broad][1].split("; reported as info")[0])
        assert restored[named] == got[named]


def test_a_loop_through_a_role_other_functions_share_is_info_and_the_option_restores_it():
    for path, mapping, sibling in (
        (os.path.join(FIXTURES, "recursive-delivery-loop", "cfn_shared_role.yaml"), "ReceiverMapping", "Sender"),
        (os.path.join(FIXTURES, "recursive-delivery-loop", "tf_shared_role"), "aws_lambda_event_source_mapping.receiver",
         "aws_lambda_function.sender"),
        (os.path.join(FIXTURES, "recursive-delivery-loop", "sls_shared_role.yml"),
         "ReceiverEventSourceMappingSQSJobsQueue", "SenderLambdaFunction"),
    ):
        got = findings(path, "FL405")
        assert got[mapping][0] == "info" and f"is also the role of {sibling}: the write may be theirs" in got[mapping][1]
        restored = findings(path, "FL405", {"FL405": {"shared-role": "warning"}})
        assert restored[mapping] == ("warning", got[mapping][1].split("; reported as info")[0])


def test_a_count_from_5_to_10_that_reaches_the_dlq_in_time_is_info_and_the_option_restores_it():
    for path, lowered, kept in (
        (os.path.join(FIXTURES, "max-receive-count-out-of-range", "cfn_within_advice.yaml"), "SevenQueue",
         ("ElevenQueue", "SlowQueue")),
        (os.path.join(FIXTURES, "max-receive-count-out-of-range", "tf_within_advice"), "aws_sqs_queue.jobs",
         ("aws_sqs_queue.eleven", "aws_sqs_queue.slow")),
    ):
        got = findings(path, "FL104")
        assert got[lowered][0] == "info" and "no higher than the 10 SQS applies when none is written" in got[lowered][1]
        assert all(got[k][0] == "warning" and "reported as" not in got[k][1] for k in kept)
        restored = findings(path, "FL104", {"FL104": {"within-advice": "warning"}})
        assert restored[lowered] == ("warning", got[lowered][1].split("; reported as info")[0])
    # below the range stays a warning, whatever the timing
    low = findings(os.path.join(FIXTURES, "max-receive-count-out-of-range", "cfn_fires.yaml"), "FL104")
    assert low["EmailQueue"][0] == "warning" and low["OrdersQueue"][0] == "info"
