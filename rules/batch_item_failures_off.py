"""## What it does
Flags an event source mapping that reads an SQS queue with a batch size above 1
(`BatchSize`, Terraform `batch_size`; default 10) and does not list
`ReportBatchItemFailures` in its `FunctionResponseTypes` (`function_response_types`).
SAM `SQS` events are mappings too (named `<Function><Event>`).

## Why is this bad?
Without partial batch responses, Lambda treats a batch as one unit: when one message
fails, the function returns an error and every message of the batch becomes visible
again, including those already processed. One poison message makes its whole batch
retry until it reaches `maxReceiveCount`, so healthy messages are processed several
times and may end up in the dead-letter queue alongside it. A partial batch response
returned by the function is ignored unless the mapping enables it.

## How to fix
Report partial batch failures, and make the function return
`{"batchItemFailures": [{"itemIdentifier": "<messageId>"}]}` listing only the messages
that failed (the function's code must change with it, so `fanout-lint --fix` applies it
only with `--unsafe-fixes`). If the function cannot do that, set the batch size to 1.

CloudFormation (SAM: the same property on the `SQS` event):

```yaml
OrdersMapping:
  Type: AWS::Lambda::EventSourceMapping
  Properties:
    FunctionResponseTypes: [ReportBatchItemFailures]
```

Terraform:

```hcl
resource "aws_lambda_event_source_mapping" "orders" {
  function_response_types = ["ReportBatchItemFailures"]
}
```

## References
- https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-errorhandling.html
- https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-parameters.html
"""

from __future__ import annotations

from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import EventSourceMapping, Queue
from fanout_lint.model.values import describe, verdict
from fanout_lint.model.vocabulary import can_set, how_to_set
from fanout_lint.rule import Applicability, Fix, Fixable, Rule, Severity, Violation

from .common import is_sqs_source

REPORT = "ReportBatchItemFailures"


def check(graph: Graph, options) -> list[Violation]:
    found = []
    for mapping in graph.all(EventSourceMapping):
        source = graph.get(mapping.source)
        # an event that names no queue (SAM refuses it) makes a mapping that cannot exist
        if source is None or not is_sqs_source(graph, mapping):
            continue
        if verdict(lambda size: size > 1, mapping.batch_size) is not True:
            continue
        if verdict(lambda types: REPORT not in types, mapping.response_types) is not True:
            continue
        related = [(source, "queue")] if isinstance(source, Queue) else []
        queue_name = source.resource if isinstance(source, Queue) else source.label
        function = graph.function(mapping.function)
        if function is not None:
            related.append((function, "consumer"))
        found.append(Violation(
            at=mapping,
            field="response_types",
            message=(
                f"Event source mapping {mapping.resource} reads batches of "
                f"{describe(mapping.batch_size)} from {queue_name} without {REPORT}: one failing "
                f"message makes the whole batch retry; "
                f"{how_to_set(mapping, 'response_types', [REPORT])}"
                + (" and return batchItemFailures" if can_set(mapping, "response_types") else "")
            ),
            related=tuple(related),
            fix=Fix("response_types", [REPORT], Applicability.UNSAFE),
        ))
    return found


RULE = Rule(
    id="FL204",
    name="batch-item-failures-off",
    severity=Severity.WARNING,
    summary="An SQS event source mapping with batches does not report batch item failures",
    check=check,
    doc=__doc__,
    fixable=Fixable.ALWAYS,
)
