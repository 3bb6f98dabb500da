"""## What it does
Flags an SNS subscription that invokes a Lambda function directly (protocol `lambda`):
a standalone subscription, an inline subscription of a topic, or a SAM `SNS` event
without `SqsSubscription`.

## Why is this bad?
With no queue between the topic and the function, nothing absorbs a spike and nothing
keeps a message while the consumer is failing. Lambda retries an asynchronous event
twice and then discards it (unless the function has its own on-failure destination);
throttled events expire after hours. The SNS subscription's dead-letter queue does not
help: it only catches delivery failures, never the function's errors.

## How to fix
Subscribe an SQS queue to the topic (with raw message delivery and its own DLQ) and let
the function read the queue through an event source mapping. In SAM, set
`SqsSubscription: true` on the SNS event, or better, declare the queue yourself.

CloudFormation:

```yaml
WorkerSubscription:
  Type: AWS::SNS::Subscription
  Properties:
    TopicArn: !Ref OrdersTopic
    Protocol: sqs
    Endpoint: !GetAtt WorkerQueue.Arn
    RawMessageDelivery: true
WorkerMapping:
  Type: AWS::Lambda::EventSourceMapping
  Properties:
    EventSourceArn: !GetAtt WorkerQueue.Arn
    FunctionName: !Ref WorkerFunction
```

Terraform:

```hcl
resource "aws_sns_topic_subscription" "worker" {
  topic_arn            = aws_sns_topic.orders.arn
  protocol             = "sqs"
  endpoint             = aws_sqs_queue.worker.arn
  raw_message_delivery = true
}

resource "aws_lambda_event_source_mapping" "worker" {
  event_source_arn = aws_sqs_queue.worker.arn
  function_name    = aws_lambda_function.worker.arn
}
```

## When it is info
A subscription to a topic whose only publishers in the run are notification-only
producers (the ones `single-subscriber-topic` knows: CloudWatch alarms, Budgets, Cost
Anomaly Detection, stack, database and Backup notifications, ...) is reported at info, and
its message names them: a CloudWatch alarm publishing to a topic that a Slack-notifier
function subscribes to. These producers cannot send to SQS, they send a few messages
when a state changes, and that state stays with the producer (an alarm's state and
history), so a queue would absorb no spike and keep nothing the producer does not. A
topic that something else is shown to publish to (an EventBridge target, an S3
notification, a function's dead-letter queue or destination), that is exported, or that
has no known publisher in the run keeps the rule's severity: unknown is not proof. A
function that publishes to the topic from its code is not seen; restore the level with
the `notifiers` option:

```toml
[tool.fanout-lint.options.sns-to-lambda-direct]
notifiers = "warning"
```

## When the function keeps what fails
A function with an on-failure destination (`DestinationConfig.OnFailure` of an
`AWS::Lambda::EventInvokeConfig`, `destination_config.on_failure` of an
`aws_lambda_function_event_invoke_config`) or a dead-letter queue of its own
(`DeadLetterConfig`, `dead_letter_config`) keeps the events it still fails on after
Lambda's retries, so the finding's "keeps nothing" no longer holds, and it is reported
at info; its message names that setting. SNS invokes the function asynchronously, and
Lambda puts the events in its own queue: throttled events wait there and are retried
for up to 6 hours, and an event that still fails or expires goes to the dead-letter
queue or destination instead of being discarded. So nothing is lost and a spike waits
in Lambda's queue. What a queue of your own would still add (a concurrency limit for
this subscription, retries without someone sending the failed events back) is a design
choice, not a defect. This holds whoever owns the topic. A function whose destination
the linter cannot read is reported as one without, at the rule's severity. Restore the
warning with the `keeps-failures` option:

```toml
[tool.fanout-lint.options.sns-to-lambda-direct]
keeps-failures = "warning"
```

## References
- https://docs.aws.amazon.com/lambda/latest/dg/with-sns.html
- https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-error-handling.html
- https://docs.aws.amazon.com/sns/latest/dg/sns-sqs-as-subscriber.html
"""

from __future__ import annotations

from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import EXPORTS, PUBLISHES_ONLY, Function, InvokeConfig, Mention, Subscription, Topic
from fanout_lint.model.values import Known, verdict
from fanout_lint.model.vocabulary import resource_type, term
from fanout_lint.rule import Option, Options, OptionType, Rule, Severity, Violation

from .common import LEVELS, level, named, protocol_is, reported

SEVERITY = Severity.WARNING


