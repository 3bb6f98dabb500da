"""## What it does
Flags an SNS subscription that invokes a Lambda function of the unit (protocol
`lambda`) when no Lambda permission of the unit lets SNS invoke it: no
`AWS::Lambda::Permission` / `aws_lambda_permission` for the function with principal
`sns.amazonaws.com` (or `sns.<region>.amazonaws.com`) and action
`lambda:InvokeFunction`. The permissions SAM creates for `SNS` events and for
connectors count. A permission the linter cannot read, or whose function it cannot
resolve, keeps it silent.

## Why is this bad?
The subscription is created and confirmed, but each invocation is refused. SNS counts
it as a client-side error, does not retry it, and drops the message (or moves it to the
subscription's dead-letter queue). The deploy succeeds and the function never runs.

## How to fix
Add a Lambda permission for SNS on the function, with the topic as its source. In SAM,
an `SNS` event on the function creates it. Better still, put a queue between the topic
and the function (see `sns-to-lambda-direct`).

CloudFormation:

```yaml
WorkerPermission:
  Type: AWS::Lambda::Permission
  Properties:
    Action: lambda:InvokeFunction
    FunctionName: !Ref WorkerFunction
    Principal: sns.amazonaws.com
    SourceArn: !Ref OrdersTopic
```

Terraform:

```hcl
resource "aws_lambda_permission" "worker" {
  action        = "lambda:InvokeFunction"
  function_name = aws_lambda_function.worker.function_name
  principal     = "sns.amazonaws.com"
  source_arn    = aws_sns_topic.orders.arn
}
```

## References
- https://docs.aws.amazon.com/lambda/latest/dg/with-sns.html
- https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/aws-resource-lambda-permission.html
- https://docs.aws.amazon.com/sns/latest/dg/sns-message-delivery-retries.html
"""

from __future__ import annotations

from fanout_lint.findings import Severity
from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import Subscription
from fanout_lint.model.vocabulary import resource_type, term_of
from fanout_lint.rule import Rule, Violation

from .common import protocol_is, reported, sns_may_invoke, unresolved_permission_may_allow_sns


def check(graph: Graph, options) -> list[Violation]:
    found = []
    unresolved = unresolved_permission_may_allow_sns(graph)
    for sub in graph.all(Subscription):
        if not protocol_is(sub, "lambda"):
            continue
        function = graph.function(sub.endpoint)
        if function is None or sns_may_invoke(graph, function, unresolved) is not False:
            continue
        related = [(function, "function")]
        topic = graph.get(sub.topic)
        if topic is not None and not sub.inline:
            related.append((topic, "topic"))
        related += [(p, "Lambda permission") for p in graph.permissions_for(function.id)]
        found.append(Violation(
            at=sub,
            message=(
                f"{reported(sub)} invokes {function.resource} but no Lambda permission lets "
                "sns.amazonaws.com invoke it: every delivery is refused and the message "
                f"dropped; add an {resource_type(sub, 'permission')} for sns.amazonaws.com with "
                f"{term_of(sub, 'permission', 'source_arn')} set to the topic"
            ),
            related=tuple(related),
        ))
    return found


RULE = Rule(
    id="FL304",
    name="sns-lambda-permission-missing",
    severity=Severity.ERROR,
    summary="SNS invokes a Lambda function that no permission lets SNS invoke",
    check=check,
    doc=__doc__,
)
