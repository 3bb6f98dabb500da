"""## What it does
Flags a queue policy with a statement that allows SNS (`sns.amazonaws.com`) or anyone
(`*`, `{"AWS": "*"}`) to send messages (`sqs:SendMessage`, `sqs:*`, `*`) without
restricting the source: no `aws:SourceArn`, `aws:SourceAccount`, `aws:SourceOwner`,
`aws:SourceOrgID` or `aws:SourceOrgPaths` condition. A `*` statement restricted by
another key that limits who calls (`aws:PrincipalOrgID`, `aws:PrincipalAccount`,
`aws:PrincipalArn`, `aws:SourceVpce`, `aws:SourceVpc`, `aws:SourceIp`) is not flagged.

## Why is this bad?
SNS delivers on behalf of whichever topic a subscription belongs to. Without a source
condition, any topic in any AWS account can subscribe the queue and write to it (with
`*`, any principal at all can): forged events enter your consumers, and the queue is a
confused deputy.

## How to fix
Add a condition naming the topics allowed to send:
`Condition: {ArnEquals: {aws:SourceArn: <topic ARN>}}` (a list for several topics), or at
least `StringEquals: {aws:SourceAccount: <your account>}`. The condition is the same
IAM JSON in both formats: in a CloudFormation `PolicyDocument` as above, and in a
Terraform `policy = jsonencode({...})` as
`Condition = { ArnEquals = { "aws:SourceArn" = aws_sns_topic.orders.arn } }` (see
`queue-policy-missing` for the whole statement in both forms).

## References
- https://docs.aws.amazon.com/sns/latest/dg/subscribe-sqs-queue-to-sns-topic.html
- https://docs.aws.amazon.com/IAM/latest/UserGuide/confused-deputy.html
- https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-keys.html
"""

from __future__ import annotations

from fanout_lint.findings import Severity
from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import QueuePolicy, Statement
from fanout_lint.model.permissions import allows
from fanout_lint.model.values import Known
from fanout_lint.rule import Rule, Violation

from .common import SEND, SNS

SOURCE_KEYS = frozenset({
    "aws:sourcearn", "aws:sourceaccount", "aws:sourceowner", "aws:sourceorgid", "aws:sourceorgpaths",
})
# Keys that limit who may call; "?" is a condition the loader could not read.
CALLER_KEYS = frozenset({
    "aws:principalorgid", "aws:principalorgpaths", "aws:principalaccount", "aws:principalarn",
    "aws:sourcevpce", "aws:sourcevpc", "aws:sourceip", "?",
})


def check(graph: Graph, options) -> list[Violation]:
    found = []
    for policy in graph.all(QueuePolicy):
        if not isinstance(policy.statements, Known):
            continue
        open_statements = [s for s in policy.statements.value if _unrestricted(s)]
        if not open_statements:
            continue
        who = "anyone" if any("*" in s.principals for s in open_statements) else SNS
        related = tuple((q, "queue") for q in map(graph.queue, policy.queues) if q is not None)
        found.append(Violation(
            at=policy,
            message=(
                f"Queue policy {policy.resource} lets {who} send messages with no aws:SourceArn "
                "or aws:SourceAccount condition: any topic in any account can write to the "
                "queue; add Condition ArnEquals aws:SourceArn with your topic's ARN"
            ),
            related=related,
        ))
    return found


def _unrestricted(statement: Statement) -> bool:
    if allows(statement, SNS, SEND) is not True:
        return False
    if statement.condition_keys & SOURCE_KEYS:
        return False
    if "*" in statement.principals and statement.condition_keys & CALLER_KEYS:
        return False
    return "?" not in statement.condition_keys


RULE = Rule(
    id="FL302",
    name="queue-policy-without-source-arn",
    severity=Severity.ERROR,
    summary="A queue policy lets SNS or anyone send without a source condition",
    check=check,
    doc=__doc__,
)
