"""Rule options change what the rules report, and policy edge cases stay silent."""

from __future__ import annotations

import os

from fanout_lint.run.engine import lint_paths
from fanout_lint.rules import ALL_RULES
from fanout_lint.policy.settings import Settings
from repo_paths import TESTS

FIXTURES = os.path.join(TESTS, "fixtures")


def resources_flagged(path: str, rule: str, options: dict | None = None) -> set[str]:
    settings = Settings(select=(rule,), options=options or {})
    return {f.resource for f in lint_paths([path], ALL_RULES, settings).findings}


def test_headroom_factor_option():
    path = os.path.join(FIXTURES, "visibility-timeout-headroom", "cfn_fires.yaml")
    assert resources_flagged(path, "FL203") == {"EmailQueue", "StockQueue", "BillingQueue"}
    # 2 x 30 s = 60 s fits EmailQueue; 2 x 30 s + 30 s = 90 s fits StockQueue (200 s).
    assert resources_flagged(path, "FL203", {"FL203": {"factor": 2}}) == set()
    assert resources_flagged(path, "FL203", {"FL203": {"factor": 4}}) == {"EmailQueue"}  # 60 s < 120 s


def test_max_receive_count_range_options():
    path = os.path.join(FIXTURES, "max-receive-count-out-of-range", "cfn_fires.yaml")
    assert resources_flagged(path, "FL104") == {"OrdersQueue", "StockQueue", "EmailQueue", "BillingQueue"}
    assert resources_flagged(path, "FL104", {"FL104": {"min": 1, "max": 10}}) == {"BillingQueue"}


TEMPLATE = """\
AWSTemplateFormatVersion: "2010-09-09"
Resources:
  Topic:
    Type: AWS::SNS::Topic
  Queue:
    Type: AWS::SQS::Queue
  Subscription:
    Type: AWS::SNS::Subscription
    Properties: {TopicArn: !Ref Topic, Protocol: sqs, Endpoint: !GetAtt Queue.Arn}
  Policy:
    Type: AWS::SQS::QueuePolicy
    Properties:
      Queues: [!Ref Queue]
      PolicyDocument:
        Statement:
          - Effect: Allow
            Principal: "*"
            %s
            Condition: {ArnEquals: {aws:SourceArn: !Ref Topic}}
"""


def test_not_action_may_allow_sns_so_no_missing_policy(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text(TEMPLATE % "NotAction: sqs:DeleteQueue")
    assert resources_flagged(str(path), "queue-policy-missing") == set()
    path.write_text(TEMPLATE % "Action: sqs:DeleteQueue")
    assert resources_flagged(str(path), "queue-policy-missing") == {"Queue"}
