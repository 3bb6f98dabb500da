"""## What it does
Flags a queue that a service delivers to through the queue's policy when it is encrypted
with the AWS managed key for SQS, `alias/aws/sqs`, written as the alias or as its alias
ARN (`arn:aws:kms:<region>:<account>:alias/aws/sqs`). The deliveries are:

- SNS: an `sqs` subscription's endpoint, or a subscription's dead-letter queue;
- EventBridge: a rule target (`AWS::Events::Rule` `Targets`, `aws_cloudwatch_event_target`)
  without a role (`RoleArn`, `role_arn`);
- S3: an event notification (`QueueConfigurations`, the `queue` block of
  `aws_s3_bucket_notification`).

SSE-SQS (`SqsManagedSseEnabled`, the default encryption) and customer managed keys are
fine. Deliveries made with a role (a Lambda function's DLQ or destinations, an EventBridge
Scheduler DLQ, a target with a role) are not flagged.

It also flags an EventBridge target's dead-letter queue encrypted with `alias/aws/sqs`
(EventBridge writes to it with its service principal, as to a target queue), and an SNS
topic that EventBridge or S3 publishes to when it is encrypted with the AWS managed key for
SNS, `alias/aws/sns` (or its alias ARN). A topic's own subscribers and publishers that use
IAM (a function's role) are not affected, and are not flagged.

Formerly named `sns-to-kms-managed-key`, when it covered SNS only; the old name is still
accepted in configuration and suppressions (with a notice), and baselines match by the
rule ID.

## Why is this bad?
To write to a KMS-encrypted queue, the service must be allowed to use the key
(`kms:GenerateDataKey`, `kms:Decrypt`) by the key policy. The key policy of an AWS
managed key cannot be changed, so no service principal can ever use `alias/aws/sqs`:

- SNS: every delivery fails with `KMS.AccessDeniedException`, while the deploy succeeds;
- EventBridge: every delivery fails, and the events go to the target's dead-letter queue
  or are dropped, while the deploy succeeds;
- S3: S3 cannot validate the queue when the notification configuration is written, so
  the deploy fails.

The same holds for topics: "Several AWS services publish events to Amazon SNS topics. To
allow these event sources to work with encrypted topics", their service principal must be
allowed `kms:GenerateDataKey*` and `kms:Decrypt` in the key policy, which the AWS managed
key for SNS does not allow and cannot be changed to. For an EventBridge target's
dead-letter queue no AWS page says so outright; it follows from the same two statements,
as EventBridge writes to the DLQ with `events.amazonaws.com` (the DLQ's queue policy must
allow that principal).

## How to fix
Use a customer managed KMS key whose key policy allows the service principal
(`sns.amazonaws.com`, `events.amazonaws.com`, `s3.amazonaws.com`) `kms:GenerateDataKey`
and `kms:Decrypt` (with an `aws:SourceArn` condition), or drop the key and use SSE-SQS.

CloudFormation:

```yaml
AuditQueue:
  Type: AWS::SQS::Queue
  Properties:
    KmsMasterKeyId: !Ref AuditKey   # an AWS::KMS::Key whose policy allows the sender's principal
```

Terraform:

```hcl
resource "aws_sqs_queue" "audit" {
  kms_master_key_id = aws_kms_key.audit.arn # a key whose policy allows the sender's principal
}
```

## References
- https://docs.aws.amazon.com/sns/latest/dg/sns-enable-encryption-for-topic-sqs-queue-subscriptions.html
- https://docs.aws.amazon.com/sns/latest/dg/sns-key-management.html
- https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-key-management.html
- https://docs.aws.amazon.com/sns/latest/dg/sns-dead-letter-queues.html
- https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-troubleshooting.html
- https://docs.aws.amazon.com/AmazonS3/latest/userguide/grant-destinations-permissions-to-s3.html
"""

from __future__ import annotations

from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import EventTarget, Queue, Topic
from fanout_lint.model.permissions import EVENTS, S3, SNS
from fanout_lint.model.values import describe, verdict
from fanout_lint.model.vocabulary import term
from fanout_lint.rule import Rule, Severity, Violation

from .common import SENDERS, is_disabled, sender_name, through_policy

