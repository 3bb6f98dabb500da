"""## What it does
Flags a queue of the unit that a service delivers to when no queue policy of the unit
lets that service send to it: no `Allow` statement for `sqs:SendMessage` (or `sqs:*`,
`*`) with the service's principal (or `<service>.<region>.amazonaws.com`) or `*`. The
deliveries are:

- SNS (`sns.amazonaws.com`): a queue subscribed to a topic, and a queue that is an SNS
  subscription's dead-letter queue (`RedrivePolicy`, `redrive_policy`);
- EventBridge (`events.amazonaws.com`): a queue that is a rule's target, or a target's
  dead-letter queue (`DeadLetterConfig.Arn`, `dead_letter_config.arn`), unless the target
  sets a role (`RoleArn`, `role_arn`), which EventBridge may send with instead;
- S3 (`s3.amazonaws.com`): a queue an event notification delivers to
  (`QueueConfigurations`, the `queue` block of `aws_s3_bucket_notification`).

Queues that a Lambda function writes to with its execution role (its dead-letter queue,
its destinations, a stream mapping's on-failure destination) and EventBridge Scheduler
dead-letter queues (written with the schedule's role) need no queue policy and are
never flagged.

Policies from `AWS::SQS::QueuePolicy`, `AWS::SQS::QueueInlinePolicy`, Terraform's
`aws_sqs_queue_policy` and `policy` attribute count, and so do the ones SAM creates
for `SqsSubscription`, for a rule event's `DeadLetterConfig` of `Type: SQS` and for
connectors. A policy the linter cannot read, or one whose queues it cannot resolve,
keeps it silent. A disabled rule is not flagged.

A statement grants nothing to a queue its `Resource` does not cover: one whose every
`Resource` entry is provably something else (a reference to another resource of the
template, `!GetAtt OtherQueue.Arn`, `aws_sqs_queue.other.arn`, or the ARN of another
service) does not count. `*`, patterns, parameters and literal queue ARNs may cover it.

## Why is this bad?
Each delivery is refused, and what happens then depends on the service:

- SNS: the deploy succeeds and the subscription is confirmed, but SNS treats every
  refused delivery as a client-side error, does not retry, and drops the message (or
  moves it to the subscription's dead-letter queue, which needs the same permission:
  without it, what SNS could not deliver is lost instead of kept). Only the
  `NumberOfNotificationsFailed` metric shows it.
- EventBridge: the deploy succeeds; EventBridge does not retry a missing permission and
  sends the event to the target's dead-letter queue, if it has one, or drops it. A
  dead-letter queue EventBridge cannot write to loses the events it was there to keep
  (`InvocationsFailedToBeSentToDLQ`).
- S3: S3 validates every destination when the notification configuration is written,
  so the deploy fails (`Unable to validate the following destination configurations`).

## How to fix
Add a queue policy with a statement allowing `sqs:SendMessage` to the service principal
(`{"Service": "sns.amazonaws.com"}`, `events.amazonaws.com`, `s3.amazonaws.com`) on the
queue's ARN, with a condition naming the sender: `ArnEquals: {aws:SourceArn: <topic or
rule ARN>}`, or for S3 `ArnLike: {aws:SourceArn: <bucket ARN>}` with
`StringEquals: {aws:SourceAccount: <bucket owner>}`. In SAM, a connector from the topic or
rule to the queue with `Permissions: [Write]` creates it.

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
- https://docs.aws.amazon.com/sns/latest/dg/sns-configure-dead-letter-queue.html
- https://repost.aws/knowledge-center/sns-sqs-subscriptions-notifications
- https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-use-resource-based.html
- https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-rule-dlq.html
- https://docs.aws.amazon.com/AmazonS3/latest/userguide/grant-destinations-permissions-to-s3.html
"""

from __future__ import annotations

from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import Delivery, EventTarget, Queue, Subscription
from fanout_lint.model.permissions import EVENTS, S3, SNS
from fanout_lint.model.vocabulary import resource_type
from fanout_lint.rule import Rule, Severity, Violation

from .common import SENDERS, is_disabled, may_send, sender_name, through_policy, unresolved_policies_may_allow

# What a refused delivery costs: (to the queue itself, to it as the sender's dead-letter queue).
CONSEQUENCE = {
    SNS: ("every delivery is refused and the message dropped",
          "the messages SNS could not deliver are lost instead of kept"),
    EVENTS: ("EventBridge does not retry a missing permission: each event goes to the target's "
             "dead-letter queue, if it has one, or is dropped (the deploy succeeds)",
             "the events EventBridge could not deliver are lost instead of kept (the deploy succeeds)"),
    S3: ("S3 validates the queue when the notification configuration is written, so the deploy fails "
         "(Unable to validate the following destination configurations)", ""),
}
SOURCE = {SNS: "the topic", EVENTS: "the rule", S3: "the bucket (and aws:SourceAccount)"}


def check(graph: Graph, options) -> list[Violation]:
    found = []
    unresolved = unresolved_policies_may_allow(graph)
    for queue in graph.all(Queue):
        by_service: dict[str, list[Delivery]] = {}
        for delivery in graph.deliveries_to(queue.id):
            if through_policy(delivery) and not _disabled(graph, delivery):
                by_service.setdefault(delivery.service, []).append(delivery)
        for service, deliveries in by_service.items():
            if may_send(graph, queue, service, unresolved) is not False:
                continue
            found.append(_violation(graph, queue, service, deliveries))
    return found


def _disabled(graph: Graph, delivery: Delivery) -> bool:
    return isinstance(delivery.sender, EventTarget) and is_disabled(graph, delivery.sender)


def _violation(graph: Graph, queue: Queue, service: str, deliveries: list[Delivery]) -> Violation:
    policies = graph.policies_for(queue.id)
    related = []
    for delivery in deliveries:
        sender = delivery.sender
        related.append((sender, "dead-letter source" if delivery.dead_letter else "sender"))
        if isinstance(sender, Subscription) and not sender.inline:
            topic = graph.get(sender.topic)
            if topic is not None:
                related.append((topic, "topic"))
    related += [(p, "queue policy") for p in policies]
    who = SENDERS[service]
    if policies:
        state = f"its queue policy ({', '.join(p.resource for p in policies)}) does not let {who} send to it"
    else:
        state = f"no queue policy lets {who} send to it"
    direct = [d for d in deliveries if not d.dead_letter]
    feeders = ", ".join(dict.fromkeys(sender_name(d) for d in (direct or deliveries)))
    if direct:
        role = f"receives from {who} ({feeders})"
        consequence = CONSEQUENCE[service][0]
    else:
        role = f"is the dead-letter queue of {feeders}"
        consequence = CONSEQUENCE[service][1]
    return Violation(
        at=queue,
        message=(
            f"Queue {queue.resource} {role} but {state}: {consequence}; add an "
            f"{resource_type(queue, 'queue_policy')} allowing {service} sqs:SendMessage with aws:SourceArn "
            f"set to {SOURCE[service]}"
        ),
        related=tuple({(node.id, role): (node, role) for node, role in related}.values()),
    )


RULE = Rule(
    id="FL301",
    name="queue-policy-missing",
    severity=Severity.ERROR,
    summary="SNS, EventBridge or S3 delivers to a queue whose policy does not let it send",
    check=check,
    doc=__doc__,
)
