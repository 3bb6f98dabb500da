"""## What it does
Flags a Lambda function of the unit that EventBridge (a rule target) or S3 (an event
notification) invokes asynchronously when it has neither an on-failure destination
(`DestinationConfig.OnFailure.Destination` of an `AWS::Lambda::EventInvokeConfig`,
`destination_config.on_failure.destination` of an
`aws_lambda_function_event_invoke_config`; SAM `EventInvokeConfig`) nor a dead-letter
queue (`DeadLetterConfig.TargetArn`, `dead_letter_config.target_arn`; SAM
`DeadLetterQueue`). An on-success destination does not count. A destination on any
qualifier of the function counts. SNS invoking a function is `sns-to-lambda-direct`'s
business and EventBridge Scheduler schedules are not in scope. A destination the
linter cannot read, or an invoke configuration whose function it cannot resolve, keeps
it silent; so does a disabled rule.

## Why is this bad?
EventBridge and S3 hand the event to Lambda and move on. If the function then fails,
Lambda retries it twice by default (`MaximumRetryAttempts`, 0 to 2) and keeps events
waiting through throttles for up to 6 hours (`MaximumEventAgeInSeconds`); an event that
still fails, or waits too long, is discarded. The source does not know, and an
EventBridge target's dead-letter queue does not help: it only holds what EventBridge
could not hand over.

## How to fix
Send failed events somewhere they are kept: an on-failure destination (an SQS queue, an
SNS topic, another function, an event bus or an S3 bucket; not a FIFO queue or topic), or
a dead-letter queue on the function (a standard SQS queue or SNS topic). The function's
execution role needs permission to write to it (SAM adds it).

CloudFormation:

```yaml
ReportInvokeConfig:
  Type: AWS::Lambda::EventInvokeConfig
  Properties:
    FunctionName: !Ref ReportFunction
    Qualifier: $LATEST
    DestinationConfig:
      OnFailure: {Destination: !GetAtt ReportFailures.Arn}
```

Terraform:

```hcl
resource "aws_lambda_function_event_invoke_config" "report" {
  function_name = aws_lambda_function.report.function_name
  destination_config {
    on_failure {
      destination = aws_sqs_queue.report_failures.arn
    }
  }
}
```

## When it is info
A function that only recurring schedules invoke is reported at info, and its message says
so: every asynchronous invoker is an EventBridge rule with a `ScheduleExpression`
(`rate(...)` or `cron(...)`, `schedule_expression`; SAM `Schedule`) and no
`EventPattern`, and the template shows nothing else that may invoke it asynchronously: no
SNS subscription, and no Lambda permission for a principal other than
`events.amazonaws.com` (a bucket or topic of another stack may stand behind one). Lambda
still retries a failing run twice; after that, the next scheduled run does the same work
again, and the discarded event held nothing but its time and the target's fixed input.
A function with a schedule and another asynchronous trigger (an event pattern, an S3
notification) keeps the rule's severity. When a missed run matters, restore it with the
`schedules` option:

```toml
[tool.fanout-lint.options.async-invoke-without-failure-destination]
schedules = "warning"
```

## References
- https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-error-handling.html
- https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-retain-records.html
- https://docs.aws.amazon.com/lambda/latest/dg/services-cloudwatchevents.html
- https://docs.aws.amazon.com/lambda/latest/dg/with-s3.html
"""

from __future__ import annotations

from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import EventTarget, Function, InvokeConfig, LambdaPermission, Notification
from fanout_lint.model.permissions import EVENTS, principal_matches
from fanout_lint.model.values import describe, verdict
from fanout_lint.model.vocabulary import resource_type, term, term_of
from fanout_lint.rule import Option, Options, OptionType, Rule, Severity, Violation

from .common import LEVELS, SCHEDULED, is_disabled, level, runs_on_schedule_only, source_name

SEVERITY = Severity.WARNING


