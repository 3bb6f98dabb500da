"""## What it does
Flags a queue whose redrive policy's `maxReceiveCount` is outside a range, by default 3
to 5 (the options `min` and `max`). A redrive policy that omits `maxReceiveCount` gets
the API default of 10.

## Why is this bad?
`maxReceiveCount` is how many times a message is received before SQS moves it to the
dead-letter queue. Too low (1 or 2), and a transient failure (a throttle, a timeout of a
downstream service) sends a healthy message to the DLQ. Too high, and a poison message
loops through the consumer for many visibility timeouts, costing invocations and
delaying its neighbours. For queues read by Lambda, AWS has advised at least 5, so that
throttled batches are not sent to the DLQ.

## How to fix
Set `maxReceiveCount` in the queue's redrive policy to a value in the range, 5 for
queues consumed by Lambda. `fanout-lint --fix --unsafe-fixes` moves it to the nearest end
of the range (unsafe: how often a message is retried changes). If your consumers need
another range, change the rule's `min` and `max` options.

CloudFormation:

```yaml
OrdersQueue:
  Type: AWS::SQS::Queue
  Properties:
    RedrivePolicy: {deadLetterTargetArn: !GetAtt OrdersDLQ.Arn, maxReceiveCount: 5}
```

Terraform:

```hcl
resource "aws_sqs_queue" "orders" {
  redrive_policy = jsonencode({ deadLetterTargetArn = aws_sqs_queue.orders_dlq.arn, maxReceiveCount = 5 })
}
```

## When it is info
A count above the range that is still from 5 to 10 is reported at info, with the reason
in the message, when the queue's visibility timeout and retention are known and that
many visibility timeouts take at most half the retention period. Both ends are AWS's
own numbers: 5 is the least AWS has advised for queues that Lambda reads, and 10 is what
SQS applies when a redrive policy omits `maxReceiveCount`. Within them a poison message
costs a few more receives but still reaches the dead-letter queue long before it could
expire, so the count is a tuning choice. A count above 10, below the range, or one whose
timing the template does not prove keeps the warning. Restore it with the
`within-advice` option:

```toml
[tool.fanout-lint.options.max-receive-count-out-of-range]
within-advice = "warning"
```

## References
- https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-dead-letter-queues.html
- https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SetQueueAttributes.html
- https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-errorhandling.html
"""

from __future__ import annotations

from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import Queue
from fanout_lint.model.values import describe, verdict
from fanout_lint.model.vocabulary import term
from fanout_lint.rule import Applicability, Fix, Fixable, Option, Options, OptionType, Rule, Severity, Violation

from .common import LEVELS, level, single_values

SEVERITY = Severity.WARNING
DEFAULT_MIN = 3
DEFAULT_MAX = 5
LAMBDA_ADVICE = 5
API_DEFAULT = 10  # what SQS applies to a redrive policy that omits maxReceiveCount


def check(graph: Graph, options: Options) -> list[Violation]:
    low = options.integer("min")
    high = options.integer("max")
    within_advice = level(SEVERITY, options, "within-advice")
    found = []
    for queue in graph.all(Queue):
        redrive = graph.redrive_of(queue)
        if redrive is None:
            continue
        count = redrive.max_receive_count
        if verdict(lambda c: isinstance(c, int) and not low <= c <= high, count) is not True:
            continue
        too_low = verdict(lambda c: c < low, count) is True
        risk = (
            "transient failures send healthy messages to the dead-letter queue"
            if too_low
            else "a poison message loops through the consumer before it reaches the dead-letter queue"
        )
        related = []
        dlq = graph.get(redrive.dlq)
        if isinstance(dlq, Queue):
            related.append((dlq, "dead-letter queue"))
        related += [(m, "event source mapping") for m in graph.consumers_of(queue.id)]
        known = single_values(count)
        target = None
        if known is not None:
            target = min(max(known[0], low), high)
            if too_low and graph.consumers_of(queue.id):  # AWS's advice for Lambda, within the range
                target = min(max(LAMBDA_ADVICE, low), high)
        message = (
            f"{term(queue, 'max_receive_count')} {describe(count)} of {queue.resource} is outside "
            f"{low} to {high}: {risk}; set it within {low} to {high}"
        )
        if graph.consumers_of(queue.id):  # said only where it applies
            message += f" (AWS advises at least {LAMBDA_ADVICE} for a queue a Lambda function consumes, as here)"
        reach = _reaches_dlq_in_time(queue, count) if within_advice is not None and not too_low else None
        if reach is not None:
            message += (
                f"; reported as {within_advice.value} because {reach[0]} is within AWS's advice (at least "
                f"{LAMBDA_ADVICE}) and no higher than the {API_DEFAULT} SQS applies when none is written, and a "
                f"poison message still reaches the dead-letter queue after {reach[0]} receives (about {reach[1]} s "
                "at the visibility timeout), well within the queue's retention"
            )
        found.append(Violation(
            at=queue,
            field="max_receive_count",
            message=message,
            related=tuple(related),
            fix=Fix("max_receive_count", target, Applicability.UNSAFE) if target is not None else None,
            severity=within_advice if reach is not None else None,
        ))
    return found


def _reaches_dlq_in_time(queue: Queue, count) -> tuple[int, int] | None:
    """(count, seconds) when the count is provably between AWS's advice for Lambda and the
    API default, and that many visibility timeouts end within half the retention period (a
    poison message reaches the DLQ long before it could expire); else None."""
    known = single_values(count, queue.visibility_timeout, queue.message_retention)
    if known is None or not all(isinstance(v, int) and not isinstance(v, bool) for v in known):
        return None
    receives, visibility, retention = known
    if not LAMBDA_ADVICE <= receives <= API_DEFAULT or receives * visibility * 2 > retention:
        return None
    return receives, receives * visibility


RULE = Rule(
    id="FL104",
    name="max-receive-count-out-of-range",
    severity=SEVERITY,
    summary="A redrive policy's maxReceiveCount is outside the advised range (3 to 5)",
    check=check,
    doc=__doc__,
    fixable=Fixable.SOMETIMES,
    options=(
        Option("min", OptionType.INT, DEFAULT_MIN, "the lowest maxReceiveCount accepted", lowers="below"),
        Option("max", OptionType.INT, DEFAULT_MAX, "the highest maxReceiveCount accepted", lowers="above"),
        Option("within-advice", OptionType.SEVERITY, "info", "the level of a count above the range but from 5 to "
               "10 (AWS's advice for Lambda to the API default), when a poison message still reaches the DLQ in "
               "time (warning reports it as any other)", LEVELS),
    ),
)
