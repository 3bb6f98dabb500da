"""## What it does
Flags FIFO and standard resources wired together in a way AWS rejects, or that fails
at delivery:

- a FIFO queue whose dead-letter queue is standard, or a standard queue whose
  dead-letter queue is FIFO;
- a standard topic subscribed by a FIFO queue;
- a FIFO topic subscribed by anything but SQS (Lambda, HTTP/S, email, SMS, ...);
- a FIFO queue or topic whose explicit name does not end with `.fifo`;
- an S3 event notification to a FIFO queue or a FIFO topic;
- an EventBridge rule target that is a FIFO queue without a message group ID
  (`SqsParameters.MessageGroupId`, `sqs_target.message_group_id`), or whose queue does not
  have content-based deduplication (`ContentBasedDeduplication`,
  `content_based_deduplication`);
- an EventBridge rule target, or an EventBridge Scheduler schedule, whose dead-letter
  queue is FIFO;
- a FIFO queue or topic as a Lambda asynchronous invocation destination (on failure or on
  success; `AWS::Lambda::EventInvokeConfig`, `aws_lambda_function_event_invoke_config`).

A FIFO topic delivering to a standard queue is allowed (since September 2023) and not
flagged; neither is a FIFO queue or topic as a function's `DeadLetterConfig` (AWS only
says to use a standard one, not what happens otherwise).

## Why is this bad?
Most of these combinations are rejected when they are created: SQS refuses a
dead-letter queue of the other type, SNS refuses to subscribe a FIFO queue to a standard
topic (`FIFO SQS Queues can not be subscribed to standard SNS topics`) and anything but
SQS to a FIFO topic, both services refuse a FIFO name without the `.fifo` suffix, S3
refuses FIFO queues and topics as notification destinations, and EventBridge refuses a
FIFO target without a message group (`Parameter(s) SqsParameters must be specified`) and
a FIFO dead-letter queue (`SQS FIFO is not supported by Dead Letter Queues`). The stack
fails half-way through the deploy, or, with a tool that creates resources one by one,
leaves a topology that is not the one designed.

Others deploy and fail later: a FIFO target queue without content-based deduplication
refuses what EventBridge sends (it sends no deduplication ID), and Lambda cannot send
to a FIFO destination, so each record of a failed (or successful) invocation is lost
and only the `DestinationDeliveryFailures` metric shows it.

## How to fix
Make both ends the same type: a FIFO queue gets a FIFO dead-letter queue; a FIFO queue
subscribes to a FIFO topic; a function behind a FIFO topic reads a FIFO queue through an
event source mapping instead of subscribing directly. Name FIFO resources `<name>.fifo`,
or leave the name out and let the service generate one. S3 reaches a FIFO queue through
EventBridge (`EventBridgeConfiguration`, `eventbridge = true`); an EventBridge target
on a FIFO queue sets a message group and the queue enables content-based deduplication;
dead-letter queues of EventBridge targets and Lambda destinations are standard queues
and topics.

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
- https://docs.aws.amazon.com/AmazonS3/latest/userguide/notification-how-to-event-types-and-destinations.html
- https://docs.aws.amazon.com/eventbridge/latest/APIReference/API_SqsParameters.html
- https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-rule-dlq.html
- https://docs.aws.amazon.com/scheduler/latest/UserGuide/configuring-schedule-dlq.html
- https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-retain-records.html
"""

from __future__ import annotations

from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import EventTarget, InvokeConfig, Notification, Queue, Subscription, Topic
from fanout_lint.model.values import Known, describe, verdict
from fanout_lint.model.vocabulary import term
from fanout_lint.rule import Rule, Severity, Violation

from .common import protocol_is, reported, source_name

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
    for notification in graph.all(Notification):
        found.extend(_s3_destination(graph, notification))
    for target in graph.all(EventTarget):
        found.extend(_event_target(graph, target))
    for config in graph.all(InvokeConfig):
        found.extend(_invoke_destinations(graph, config))
    return found


def _fifo(node) -> bool:
    """A queue or topic the template proves FIFO."""
    return isinstance(node, (Queue, Topic)) and verdict(bool, node.fifo) is True


def _kind_of(node) -> str:
    return "queue" if isinstance(node, Queue) else "topic"


def _s3_destination(graph: Graph, notification: Notification) -> list[Violation]:
    destination = graph.get(notification.destination)
    if not _fifo(destination):
        return []
    kind = _kind_of(destination)
    advice = ("turn on EventBridge notifications for the bucket and let a rule deliver to the queue"
              if kind == "queue" else "use a standard topic")
    return [Violation(
        at=notification,
        field="destination",
        message=(
            f"{source_name(notification)} notifies FIFO {kind} {destination.resource}: S3 accepts "
            f"only standard queues and topics as notification destinations and rejects the configuration, so the "
            f"deploy fails; {advice}"
        ),
        related=((destination, kind),),
    )]


def _event_target(graph: Graph, target: EventTarget) -> list[Violation]:
    found = []
    who = source_name(target)
    dlq = graph.get(target.dead_letter.value) if isinstance(target.dead_letter, Known) else None
    if _fifo(dlq) and isinstance(dlq, Queue):
        refusal = ("EventBridge Scheduler does not support a FIFO dead-letter queue" if target.scheduler
                   else "EventBridge rejects it (SQS FIFO is not supported by Dead Letter Queues), so the deploy fails")
        found.append(Violation(
            at=target,
            field="dead_letter",
            message=f"{who} has FIFO dead-letter queue {dlq.resource}: {refusal}; use a standard queue",
            related=((dlq, "dead-letter queue"),),
        ))
    queue = graph.queue(target.target)
    if target.scheduler or queue is None or not _fifo(queue):
        return found
    if verdict(lambda group: group is None, target.message_group) is True:
        found.append(Violation(
            at=target,
            field="message_group",
            message=(
                f"{who} delivers to FIFO queue {queue.resource} without {term(target, 'message_group')}: "
                f"EventBridge rejects a FIFO target without a message group, so the deploy fails; set it"
            ),
            related=((queue, "queue"),),
        ))
    if verdict(lambda dedup: not dedup, queue.content_based_deduplication) is True:
        found.append(Violation(
            at=target,
            field="target",
            message=(
                f"{who} delivers to FIFO queue {queue.resource}, which does not have "
                f"{term(queue, 'content_based_deduplication')} ({describe(queue.content_based_deduplication)}): "
                f"EventBridge sends no deduplication ID, so every delivery fails; enable it on {queue.resource}"
            ),
            related=((queue, "queue"),),
        ))
    return found


def _invoke_destinations(graph: Graph, config: InvokeConfig) -> list[Violation]:
    found = []
    for field, lost in (("on_failure", "failed"), ("on_success", "successful")):
        value = getattr(config, field)
        destination = graph.get(value.value) if isinstance(value, Known) else None
        if not _fifo(destination):
            continue
        kind = _kind_of(destination)
        found.append(Violation(
            at=config,
            field=field,
            message=(
                f"Asynchronous invocation destination ({term(config, field)}) of {config.resource} is FIFO "
                f"{kind} {destination.resource}: Lambda cannot send to a FIFO {kind}; the deploy succeeds, but the "
                f"record of every {lost} invocation fails at delivery (DestinationDeliveryFailures) and is lost; "
                f"use a standard {kind}"
            ),
            related=((destination, "destination"),),
        ))
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
                f"{reported(sub, protocol_shown=True)} subscribes protocol {describe(sub.protocol)} to FIFO topic "
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
    summary="FIFO and standard resources wired together in a way AWS rejects or cannot use",
    check=check,
    doc=__doc__,
)
