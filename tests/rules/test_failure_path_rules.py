"""The failure-path rules beyond their fixtures: levels, fixes, and what the builder reads."""

from __future__ import annotations

import os
import textwrap

from fanout_lint.run.engine import lint_paths
from fanout_lint.loaders.cloudformation.loader import load_template
from fanout_lint.loaders.parsing.yaml_source import parse_yaml
from fanout_lint.loaders.terraform.loader import load_terraform_dir
from fanout_lint.model.nodes import FilterShape, Subscription
from fanout_lint.rules import ALL_RULES
from fanout_lint.policy.settings import Settings
from repo_paths import TESTS

FIXTURES = os.path.join(TESTS, "fixtures")


def _findings(path: str, rule: str, options: dict | None = None):
    settings = Settings(select=(rule,), options=options or {})
    return lint_paths([path], ALL_RULES, settings).findings


def test_normal_throughput_is_a_warning_that_says_why_and_the_option_restores_the_error():
    path = os.path.join(FIXTURES, "fifo-high-throughput-partial", "cfn_fires.yaml")
    lowered = {f.resource: f for f in _findings(path, "FL005")}
    assert lowered["RefundsQueue"].severity.value == "warning"
    assert "reported as warning because SQS accepts the queue" in lowered["RefundsQueue"].message
    assert lowered["PaymentsQueue"].severity.value == "error" and "reported as" not in lowered["PaymentsQueue"].message
    restored = {f.resource: f for f in _findings(path, "FL005", {"FL005": {"normal-throughput": "error"}})}
    assert restored["RefundsQueue"].severity.value == "error"
    assert restored["RefundsQueue"].message == lowered["RefundsQueue"].message.split("; reported as warning")[0]


def test_the_batching_window_fix_is_safe_and_only_on_a_standard_queue():
    path = os.path.join(FIXTURES, "batching-settings-rejected", "cfn_fires.yaml")
    fixes = {(f.resource, f.loc.line): f.fix for f in _findings(path, "FL206")}
    window = fixes[("OrdersMapping", 27)]
    assert window is not None and window.applicability.value == "safe" and window.description == "MaximumBatchingWindowInSeconds: 1"
    fifo_batch = fixes[("PaymentsMapping", 50)]
    assert fifo_batch is not None and fifo_batch.applicability.value == "unsafe" and fifo_batch.description == "BatchSize: 10"
    assert fixes[("PaymentsMapping", 52)] is None  # a FIFO window is removed, not set
    assert fixes[("ProvisionedMapping", 61)] is None


def test_a_mapping_with_both_scaling_settings_is_left_to_the_refusal_not_to_the_reservation(tmp_path):
    template = tmp_path / "t.yaml"
    template.write_text(textwrap.dedent("""\
        Resources:
          Queue:
            Type: AWS::SQS::Queue
          Function:
            Type: AWS::Lambda::Function
            Properties: {ReservedConcurrentExecutions: 5}
          Mapping:
            Type: AWS::Lambda::EventSourceMapping
            Properties:
              EventSourceArn: !GetAtt Queue.Arn
              FunctionName: !Ref Function
              ProvisionedPollerConfig: {MaximumPollers: 100}
              ScalingConfig: {MaximumConcurrency: 50}
        """))
    assert [f.rule for f in _findings(str(template), "FL205")] == []
    assert [f.rule for f in _findings(str(template), "FL206")] == ["FL206"]


def _shape_of_cfn(policy: str) -> FilterShape:
    text = textwrap.dedent("""\
        Resources:
          Topic:
            Type: AWS::SNS::Topic
          Sub:
            Type: AWS::SNS::Subscription
            Properties:
              TopicArn: !Ref Topic
              Protocol: https
              Endpoint: https://example.com/x
              FilterPolicy: %s
        """) % policy
    graph = load_template(parse_yaml(text, "t.yaml"), "t.yaml")
    (sub,) = graph.all(Subscription)
    return sub.filter_shape.value


