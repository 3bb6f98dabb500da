"""## What it does
Flags a queue of the unit that an SNS subscription delivers to when no queue policy of
the unit lets SNS send to it: no `Allow` statement for `sqs:SendMessage` (or `sqs:*`,
`*`) with the principal `sns.amazonaws.com` (or `sns.<region>.amazonaws.com`) or `*`.
Policies from `AWS::SQS::QueuePolicy`, `AWS::SQS::QueueInlinePolicy`, Terraform's
`aws_sqs_queue_policy` and `policy` attribute count, and so do the ones SAM creates
for `SqsSubscription` and for connectors. A policy the linter cannot read, or one whose
queues it cannot resolve, keeps it silent.

## Why is this bad?
The deploy succeeds and the subscription is confirmed, but every delivery is refused:
SNS treats it as a client-side error, does not retry, and drops the message (or moves it
to the subscription's dead-letter queue, which needs the same permission). Nothing
fails loudly; only the `NumberOfNotificationsFailed` metric shows it.

## How to fix
Add a queue policy with a statement allowing `sqs:SendMessage` to the principal
`{"Service": "sns.amazonaws.com"}` on the queue's ARN, with a condition
`ArnEquals: {aws:SourceArn: <topic ARN>}` (one statement per topic, or
`aws:SourceAccount`). In SAM, a connector from the topic to the queue with
`Permissions: [Write]` creates it.

CloudFormation:

```yaml
EmailQueuePolicy:
  Type: AWS::SQS::QueuePolicy
  Properties:
    Queues: [!Ref EmailQueue]
    PolicyDocument:
      Version: "2012-10-17"
      Statement:
        - Effect: Allow
          Principal: {Service: sns.amazonaws.com}
          Action: sqs:SendMessage
          Resource: !GetAtt EmailQueue.Arn
          Condition: {ArnEquals: {aws:SourceArn: !Ref OrdersTopic}}
```

Terraform:

```hcl
resource "aws_sqs_queue_policy" "email" {
  queue_url = aws_sqs_queue.email.id
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect    = "Allow"
      Principal = { Service = "sns.amazonaws.com" }
      Action    = "sqs:SendMessage"
      Resource  = aws_sqs_queue.email.arn
      Condition = { ArnEquals = { "aws:SourceArn" = aws_sns_topic.orders.arn } }
    }]
  })
}
```

## References
- https://docs.aws.amazon.com/sns/latest/dg/subscribe-sqs-queue-to-sns-topic.html
- https://docs.aws.amazon.com/sns/latest/dg/sns-message-delivery-retries.html
- https://repost.aws/knowledge-center/sns-sqs-subscriptions-notifications
"""

from __future__ import annotations

from fanout_lint.findings import Severity
from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import Queue
from fanout_lint.model.vocabulary import resource_type
from fanout_lint.rule import Rule, Violation

from .common import protocol_is, reported, sns_may_send, unresolved_policy_may_allow_sns


def check(graph: Graph, options) -> list[Violation]:
    found = []
    unresolved = unresolved_policy_may_allow_sns(graph)
    for queue in graph.all(Queue):
        subs = [s for s in graph.subscriptions_to(queue.id) if protocol_is(s, "sqs")]
        if not subs or sns_may_send(graph, queue, unresolved) is not False:
            continue
        policies = graph.policies_for(queue.id)
        related = []
        for sub in subs:
            related.append((sub, "subscription"))
            topic = graph.get(sub.topic)
            if topic is not None and not sub.inline:
                related.append((topic, "topic"))
        related += [(p, "queue policy") for p in policies]
        if policies:
            names = ", ".join(p.resource for p in policies)
            state = f"its queue policy ({names}) does not let SNS send to it"
        else:
            state = "no queue policy lets SNS send to it"
        feeders = ", ".join(dict.fromkeys(reported(s) for s in subs))
        found.append(Violation(
            at=queue,
            message=(
                f"Queue {queue.resource} receives from SNS ({feeders}) but {state}: every "
                f"delivery is refused and the message dropped; add an {resource_type(queue, 'queue_policy')} "
                "allowing sns.amazonaws.com sqs:SendMessage with aws:SourceArn set to the topic"
            ),
            related=tuple(related),
        ))
    return found


RULE = Rule(
    id="FL301",
    name="queue-policy-missing",
    severity=Severity.ERROR,
    summary="SNS delivers to a queue whose policy does not let SNS send to it",
    check=check,
    doc=__doc__,
)
