"""## What it does
Flags an EventBridge rule target without a dead-letter queue (`DeadLetterConfig.Arn` of an
`AWS::Events::Rule` `Targets` entry, `dead_letter_config` of an
`aws_cloudwatch_event_target`; SAM: `DeadLetterConfig` of a `Schedule`,
`EventBridgeRule` or `CloudWatchEvent` event), and an EventBridge Scheduler schedule
without one (`Target.DeadLetterConfig.Arn` of an `AWS::Scheduler::Schedule`,
`target.dead_letter_config` of an `aws_scheduler_schedule`; SAM `ScheduleV2`). A
disabled rule or schedule is not flagged, nor is a dead-letter configuration the linter
cannot read.

## Why is this bad?
EventBridge retries a failed delivery with back-off for 24 hours and up to 185 times by
default (or what the target's `RetryPolicy` allows), and then drops the event. Errors
that retrying cannot fix, such as a missing permission on the target or a target that no
longer exists, are not retried at all: without a dead-letter queue the event is dropped
at once. Nothing records what was lost; only the `FailedInvocations` metric counts it.
A schedule is the same: when EventBridge Scheduler cannot invoke its target after its
retries, the invocation is gone.

On a Lambda target the dead-letter queue catches only what EventBridge could not hand
over to Lambda (the function missing, no permission to invoke it, throttled `Invoke`
calls). Once Lambda has accepted the event, the function's own failures are retried and
discarded by Lambda: they need an on-failure destination or a function dead-letter
queue (see `async-invoke-without-failure-destination`).

## How to fix
Give every target a dead-letter queue: a standard SQS queue in the same Region (FIFO
queues are refused), whose queue policy lets `events.amazonaws.com` send to it with
`aws:SourceArn` set to the rule (Scheduler writes with the schedule's role instead). Set a
`RetryPolicy` that fits the target if 24 hours is too long. In SAM, `DeadLetterConfig:
{Type: SQS}` on the event creates the queue (and, for rules, its policy).

CloudFormation:

```yaml
NightlyRule:
  Type: AWS::Events::Rule
  Properties:
    ScheduleExpression: rate(1 day)
    Targets:
      - Id: report
        Arn: !GetAtt ReportFunction.Arn
        DeadLetterConfig: {Arn: !GetAtt NightlyRuleDLQ.Arn}
        RetryPolicy: {MaximumRetryAttempts: 10, MaximumEventAgeInSeconds: 3600}
```

Terraform:

```hcl
resource "aws_cloudwatch_event_target" "report" {
  rule = aws_cloudwatch_event_rule.nightly.name
  arn  = aws_lambda_function.report.arn
  dead_letter_config {
    arn = aws_sqs_queue.nightly_dlq.arn
  }
}
```

## When it is info
A target that only a recurring schedule triggers is reported at info, and its message
says so: a rule with a `ScheduleExpression` (`rate(...)` or `cron(...)`;
`schedule_expression` in Terraform; SAM `Schedule`) and no `EventPattern`, or a
Scheduler schedule with a `rate` or `cron` expression (SAM `ScheduleV2`). A lost
scheduled event holds nothing the next one does not (its time, and the target's fixed
`Input`), and the next run does the work again; the `FailedInvocations` metric still
shows a target that keeps failing. A rule with an event pattern as well, a one-time
`at(...)` schedule, or an expression the linter cannot read keeps the rule's severity.
When a missed run matters (each run processes the period since the last one), restore
the level with the `schedules` option:

```toml
[tool.fanout-lint.options.eventbridge-target-without-dlq]
schedules = "error"
```

## References
- https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-rule-dlq.html
- https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-rule-retry-policy.html
- https://docs.aws.amazon.com/scheduler/latest/UserGuide/configuring-schedule-dlq.html
- https://docs.aws.amazon.com/serverless-application-model/latest/developerguide/sam-property-function-scheduledeadletterconfig.html
"""

from __future__ import annotations

from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import EventTarget, RoleTarget
from fanout_lint.model.values import describe, verdict
from fanout_lint.model.vocabulary import term
from fanout_lint.rule import Option, Options, OptionType, Rule, Severity, Violation

from .common import LEVELS, SCHEDULED, is_disabled, level, named, runs_on_schedule_only, source_name

SEVERITY = Severity.ERROR


def check(graph: Graph, options: Options) -> list[Violation]:
    found = []
    scheduled = level(SEVERITY, options, "schedules")
    for target in graph.all(EventTarget):
        if verdict(lambda dlq: dlq is None, target.dead_letter) is not True or is_disabled(graph, target):
            continue
        destination = graph.get(target.target)
        if isinstance(destination, RoleTarget):
            # a role-only target (a state machine, ...) is a node for eventbridge-target-role-missing
            # alone: named here as before it was modelled, so these findings and fingerprints hold
            destination = None
        related = [(destination, "target")] if destination is not None else []
        rule = graph.rule_of(target)
        if rule is not None and rule.local_id != target.resource:
            related.append((rule, "rule"))
        message, severity = _message(graph, target, destination), None
        if scheduled is not None and runs_on_schedule_only(graph, target):
            message += f"; reported as {scheduled.value} because only a recurring schedule triggers it: {SCHEDULED}"
            severity = scheduled
        found.append(Violation(
            at=target,
            field="dead_letter",
            message=message,
            related=tuple(related),
            severity=severity,
        ))
    return found


def _message(graph: Graph, target: EventTarget, destination) -> str:
    # a target the graph does not model (a state machine, a log group) by its logical ID or address
    what = named(destination) if destination is not None else target.target or "its target"
    advice = f"set {term(target, 'dead_letter')} to a standard SQS queue"
    if target.scheduler:
        return (
            f"{source_name(target)} invokes {what} without a dead-letter queue: an invocation that still fails "
            f"after its retries is dropped, with no record of it; {advice}"
        )
    retries = (f"{term(target, 'retry_attempts')} {describe(target.retry_attempts)}, "
               f"{term(target, 'event_age')} {describe(target.event_age, 's')}")
    message = (
        f"{source_name(target)} delivers to {what} without a dead-letter queue: events that exhaust the retry "
        f"policy ({retries}) are dropped, and those that fail with an error retrying cannot fix (a missing "
        f"permission, a deleted target) are dropped at once; {advice}"
    )
    if graph.function(target.target) is not None:
        message += (
            "; it keeps only what EventBridge could not hand to Lambda: the function's own failures need an "
            "on-failure destination or a function dead-letter queue"
        )
    return message


RULE = Rule(
    id="FL401",
    name="eventbridge-target-without-dlq",
    severity=SEVERITY,
    summary="An EventBridge rule target or Scheduler schedule has no dead-letter queue",
    check=check,
    doc=__doc__,
    options=(
        Option("schedules", OptionType.SEVERITY, "info", "the level of a target only a recurring schedule triggers "
               "(error reports it as any other target)", LEVELS),
    ),
)
