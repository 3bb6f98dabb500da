"""## What it does
Flags a Lambda function of the unit that a service invokes through the function's
resource policy when no Lambda permission of the unit lets that service invoke it:

- an SNS subscription with protocol `lambda` (principal `sns.amazonaws.com`);
- an EventBridge rule target (`AWS::Events::Rule` `Targets`, `aws_cloudwatch_event_target`;
  principal `events.amazonaws.com`), unless the target sets a role (`RoleArn`,
  `role_arn`), which EventBridge may invoke with instead;
- an S3 event notification (`LambdaConfigurations`, the `lambda_function` block of
  `aws_s3_bucket_notification`; principal `s3.amazonaws.com`).

A permission counts when it is an `AWS::Lambda::Permission` / `aws_lambda_permission` for
the function, or for an alias or version of it, with the service as principal (or
`<service>.<region>.amazonaws.com`) and action `lambda:InvokeFunction`; its `SourceArn`
does not matter (SAM's S3 permissions have only `SourceAccount`). The permissions SAM
creates for its `SNS`, `S3`, `Schedule`, `EventBridgeRule` and `CloudWatchEvent` events
and for connectors count. An EventBridge Scheduler schedule (`AWS::Scheduler::Schedule`,
SAM `ScheduleV2`) invokes with its role and is never flagged. A permission the linter
cannot read, or whose function it cannot resolve, keeps it silent. A disabled rule is
not flagged.

Formerly named `sns-lambda-permission-missing`, when it covered SNS only; the old name
is still accepted in configuration and suppressions (with a notice), and baselines match
by the rule ID.

## Why is this bad?
Each invocation is refused, and what happens then depends on the service:

- SNS counts it as a client-side error, does not retry it, and drops the message (or
  moves it to the subscription's dead-letter queue). The deploy succeeds and the
  function never runs.
- EventBridge does not retry a missing permission either: the event goes straight to
  the target's dead-letter queue, if it has one, and is otherwise dropped. The deploy
  succeeds.
- S3 checks every destination when the notification configuration is written, so the
  deploy itself fails (`Unable to validate the following destination configurations`).

## How to fix
Add a Lambda permission for the service on the function, with the topic, rule or bucket
as its source. In SAM, an `SNS`, `S3`, `Schedule` or `EventBridgeRule` event on the
function creates it. For S3 in CloudFormation, make the bucket depend on the permission
(`DependsOn`) and write the bucket's ARN in the permission (a reference to the bucket
would be circular).

CloudFormation:

```yaml
WorkerPermission:
  Type: AWS::Lambda::Permission
  Properties:
    Action: lambda:InvokeFunction
    FunctionName: !Ref WorkerFunction
    Principal: events.amazonaws.com
    SourceArn: !GetAtt NightlyRule.Arn
```

Terraform:

```hcl
resource "aws_lambda_permission" "worker" {
  action        = "lambda:InvokeFunction"
  function_name = aws_lambda_function.worker.function_name
  principal     = "events.amazonaws.com"
  source_arn    = aws_cloudwatch_event_rule.nightly.arn
}
```

## References
- https://docs.aws.amazon.com/lambda/latest/dg/with-sns.html
- https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-use-resource-based.html
- https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-rule-dlq.html
- https://docs.aws.amazon.com/AmazonS3/latest/userguide/grant-destinations-permissions-to-s3.html
- https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/aws-resource-lambda-permission.html
- https://docs.aws.amazon.com/sns/latest/dg/sns-message-delivery-retries.html
"""

from __future__ import annotations

from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import Delivery, EventTarget, Function, Notification, Subscription
from fanout_lint.model.permissions import EVENTS, S3, SNS
from fanout_lint.model.vocabulary import resource_type, term_of
from fanout_lint.rule import Rule, Severity, Violation

from .common import is_disabled, may_invoke, sender_name, through_policy, unresolved_permissions_may_allow

# What a refused invocation costs, by service.
CONSEQUENCE = {
    SNS: "every delivery is refused and the message dropped",
    EVENTS: ("EventBridge does not retry a missing permission: each event goes to the target's "
             "dead-letter queue, if it has one, or is dropped (the deploy succeeds)"),
    S3: ("S3 validates each destination when the notification configuration is written, so the deploy "
         "fails (Unable to validate the following destination configurations)"),
}
SOURCE = {SNS: "the topic", EVENTS: "the rule's ARN", S3: "the bucket's ARN"}


def check(graph: Graph, options) -> list[Violation]:
    found = []
    unresolved = unresolved_permissions_may_allow(graph)
    for function in graph.all(Function):
        for delivery in graph.deliveries_to(function.id):
            if not through_policy(delivery) or _disabled(graph, delivery):
                continue
            if may_invoke(graph, function, delivery.service, unresolved) is not False:
                continue
            found.append(_violation(graph, function, delivery))
    return found


def _disabled(graph: Graph, delivery: Delivery) -> bool:
    return isinstance(delivery.sender, EventTarget) and is_disabled(graph, delivery.sender)


def _violation(graph: Graph, function: Function, delivery: Delivery) -> Violation:
    sender = delivery.sender
    related = [(function, "function")]
    source = _source(graph, sender)
    if source is not None:
        related.append((source, "source"))
    related += [(p, "Lambda permission") for p in graph.permissions_for(function.id)]
    verb = "notifies" if isinstance(sender, Notification) else "invokes"
    service = delivery.service
    return Violation(
        at=sender,
        message=(
            f"{sender_name(delivery)} {verb} {function.resource} but no Lambda permission lets {service} "
            f"invoke it: {CONSEQUENCE[service]}; add an {resource_type(sender, 'permission')} for {service} with "
            f"{term_of(sender, 'permission', 'source_arn')} set to {SOURCE[service]}"
        ),
        related=tuple(related),
    )


def _source(graph: Graph, sender):
    """The topic, rule or bucket behind the sender, when drawn apart from it."""
    if isinstance(sender, Subscription):
        return graph.get(sender.topic) if not sender.inline else None
    if isinstance(sender, EventTarget):
        return graph.get(sender.rule) if sender.rule != sender.resource else None
    if isinstance(sender, Notification):
        return graph.get(sender.bucket) if sender.bucket != sender.resource else None
    return None


RULE = Rule(
    id="FL304",
    name="lambda-permission-missing",
    severity=Severity.ERROR,
    summary="SNS, EventBridge or S3 invokes a function no permission lets it invoke",
    check=check,
    doc=__doc__,
    former=("sns-lambda-permission-missing",),
)
