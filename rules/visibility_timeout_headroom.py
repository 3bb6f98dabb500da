"""## What it does
Flags a queue read by a Lambda function through an event source mapping when the
queue's visibility timeout (`VisibilityTimeout`, Terraform `visibility_timeout_seconds`;
default 30 s) is at least the function's timeout (`Timeout`, `timeout`; default 3 s),
so the deploy succeeds, but below what AWS recommends: six times the function timeout
plus the mapping's batching window (`MaximumBatchingWindowInSeconds`,
`maximum_batching_window_in_seconds`; default 0 s). The factor is an option. A timeout
below the function's is `visibility-timeout-below-function-timeout`.

## Why is this bad?
Lambda keeps a batch invisible only for the queue's visibility timeout. When the
function is throttled, or retried after a throttle, or the batching window holds
messages before the invocation, the time a message spends in flight exceeds one
function timeout. The message becomes visible again while it is still being processed
and another invocation handles it a second time: duplicates with no error anywhere.

## How to fix
Set the queue's visibility timeout to at least `factor x function timeout + batching
window` of every function that reads it (with the default factor, 6 x 30 s + 0 s = 180 s
for a 30 s function), or lower the function timeout if the work is short.
`fanout-lint --fix` raises it (a safe fix) when the values are written in the template.

CloudFormation:

```yaml
OrdersQueue:
  Type: AWS::SQS::Queue
  Properties:
    VisibilityTimeout: 180
```

Terraform:

```hcl
resource "aws_sqs_queue" "orders" {
  visibility_timeout_seconds = 180
}
```

## References
- https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-configure.html
- https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-configure-lambda-function-trigger.html
- https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-visibility-timeout.html
"""

from __future__ import annotations

from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import Queue
from fanout_lint.model.values import candidates, describe, verdict
from fanout_lint.model.vocabulary import how_to_set, term
from fanout_lint.rule import Applicability, Fix, Fixable, Option, Options, OptionType, Rule, Severity, Violation

from .common import recommended_timeout

DEFAULT_FACTOR = 6


def check(graph: Graph, options: Options) -> list[Violation]:
    factor = options.integer("factor")
    found = []
    for queue in graph.all(Queue):
        short = []
        for mapping in graph.consumers_of(queue.id):
            function = graph.function(mapping.function)
            if function is None:
                continue
            too_short = verdict(
                lambda vt, t, w: t <= vt < factor * t + w,
                queue.visibility_timeout, function.timeout, mapping.batching_window,
            )
            if too_short is True:
                needed = max(
                    factor * t.value + w.value
                    for t in candidates(function.timeout)
                    for w in candidates(mapping.batching_window)
                )
                short.append((needed, function, mapping))
        if not short:
            continue
        needed, function, mapping = max(short, key=lambda s: (s[0], s[1].id))
        related = []
        for _, other_function, other_mapping in short:
            related += [(other_function, "consumer"), (other_mapping, "event source mapping")]
        recommended = recommended_timeout(graph, queue, factor)
        found.append(Violation(
            at=queue,
            field="visibility_timeout",
            message=(
                f"{term(queue, 'visibility_timeout')} {describe(queue.visibility_timeout, 's')} of "
                f"{queue.resource} leaves {function.resource} less headroom than AWS recommends, {factor} x "
                f"{term(function, 'timeout')} {describe(function.timeout, 's')} + "
                f"{term(mapping, 'batching_window')} {describe(mapping.batching_window, 's')} of "
                f"{mapping.resource}; {how_to_set(queue, 'visibility_timeout', recommended or needed)}"
            ),
            related=tuple(related),
            fix=Fix("visibility_timeout", recommended, Applicability.SAFE) if recommended is not None else None,
        ))
    return found


RULE = Rule(
    id="FL203",
    name="visibility-timeout-headroom",
    severity=Severity.WARNING,
    summary="Visibility timeout below 6 x the consumer's timeout plus its batching window",
    check=check,
    doc=__doc__,
    fixable=Fixable.SOMETIMES,
    options=(
        Option("factor", OptionType.INT, DEFAULT_FACTOR,
               "the visibility timeout must be at least factor x function timeout + batching window",
               lowers="below"),
    ),
)
