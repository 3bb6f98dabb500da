"""## What it does
Flags an SNS subscription that invokes a Lambda function directly (protocol `lambda`):
a standalone subscription, an inline subscription of a topic, or a SAM `SNS` event
without `SqsSubscription`.

## Why is this bad?
With no queue between the topic and the function, nothing absorbs a spike and nothing
keeps a message while the consumer is failing. Lambda retries an asynchronous event
twice and then discards it (unless the function has its own on-failure destination);
throttled events expire after hours. The SNS subscription's dead-letter queue does not
help: it only catches delivery failures, never the function's errors.

## How to fix
Subscribe an SQS queue to the topic (with raw message delivery and its own DLQ) and let
the function read the queue through an event source mapping. In SAM, set
`SqsSubscription: true` on the SNS event, or better, declare the queue yourself.

CloudFormation:

```yaml
WorkerSubscription:
  Type: AWS::SNS::Subscription
  Properties:
    TopicArn: !Ref OrdersTopic
    Protocol: sqs
    Endpoint: !GetAtt WorkerQueue.Arn
    RawMessageDelivery: true
WorkerMapping:
  Type: AWS::Lambda::EventSourceMapping
  Properties:
    EventSourceArn: !GetAtt WorkerQueue.Arn
    FunctionName: !Ref WorkerFunction
```

Terraform:

```hcl
resource "aws_sns_topic_subscription" "worker" {
  topic_arn            = aws_sns_topic.orders.arn
  protocol             = "sqs"
  endpoint             = aws_sqs_queue.worker.arn
  raw_message_delivery = true
}

resource "aws_lambda_event_source_mapping" "worker" {
  event_source_arn = aws_sqs_queue.worker.arn
  function_name    = aws_lambda_function.worker.arn
}
```

## References
- https://docs.aws.amazon.com/lambda/latest/dg/with-sns.html
- https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-error-handling.html
- https://docs.aws.amazon.com/sns/latest/dg/sns-sqs-as-subscriber.html
"""

from __future__ import annotations

from fanout_lint.findings import Severity
from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import Subscription
from fanout_lint.model.vocabulary import resource_type
from fanout_lint.rule import Rule, Violation
from .common import named, protocol_is, reported


def check(graph: Graph, options) -> list[Violation]:
    found = []
    for sub in graph.all(Subscription):
        if not protocol_is(sub, "lambda"):
            continue
        topic = graph.get(sub.topic)
        function = graph.get(sub.endpoint)
        target = named(function) if function is not None else "a Lambda function"
        related = []
        if function is not None:
            related.append((function, "function"))
        if topic is not None and not sub.inline:
            related.append((topic, "topic"))
        advice = sub.written.why_fixed("endpoint") or (
            f"subscribe an {resource_type(sub, 'queue')} instead and read it with an "
            f"{resource_type(sub, 'mapping')}"
        )
        found.append(Violation(
            at=sub,
            field="protocol",
            message=(
                f"{reported(sub)} sends SNS messages straight to {target}: no queue absorbs "
                f"spikes or keeps messages the function fails on; {advice}"
            ),
            related=tuple(related),
        ))
    return found


RULE = Rule(
    id="FL001",
    name="sns-to-lambda-direct",
    severity=Severity.WARNING,
    summary="SNS invokes a Lambda function directly, with no queue in between",
    check=check,
    doc=__doc__,
)
