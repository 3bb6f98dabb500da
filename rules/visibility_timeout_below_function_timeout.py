"""## What it does
Flags a queue read by a Lambda function through an event source mapping when the
queue's `VisibilityTimeout` (default 30 s) is below the function's `Timeout` (default
3 s; SAM `Globals` apply). Equal is allowed.

## Why is this bad?
While the function still works on a batch, the messages become visible again and are
handed to another invocation: duplicate processing with no failure anywhere. Lambda
rejects this combination when it creates or updates the event source mapping
(`Queue visibility timeout: 30 seconds is less than Function timeout: 120 seconds`), so
the deploy fails; raising the function timeout later is not rejected, and then the
duplicates begin.

## How to fix
Set the queue's `VisibilityTimeout` to at least the function timeout; AWS recommends
six times the function timeout plus the mapping's `MaximumBatchingWindowInSeconds`.

## References
- https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-configure.html
- https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-visibility-timeout.html
"""

from __future__ import annotations

from fanout_lint.findings import Severity
from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import Queue
from fanout_lint.model.values import candidates, describe, verdict
from fanout_lint.rule import Rule, Violation


def check(graph: Graph, options) -> list[Violation]:
    found = []
    for queue in graph.all(Queue):
        proving = []
        for mapping in graph.consumers_of(queue.id):
            function = graph.function(mapping.function)
            if function is None:
                continue
            if verdict(lambda vt, t: vt < t, queue.visibility_timeout, function.timeout) is True:
                proving.append((max(c.value for c in candidates(function.timeout)), function, mapping))
        if not proving:
            continue
        needed, function, mapping = max(proving, key=lambda p: (p[0], p[1].id))
        related = []
        for _, other_function, other_mapping in proving:
            related += [(other_function, "consumer"), (other_mapping, "event source mapping")]
        found.append(Violation(
            at=queue,
            message=(
                f"VisibilityTimeout {describe(queue.visibility_timeout, 's')} of {queue.resource} "
                f"is below Timeout {describe(function.timeout, 's')} of {function.resource}; "
                f"set it to at least {needed} s (AWS recommends {6 * needed} s)"
            ),
            related=tuple(related),
        ))
    return found


RULE = Rule(
    id="FL202",
    name="visibility-timeout-below-function-timeout",
    severity=Severity.ERROR,
    summary="A queue's visibility timeout is below its consuming function's timeout",
    check=check,
    doc=__doc__,
)
