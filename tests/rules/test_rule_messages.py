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
