"""## What it does
Flags a queue that receives work (an SNS subscription delivers to it, or an event source
mapping or an EventBridge pipe reads it) but has no redrive policy, and is not itself a dead-letter queue:
nothing in the template names it as a dead-letter target (a queue's or subscription's
`RedrivePolicy`, a function's `DeadLetterConfig`, an on-failure destination, an
EventBridge target's `DeadLetterConfig`, SAM's `DeadLetterQueue`).

Nor is a queue whose only inflow is dead-letter traffic: every subscription delivering
to it is of a topic that a function's `DeadLetterConfig` (`dead_letter_config.target_arn`)
or an on-failure destination names, and the run shows nothing else publishing to that
topic (no EventBridge target, S3 notification, alarm or other notifier, on-success
destination, or export) and nothing else sending to the queue. Such a queue is itself
the dead-letter store, reached through the topic: what fails on it is for a person or a
replay tool, and a dead-letter queue of a dead-letter queue is what no one adds.
`raw-delivery-off` reports its subscription at info and `single-subscriber-topic` its
topic with the same reason.

## Why is this bad?
A message the consumer cannot process (a poison message: malformed payload, a bug)
comes back after every visibility timeout, forever, until the retention period deletes
it. It consumes capacity, hides among healthy messages, and then disappears without a
trace. An EventBridge pipe reading the queue retries a failing message the same way,
up to the queue's maximum receive count: without a redrive policy, until it expires.

## How to fix
Give the queue its own dead-letter queue: a redrive policy whose `deadLetterTargetArn`
points at a queue used for nothing else, with a `maxReceiveCount` of 3 to 5. Give the
DLQ a longer retention than the source queue and an alarm on its depth.

CloudFormation:

```yaml
OrdersQueue:
  Type: AWS::SQS::Queue
  Properties:
    RedrivePolicy:
      deadLetterTargetArn: !GetAtt OrdersDLQ.Arn
      maxReceiveCount: 5
OrdersDLQ:
  Type: AWS::SQS::Queue
  Properties:
    MessageRetentionPeriod: 1209600
```

Terraform:

```hcl
resource "aws_sqs_queue" "orders" {
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.orders_dlq.arn
    maxReceiveCount     = 5
  })
}

resource "aws_sqs_queue" "orders_dlq" {
  message_retention_seconds = 1209600
}
```

A queue that SAM's `SqsSubscription: true` creates cannot have one: declare the queue
yourself and pass it to `SqsSubscription` as `QueueArn` and `QueueUrl`.

## References
- https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-dead-letter-queues.html
- https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-errorhandling.html
- https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-pipes-error-troubleshooting.html
"""

from __future__ import annotations

from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import Queue
from fanout_lint.rule import Rule, Severity, Violation

from .common import add_redrive, queue_without_dlq, subscription_dlqs


def check(graph: Graph, options) -> list[Violation]:
    found = []
    for queue in graph.all(Queue):
        if not queue_without_dlq(graph, queue) or subscription_dlqs(graph, queue):
            continue
        feeders = [(s, "subscription") for s in graph.subscriptions_to(queue.id)]
        consumers = [(m, "event source mapping") for m in graph.consumers_of(queue.id)]
        consumers += [(p, "pipe") for p in graph.pipes_reading(queue.id)]
        found.append(Violation(
            at=queue,
            message=(
                f"Queue {queue.resource} has no dead-letter queue: a message its consumer keeps "
                f"failing on returns forever until it expires; {add_redrive(queue)}"
            ),
            related=tuple(feeders + consumers),
        ))
    return found


RULE = Rule(
    id="FL101",
    name="missing-dlq",
    severity=Severity.ERROR,
    summary="A consumed queue has no dead-letter queue",
    check=check,
    doc=__doc__,
)
