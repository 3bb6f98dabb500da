"""## What it does
Flags a dead-letter queue whose `MessageRetentionPeriod` is not longer than that of a
standard source queue that sends to it. Both default to 345,600 s (4 days), so a DLQ
left at the default next to a default source queue is flagged. FIFO source queues are
exempt.

## Why is this bad?
For standard queues a message keeps its original enqueue timestamp when it moves to the
dead-letter queue. A message that spent three days failing in a 4-day source queue has
one day left in a 4-day DLQ: it expires before anyone looks at it, and the evidence of
the failure is gone. (FIFO queues reset the timestamp on the move, so they are exempt.)

## How to fix
Set the DLQ's `MessageRetentionPeriod` longer than the source queue's; the maximum,
1,209,600 s (14 days), is the usual choice. If the source queue already keeps messages
for 14 days, shorten the source queue's retention instead.

## References
- https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/setting-up-dead-letter-queue-retention.html
- https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-dead-letter-queues.html
"""

from __future__ import annotations

from fanout_lint.findings import Severity
from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import Queue
from fanout_lint.model.values import describe, single, verdict
from fanout_lint.rule import Rule, Violation

from .common import is_standard

MAX_RETENTION = 1_209_600


def check(graph: Graph, options) -> list[Violation]:
    found = []
    for source in graph.all(Queue):
        dlq = graph.dlq_of(source)
        if not isinstance(dlq, Queue) or not is_standard(source.fifo):
            continue
        if verdict(lambda d, s: d <= s, dlq.message_retention, source.message_retention) is not True:
            continue
        source_retention = single(source.message_retention)
        if source_retention is not None and source_retention >= MAX_RETENTION:
            fix = (
                "the source already keeps messages for the maximum of 14 days: shorten the "
                "source queue's retention"
            )
        else:
            fix = "set it longer than the source's (1,209,600 s, 14 days, is usual)"
        found.append(Violation(
            at=dlq,
            message=(
                f"Dead-letter queue {dlq.resource} keeps messages "
                f"{describe(dlq.message_retention, 's')}, not longer than the "
                f"{describe(source.message_retention, 's')} of its source queue {source.resource}; messages keep "
                f"their original enqueue time and expire in the DLQ before anyone looks; {fix}"
            ),
            related=((source, "source queue"),),
        ))
    return found


RULE = Rule(
    id="FL103",
    name="dlq-retention-not-longer",
    severity=Severity.WARNING,
    summary="A dead-letter queue does not keep messages longer than its source queue",
    check=check,
    doc=__doc__,
)
