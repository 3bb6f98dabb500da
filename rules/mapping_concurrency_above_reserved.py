"""## What it does
Flags an SQS event source mapping of a function with reserved concurrency
(`ReservedConcurrentExecutions`, `reserved_concurrent_executions`) when the mapping can
invoke the function more often at once than the reservation allows: the mapping has no
maximum concurrency (`ScalingConfig.MaximumConcurrency`,
`scaling_config.maximum_concurrency`) and the reservation is below the 1,250 concurrent
invocations Lambda scales one SQS mapping to, or its maximum concurrency is above the
reservation, or the maximum concurrencies of all the function's SQS mappings add up to
more than the reservation (then each of them is flagged).

A mapping in provisioned mode (`ProvisionedPollerConfig`, `provisioned_poller_config`)
is scaled by its pollers instead: each event poller invokes the function up to 10 times
at once, so the mapping can reach 10 x its maximum pollers (`MaximumPollers`,
`maximum_pollers`; 200 when not set) concurrent invocations, and it is flagged when
that, alone or added to the function's other SQS mappings, is above the reservation.

Not flagged: a reservation of 0 (the function is switched off on purpose), no
reservation (Terraform's `-1`), a mapping that sets both maximum concurrency and
provisioned pollers (Lambda refuses it: `batching-settings-rejected`), a disabled
mapping, and anything the linter cannot read.

## Why is this bad?
Maximum concurrency and reserved concurrency are independent settings. The mapping's
pollers keep receiving batches while the function is at its reserved concurrency;
Lambda throttles the invocations, and a throttled batch becomes visible again in the
queue. Every receive counts toward the queue's `maxReceiveCount`, so healthy messages
that were only throttled end up in the dead-letter queue. AWS: "Don't set maximum
concurrency higher than the function's reserved concurrency." In provisioned mode AWS
says each event poller handles "up to 10 concurrent invokes".

## How to fix
Set each SQS mapping's maximum concurrency (2 to 1,000) so that their sum stays at or
below the function's reserved concurrency, or raise the reservation. To limit how fast
one queue is consumed, use maximum concurrency rather than reserved concurrency. In
provisioned mode, keep 10 x `MaximumPollers` within the reservation.

CloudFormation (SAM: the same `ScalingConfig` on the `SQS` event):

```yaml
OrdersMapping:
  Type: AWS::Lambda::EventSourceMapping
  Properties:
    EventSourceArn: !GetAtt OrdersQueue.Arn
    FunctionName: !Ref OrdersFunction   # ReservedConcurrentExecutions: 10
    ScalingConfig: {MaximumConcurrency: 10}
```

Terraform:

```hcl
resource "aws_lambda_event_source_mapping" "orders" {
  event_source_arn = aws_sqs_queue.orders.arn
  function_name    = aws_lambda_function.orders.arn # reserved_concurrent_executions = 10
  scaling_config {
    maximum_concurrency = 10
  }
}
```

## References
- https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-scaling.html
- https://repost.aws/knowledge-center/lambda-sqs-scaling
- https://docs.aws.amazon.com/lambda/latest/dg/configuration-concurrency.html
- https://docs.aws.amazon.com/lambda/latest/api/API_ProvisionedPollerConfig.html
"""

from __future__ import annotations

from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import EventSourceMapping, Function, Queue
from fanout_lint.model.values import Known, describe, is_false, verdict
from fanout_lint.model.vocabulary import term
from fanout_lint.rule import Rule, Severity, Violation

from .common import is_sqs_source, named, single_values

# How far Lambda scales one SQS mapping without a maximum concurrency.
SQS_SCALING_LIMIT = 1_250


def check(graph: Graph, options) -> list[Violation]:
    found = []
    for function in graph.all(Function):
        known = single_values(function.reserved_concurrency)
        reserved = known[0] if known else None
        if not isinstance(reserved, int) or isinstance(reserved, bool) or reserved <= 0:
            continue  # unreserved, switched off (0) or unknown
        mappings = [m for m in graph.mappings_for(function.id) if is_sqs_source(graph, m) and not is_false(m.enabled)]
        flagged: dict[str, Violation] = {}
        for mapping in mappings:
            violation = _alone(graph, function, reserved, mapping)
            if violation is not None:
                flagged[mapping.id] = violation
        total = _total(mappings)
        if total is not None and total > reserved:
            for mapping in mappings:
                flagged.setdefault(mapping.id, _together(graph, function, reserved, mapping, mappings, total))
        found.extend(flagged.values())
    return found


def _polled_by_lambda(mapping: EventSourceMapping) -> bool:
    """The mapping provably scales by ScalingConfig: no provisioned pollers, enabled or not known."""
    return verdict(lambda pollers: pollers is False, mapping.provisioned_pollers) is True


# -- provisioned mode --------------------------------------------------------------

# "each event poller can handle ... up to 10 concurrent invokes" (services-sqs-scaling).
INVOKES_PER_POLLER = 10