def _shape_of_tf(tmp_path, policy: str) -> FilterShape:
    (tmp_path / "main.tf").write_text(textwrap.dedent("""\
        resource "aws_sns_topic" "t" {}
        resource "aws_sns_topic_subscription" "s" {
          topic_arn     = aws_sns_topic.t.arn
          protocol      = "https"
          endpoint      = "https://example.com/x"
          filter_policy = jsonencode(%s)
        }
        """) % policy)
    graphs, errors = load_terraform_dir(str(tmp_path))
    assert not errors
    (sub,) = graphs[0].all(Subscription)
    return sub.filter_shape.value


def test_both_formats_read_a_filter_policy_to_the_same_shape(tmp_path):
    cfn = _shape_of_cfn('{a: [x, y, z], b: [1, 2], c: {d: [x]}, e: [{exists: false}], f: [{prefix: p}]}')
    tf = _shape_of_tf(tmp_path, '{ a = ["x", "y", "z"], b = [1, 2], c = { d = ["x"] }, e = [{ exists = false }], '
                                'f = [{ prefix = "p" }] }')
    assert cfn == tf == FilterShape(("a", "b", "c", "e", "f"), 6, ("c",), False, ("a", "b", "f"))


def test_an_alarm_whose_queue_is_not_known_silences_every_dead_letter_queue(tmp_path):
    template = tmp_path / "t.yaml"
    text = textwrap.dedent("""\
        Parameters:
          QueueName: {Type: String}
        Resources:
          DLQ:
            Type: AWS::SQS::Queue
          Source:
            Type: AWS::SQS::Queue
            Properties:
              RedrivePolicy: {deadLetterTargetArn: !GetAtt DLQ.Arn, maxReceiveCount: 5}
          Alarm:
            Type: AWS::CloudWatch::Alarm
            Properties:
              Namespace: AWS/SQS
              MetricName: ApproximateNumberOfMessagesVisible
              Dimensions: [{Name: QueueName, Value: !Ref QueueName}]
        """)
    template.write_text(text)
    assert _findings(str(template), "FL106") == []
    # the same alarm on a known other metric watches no queue's depth: the DLQ is flagged
    template.write_text(text.replace("ApproximateNumberOfMessagesVisible", "NumberOfMessagesSent"))
    assert [f.resource for f in _findings(str(template), "FL106")] == ["DLQ"]


def test_a_huge_filter_policy_is_one_bounded_finding_per_limit(tmp_path):
    template = tmp_path / "t.yaml"
    keys = "".join(f"          k{i}: [a, b, c]\n" for i in range(3000))
    template.write_text(textwrap.dedent("""\
        Resources:
          Topic:
            Type: AWS::SNS::Topic
          Sub:
            Type: AWS::SNS::Subscription
            Properties:
              TopicArn: !Ref Topic
              Protocol: https
              Endpoint: https://example.com/x
              FilterPolicy:
        """) + keys)
    messages = sorted(f.message for f in _findings(str(template), "FL006"))
    assert len(messages) == 2
    assert any("over 1,000,000,000 combinations" in m for m in messages)
    assert any("3,000 keys (k0, k1, k2, k3, k4, k5 and 2,994 more)" in m for m in messages)
    assert all(len(m) < 400 for m in messages)


def test_terraforms_recursion_config_turning_loop_detection_off_is_said_in_its_words():
    path = os.path.join(FIXTURES, "recursive-delivery-loop", "tf_fires")
    result = lint_paths([path], ALL_RULES, Settings(select=("FL405",)))
    by_resource = {f.resource: f.message for f in result.findings}
    assert 'recursive_loop = "Allow" (aws_lambda_function_recursion_config) turns off' in by_resource[
        "aws_s3_bucket_notification.images"]
    assert "turns off" not in by_resource["aws_sns_topic_subscription.relay"]  # relay keeps detection on
