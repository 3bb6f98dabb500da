"""## What it does
Flags a FIFO queue whose high-throughput settings are only half written:

- `FifoThroughputLimit: perMessageGroupId` (`fifo_throughput_limit = "perMessageGroupId"`)
  while the deduplication scope (`DeduplicationScope`, `deduplication_scope`) is `queue`,
  written or by default: SQS refuses the queue (error);
- `DeduplicationScope: messageGroup` while the throughput limit is `perQueue`, written or
  by default: the queue is created, with normal throughput (warning, see below).

Not flagged: standard queues, a FIFO queue with both settings at their high-throughput
values or both at their defaults, and settings the linter cannot read.

## Why is this bad?
High throughput for FIFO queues takes both settings. AWS (CreateQueue): "The
perMessageGroupId value is allowed only when the value for DeduplicationScope is
messageGroup", so the first shape fails the deploy. And "If you set these attributes to
anything other than the values shown for enabling high throughput, normal throughput is
in effect": the second shape deploys, and the queue stays at the normal FIFO quota (300
transactions per second per API action) while its author expects the high-throughput
one, until producers are throttled.

## When it is a warning
The second shape is refused by nothing: it is reported as a warning. The
`normal-throughput` option sets that level (`normal-throughput = "error"` reports it as
the first).

## How to fix
For high throughput, set both: `DeduplicationScope: messageGroup` and
`FifoThroughputLimit: perMessageGroupId`. Deduplication then applies within each
message group only, so a producer that relies on deduplication across groups must
change; for normal throughput, remove both. `--fix --unsafe-fixes` sets the missing
deduplication scope of the first shape; `--fix` sets the throughput limit of the second.

CloudFormation:

```yaml
PaymentsQueue:
  Type: AWS::SQS::Queue
  Properties:
    FifoQueue: true
    DeduplicationScope: messageGroup
    FifoThroughputLimit: perMessageGroupId
```

Terraform:

```hcl
resource "aws_sqs_queue" "payments" {
  name                  = "payments.fifo"
  fifo_queue            = true
  deduplication_scope   = "messageGroup"
  fifo_throughput_limit = "perMessageGroupId"
}
```

## References
- https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_CreateQueue.html
- https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/high-throughput-fifo.html
"""

from __future__ import annotations

from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import Queue
from fanout_lint.model.values import DEFAULT, Known, describe, verdict
from fanout_lint.model.vocabulary import how_to_set, term
from fanout_lint.rule import Applicability, Fix, Fixable, Option, Options, OptionType, Rule, Severity, Violation

from .common import LEVELS, level

SEVERITY = Severity.ERROR
PER_GROUP = "perMessageGroupId"
GROUP_SCOPE = "messageGroup"


def check(graph: Graph, options: Options) -> list[Violation]:
    lowered = level(SEVERITY, options, "normal-throughput")
    found = []
    for queue in graph.all(Queue):
        if verdict(bool, queue.fifo) is not True:
            continue
        limit, scope = queue.fifo_throughput_limit, queue.deduplication_scope
        per_group = verdict(lambda v: v == PER_GROUP, limit)
        group_scope = verdict(lambda v: v == GROUP_SCOPE, scope)
        if per_group is True and group_scope is False and verdict(lambda v: v == "queue", scope) is True:
            found.append(Violation(
                at=queue,
                field="deduplication_scope" if _written(scope) else "fifo_throughput_limit",
                message=(
                    f"FIFO queue {queue.resource} sets {term(queue, 'fifo_throughput_limit')} {describe(limit)} with "
                    f"{term(queue, 'deduplication_scope')} {describe(scope)}: SQS allows {PER_GROUP} only with "
                    f"deduplication per message group and refuses the queue, so the deploy fails; "
                    f"{how_to_set(queue, 'deduplication_scope', GROUP_SCOPE)} (deduplication then applies within "
                    f"each message group), or remove {term(queue, 'fifo_throughput_limit')}"
                ),
                # Deduplication across message groups stops: the producers' contract changes.
                fix=Fix("deduplication_scope", GROUP_SCOPE, Applicability.UNSAFE),
            ))
        elif group_scope is True and per_group is False and verdict(lambda v: v == "perQueue", limit) is True:
            note = f"; reported as {lowered.value} because SQS accepts the queue" if lowered is not None else ""
            found.append(Violation(
                at=queue,
                field="fifo_throughput_limit" if _written(limit) else "deduplication_scope",
                message=(
                    f"FIFO queue {queue.resource} sets {term(queue, 'deduplication_scope')} {describe(scope)} with "
                    f"{term(queue, 'fifo_throughput_limit')} {describe(limit)}: high throughput needs both, so the "
                    f"queue silently keeps the normal FIFO throughput quota; "
                    f"{how_to_set(queue, 'fifo_throughput_limit', PER_GROUP)}, or remove "
                    f"{term(queue, 'deduplication_scope')}{note}"
                ),
                # Only the throughput quota changes: nothing a producer or consumer sees.
                fix=Fix("fifo_throughput_limit", PER_GROUP, Applicability.SAFE),
                severity=lowered,
            ))
    return found


def _written(value) -> bool:
    return isinstance(value, Known) and value.origin != DEFAULT


RULE = Rule(
    id="FL005",
    name="fifo-high-throughput-partial",
    severity=SEVERITY,
    summary="A FIFO queue with only half of the high-throughput settings",
    check=check,
    doc=__doc__,
    fixable=Fixable.ALWAYS,
    options=(
        Option("normal-throughput", OptionType.SEVERITY, "warning",
               "the level of a queue that SQS accepts with normal throughput "
               "(DeduplicationScope messageGroup with a per-queue limit)", LEVELS),
    ),
)