def check(graph: Graph, options: Options) -> list[Violation]:
    if any(graph.function(c.function) is None for c in graph.all(InvokeConfig)):
        return []  # a configuration we cannot place may be any function's
    found = []
    scheduled = level(SEVERITY, options, "schedules")
    # a permission whose function the loader cannot place may be any function's
    loose = any(graph.function(p.function) is None and not _events_only(p) for p in graph.all(LambdaPermission))
    for function in graph.all(Function):
        invokers = [
            d.sender for d in graph.deliveries_to(function.id)
            if isinstance(d.sender, Notification)
            or (isinstance(d.sender, EventTarget) and not is_disabled(graph, d.sender))
        ]
        if not invokers or not _loses_failures(graph, function):
            continue
        configs = graph.invoke_configs_for(function.id)
        sources = ", ".join(dict.fromkeys(source_name(s) for s in invokers))
        message = (
            f"Function {function.resource} is invoked asynchronously by {sources} but has neither an on-failure "
            f"destination nor a dead-letter queue: {_retries(configs)}, then Lambda discards the event"
            f"{_on_success(configs)}; {_advice(function, configs)}"
        )
        severity = None
        if scheduled is not None and _only_schedules(graph, function, invokers, loose):
            message += f"; reported as {scheduled.value} because only recurring schedules invoke it: {SCHEDULED}"
            severity = scheduled
        found.append(Violation(
            at=function,
            message=message,
            related=tuple([(s, "invoker") for s in invokers] + [(c, "invoke configuration") for c in configs]),
            severity=severity,
        ))
    return found


def _only_schedules(graph: Graph, function: Function, invokers: list, loose: bool) -> bool:
    """Every asynchronous invoker is a recurring schedule, and the template shows nothing
    else that may invoke the function: no SNS subscription, and no permission for a
    service other than EventBridge (one may be a source in another stack)."""
    if not all(isinstance(i, EventTarget) and runs_on_schedule_only(graph, i) for i in invokers):
        return False
    if graph.subscriptions_to(function.id) or loose:
        return False
    return all(_events_only(p) for p in graph.permissions_for(function.id))


def _events_only(permission: LambdaPermission) -> bool:
    return verdict(lambda p: isinstance(p, str) and p != "*" and principal_matches(p, EVENTS),
                   permission.principal) is True


def _loses_failures(graph: Graph, function: Function) -> bool:
    """Provably nothing keeps the function's failed asynchronous events."""
    if verdict(lambda dlq: dlq is None, function.dead_letter) is not True:
        return False
    return all(verdict(lambda d: d is None, c.on_failure) is True for c in graph.invoke_configs_for(function.id))


def _retries(configs: list[InvokeConfig]) -> str:
    if len(configs) == 1:
        config = configs[0]
        return (f"a failing event gets {describe(config.maximum_retry_attempts)} retries "
                f"({term(config, 'maximum_retry_attempts')}) and is kept up to "
                f"{describe(config.maximum_event_age, 's')} ({term(config, 'maximum_event_age')})")
    return "a failing event gets two retries and is kept up to 6 hours by default"


def _on_success(configs: list[InvokeConfig]) -> str:
    if any(verdict(lambda d: d is not None, c.on_success) is True for c in configs):
        return " (an on-success destination keeps only the events that succeed)"
    return ""


def _advice(function: Function, configs: list[InvokeConfig]) -> str:
    own = function.written.name_of("invoke_on_failure")  # a construct that writes it its own way (SAM)
    if own is not None:
        return f"set {own}, or {term(function, 'dead_letter')}"
    if len(configs) == 1:
        config = configs[0]
        return f"set {term(config, 'on_failure')} of {config.resource}, or {term(function, 'dead_letter')} on the function"
    return (
        f"add an {resource_type(function, 'invoke_config')} with "
        f"{term_of(function, 'invoke_config', 'on_failure')}, or set {term(function, 'dead_letter')} on the function"
    )


RULE = Rule(
    id="FL402",
    name="async-invoke-without-failure-destination",
    severity=SEVERITY,
    summary="A function EventBridge or S3 invokes keeps no record of events that fail",
    check=check,
    doc=__doc__,
    options=(
        Option("schedules", OptionType.SEVERITY, "info", "the level of a function only recurring schedules invoke "
               "(warning reports it as any other function)", LEVELS),
    ),
)
