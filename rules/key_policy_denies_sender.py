"""## What it does
Flags a queue or topic encrypted with a customer managed KMS key of the run when a
service delivers to it and the key's policy lets that service use the key for neither
`kms:GenerateDataKey*` nor `kms:Decrypt` (either missing is enough). The deliveries are:

- SNS (`sns.amazonaws.com`): an `sqs` subscription's endpoint, or a subscription's
  dead-letter queue;
- EventBridge (`events.amazonaws.com`): a rule target that is a queue or a topic, or a
  target's dead-letter queue, when the target has no role (`RoleArn`, `role_arn`);
- S3 (`s3.amazonaws.com`): an event notification to a queue or a topic.

The key policy is the key's own (`AWS::KMS::Key` `KeyPolicy`, `aws_kms_key` `policy`) or
a separate `aws_kms_key_policy`, which replaces it. A key without a written policy has
AWS's default key policy, which names the account and no service: it is flagged too.

A statement counts as letting the service use the key when it is an `Allow` whose
principal is the service (also its Regional form, `sns.<region>.amazonaws.com`) or `"*"`,
and whose actions cover the action: the action itself, `kms:GenerateDataKey*`, `kms:*`,
`*`. Its conditions are not read: a condition that narrows the statement to the source
(`aws:SourceArn`, `aws:SourceAccount`) is what AWS recommends, and one that narrows it
further cannot be proved wrong from the template. `"*"` is trusted for the same reason:
such a statement usually carries a condition (`kms:CallerAccount`, `kms:ViaService`) that
the template cannot show admits or refuses the service. An alias of the run (`AWS::KMS::Alias`,
`aws_kms_alias`) stands for its target key. The rule is silent when the key is outside
the run (a parameter, an import, a literal key or alias ARN), when the policy is
not known (a statement whose principal or actions are not literal, `NotAction`,
`NotPrincipal`), when an `aws_kms_key_policy` names a key the run cannot resolve, for a
target with a role (EventBridge then uses the role, which needs the key through IAM), and
for EventBridge Scheduler dead-letter queues, which the schedule's role writes to.

## Why is this bad?
A service writes to an encrypted queue or topic with the key: it needs
`kms:GenerateDataKey` for the data key and `kms:Decrypt` for it, granted to its service
principal by the key policy ("the customer master key (CMK) associated with the Amazon SQS
queue must have a policy statement that grants Amazon SNS service-principal access to the
AWS KMS API actions `GenerateDataKey` and `Decrypt`"). IAM policies of the account cannot
grant a service principal anything, so without the statement:

- SNS: every delivery fails with `KMS.AccessDeniedException`, while the deploy succeeds
  and the subscription is confirmed; a subscription's dead-letter queue with such a key
  loses the messages it was meant to keep;
- EventBridge: every delivery fails, and the events go to the target's dead-letter queue
  or are dropped ("If your Amazon SQS queue is encrypted, you must create a
  customer-managed KMS key and include the following permission section in your KMS key
  policy");
- S3: "If the SQS queue or SNS topics are encrypted with an AWS Key Management Service
  (AWS KMS) customer managed key, you must grant the Amazon S3 service principal
  permission to work with the encrypted topics or queue".

## How to fix
Add a statement to the key policy that allows the service principal
`kms:GenerateDataKey*` and `kms:Decrypt`, with an `aws:SourceArn` condition naming the
topic, rule or bucket.

CloudFormation:

```yaml
OrdersKey:
  Type: AWS::KMS::Key
  Properties:
    KeyPolicy:
      Statement:
        - Effect: Allow
          Principal: {AWS: !Sub "arn:aws:iam::${AWS::AccountId}:root"}
          Action: kms:*
          Resource: "*"
        - Effect: Allow
          Principal: {Service: sns.amazonaws.com}
          Action: [kms:GenerateDataKey*, kms:Decrypt]
          Resource: "*"
          Condition: {ArnEquals: {aws:SourceArn: !Ref OrdersTopic}}
```

Terraform:

```hcl
resource "aws_kms_key" "orders" {
  policy = jsonencode({
    Statement = [
      # ... the account's statement ...
      {
        Effect    = "Allow"
        Principal = { Service = "sns.amazonaws.com" }
        Action    = ["kms:GenerateDataKey*", "kms:Decrypt"]
        Resource  = "*"
        Condition = { ArnEquals = { "aws:SourceArn" = aws_sns_topic.orders.arn } }
      },
    ]
  })
}
```

## References
- https://docs.aws.amazon.com/sns/latest/dg/sns-enable-encryption-for-topic-sqs-queue-subscriptions.html
- https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-key-management.html
- https://docs.aws.amazon.com/sns/latest/dg/sns-dead-letter-queues.html
- https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-troubleshooting.html
- https://docs.aws.amazon.com/AmazonS3/latest/userguide/grant-destinations-permissions-to-s3.html
- https://docs.aws.amazon.com/scheduler/latest/UserGuide/configuring-schedule-dlq.html
"""

