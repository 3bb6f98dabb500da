"""## What it does
Flags a queue read by a Lambda function through an event source mapping when the
queue's visibility timeout (`VisibilityTimeout`, Terraform `visibility_timeout_seconds`;
default 30 s) is below the function's timeout (`Timeout`, `timeout`; default 3 s; SAM
`Globals` apply). Equal is allowed.

## Why is this bad?
While the function still works on a batch, the messages become visible again and are
handed to another invocation: duplicate processing with no failure anywhere. Lambda
rejects this combination when it creates or updates the event source mapping
(`Queue visibility timeout: 30 seconds is less than Function timeout: 120 seconds`), so
the deploy fails; raising the function timeout later is not rejected, and then the
duplicates begin.

## How to fix
Set the queue's visibility timeout to at least the function timeout; AWS recommends
six times the function timeout plus the mapping's batching window. `fanout-lint --fix`
does that (a safe fix) when the values are written in the template.

CloudFormation:

```yaml
ReportsQueue:
  Type: AWS::SQS::Queue
  Properties:
    VisibilityTimeout: 360   # 6 x Timeout 60 s + MaximumBatchingWindowInSeconds 0 s
```

Terraform:

```hcl
resource "aws_sqs_queue" "reports" {
  visibility_timeout_seconds = 360 # 6 x timeout 60 s + maximum_batching_window_in_seconds 0 s
}
```

## References
- https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-configure.html
- https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-visibility-timeout.html
"""

from __future__ import annotations

from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import Queue
from fanout_lint.model.values import candidates, describe, verdict
from fanout_lint.model.vocabulary import how_to_set, term
from fanout_lint.rule import Applicability, Fix, Fixable, Rule, Severity, Violation

from .common import recommended_timeout


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
        recommended = recommended_timeout(graph, queue, 6)
        advice = (
            f"{how_to_set(queue, 'visibility_timeout', recommended)} (at least {needed}; AWS recommends "
            f"6 x {term(function, 'timeout')} + {term(mapping, 'batching_window')})"
            if recommended is not None
            else f"set it to at least {needed} s (AWS recommends {6 * needed} s)"
        )
        found.append(Violation(
            at=queue,
            field="visibility_timeout",
            message=(
                f"{term(queue, 'visibility_timeout')} {describe(queue.visibility_timeout, 's')} of "
                f"{queue.resource} is below {term(function, 'timeout')} {describe(function.timeout, 's')} "
                f"of {function.resource}: messages reappear while the function still works on them; {advice}"
            ),
            related=tuple(related),
            fix=Fix("visibility_timeout", recommended, Applicability.SAFE) if recommended is not None else None,
        ))
    return found


RULE = Rule(
    id="FL202",
    name="visibility-timeout-below-function-timeout",
    severity=Severity.ERROR,
    summary="A queue's visibility timeout is below its consuming function's timeout",
    check=check,
    doc=__doc__,
    fixable=Fixable.SOMETIMES,
)
