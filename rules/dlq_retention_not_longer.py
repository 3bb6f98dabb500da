"""## What it does
Flags a dead-letter queue whose retention (`MessageRetentionPeriod`, Terraform
`message_retention_seconds`) is not longer than that of a standard source queue that
sends to it. Both default to 345,600 s (4 days), so a DLQ
left at the default next to a default source queue is flagged. FIFO source queues are
exempt.

## Why is this bad?
For standard queues a message keeps its original enqueue timestamp when it moves to the
dead-letter queue. A message that spent three days failing in a 4-day source queue has
one day left in a 4-day DLQ: it expires before anyone looks at it, and the evidence of
the failure is gone. (FIFO queues reset the timestamp on the move, so they are exempt.)

## How to fix
Set the DLQ's retention longer than the source queue's; the maximum, 1,209,600 s (14
days), is the usual choice, and what `fanout-lint --fix` writes (a safe fix) when the
source keeps messages for less. If the source queue already keeps messages for 14 days,
shorten the source queue's retention instead.

CloudFormation:

```yaml
OrdersDLQ:
  Type: AWS::SQS::Queue
  Properties:
    MessageRetentionPeriod: 1209600
```

Terraform:

```hcl
resource "aws_sqs_queue" "orders_dlq" {
  message_retention_seconds = 1209600
}
```

## References
- https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/setting-up-dead-letter-queue-retention.html
- https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-dead-letter-queues.html
"""

from __future__ import annotations

from fanout_lint.findings import Severity
from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import Queue
from fanout_lint.model.values import describe, single, verdict
from fanout_lint.model.vocabulary import how_to_set, term
from fanout_lint.rule import Fix, Rule, Violation

from .common import is_standard, single_values

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
        fix = None
        if source_retention is not None and source_retention >= MAX_RETENTION:
            advice = (
                "the source already keeps messages for the maximum of 14 days: shorten the "
                f"source queue's {term(source, 'message_retention')}"
            )
        else:
            advice = f"{how_to_set(dlq, 'message_retention', MAX_RETENTION)} (14 days)"
            if single_values(dlq.message_retention, source.message_retention) is not None:
                fix = Fix("message_retention", MAX_RETENTION, safe=True)
        found.append(Violation(
            at=dlq,
            field="message_retention",
            message=(
                f"Dead-letter queue {dlq.resource} keeps messages "
                f"{describe(dlq.message_retention, 's')} ({term(dlq, 'message_retention')}), not longer "
                f"than the {describe(source.message_retention, 's')} of its source queue {source.resource}; "
                f"messages keep their original enqueue time and expire in the DLQ before anyone looks; {advice}"
            ),
            related=((source, "source queue"),),
            fix=fix,
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
