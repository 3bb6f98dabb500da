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
silent. A `Resource` written as an ARN in text (`arn:aws:sqs:us-east-1:*:jobs`) is not
matched to the resource it names, and a SAM function without a `Role` gets a role SAM
writes from its `Policies`, which this rule does not read: it is silent there. The message
says when the function sets `RecursiveLoop: Allow` (in CloudFormation
and SAM; in Terraform, `recursive_loop = "Allow"` of an `aws_lambda_function_recursion_config`).

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

## When it is info
When the only statements that allow the write are on every resource (`Resource: "*"`, or
`arn:aws:s3:::*` for S3), the finding is reported at info, and its message says so: such
a role lets the function write anywhere (`sqs:*` on `*` in a shared module's default
policy, say), which proves a broad role, not that the code writes back to what triggers
it. A statement that names the bucket, queue or topic itself is evidence that the
function writes there, and keeps the warning, even next to a `*` grant. The fix for the
info is the same least-privilege one: narrow the grant to what the function writes.
Restore the warning with the `wildcard` option:

```toml
[tool.fanout-lint.options.recursive-delivery-loop]
wildcard = "warning"
```

It is info, too, when the role is also another function's: one role for several
functions (the Serverless Framework's shared `IamRoleLambdaExecution`, a role a stack
hands to all its functions) holds every write any of them needs, so a grant on the
trigger may be there for a sibling (a sender function beside the receiver of its queue).
The message names the functions that share the role; the fix is a role per function
(Serverless: `iam.role` on the function). Restore the warning with `shared-role =
"warning"`.

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
from fanout_lint.rule import Option, Options, OptionType, Rule, Severity, Violation

from .common import LEVELS, is_sqs_source, level, protocol_is, reported
from .iam import may_act_on, names_node_for, role_statements

SEVERITY = Severity.WARNING
NAMED = "named"  # a statement names the trigger itself
EVERYWHERE = "everywhere"  # only statements on every resource (Resource "*") allow the write
SHARED = "shared"  # the role is other functions' too: the write may be theirs


def check(graph: Graph, options: Options) -> list[Violation]:
    lowered = {EVERYWHERE: level(SEVERITY, options, "wildcard"), SHARED: level(SEVERITY, options, "shared-role")}
    found = []
    for notification in graph.all(Notification):
        function = graph.function(notification.destination)
        bucket = graph.get(notification.bucket)
        if function is None or bucket is None or not _creates(notification) or not _unfiltered(notification):
            continue
        grant = _writes(graph, function, "s3:PutObject", bucket.id)
        if grant:
            found.append(_violation(graph, function, notification, grant, lowered,
                                    f"S3 bucket {bucket.resource} notifies function {function.resource} of new "
                                    f"objects with no key filter, and the function's role may s3:PutObject in "
                                    f"that bucket"))
    for mapping in graph.all(EventSourceMapping):
        function = graph.function(mapping.function)
        queue = graph.queue(mapping.source)
        if function is None or queue is None or not is_sqs_source(graph, mapping):
            continue
        grant = _writes(graph, function, "sqs:SendMessage", queue.id)
        if grant:
            found.append(_violation(graph, function, mapping, grant, lowered,
                                    f"Function {function.resource} reads queue {queue.resource} (mapping "
                                    f"{mapping.resource}) and its role may sqs:SendMessage to that queue"))
    for subscription in graph.all(Subscription):
        function = graph.function(subscription.endpoint)
        topic = graph.topic(subscription.topic)
        if function is None or topic is None or not protocol_is(subscription, "lambda"):
            continue
        grant = _writes(graph, function, "sns:Publish", topic.id)
        if grant:
            found.append(_violation(graph, function, subscription, grant, lowered,
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


def _writes(graph: Graph, function: Function, action: str, node_id: str) -> str | None:
    """How the function's role provably allows the write: NAMED when a statement names the
    trigger, EVERYWHERE when only statements on every resource do; None when not proved."""
    role = graph.role_of(function)
    statements = role_statements(graph, role) if role is not None else None
    if statements is None or may_act_on(graph, statements, action, node_id) is not True:
        return None
    return NAMED if names_node_for(statements, action, node_id) else EVERYWHERE


def _violation(graph: Graph, function: Function, source, grant: str, levels: dict[str, Severity | None],
               what: str) -> Violation:
    allow = graph.loop_detection_off(function)
    setting = ('recursive_loop = "Allow" (aws_lambda_function_recursion_config)' if is_terraform(function)
               else "RecursiveLoop: Allow")
    detection = (f" {setting} turns off Lambda's loop detection, so nothing stops it;" if allow else "")
    role = graph.role_of(function)
    sharing = sorted(f.resource for f in graph.all(Function) if f is not function and graph.role_of(f) is role)
    lowered, because = None, ""
    if grant == EVERYWHERE and levels[EVERYWHERE] is not None:
        lowered = levels[EVERYWHERE]
        because = (f"; reported as {lowered.value} because the role grants the write only on every resource "
                   "(Resource \"*\"), not on the trigger by name: that proves a broad role, not that the code "
                   "writes back to its trigger; narrow the grant to what the function writes")
    elif sharing and role is not None and levels[SHARED] is not None:
        lowered = levels[SHARED]
        because = (f"; reported as {lowered.value} because role {role.resource} is also the role of "
                   f"{', '.join(sharing[:3])}{' and others' if len(sharing) > 3 else ''}: the write may be "
                   "theirs, not this function's; give each function a role of its own")
    return Violation(
        at=source,
        message=(
            f"{what}: each invocation may trigger the next, an endless recursive loop;{detection} write to "
            f"another bucket, queue or topic, or filter the trigger so that the function's output does not "
            f"match it{because}"
        ),
        related=((function, "function"),),
        severity=lowered,
    )


RULE = Rule(
    id="FL405",
    name="recursive-delivery-loop",
    severity=SEVERITY,
    summary="A function's role may write to the bucket, queue or topic that triggers it",
    check=check,
    doc=__doc__,
    options=(
        Option("wildcard", OptionType.SEVERITY, "info", "the level when only statements on every resource (Resource \"*\") "
               "grant the write (warning reports it as any other)", LEVELS),
        Option("shared-role", OptionType.SEVERITY, "info", "the level when the role that may write is also "
               "other functions' role, so the write may be theirs (warning reports it as any other)", LEVELS),
    ),
)
