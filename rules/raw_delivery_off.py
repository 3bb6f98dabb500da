"""## What it does
Flags an SNS subscription with protocol `sqs` whose raw message delivery
(`RawMessageDelivery`, Terraform `raw_message_delivery`) is off or absent (the default
is off).

## Why is this bad?
Without raw delivery SNS does not deliver your message: it delivers a JSON envelope
(`Type`, `MessageId`, `TopicArn`, ...) with your payload as a *string* in its `Message`
field. Every consumer has to unwrap it, and code that parses the body as the event
(`JSON.parse(body).id`) silently reads `undefined`.

Note the trade-off: with raw delivery, SNS message attributes arrive as SQS message
attributes (at most 10), not inside the envelope.

## How to fix
Turn raw message delivery on, and make the consumer read the message body as the event
(this changes what the consumer receives, so `fanout-lint --fix` applies it only with
`--unsafe-fixes`).

CloudFormation:

```yaml
EmailSubscription:
  Type: AWS::SNS::Subscription
  Properties:
    Protocol: sqs
    RawMessageDelivery: true
```

Terraform:

```hcl
resource "aws_sns_topic_subscription" "email" {
  protocol             = "sqs"
  raw_message_delivery = true
}
```

Inline subscriptions (`AWS::SNS::Topic.Subscription`) and SAM's `SqsSubscription`
cannot enable it: declare an `AWS::SNS::Subscription` instead.

## When it is info
A subscription of a topic that only failures reach is reported at info, and its message
names who sends them: a dead-letter path, where a function's `DeadLetterConfig`
(`dead_letter_config.target_arn`) or an on-failure destination names the topic, and
the run shows nothing else publishing to it (no EventBridge target, S3 notification,
alarm or other notifier, on-success destination, or export). Such a queue keeps failed
events for a person or a replay tool, and the envelope does no harm there (it even
records the topic and the time). A topic something else publishes to keeps the rule's
severity. When a consumer of the dead-letter queue parses the body as the event,
restore the level with the `dead-letters` option:

```toml
[tool.fanout-lint.options.raw-delivery-off]
dead-letters = "warning"
```

## References
- https://docs.aws.amazon.com/sns/latest/dg/sns-large-payload-raw-message-delivery.html
- https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/aws-properties-sns-topic-subscription.html
"""

from __future__ import annotations

from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import Subscription
from fanout_lint.model.values import describe, verdict
from fanout_lint.model.vocabulary import how_to_set, term
from fanout_lint.rule import Applicability, Fix, Fixable, Option, Options, OptionType, Rule, Severity, Violation

from .common import LEVELS, dead_letter_path, dead_letter_topic_uses, level, named, protocol_is, reported

SEVERITY = Severity.WARNING


def check(graph: Graph, options: Options) -> list[Violation]:
    found = []
    dead_letters = level(SEVERITY, options, "dead-letters")
    for sub in graph.all(Subscription):
        if not protocol_is(sub, "sqs"):
            continue
        if verdict(lambda raw: not raw, sub.raw_message_delivery) is not True:
            continue
        queue = graph.get(sub.endpoint)
        related = ((queue, "queue"),) if queue is not None else ()
        target = f" to {named(queue)}" if queue is not None else ""
        message = (
            f"{reported(sub)} delivers{target} without raw message delivery "
            f"({term(sub, 'raw_message_delivery')} {describe(sub.raw_message_delivery)}): consumers "
            f"get the SNS JSON envelope, not the message; "
            f"{how_to_set(sub, 'raw_message_delivery', True)}"
        )
        uses = dead_letter_topic_uses(graph, graph.get(sub.topic)) if dead_letters is not None else []
        if uses:
            message += (
                f"; reported as {dead_letters.value} because it is a dead-letter path: "
                f"{dead_letter_path(graph, uses)}, kept for a person or a replay tool, where the envelope "
                "does no harm"
            )
        found.append(Violation(
            at=sub,
            field="raw_message_delivery",
            message=message,
            related=related,
            fix=Fix("raw_message_delivery", True, Applicability.UNSAFE),
            severity=dead_letters if uses else None,
        ))
    return found


RULE = Rule(
    id="FL002",
    name="raw-delivery-off",
    severity=SEVERITY,
    summary="SNS to SQS subscription without raw message delivery",
    check=check,
    doc=__doc__,
    fixable=Fixable.ALWAYS,
    options=(
        Option("dead-letters", OptionType.SEVERITY, "info",
               "the level of a subscription of a topic only failures reach "
               "(warning reports it as any other)", LEVELS),
    ),
)
