"""## What it does
Flags a function that writes back to what triggers it, so that each invocation may cause
the next:

- an S3 event notification of object-created events to a function whose role may
  `s3:PutObject` in the same bucket, when the notification has no key filter (`Filter`
  `S3Key` rules, `filter_prefix`, `filter_suffix`);
- a function reading an SQS queue (an event source mapping) whose role may
  `sqs:SendMessage` to that queue;
- a function subscribed to an SNS topic whose role may `sns:Publish` to that topic.

The role's statements must all be in the run (as for `consumer-cannot-decrypt`: inline and
attached policies of the run, `AWSLambdaBasicExecutionRole`), and one of them must allow
the action with a `Resource` that is the bucket, queue or topic itself (`!GetAtt
Bucket.Arn`, `"${aws_s3_bucket.uploads.arn}/*"`) or `*`; a `Deny` for the action, an
unknown action list, an unknown resource or any other managed policy keeps the rule
silent. The message says when the function sets `RecursiveLoop: Allow` (in CloudFormation
and SAM; Terraform's `aws_lambda_function_recursion_config` is not read).

## Why is this bad?
"When you configure a Lambda function to output to the same service or resource that
invokes the function, it's possible to create an infinite recursive loop." For S3 the
Lambda guide is explicit: "If your Lambda function uses the same bucket that triggers it,
it could cause the function to run in a loop", and it advises two buckets or a trigger
that applies only to a prefix. A loop costs an invocation per event, for ever, and
multiplies when a function writes more than once. Lambda's recursive loop detection stops
some such loops after about 16 invocations, and drops the event that it stops, so a
legitimate retry through the same queue is cut off too; `RecursiveLoop: Allow` turns the
detection off.

The rule cannot tell whether the code writes on every invocation: a role that may write is
a warning, not an error. Suppress it with a reason where the code provably does not
(it writes under a prefix the notification's filter would exclude, say).

## How to fix
Give the notification a key filter that excludes what the function writes (or write to
another bucket), and send the function's output to another queue or topic.

CloudFormation:

```yaml
LambdaConfigurations:
  - Event: s3:ObjectCreated:*
    Function: !GetAtt Resize.Arn
    Filter: {S3Key: {Rules: [{Name: prefix, Value: uploads/}]}}
```

Terraform:

```hcl
lambda_function {
  lambda_function_arn = aws_lambda_function.resize.arn
  events              = ["s3:ObjectCreated:*"]
  filter_prefix       = "uploads/"
}
```

## References
- https://docs.aws.amazon.com/lambda/latest/dg/invocation-recursion.html
- https://docs.aws.amazon.com/lambda/latest/dg/with-s3.html
- https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-lambda-function.html
"""

from __future__ import annotations

from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import EventSourceMapping, Function, Notification, Subscription
from fanout_lint.model.values import verdict
from fanout_lint.model.vocabulary import is_terraform
from fanout_lint.rule import Rule, Severity, Violation

from .common import is_sqs_source, protocol_is, reported
from .iam import may_act_on, role_statements


def check(graph: Graph, options) -> list[Violation]:
    found = []
    for notification in graph.all(Notification):
        function = graph.function(notification.destination)
        bucket = graph.get(notification.bucket)
        if function is None or bucket is None or not _creates(notification) or not _unfiltered(notification):
            continue
        if _writes(graph, function, "s3:PutObject", bucket.id):
            found.append(_violation(function, notification, None,
                                    f"S3 bucket {bucket.resource} notifies function {function.resource} of new "
                                    f"objects with no key filter, and the function's role may s3:PutObject in "
                                    f"that bucket"))
    for mapping in graph.all(EventSourceMapping):
        function = graph.function(mapping.function)
        queue = graph.queue(mapping.source)
        if function is None or queue is None or not is_sqs_source(graph, mapping):
            continue
        if _writes(graph, function, "sqs:SendMessage", queue.id):
            found.append(_violation(function, mapping, None,
                                    f"Function {function.resource} reads queue {queue.resource} (mapping "
                                    f"{mapping.resource}) and its role may sqs:SendMessage to that queue"))
    for subscription in graph.all(Subscription):
        function = graph.function(subscription.endpoint)
        topic = graph.topic(subscription.topic)
        if function is None or topic is None or not protocol_is(subscription, "lambda"):
            continue
        if _writes(graph, function, "sns:Publish", topic.id):
            found.append(_violation(function, subscription, None,
                                    f"Function {function.resource} is subscribed to topic {topic.resource} "
                                    f"({reported(subscription)}) and its role may sns:Publish to that topic"))
    return found


def _creates(notification: Notification) -> bool:
    return verdict(lambda events: isinstance(events, tuple) and any(
        isinstance(e, str) and e.startswith("s3:ObjectCreated:") for e in events), notification.events) is True


def _unfiltered(notification: Notification) -> bool:
    """The template proves that no key filter is written."""
    return all(verdict(lambda written: written is False, value) is True for value in _filters(notification))


def _filters(notification: Notification):
    if is_terraform(notification):
        return (notification.filter_prefix, notification.filter_suffix)
    return (notification.filter,)


def _writes(graph: Graph, function: Function, action: str, node_id: str) -> bool:
    role = graph.role_of(function)
    statements = role_statements(graph, role) if role is not None else None
    return statements is not None and may_act_on(graph, statements, action, node_id) is True


def _violation(function: Function, source, field, what: str) -> Violation:
    allow = verdict(lambda mode: isinstance(mode, str) and mode == "Allow", function.recursive_loop) is True
    detection = (" RecursiveLoop: Allow turns off Lambda's loop detection, so nothing stops it;" if allow else "")
    return Violation(
        at=source,
        field=field,
        message=(
            f"{what}: each invocation may trigger the next, an endless recursive loop;{detection} write to "
            f"another bucket, queue or topic, or filter the trigger so that the function's output does not "
            f"match it"
        ),
        related=((function, "function"),),
    )


RULE = Rule(
    id="FL405",
    name="recursive-delivery-loop",
    severity=Severity.WARNING,
    summary="A function's role may write to the bucket, queue or topic that triggers it",
    check=check,
    doc=__doc__,
)