from __future__ import annotations

from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import EventTarget, Key, Node, Queue, Topic
from fanout_lint.model.permissions import EVENTS, S3, SNS, allows
from fanout_lint.model.values import Known
from fanout_lint.model.vocabulary import is_terraform, term
from fanout_lint.rule import Rule, Severity, Violation

from .common import SENDERS, is_disabled, sender_name, through_policy

# What a service must be allowed, each on its own: GenerateDataKey to encrypt, Decrypt for the data key.
KEY_ACTIONS = ("kms:GenerateDataKey", "kms:Decrypt")
CONSEQUENCE = {
    SNS: "every delivery fails with KMS.AccessDeniedException, while the deploy succeeds",
    EVENTS: ("every delivery fails and the events go to the target's dead-letter queue or are dropped, "
             "while the deploy succeeds"),
    S3: "S3 cannot deliver its event notifications",
}


def key_statements(graph: Graph, key: Key):
    """The statements in force on the key: a separate key policy's (which replaces the key's
    own), else the key's; () for AWS's default policy; None when not known."""
    separate = graph.key_policies_for(key.id)
    if separate:
        if len(separate) > 1:
            return None  # two policy resources: the one applied last wins, which we cannot know
        policy = separate[0].statements
        return policy.value if isinstance(policy, Known) and isinstance(policy.value, tuple) else None
    if not isinstance(key.policy, Known):
        return None
    if key.policy.value is None:
        # the default key policy, unless a policy resource we cannot place is this key's
        return None if graph.has_loose_key_policy else ()
    return key.policy.value if isinstance(key.policy.value, tuple) else None


def denied_actions(statements, service: str) -> tuple[str, ...] | None:
    """The key actions no statement allows the service; None when any answer is not proved."""
    missing = []
    for action in KEY_ACTIONS:
        answers = {allows(s, service, (action,)) for s in statements}
        if True in answers:
            continue
        if None in answers:
            return None
        missing.append(action)
    return tuple(missing)


def check(graph: Graph, options) -> list[Violation]:
    found = []
    for node in [*graph.all(Queue), *graph.all(Topic)]:
        key = graph.key_of(node)
        if key is None:
            continue
        deliveries = [d for d in graph.deliveries_to(node.id) if through_policy(d) and _counted(graph, d)]
        if not deliveries:
            continue
        statements = key_statements(graph, key)
        if statements is None:
            continue
        by_service: dict[str, list] = {}
        for delivery in deliveries:
            by_service.setdefault(delivery.service, []).append(delivery)
        for service, senders in by_service.items():
            missing = denied_actions(statements, service)
            if not missing:
                continue
            found.append(_violation(graph, node, key, service, senders, missing, bool(statements)))
    return found


def _counted(graph: Graph, delivery) -> bool:
    """A disabled rule delivers nothing."""
    return not (isinstance(delivery.sender, EventTarget) and is_disabled(graph, delivery.sender))


def _violation(graph: Graph, node: Node, key: Key, service: str, senders: list, missing: tuple[str, ...],
               written: bool) -> Violation:
    kind = "Queue" if isinstance(node, Queue) else "Topic"
    names = ", ".join(dict.fromkeys(sender_name(d) for d in senders))
    role = "is a dead-letter queue of" if all(d.dead_letter for d in senders) else "receives from"
    separate = graph.key_policies_for(key.id)
    if separate:
        policy = f"whose key policy {separate[0].resource}"
    elif written:
        policy = f"whose {term(key, 'policy')}"
    else:
        policy = ("which has no policy argument, so AWS's default key policy" if is_terraform(key)
                  else "which has no KeyPolicy, so AWS's default key policy")
    actions = " or ".join(missing)
    return Violation(
        at=node,
        field="kms_key",
        message=(
            f"{kind} {node.resource} {role} {SENDERS[service]} ({names}) and is encrypted with key "
            f"{key.resource} ({term(node, 'kms_master_key_id')}), {policy} does not allow {service} "
            f"{actions}: {CONSEQUENCE[service]}; add a key policy statement allowing {service} "
            f"kms:GenerateDataKey* and kms:Decrypt, with an aws:SourceArn condition"
        ),
        related=((key, "key"), *((d.sender, "dead-letter source" if d.dead_letter else "sender") for d in senders),
                 *((p, "key policy") for p in separate)),
    )


RULE = Rule(
    id="FL305",
    name="key-policy-denies-sender",
    severity=Severity.ERROR,
    summary="A service delivers to a queue or topic whose key policy does not let it in",
    check=check,
    doc=__doc__,
)
