"""## What it does
Flags a standard SNS topic that has exactly one subscription in the unit, an SQS queue,
and is not exported (no CloudFormation `Outputs` entry with an `Export`, no Terraform
`output`), so nothing outside the unit is expected to subscribe to it. A topic whose one
subscriber is an email address, an HTTP endpoint or a function (an alarm topic, say) is
not flagged.

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

## References
- https://docs.aws.amazon.com/sns/latest/dg/sns-common-scenarios.html
- https://docs.aws.amazon.com/sns/latest/dg/sns-sqs-as-subscriber.html
"""

from __future__ import annotations

from fanout_lint.findings import Severity
from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import Topic
from fanout_lint.model.vocabulary import is_terraform
from fanout_lint.rule import Rule, Violation

from .common import is_standard, named, protocol_is


def check(graph: Graph, options) -> list[Violation]:
    found = []
    for topic in graph.all(Topic):
        if topic.exported or not is_standard(topic.fifo):
            continue
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
        found.append(Violation(
            at=topic,
            message=(
                f"Topic {topic.resource} delivers only to {target} and is not exported: SNS "
                "adds a hop and a policy to maintain for no fan-out; send to the queue "
                f"directly, or export the topic ({_export(topic)}) if other stacks subscribe to it"
            ),
            related=tuple(related),
        ))
    return found


def _export(topic) -> str:
    return "a Terraform output" if is_terraform(topic) else "an Outputs entry with an Export"


RULE = Rule(
    id="FL003",
    name="single-subscriber-topic",
    severity=Severity.INFO,
    summary="A standard topic that is not exported has a single SQS subscriber",
    check=check,
    doc=__doc__,
)