MANAGED_ALIAS = "alias/aws/sqs"
CONSEQUENCE = {
    SNS: "every delivery fails, while the deploy succeeds",
    EVENTS: ("every delivery fails and the events go to the target's dead-letter queue or are dropped, "
             "while the deploy succeeds"),
    S3: "S3 cannot validate the queue when the notification configuration is written, so the deploy fails",
}


def is_managed_key(key) -> bool:
    return isinstance(key, str) and (
        key == MANAGED_ALIAS or (key.startswith("arn:") and key.endswith(":" + MANAGED_ALIAS))
    )


# -- topics that EventBridge or S3 publishes to (failure paths) --
MANAGED_TOPIC_ALIAS = "alias/aws/sns"
TOPIC_CONSEQUENCE = {
    EVENTS: ("every delivery fails and the events go to the target's dead-letter queue or are dropped, "
             "while the deploy succeeds"),
    S3: "S3 cannot publish its event notifications to it",
}


def is_managed_topic_key(key) -> bool:
    return isinstance(key, str) and (
        key == MANAGED_TOPIC_ALIAS or (key.startswith("arn:") and key.endswith(":" + MANAGED_TOPIC_ALIAS))
    )


def _topics(graph: Graph) -> list[Violation]:
    found = []
    for topic in graph.all(Topic):
        deliveries = [d for d in graph.deliveries_to(topic.id)
                      if d.service in TOPIC_CONSEQUENCE and through_policy(d) and _counted(graph, d)]
        if not deliveries or verdict(is_managed_topic_key, topic.kms_master_key_id) is not True:
            continue
        by_service: dict[str, list] = {}
        for delivery in deliveries:
            by_service.setdefault(delivery.service, []).append(delivery)
        for service, senders in by_service.items():
            names = ", ".join(dict.fromkeys(sender_name(d) for d in senders))
            found.append(Violation(
                at=topic,
                field="kms_master_key_id",
                message=(
                    f"Topic {topic.resource} receives from {SENDERS[service]} ({names}) but is encrypted with the AWS "
                    f"managed key ({term(topic, 'kms_master_key_id')} {describe(topic.kms_master_key_id)}), whose "
                    f"key policy cannot let {service} use it: {TOPIC_CONSEQUENCE[service]}; use a customer managed "
                    f"key that allows {service}"
                ),
                related=tuple((d.sender, "sender") for d in senders),
            ))
    return found


def check(graph: Graph, options) -> list[Violation]:
    found = _topics(graph)
    for queue in graph.all(Queue):
        deliveries = [
            d for d in graph.deliveries_to(queue.id)
            if through_policy(d) and _counted(graph, d)
        ]
        if not deliveries or verdict(is_managed_key, queue.kms_master_key_id) is not True:
            continue
        by_service: dict[str, list] = {}
        for delivery in deliveries:
            by_service.setdefault(delivery.service, []).append(delivery)
        for service, senders in by_service.items():
            names = ", ".join(dict.fromkeys(sender_name(d) for d in senders))
            role = "is a dead-letter queue of" if all(d.dead_letter for d in senders) else "receives from"
            found.append(Violation(
                at=queue,
                field="kms_master_key_id",
                message=(
                    f"Queue {queue.resource} {role} {SENDERS[service]} ({names}) but is encrypted with the AWS "
                    f"managed key ({term(queue, 'kms_master_key_id')} {describe(queue.kms_master_key_id)}), whose "
                    f"key policy cannot let {service} use it: {_consequence(service, senders)}; use a customer "
                    f"managed key that allows {service}, or SSE-SQS"
                ),
                related=tuple((d.sender, "dead-letter source" if d.dead_letter else "sender") for d in senders),
            ))
    return found


def _consequence(service: str, senders: list) -> str:
    if service == EVENTS and all(d.dead_letter for d in senders):
        return "the events EventBridge could not deliver are lost instead of kept, while the deploy succeeds"
    return CONSEQUENCE[service]


def _counted(graph: Graph, delivery) -> bool:
    """A disabled rule delivers nothing; an EventBridge target's own DLQ is written by
    EventBridge's principal as its target is."""
    if isinstance(delivery.sender, EventTarget):
        return not is_disabled(graph, delivery.sender)
    return True


RULE = Rule(
    id="FL303",
    name="delivery-to-kms-managed-key",
    severity=Severity.ERROR,
    summary="SNS, EventBridge or S3 delivers to a queue or topic with an AWS managed key",
    check=check,
    doc=__doc__,
    former=("sns-to-kms-managed-key",),
)
