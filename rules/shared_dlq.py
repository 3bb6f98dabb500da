"""## What it does
Flags a dead-letter queue that the redrive policies of two or more source queues point
at.

## Why is this bad?
A dead-letter queue tells you that a consumer is failing. When several queues share
one, a message in it does not say which consumer gave up on it, one alarm covers
several owners, and redriving the DLQ (which sends messages back to their source
queues) replays every consumer's failures at once. Each consumer should own its
failures.

## How to fix
Give every source queue its own dead-letter queue (with a retention longer than the
source's and an alarm on its depth): in CloudFormation, a `RedrivePolicy` per queue whose
`deadLetterTargetArn` is a DLQ used by that queue alone; in Terraform, a `redrive_policy`
per `aws_sqs_queue` naming its own `aws_sqs_queue` DLQ (see `missing-dlq` for both forms).

## References
- https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-dead-letter-queues.html
- https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-configure-dead-letter-queue-redrive.html
"""

from __future__ import annotations

from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import Queue
from fanout_lint.rule import Rule, Severity, Violation


def check(graph: Graph, options) -> list[Violation]:
    found = []
    for dlq in graph.all(Queue):
        if dlq.multi_instance:
            continue  # dlq["a"] and dlq["b"] are one node but two queues
        listed = graph.sources_of(dlq.id)
        if len(listed) < 2:  # most queues: no need to deduplicate and sort
            continue
        sources = sorted({q.id: q for q in listed}.values(), key=lambda q: q.id)
        if len(sources) < 2:
            continue
        names = ", ".join(q.resource for q in sources)
        found.append(Violation(
            at=dlq,
            message=(
                f"Dead-letter queue {dlq.resource} serves {len(sources)} source queues ({names}): "
                "a message in it does not say which consumer failed; give each source queue "
                "its own DLQ"
            ),
            related=tuple((q, "source queue") for q in sources),
        ))
    return found


RULE = Rule(
    id="FL105",
    name="shared-dlq",
    severity=Severity.INFO,
    summary="One dead-letter queue serves several source queues",
    check=check,
    doc=__doc__,
)
