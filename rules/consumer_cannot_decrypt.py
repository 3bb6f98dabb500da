"""## What it does
Flags a Lambda function that reads an SQS queue (an event source mapping) encrypted with a
customer managed KMS key of the run when the function's execution role grants no
`kms:Decrypt`. It fires only when everything that could grant it is in the run:

- the role is a role of the run (`AWS::IAM::Role`, `aws_iam_role`) and every policy of it
  is known: its inline policies (`Policies`, `inline_policy`), the policies that name it
  (`AWS::IAM::Policy`, `AWS::IAM::ManagedPolicy` `Roles`, `AWS::IAM::RolePolicy`,
  `aws_iam_role_policy`), and its managed policies (`ManagedPolicyArns`,
  `managed_policy_arns`, `aws_iam_role_policy_attachment`, `aws_iam_policy_attachment`),
  each a policy of the run or `AWSLambdaBasicExecutionRole`, whose published content is
  three CloudWatch Logs actions. Any other managed policy, a policy document the template
  does not prove (an `aws_iam_policy_document` data source, an intrinsic), or a policy
  resource that names a role the run cannot resolve makes the rule silent;
- the key's policy is known and leaves the grant to IAM: every statement that may allow
  `kms:Decrypt` names only the account (`arn:aws:iam::<account>:root`, an account ID) or
  services. A key policy statement for a role, `"*"` or a principal it cannot read may let
  the function in, and the rule is silent.

A statement counts as granting `kms:Decrypt` whatever its `Resource` and conditions
(`kms:Decrypt`, `kms:*`, `kms:De*`, `*`); `Deny` statements are ignored. A SAM function
without a `Role` gets a role SAM writes from its `Policies`, which this rule does not read:
it is silent there. A grant on the key (`aws_kms_grant`) lets its grantee decrypt whatever
the policies say: the rule is silent when the key has one, or when a grant names a key the
run cannot resolve.

## Why is this bad?
Lambda receives the queue's messages with the function's execution role, and SQS decrypts
them with the queue's key for that role: "If you associate an encrypted queue with a Lambda
function but Lambda doesn't poll for messages, add the `kms:Decrypt` permission to your
Lambda execution role." Without it every receive fails: the function is never invoked, and
the messages wait in the queue until its retention period ends. The deploy succeeds.

## How to fix
Grant the role `kms:Decrypt` on the queue's key.

CloudFormation:

```yaml
WorkerRole:
  Type: AWS::IAM::Role
  Properties:
    Policies:
      - PolicyName: read-queue
        PolicyDocument:
          Statement:
            - Effect: Allow
              Action: kms:Decrypt
              Resource: !GetAtt QueueKey.Arn
```

Terraform:

```hcl
resource "aws_iam_role_policy" "worker_decrypt" {
  role = aws_iam_role.worker.id
  policy = jsonencode({
    Statement = [{ Effect = "Allow", Action = "kms:Decrypt", Resource = aws_kms_key.queue.arn }]
  })
}
```

## References
- https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-configure-lambda-function-trigger.html
- https://docs.aws.amazon.com/lambda/latest/dg/with-sqs.html
- https://docs.aws.amazon.com/kms/latest/developerguide/key-policy-default.html
- https://docs.aws.amazon.com/aws-managed-policy/latest/reference/AWSLambdaBasicExecutionRole.html
"""

from __future__ import annotations

from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import EventSourceMapping
from fanout_lint.model.vocabulary import term
from fanout_lint.rule import Rule, Severity, Violation

from .common import is_sqs_source
from .iam import key_leaves_it_to_iam, may_allow, role_statements
from .key_policy_denies_sender import key_statements

DECRYPT = "kms:Decrypt"


def check(graph: Graph, options) -> list[Violation]:
    found = []
    reported: set[tuple[str, str]] = set()
    for mapping in graph.all(EventSourceMapping):
        queue = graph.queue(mapping.source)
        function = graph.function(mapping.function)
        if queue is None or function is None or not is_sqs_source(graph, mapping):
            continue
        key = graph.key_of(queue)
        role = graph.role_of(function)
        if key is None or role is None or (function.id, queue.id) in reported or graph.may_have_grants(key):
            continue
        key_policy = key_statements(graph, key)
        if key_policy is None or not key_leaves_it_to_iam(key_policy, DECRYPT):
            continue
        statements = role_statements(graph, role)
        if statements is None or may_allow(statements, DECRYPT) is not False:
            continue
        reported.add((function.id, queue.id))
        found.append(Violation(
            at=function,
            field="role",
            message=(
                f"Function {function.resource} reads queue {queue.resource} (mapping {mapping.resource}), which is "
                f"encrypted with key {key.resource}, but its role {role.resource} ({term(function, 'role')}) grants "
                f"no kms:Decrypt, and the key policy leaves that to IAM: every receive fails, so the function is "
                f"never invoked and the messages wait until the queue's retention ends; allow the role kms:Decrypt "
                f"on {key.resource}"
            ),
            related=((role, "role"), (queue, "queue"), (key, "key"), (mapping, "mapping")),
        ))
    return found


RULE = Rule(
    id="FL306",
    name="consumer-cannot-decrypt",
    severity=Severity.WARNING,
    summary="A function reads a queue with a customer managed key its role may not decrypt",
    check=check,
    doc=__doc__,
)
