"""Finding messages name what they compare in words a user can act on."""

from __future__ import annotations

import textwrap

from fanout_lint.run.engine import lint_paths
from fanout_lint.rules import ALL_RULES
from fanout_lint.policy.settings import Settings


def messages(tmp_path, text: str) -> dict[str, str]:
    path = tmp_path / "t.yaml"
    path.write_text(textwrap.dedent(text))
    return {f.name: f.message for f in lint_paths([str(path)], ALL_RULES, Settings()).findings}


def test_an_endpoint_outside_the_template_is_named_by_its_label_not_its_node_id(tmp_path):
    found = messages(tmp_path, """
        Resources:
          Topic: {Type: AWS::SNS::Topic}
          ToQueue: {Type: AWS::SNS::Subscription, Properties: {TopicArn: !Ref Topic, Protocol: sqs, Endpoint: !ImportValue jobs-queue-arn}}
          ToFunction: {Type: AWS::SNS::Subscription, Properties: {TopicArn: !Ref Topic, Protocol: lambda, Endpoint: !ImportValue worker-arn}}
    """)
    assert "delivers to import jobs-queue-arn without raw message delivery" in found["raw-delivery-off"]
    assert "straight to import worker-arn:" in found["sns-to-lambda-direct"]
    assert not any("external:" in message for message in found.values())


def test_consumers_under_exclusive_conditions_do_not_share_a_queue(tmp_path):
    found = messages(tmp_path, """
        Conditions:
          Prod: !Equals [!Ref "AWS::AccountId", "111111111111"]
          Dev: !Not [!Condition Prod]
        Resources:
          Q:
            Type: AWS::SQS::Queue
            Properties: {VisibilityTimeout: 600, RedrivePolicy: {deadLetterTargetArn: !GetAtt D.Arn, maxReceiveCount: 5}}
          D: {Type: AWS::SQS::Queue, Properties: {MessageRetentionPeriod: 1209600}}
          A: {Type: AWS::Lambda::Function, Properties: {Timeout: 10}}
          B: {Type: AWS::Lambda::Function, Properties: {Timeout: 10}}
          C: {Type: AWS::Lambda::Function, Properties: {Timeout: 10}}
          MA: {Type: AWS::Lambda::EventSourceMapping, Condition: Prod, Properties: {EventSourceArn: !GetAtt Q.Arn, FunctionName: !Ref A, BatchSize: 1}}
          MB: {Type: AWS::Lambda::EventSourceMapping, Condition: Dev, Properties: {EventSourceArn: !GetAtt Q.Arn, FunctionName: !Ref B, BatchSize: 1}}
    """)
    assert "shared-queue" not in found
    # an unconditional consumer is there whichever branch deploys
    found = messages(tmp_path, """
        Conditions:
          Prod: !Equals [!Ref "AWS::AccountId", "111111111111"]
        Resources:
          Q:
            Type: AWS::SQS::Queue
            Properties: {VisibilityTimeout: 600, RedrivePolicy: {deadLetterTargetArn: !GetAtt D.Arn, maxReceiveCount: 5}}
          D: {Type: AWS::SQS::Queue, Properties: {MessageRetentionPeriod: 1209600}}
          A: {Type: AWS::Lambda::Function, Properties: {Timeout: 10}}
          C: {Type: AWS::Lambda::Function, Properties: {Timeout: 10}}
          MA: {Type: AWS::Lambda::EventSourceMapping, Condition: Prod, Properties: {EventSourceArn: !GetAtt Q.Arn, FunctionName: !Ref A, BatchSize: 1}}
          MC: {Type: AWS::Lambda::EventSourceMapping, Properties: {EventSourceArn: !GetAtt Q.Arn, FunctionName: !Ref C, BatchSize: 1}}
    """)
    assert "read by 2 functions (A, C)" in found["shared-queue"]


def test_a_protocol_set_by_a_parameter_default_is_said(tmp_path):
    # A held-out "best practice" template: the protocol is a parameter, sqs by default.
    # Each finding holds only for that default, so each message says it rests on it.
    found = messages(tmp_path, """
        Parameters:
          Protocol: {Type: String, AllowedValues: [sqs, lambda, email], Default: sqs}
          Endpoint: {Type: String}
        Resources:
          Topic: {Type: AWS::SNS::Topic}
          Sub: {Type: AWS::SNS::Subscription, Properties: {TopicArn: !Ref Topic, Protocol: !Ref Protocol, Endpoint: !Ref Endpoint}}
    """)
    said = "Sub (Protocol sqs (default of parameter Protocol)) delivers to parameter Endpoint without raw message delivery"
    assert said in found["raw-delivery-off"]
    assert "(Protocol sqs (default of parameter Protocol)) and is not exported" in found["single-subscriber-topic"]
    # a message that shows the protocol itself says its origin once
    found = messages(tmp_path, """
        Parameters:
          Protocol: {Type: String, Default: lambda}
        Resources:
          Topic: {Type: AWS::SNS::Topic, Properties: {FifoTopic: true, TopicName: t.fifo}}
          Sub: {Type: AWS::SNS::Subscription, Properties: {TopicArn: !Ref Topic, Protocol: !Ref Protocol, Endpoint: !ImportValue f}}
    """)
    assert found["fifo-mismatch"].startswith("Sub subscribes protocol lambda (default of parameter Protocol) to FIFO")
    # a protocol written in the template is not remarked on
    found = messages(tmp_path, """
        Resources:
          Topic: {Type: AWS::SNS::Topic}
          Sub: {Type: AWS::SNS::Subscription, Properties: {TopicArn: !Ref Topic, Protocol: sqs, Endpoint: !ImportValue q}}
    """)
    assert found["raw-delivery-off"].startswith("Sub delivers to import q without raw message delivery")


def test_a_protocol_set_by_a_terraform_variable_is_said(tmp_path):
    (tmp_path / "main.tf").write_text(textwrap.dedent("""
        variable "protocol" {
          default = "lambda"
        }
        resource "aws_sns_topic" "t" {}
        resource "aws_lambda_function" "f" {}
        resource "aws_sns_topic_subscription" "s" {
          topic_arn = aws_sns_topic.t.arn
          protocol  = var.protocol
          endpoint  = aws_lambda_function.f.arn
        }
    """))
    found = {f.name: f.message for f in lint_paths([str(tmp_path)], ALL_RULES, Settings()).findings}
    assert found["sns-to-lambda-direct"].startswith(
        "aws_sns_topic_subscription.s (protocol lambda (value of variable protocol)) sends SNS messages straight to")