def check(graph: Graph, options: Options) -> list[Violation]:
    found = []
    notifiers = level(SEVERITY, options, "notifiers")
    keeps_failures = level(SEVERITY, options, "keeps-failures")
    published = _published_by_others(graph) if notifiers is not None else None
    for sub in graph.all(Subscription):
        if not protocol_is(sub, "lambda"):
            continue
        topic = graph.get(sub.topic)
        function = graph.get(sub.endpoint)
        target = named(function) if function is not None else "a Lambda function"
        related = []
        if function is not None:
            related.append((function, "function"))
        if topic is not None and not sub.inline:
            related.append((topic, "topic"))
        advice = sub.written.why_fixed("endpoint") or (
            f"subscribe an {resource_type(sub, 'queue')} instead and read it with an "
            f"{resource_type(sub, 'mapping')}"
        )
        kept = _keeps_failures(graph, function)
        if kept:
            message = (
                f"{reported(sub)} sends SNS messages straight to {target}: the function's {kept} keeps the events it "
                "still fails on after Lambda's retries, but no queue absorbs spikes, gives this subscription "
                f"its own concurrency, or retries a failure by itself; {advice}"
            )
        else:
            message = (
                f"{reported(sub)} sends SNS messages straight to {target}: no queue absorbs "
                f"spikes or keeps messages the function fails on; {advice}"
            )
        producers = _notifiers_only(graph, topic, published) if notifiers is not None else []
        if producers:
            message += (
                f"; reported as {notifiers.value} because only notifications are published to the topic "
                f"(by {_names(producers)}, which cannot send to SQS): they are few, and each reports a "
                "state its producer keeps, so a queue would absorb no spike and keep nothing the producer "
                "does not"
            )
        lowered = notifiers if producers else None
        if lowered is None and kept and keeps_failures is not None:
            lowered = keeps_failures
            message += (
                f"; reported as {keeps_failures.value} because the function keeps what fails: Lambda queues the "
                "events SNS sends it, retries throttled ones for up to 6 hours, and sends what still fails or "
                f"expires to its {kept.split(' (')[0]}, so nothing is lost, and what a queue would add is a design "
                "choice rather than a defect"
            )
        found.append(Violation(
            at=sub,
            field="protocol",
            message=message,
            related=tuple(related),
            severity=lowered,
        ))
    return found


def _keeps_failures(graph: Graph, function) -> str | None:
    """The setting that provably keeps the function's failed asynchronous events (its
    dead-letter queue or an on-failure destination), as the template names it; else None."""
    if not isinstance(function, Function):
        return None
    if verdict(lambda dlq: dlq is not None, function.dead_letter) is True:
        return term(function, "dead_letter")
    for config in graph.invoke_configs_for(function.id):
        if verdict(lambda d: d is not None, config.on_failure) is True:
            return f"{term(config, 'on_failure')} ({config.resource})"
    return None


def _published_by_others(graph: Graph) -> frozenset[str] | None:
    """The topics something other than a notification-only producer is shown to publish
    to (an EventBridge target, an S3 notification, a function's dead-letter queue or
    destination); None when an on-success destination the linter cannot read may be any."""
    topics = set()
    for config in graph.all(InvokeConfig):
        if not isinstance(config.on_success, Known):
            return None
        if config.on_success.value:
            topics.add(config.on_success.value)
    return frozenset(topics)


def _notifiers_only(graph: Graph, topic, published: frozenset[str] | None) -> list[Mention]:
    """The notification-only producers (the ones ``single-subscriber-topic`` knows: alarms,
    budgets, ...) publishing to the topic, when the run shows no other publisher and no
    export through which another stack may publish; else none."""
    if not isinstance(topic, Topic) or topic.exported or published is None or topic.id in published:
        return []
    if graph.mentions_of(topic.id, EXPORTS) or graph.deliveries_to(topic.id) or graph.dead_letter_uses(topic.id):
        return []
    return graph.mentions_of(topic.id, PUBLISHES_ONLY)


def _names(producers: list[Mention]) -> str:
    names = list(dict.fromkeys(f"{m.type} {m.user}" for m in producers))
    return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")


RULE = Rule(
    id="FL001",
    name="sns-to-lambda-direct",
    severity=SEVERITY,
    summary="SNS invokes a Lambda function directly, with no queue in between",
    check=check,
    doc=__doc__,
    options=(
        Option("notifiers", OptionType.SEVERITY, "info",
               "the level of a subscription to a topic only notification-only "
               "producers publish to (warning reports it as any other)", LEVELS),
        Option("keeps-failures", OptionType.SEVERITY, "info", "the level when the function has a dead-letter queue or an "
               "on-failure destination (warning reports it as any other)", LEVELS),
    ),
)
