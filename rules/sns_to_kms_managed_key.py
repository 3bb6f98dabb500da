"""## What it does
Flags a queue that SNS delivers to (an `sqs` subscription's endpoint, or a
subscription's dead-letter queue) when it is encrypted with the AWS managed key for SQS,
`alias/aws/sqs`, written as the alias or as its alias ARN
(`arn:aws:kms:<region>:<account>:alias/aws/sqs`). SSE-SQS (`SqsManagedSseEnabled`, the
default encryption) and customer managed keys are fine.

## Why is this bad?
To write to a KMS-encrypted queue, SNS must be allowed to use the key
(`kms:GenerateDataKey`, `kms:Decrypt`) by the key policy. The key policy of an AWS
managed key cannot be changed, so SNS can never use `alias/aws/sqs`: every delivery
fails with `KMS.AccessDeniedException`, while the deploy succeeds.

## How to fix
Use a customer managed KMS key whose key policy allows the `sns.amazonaws.com`
principal `kms:GenerateDataKey` and `kms:Decrypt` (with an `aws:SourceArn` condition),
or drop the key and use SSE-SQS.

CloudFormation:

```yaml
AuditQueue:
  Type: AWS::SQS::Queue
  Properties:
    KmsMasterKeyId: !Ref AuditKey   # an AWS::KMS::Key whose policy allows sns.amazonaws.com
```

Terraform:

```hcl
resource "aws_sqs_queue" "audit" {
  kms_master_key_id = aws_kms_key.audit.arn # a key whose policy allows sns.amazonaws.com
}
```

## References
- https://docs.aws.amazon.com/sns/latest/dg/sns-enable-encryption-for-topic-sqs-queue-subscriptions.html
- https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-key-management.html
- https://docs.aws.amazon.com/sns/latest/dg/sns-dead-letter-queues.html
"""

from __future__ import annotations

from fanout_lint.findings import Severity
from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import Queue
from fanout_lint.model.values import describe, verdict
from fanout_lint.model.vocabulary import term
from fanout_lint.rule import Rule, Violation

from .common import protocol_is

MANAGED_ALIAS = "alias/aws/sqs"


def is_managed_key(key) -> bool:
    return isinstance(key, str) and (
        key == MANAGED_ALIAS or (key.startswith("arn:") and key.endswith(":" + MANAGED_ALIAS))
    )


def check(graph: Graph, options) -> list[Violation]:
    found = []
    for queue in graph.all(Queue):
        deliveries = [(s, "subscription") for s in graph.subscriptions_to(queue.id) if protocol_is(s, "sqs")]
        deliveries += [(s, "subscription using it as DLQ") for s in graph.subscriptions_with_dlq(queue.id)]
        if not deliveries:
            continue
        if verdict(is_managed_key, queue.kms_master_key_id) is not True:
            continue
        role = "receives from SNS" if deliveries[0][1] == "subscription" else "is an SNS dead-letter queue"
        found.append(Violation(
            at=queue,
            field="kms_master_key_id",
            message=(
                f"Queue {queue.resource} {role} but is encrypted with the AWS managed key "
                f"({term(queue, 'kms_master_key_id')} {describe(queue.kms_master_key_id)}), whose key policy cannot "
                "let SNS use it: every delivery fails; use a customer managed key that allows "
                "sns.amazonaws.com, or SSE-SQS"
            ),
            related=tuple(deliveries),
        ))
    return found


RULE = Rule(
    id="FL303",
    name="sns-to-kms-managed-key",
    severity=Severity.ERROR,
    summary="SNS delivers to a queue encrypted with the AWS managed key alias/aws/sqs",
    check=check,
    doc=__doc__,
)
