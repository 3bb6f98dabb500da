"""## What it does
Flags a standard SNS topic that has exactly one subscription in the unit, an SQS queue,
and is not exported (no CloudFormation `Outputs` entry with an `Export`, no Terraform
`output`, no SSM parameter holding its ARN: `AWS::SSM::Parameter` `Value`,
`aws_ssm_parameter` `value`), so nothing outside the unit is expected to subscribe to
it. A topic whose one subscriber is an email address, an HTTP endpoint or a function is
not flagged.

Nor is a topic that a producer which cannot send to SQS publishes to, since the topic is
then the only way to reach the queue: CloudWatch alarms and composite alarms (`AlarmActions`,
`OKActions`, `InsufficientDataActions`), CloudFormation stack notifications, RDS, DMS,
Redshift, DocumentDB and Neptune event subscriptions, ElastiCache, Auto Scaling group
notifications, Budgets, Cost Anomaly Detection, CodeStar notifications, AWS Backup vault
notifications, AWS Config delivery channels, CloudTrail, SES (receipt rule actions,
event destinations, identity notifications), DevOps Guru and SSM maintenance window
tasks. A topic that AWS Chatbot (Amazon Q Developer in chat applications) listens to
(`SnsTopicArns`, `sns_topic_arns`) has a second subscriber the template shows no
subscription for, and is not flagged either. S3 notifications, EventBridge rules and
Lambda destinations can send to SQS themselves: a topic they feed is still flagged.

## Why is this bad?
SNS in front of a single queue fans out to nobody. It is one more resource to secure
(a queue policy for SNS, raw delivery, a subscription DLQ), one more hop that can drop
messages, and one more place where message size and attributes are limited, for no
benefit: producers could send to the queue directly.

## How to fix
If no second consumer is planned, let producers send to the queue and delete the topic
and its subscription. If the topic is there so that other stacks can subscribe, export
it, which also documents the intent.

CloudFormation:

```yaml
Outputs:
  OrdersTopicArn:
    Value: !Ref OrdersTopic
    Export: {Name: !Sub "${AWS::StackName}-OrdersTopic"}
```

Terraform:

```hcl
output "orders_topic_arn" {
  value = aws_sns_topic.orders.arn
}
```

## When it is info
It is info anyway; on a topic that only failures reach (a dead-letter path: a function's
`DeadLetterConfig` or an on-failure destination names the topic, and the run shows
nothing else publishing to it) the message says so, and it stays info even when the
rule's severity is raised: the setting that names the topic could name the queue
directly, a small saving, and the topic may be there so that a person can subscribe an
email address later.

## References
- https://docs.aws.amazon.com/sns/latest/dg/sns-common-scenarios.html
- https://docs.aws.amazon.com/sns/latest/dg/sns-sqs-as-subscriber.html
- https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_PutMetricAlarm.html
- https://docs.aws.amazon.com/chatbot/latest/adminguide/what-is.html
"""

from __future__ import annotations

from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import EXPORTS, PUBLISHES_ONLY, SUBSCRIBES, Topic
from fanout_lint.model.vocabulary import is_terraform
from fanout_lint.rule import Rule, Severity, Violation

from .common import dead_letter_path, dead_letter_topic_uses, is_standard, named, protocol_is, protocol_note


def check(graph: Graph, options) -> list[Violation]:
    found = []
    for topic in graph.all(Topic):
        if topic.exported or not is_standard(topic.fifo) or any(graph.mentions_of(topic.id, r) for r in SILENCING):
            continue  # exported, or used by an SNS-only producer or a hidden subscriber
        subs = graph.subscriptions_of(topic.id)
        if len(subs) != 1 or not protocol_is(subs[0], "sqs"):
            continue
        if topic.multi_instance or subs[0].multi_instance:
            continue  # a count/for_each subscription is several subscribers
        sub = subs[0]
        queue = graph.get(sub.endpoint)
        target = f"one queue ({named(queue)})" if queue is not None else "one queue"
        related = [] if sub.inline else [(sub, "subscription")]
        if queue is not None:
            related.append((queue, "queue"))
        message = (
            f"Topic {topic.resource} delivers only to {target}{protocol_note(sub)} and is not exported: SNS "
            "adds a hop and a policy to maintain for no fan-out; send to the queue "
            f"directly, or export the topic ({_export(topic)}) if other stacks subscribe to it"
        )
        uses = dead_letter_topic_uses(graph, topic)
        if uses:
            message += (
                f"; reported as info because it is a dead-letter path: {dead_letter_path(graph, uses)}, "
                "and the setting that names the topic could name the queue instead"
            )
        found.append(Violation(
            at=topic,
            message=message,
            related=tuple(related),
            severity=Severity.INFO if uses else None,
        ))
    return found


def _export(topic) -> str:
    return "a Terraform output" if is_terraform(topic) else "an Outputs entry with an Export"


# Every role a mention has (an SNS-only producer, a hidden subscriber, an export) silences
# the rule; listed so that a new role is a decision, not an accident.
SILENCING = (PUBLISHES_ONLY, SUBSCRIBES, EXPORTS)


RULE = Rule(
    id="FL003",
    name="single-subscriber-topic",
    severity=Severity.INFO,
    summary="An unexported standard topic with one SQS subscriber and no SNS-only producer",
    check=check,
    doc=__doc__,
)