def _provisioned(mapping: EventSourceMapping) -> bool:
    """The mapping provably scales by its provisioned pollers alone (no ScalingConfig,
    which Lambda refuses beside them)."""
    return (verdict(lambda pollers: pollers is True, mapping.provisioned_pollers) is True
            and verdict(lambda m: m is None, mapping.maximum_concurrency) is True)


def _provisioned_ceiling(mapping: EventSourceMapping) -> int | None:
    """How many invocations at once the mapping's pollers can make, when known."""
    known = single_values(mapping.maximum_pollers) if _provisioned(mapping) else None
    pollers = known[0] if known else None
    if not isinstance(pollers, int) or isinstance(pollers, bool):
        return None
    return INVOKES_PER_POLLER * pollers


def _alone(graph: Graph, function: Function, reserved: int, mapping: EventSourceMapping) -> Violation | None:
    ceiling = _provisioned_ceiling(mapping)
    if ceiling is not None:
        if ceiling <= reserved:
            return None
        state = (f"has provisioned pollers with {term(mapping, 'maximum_pollers')} "
                 f"{describe(mapping.maximum_pollers)}, which invoke it up to {ceiling:,} times at once "
                 f"({INVOKES_PER_POLLER} per poller), above it")
        return _violation(graph, function, reserved, mapping, state, "maximum_pollers", True)
    if not _polled_by_lambda(mapping):
        return None
    limit = mapping.maximum_concurrency
    if verdict(lambda m: m is None, limit) is True:
        if reserved >= SQS_SCALING_LIMIT:
            return None
        state = f"has no {term(mapping, 'maximum_concurrency')}, so Lambda may scale it to {SQS_SCALING_LIMIT:,}"
    elif verdict(lambda m: isinstance(m, int) and m > reserved, limit) is True:
        state = f"has {term(mapping, 'maximum_concurrency')} {limit.value}, above it"
    else:
        return None
    return _violation(graph, function, reserved, mapping, state)


def _total(mappings: list[EventSourceMapping]) -> int | None:
    """The sum of the mappings' maximum concurrencies, when every one is known."""
    total = 0
    for mapping in mappings:
        limit = mapping.maximum_concurrency
        if mapping.multi_instance or verdict(lambda e: e is True, mapping.enabled) is not True:
            return None
        ceiling = _provisioned_ceiling(mapping)
        if ceiling is not None:
            total += ceiling
            continue
        if not _polled_by_lambda(mapping):
            return None
        if not (isinstance(limit, Known) and isinstance(limit.value, int) and not isinstance(limit.value, bool)):
            return None
        total += limit.value
    return total


def _together(graph: Graph, function: Function, reserved: int, mapping: EventSourceMapping,
              mappings: list[EventSourceMapping], total: int) -> Violation:
    parts = ", ".join(f"{m.resource}: {_share(m)}" for m in mappings)
    mixed = any(_provisioned_ceiling(m) is not None for m in mappings)
    limits = "concurrency limits" if mixed else term(mapping, 'maximum_concurrency')
    state = f"is one of its SQS mappings whose {limits} add up to {total} ({parts}), above it"
    field = "maximum_pollers" if _provisioned_ceiling(mapping) is not None else "maximum_concurrency"
    return _violation(graph, function, reserved, mapping, state, field, mixed)


def _pollers_part(mapping: EventSourceMapping, provisioned: bool) -> str:
    if not provisioned:
        return ""
    return f" and {INVOKES_PER_POLLER} x {term(mapping, 'maximum_pollers')}"


def _share(mapping: EventSourceMapping) -> str:
    ceiling = _provisioned_ceiling(mapping)
    if ceiling is None:
        return str(mapping.maximum_concurrency.value)
    return f"{ceiling} ({INVOKES_PER_POLLER} x {term(mapping, 'maximum_pollers')} {mapping.maximum_pollers.value})"


def _violation(graph: Graph, function: Function, reserved: int, mapping: EventSourceMapping, state: str,
               field: str = "maximum_concurrency", provisioned: bool = False) -> Violation:
    queue = graph.get(mapping.source)
    receives = term(queue, "max_receive_count") if isinstance(queue, Queue) else "maxReceiveCount"
    return Violation(
        at=mapping,
        field=field,
        message=(
            f"Function {function.resource} reserves {reserved} concurrent executions "
            f"({term(function, 'reserved_concurrency')}) and mapping {mapping.resource}, reading {named(queue)}, "
            f"{state}: throttled batches return to the queue, every receive counts toward {receives}, and "
            f"healthy messages end up in the dead-letter queue; keep the mappings' "
            f"{term(mapping, 'maximum_concurrency')}{_pollers_part(mapping, provisioned)} within {reserved} in total"
        ),
        related=((function, "function"),) + (((queue, "queue"),) if queue is not None else ()),
    )


RULE = Rule(
    id="FL205",
    name="mapping-concurrency-above-reserved",
    severity=Severity.WARNING,
    summary="An SQS mapping can invoke its function beyond its reserved concurrency",
    check=check,
    doc=__doc__,
)
