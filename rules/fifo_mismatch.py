"""## What it does
Flags FIFO and standard resources wired together in a way AWS rejects:

- a FIFO queue whose dead-letter queue is standard, or a standard queue whose
  dead-letter queue is FIFO;
- a standard topic subscribed by a FIFO queue;
- a FIFO topic subscribed by anything but SQS (Lambda, HTTP/S, email, SMS, ...);
- a FIFO queue or topic whose explicit name does not end with `.fifo`.

A FIFO topic delivering to a standard queue is allowed (since September 2023) and not
flagged.

## Why is this bad?
These combinations fail: SQS refuses a dead-letter queue of the other type, SNS
refuses to subscribe a FIFO queue to a standard topic (`FIFO SQS Queues can not be
subscribed to standard SNS topics`) and anything but SQS to a FIFO topic, and both
services refuse a FIFO name without the `.fifo` suffix. The stack fails half-way
through the deploy, or, with a tool that creates resources one by one, leaves a
topology that is not the one designed.

## How to fix
Make both ends the same type: a FIFO queue gets a FIFO dead-letter queue; a FIFO queue
subscribes to a FIFO topic; a function behind a FIFO topic reads a FIFO queue through an
event source mapping instead of subscribing directly. Name FIFO resources `<name>.fifo`,
or leave the name out and let the service generate one.

CloudFormation:

```yaml
PaymentsQueue:
  Type: AWS::SQS::Queue
  Properties:
    FifoQueue: true
    QueueName: payments.fifo
    RedrivePolicy: {deadLetterTargetArn: !GetAtt PaymentsDLQ.Arn, maxReceiveCount: 5}
PaymentsDLQ:
  Type: AWS::SQS::Queue
  Properties:
    FifoQueue: true
```

Terraform:

```hcl
resource "aws_sqs_queue" "payments" {
  name           = "payments.fifo"
  fifo_queue     = true
  redrive_policy = jsonencode({ deadLetterTargetArn = aws_sqs_queue.payments_dlq.arn, maxReceiveCount = 5 })
}

resource "aws_sqs_queue" "payments_dlq" {
  fifo_queue = true
}
```

## References
- https://docs.aws.amazon.com/sns/latest/dg/fifo-message-delivery.html
- https://docs.aws.amazon.com/sns/latest/dg/sns-fifo-topics.html
- https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-dead-letter-queues.html
- https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_CreateQueue.html
- https://docs.aws.amazon.com/sns/latest/api/API_CreateTopic.html
- https://docs.aws.amazon.com/lambda/latest/dg/with-sns.html
"""

from __future__ import annotations

from fanout_lint.findings import Severity
from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import Queue, Subscription, Topic
from fanout_lint.model.values import describe, verdict
from fanout_lint.model.vocabulary import term
from fanout_lint.rule import Rule, Violation

from .common import protocol_is, reported

SUFFIX = ".fifo"


def check(graph: Graph, options) -> list[Violation]:
    found: list[Violation] = []
    for queue in graph.all(Queue):
        found.extend(_dlq_type(graph, queue))
        found.extend(_name(queue, "queue"))
    for topic in graph.all(Topic):
        found.extend(_name(topic, "topic"))
    for sub in graph.all(Subscription):
        found.extend(_subscription(graph, sub))
    return found


def _kind(fifo: bool) -> str:
    return "FIFO" if fifo else "standard"


def _dlq_type(graph: Graph, queue: Queue) -> list[Violation]:
    dlq = graph.dlq_of(queue)
    if not isinstance(dlq, Queue):
        return []
    if verdict(lambda s, d: bool(s) != bool(d), queue.fifo, dlq.fifo) is not True:
        return []
    source_fifo = verdict(bool, queue.fifo) is True  # proved one way by the verdict above
    return [Violation(
        at=queue,
        field="redrive",
        message=(
            f"Queue {queue.resource} is {_kind(source_fifo)} but its dead-letter queue "
            f"{dlq.resource} is {_kind(not source_fifo)}: SQS rejects a dead-letter queue of the "
            f"other type; make {dlq.resource} a {_kind(source_fifo)} queue"
        ),
        related=((dlq, "dead-letter queue"),),
    )]


def _name(node: Queue | Topic, kind: str) -> list[Violation]:
    if verdict(bool, node.fifo) is False:  # most are standard: no need to look at the name
        return []
    lacks = verdict(
        lambda fifo, name: bool(fifo) and isinstance(name, str) and not name.endswith(SUFFIX),
        node.fifo, node.name,
    )
    if lacks is not True:
        return []
    return [Violation(
        at=node,
        field="name",
        message=(
            f"FIFO {kind} {node.resource} is named {describe(node.name)}, without the "
            f"{SUFFIX} suffix a FIFO {kind} name must have ({term(node, 'fifo')} {describe(node.fifo)}); "
            f"name it <name>{SUFFIX} or leave the name out"
        ),
    )]


def _subscription(graph: Graph, sub: Subscription) -> list[Violation]:
    topic = graph.topic(sub.topic)
    if topic is None:
        return []
    related = [(topic, "topic")] if not sub.inline else []
    endpoint = graph.get(sub.endpoint)
    if endpoint is not None:
        related.append((endpoint, "endpoint"))
    if protocol_is(sub, "sqs"):
        queue = graph.queue(sub.endpoint)
        if queue is None:
            return []
        if verdict(lambda t, q: not t and bool(q), topic.fifo, queue.fifo) is not True:
            return []
        return [Violation(
            at=sub,
            field="endpoint",
            message=(
                f"{reported(sub)} subscribes FIFO queue {queue.resource} to standard topic "
                f"{topic.resource}: SNS rejects it (FIFO SQS queues can not be subscribed to "
                f"standard SNS topics); make the topic FIFO or the queue standard"
            ),
            related=tuple(related),
        )]
    not_sqs = verdict(lambda p: isinstance(p, str) and p.lower() != "sqs", sub.protocol) is True
    if not_sqs and verdict(bool, topic.fifo) is True:
        return [Violation(
            at=sub,
            field="protocol",
            message=(
                f"{reported(sub)} subscribes protocol {describe(sub.protocol)} to FIFO topic "
                f"{topic.resource}: FIFO topics deliver only to SQS queues; subscribe a queue "
                f"and let the consumer read it"
            ),
            related=tuple(related),
        )]
    return []


RULE = Rule(
    id="FL004",
    name="fifo-mismatch",
    severity=Severity.ERROR,
    summary="FIFO and standard resources wired together in a way AWS rejects",
    check=check,
    doc=__doc__,
)
