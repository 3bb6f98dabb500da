"""## What it does
Flags the settings of an SQS event source mapping that the Lambda API refuses when the
mapping is created or updated:

- a batch size (`BatchSize`, `batch_size`) above 10 without a batching window
  (`MaximumBatchingWindowInSeconds`, `maximum_batching_window_in_seconds`) of at least
  1 second;
- a batching window above 0 on a FIFO queue;
- a batch size above 10 on a FIFO queue;
- a maximum concurrency (`ScalingConfig.MaximumConcurrency`,
  `scaling_config.maximum_concurrency`) together with provisioned pollers
  (`ProvisionedPollerConfig`, `provisioned_poller_config`).

Not flagged: a mapping that reads a stream or anything that is provably no SQS queue,
a queue whose type (standard or FIFO) the template does not prove for the two FIFO
checks, and any value the linter cannot read.

## Why is this bad?
The template is valid, but the deploy fails: Lambda rejects the mapping with
`InvalidParameterValueException` (CloudFormation: `Invalid request provided`), and the
stack rolls back or `terraform apply` stops halfway. AWS: "when you set BatchSize to a
value greater than 10, you must set MaximumBatchingWindowInSeconds to at least 1"; for
FIFO queues "the maximum is 10" and "Batching window is not supported for FIFO queues";
and maximum concurrency and provisioned mode "are mutually exclusive options".

## How to fix
- Batch size above 10 on a standard queue: set a batching window of at least 1 second
  (`--fix` sets 1, the shortest; keep the queue's visibility timeout at least six times
  the function timeout plus the window), or lower the batch size to 10.
- FIFO queue: remove the batching window, and keep the batch size at 10 or less.
- Provisioned pollers: remove `ScalingConfig` and bound the mapping with
  `MaximumPollers`, or remove `ProvisionedPollerConfig`.

CloudFormation (SAM: the same keys on the `SQS` event):

```yaml
OrdersMapping:
  Type: AWS::Lambda::EventSourceMapping
  Properties:
    EventSourceArn: !GetAtt OrdersQueue.Arn
    FunctionName: !Ref OrdersFunction
    BatchSize: 100
    MaximumBatchingWindowInSeconds: 1
```

Terraform:

```hcl
resource "aws_lambda_event_source_mapping" "orders" {
  event_source_arn                   = aws_sqs_queue.orders.arn
  function_name                      = aws_lambda_function.orders.arn
  batch_size                         = 100
  maximum_batching_window_in_seconds = 1
}
```

## References
- https://docs.aws.amazon.com/lambda/latest/api/API_CreateEventSourceMapping.html
- https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-parameters.html
- https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-scaling.html
"""

from __future__ import annotations

from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import EventSourceMapping, Queue
from fanout_lint.model.values import describe, verdict
from fanout_lint.model.vocabulary import how_to_set, term
from fanout_lint.rule import Applicability, Fix, Fixable, Rule, Severity, Violation

from .common import is_sqs_source, is_standard, named

# The largest batch Lambda takes from SQS without a batching window, and from a FIFO queue.
PLAIN_BATCH_LIMIT = 10


def check(graph: Graph, options) -> list[Violation]:
    found: list[Violation] = []
    for mapping in graph.all(EventSourceMapping):
        if not is_sqs_source(graph, mapping):
            continue
        queue = graph.get(mapping.source)
        if isinstance(queue, Queue) and verdict(bool, queue.fifo) is True:
            found.extend(_fifo(mapping, queue))
        else:
            found.extend(_window_needed(mapping, queue))
        found.extend(_scaling_with_pollers(mapping, queue))
    return found


def _large(value) -> bool | None:
    return verdict(lambda size: isinstance(size, int) and size > PLAIN_BATCH_LIMIT, value)


def _window_needed(mapping: EventSourceMapping, queue) -> list[Violation]:
    if _large(mapping.batch_size) is not True:
        return []
    if verdict(lambda window: isinstance(window, int) and window < 1, mapping.batching_window) is not True:
        return []
    standard = isinstance(queue, Queue) and is_standard(queue.fifo)
    return [Violation(
        at=mapping,
        field="batching_window",
        message=(
            f"Mapping {mapping.resource} reads {named(queue) if queue is not None else 'its queue'} with {term(mapping, 'batch_size')} "
            f"{describe(mapping.batch_size)} and {term(mapping, 'batching_window')} "
            f"{describe(mapping.batching_window, 's')}: Lambda refuses a batch size above {PLAIN_BATCH_LIMIT} "
            f"without a batching window of at least 1 s, so the deploy fails; "
            f"{how_to_set(mapping, 'batching_window', 1)}, or lower {term(mapping, 'batch_size')} to "
            f"{PLAIN_BATCH_LIMIT}"
        ),
        related=((queue, "queue"),) if queue is not None else (),
        # Only on a queue the template proves standard: on a FIFO queue no window is accepted.
        fix=Fix("batching_window", 1, Applicability.SAFE) if standard else None,
    )]


def _fifo(mapping: EventSourceMapping, queue: Queue) -> list[Violation]:
    found = []
    if verdict(lambda window: isinstance(window, int) and window > 0, mapping.batching_window) is True:
        found.append(Violation(
            at=mapping,
            field="batching_window",
            message=(
                f"Mapping {mapping.resource} reads FIFO queue {queue.resource} with "
                f"{term(mapping, 'batching_window')} {describe(mapping.batching_window, 's')}: Lambda does not "
                f"support a batching window on FIFO queues and refuses the mapping, so the deploy fails; remove "
                f"{term(mapping, 'batching_window')}"
            ),
            related=((queue, "queue"),),
        ))
    if _large(mapping.batch_size) is True:
        found.append(Violation(
            at=mapping,
            field="batch_size",
            message=(
                f"Mapping {mapping.resource} reads FIFO queue {queue.resource} with {term(mapping, 'batch_size')} "
                f"{describe(mapping.batch_size)}: the largest batch Lambda takes from a FIFO queue is "
                f"{PLAIN_BATCH_LIMIT}, so the deploy fails; {how_to_set(mapping, 'batch_size', PLAIN_BATCH_LIMIT)}"
            ),
            related=((queue, "queue"),),
            # The function then gets smaller batches than the author asked for: not safe.
            fix=Fix("batch_size", PLAIN_BATCH_LIMIT, Applicability.UNSAFE),
        ))
    return found


def _scaling_with_pollers(mapping: EventSourceMapping, queue) -> list[Violation]:
    if verdict(lambda pollers: pollers is True, mapping.provisioned_pollers) is not True:
        return []
    if verdict(lambda limit: limit is not None, mapping.maximum_concurrency) is not True:
        return []
    return [Violation(
        at=mapping,
        field="maximum_concurrency",
        message=(
            f"Mapping {mapping.resource} sets both {term(mapping, 'maximum_concurrency')} "
            f"{describe(mapping.maximum_concurrency)} and {term(mapping, 'provisioned_pollers')}: maximum "
            f"concurrency and provisioned mode are mutually exclusive, Lambda refuses the mapping and the deploy "
            f"fails; bound the mapping with {term(mapping, 'maximum_pollers')} and remove "
            f"{term(mapping, 'maximum_concurrency').split('.')[0]}, or remove {term(mapping, 'provisioned_pollers')}"
        ),
        related=((queue, "queue"),) if queue is not None else (),
    )]


RULE = Rule(
    id="FL206",
    name="batching-settings-rejected",
    severity=Severity.ERROR,
    summary="An SQS mapping's batching or scaling settings that Lambda refuses",
    check=check,
    doc=__doc__,
    fixable=Fixable.SOMETIMES,
)
