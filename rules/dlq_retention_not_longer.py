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

## When it is info
When both queues keep messages for the maximum, 1,209,600 s (14 days), the finding is
reported at info, and its message says so: the DLQ cannot be made longer, and the only
fix, shortening the source queue's retention, is rarely worth it (a message spends
minutes in a source queue before its last receive moves it, not days). A DLQ that keeps
less than a 14-day source keeps the rule's severity (raising it to 14 days helps), as
does a retention the linter cannot read. Restore the level with the `at-maximum` option:

```toml
[tool.fanout-lint.options.dlq-retention-not-longer]
at-maximum = "warning"
```

## References
- https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/setting-up-dead-letter-queue-retention.html
- https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-dead-letter-queues.html
"""

from __future__ import annotations

from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import Queue
from fanout_lint.model.values import describe, single, verdict
from fanout_lint.model.vocabulary import how_to_set, term
from fanout_lint.rule import Applicability, Fix, Fixable, Option, Options, OptionType, Rule, Severity, Violation

from .common import LEVELS, is_standard, level, single_values

MAX_RETENTION = 1_209_600
SEVERITY = Severity.WARNING


def check(graph: Graph, options: Options) -> list[Violation]:
    found = []
    at_maximum = level(SEVERITY, options, "at-maximum")
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
                fix = Fix("message_retention", MAX_RETENTION, Applicability.SAFE)
        message = (
            f"Dead-letter queue {dlq.resource} keeps messages "
            f"{describe(dlq.message_retention, 's')} ({term(dlq, 'message_retention')}), not longer "
            f"than the {describe(source.message_retention, 's')} of its source queue {source.resource}; "
            f"messages keep their original enqueue time and expire in the DLQ before anyone looks; {advice}"
        )
        both_at_maximum = at_maximum is not None and verdict(
            lambda d, s: d >= MAX_RETENTION and s >= MAX_RETENTION, dlq.message_retention, source.message_retention
        ) is True
        if both_at_maximum:
            message += (
                f"; reported as {at_maximum.value} because both keep the maximum of 14 days: the DLQ cannot be "
                "made longer, and a message spends minutes, not days, in the source before it is moved"
            )
        found.append(Violation(
            at=dlq,
            field="message_retention",
            message=message,
            related=((source, "source queue"),),
            fix=fix,
            severity=at_maximum if both_at_maximum else None,
        ))
    return found


RULE = Rule(
    id="FL103",
    name="dlq-retention-not-longer",
    severity=SEVERITY,
    summary="A dead-letter queue does not keep messages longer than its source queue",
    check=check,
    doc=__doc__,
    fixable=Fixable.SOMETIMES,
    options=(
        Option("at-maximum", OptionType.SEVERITY, "info", "the level when both queues keep the maximum of 14 days "
               "(warning reports it as any other)", LEVELS),
    ),
)
