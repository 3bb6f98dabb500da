"""## What it does
Flags an SNS subscription with protocol `sqs` whose `RawMessageDelivery` is off or
absent (the default is off).

## Why is this bad?
Without raw delivery SNS does not deliver your message: it delivers a JSON envelope
(`Type`, `MessageId`, `TopicArn`, ...) with your payload as a *string* in its `Message`
field. Every consumer has to unwrap it, and code that parses the body as the event
(`JSON.parse(body).id`) silently reads `undefined`.

Note the trade-off: with raw delivery, SNS message attributes arrive as SQS message
attributes (at most 10), not inside the envelope.

## How to fix
Set `RawMessageDelivery: true` on the `AWS::SNS::Subscription` (Terraform:
`raw_message_delivery = true`). Inline subscriptions (`AWS::SNS::Topic.Subscription`)
and SAM's `SqsSubscription` cannot enable it: declare an `AWS::SNS::Subscription`
instead.

## References
- https://docs.aws.amazon.com/sns/latest/dg/sns-large-payload-raw-message-delivery.html
- https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/aws-properties-sns-topic-subscription.html
"""

from __future__ import annotations

from fanout_lint.findings import Severity
from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import Subscription
from fanout_lint.model.values import describe, verdict
from fanout_lint.rule import Rule, Violation

from .common import named, protocol_is, reported


def check(graph: Graph, options) -> list[Violation]:
    found = []
    for sub in graph.all(Subscription):
        if not protocol_is(sub, "sqs"):
            continue
        if verdict(lambda raw: not raw, sub.raw_message_delivery) is not True:
            continue
        queue = graph.get(sub.endpoint)
        related = ((queue, "queue"),) if queue is not None else ()
        if sub.inline:
            fix = (
                "inline topic subscriptions cannot enable it: declare an "
                "AWS::SNS::Subscription with RawMessageDelivery: true"
            )
        elif sub.generated_by.startswith("SAM"):
            fix = (
                "SAM's SqsSubscription cannot enable it: declare the queue and an "
                "AWS::SNS::Subscription with RawMessageDelivery: true"
            )
        else:
            fix = "set RawMessageDelivery to true"
        target = f" to {named(queue)}" if queue is not None else ""
        found.append(Violation(
            at=sub,
            message=(
                f"{reported(sub)} delivers{target} without raw message delivery "
                f"(RawMessageDelivery {describe(sub.raw_message_delivery)}): consumers get the "
                f"SNS JSON envelope, not the message; {fix}"
            ),
            related=related,
        ))
    return found


RULE = Rule(
    id="FL002",
    name="raw-delivery-off",
    severity=Severity.WARNING,
    summary="SNS to SQS subscription without raw message delivery",
    check=check,
    doc=__doc__,
)
