"""## What it does
Flags a queue policy with a statement that allows a service that sends on behalf of
other resources (SNS `sns.amazonaws.com`, EventBridge `events.amazonaws.com`, S3
`s3.amazonaws.com`) or anyone (`*`, `{"AWS": "*"}`) to send messages
(`sqs:SendMessage`, `sqs:*`, `*`) without restricting the source: no `aws:SourceArn`,
`aws:SourceAccount`, `aws:SourceOwner`, `aws:SourceOrgID` or `aws:SourceOrgPaths`
condition (either `aws:SourceArn` or `aws:SourceAccount` is enough, for every service).
A `*` statement restricted by another key that limits who calls (`aws:PrincipalOrgID`,
`aws:PrincipalAccount`, `aws:PrincipalArn`, `aws:SourceVpce`, `aws:SourceVpc`,
`aws:SourceIp`) is not flagged.

A source condition whose every value is a wildcard is no condition: `*`, or an ARN pattern
whose region, account and resource are all `*` or empty (`arn:aws:s3:::*`,
`arn:aws:sns:*:*:*`), under `ArnLike`, `ArnEquals` or `StringLike` (IAM matches `*` in
ARNs under both ARN operators, and under `StringLike`; under `StringEquals` a `*` is the
character itself, which restricts the statement to nothing real, so it is not flagged).

## Why is this bad?
SNS delivers on behalf of whichever topic a subscription belongs to, EventBridge on
behalf of whichever rule targets the queue, S3 on behalf of whichever bucket notifies
it. Without a source condition, any topic, rule or bucket in any AWS account can write to
the queue (with `*`, any principal at all can): forged events enter your consumers, and
the queue is a confused deputy.

## How to fix
Add a condition naming the topics, rules or buckets allowed to send:
`Condition: {ArnEquals: {aws:SourceArn: <topic or rule ARN>}}` (a list for several),
`ArnLike: {aws:SourceArn: <bucket ARN>}` for S3, or at least
`StringEquals: {aws:SourceAccount: <your account>}`. The condition is the same
IAM JSON in both formats: in a CloudFormation `PolicyDocument` as above, and in a
Terraform `policy = jsonencode({...})` as
`Condition = { ArnEquals = { "aws:SourceArn" = aws_sns_topic.orders.arn } }` (see
`queue-policy-missing` for the whole statement in both forms).

## References
- https://docs.aws.amazon.com/sns/latest/dg/subscribe-sqs-queue-to-sns-topic.html
- https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-use-resource-based.html
- https://docs.aws.amazon.com/AmazonS3/latest/userguide/grant-destinations-permissions-to-s3.html
- https://docs.aws.amazon.com/IAM/latest/UserGuide/confused-deputy.html
- https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-keys.html
"""

from __future__ import annotations

from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import QueuePolicy, Statement
from fanout_lint.model.permissions import allows
from fanout_lint.model.values import Known
from fanout_lint.rule import Rule, Severity, Violation

from .common import SEND, SENDERS

# What each service sends on behalf of, for messages.
ON_BEHALF = {"sns.amazonaws.com": "topic", "events.amazonaws.com": "rule", "s3.amazonaws.com": "bucket"}

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
        services = [
            service for service in SENDERS
            if any(_unrestricted(s, service) for s in policy.statements.value)
        ]
        if not services:
            continue
        anyone = any("*" in s.principals for s in policy.statements.value if any(_unrestricted(s, x) for x in services))
        who = "anyone" if anyone else " and ".join(services)
        sources = list(ON_BEHALF.values()) if anyone else [ON_BEHALF[s] for s in services]
        kinds = sources[0] if len(sources) == 1 else f"{', '.join(sources[:-1])} or {sources[-1]}"
        related = tuple((q, "queue") for q in map(graph.queue, policy.queues) if q is not None)
        found.append(Violation(
            at=policy,
            message=(
                f"Queue policy {policy.resource} lets {who} send messages with no aws:SourceArn "
                f"or aws:SourceAccount condition: any {kinds} in any account can write to the "
                f"queue; add Condition ArnEquals aws:SourceArn with your {kinds}'s ARN"
            ),
            related=related,
        ))
    return found


def _unrestricted(statement: Statement, service: str) -> bool:
    if allows(statement, service, SEND) is not True:
        return False
    # a source key whose every value is a wildcard (arn:aws:s3:::*, *) restricts nothing
    if (statement.condition_keys - statement.wildcard_keys) & SOURCE_KEYS:
        return False
    if "*" in statement.principals and statement.condition_keys & CALLER_KEYS:
        return False
    return "?" not in statement.condition_keys


RULE = Rule(
    id="FL302",
    name="queue-policy-without-source-arn",
    severity=Severity.ERROR,
    summary="A queue policy lets a service or anyone send without a source condition",
    check=check,
    doc=__doc__,
)
