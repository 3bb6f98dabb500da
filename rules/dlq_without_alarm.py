"""## What it does
Flags a dead-letter queue (the target of a queue's redrive policy, of an SNS
subscription's, of an EventBridge or Scheduler target's, or a function's dead-letter
queue or on-failure destination) that no CloudWatch alarm in the run watches: no
`AWS::CloudWatch::Alarm` or `aws_cloudwatch_metric_alarm` on the `AWS/SQS` metric
`ApproximateNumberOfMessagesVisible` with its `QueueName` dimension.

Only a run that defines CloudWatch metric alarms (`AWS::CloudWatch::Alarm`,
`aws_cloudwatch_metric_alarm`, on any metric) is checked: there the team alarms in the
template, and a dead-letter queue left out is a gap. A run without any alarm keeps its
monitoring somewhere the linter does not see, and is not flagged.

Not flagged either: a run with an alarm whose queue the linter cannot tell (metric math,
`Metrics` or `metric_query`; a metric, namespace or dimension known only at deploy time,
a queue outside the run), which may watch the dead-letter queue, and a queue that is no
dead-letter queue.

## Why is this bad?
A message in a dead-letter queue is a failure: a consumer gave up on it, or a delivery
could not be made. Nothing reads a dead-letter queue on its own, and nothing tells anyone
a message arrived unless an alarm watches its depth; the message then expires at the
end of the queue's retention, unnoticed. AWS's dead-letter queue guide points to alarms
on the queue's `ApproximateNumberOfMessagesVisible`, and the Well-Architected Serverless
Lens names queue depth among the metrics to alarm on (OPS 1).

## How to fix
Add an alarm on the dead-letter queue's depth that notifies whoever handles failures
(a topic of the on-call team, a ticketing integration). The alarm may live in another
stack or monitoring tool; then suppress the finding.

CloudFormation:

```yaml
OrdersDLQAlarm:
  Type: AWS::CloudWatch::Alarm
  Properties:
    Namespace: AWS/SQS
    MetricName: ApproximateNumberOfMessagesVisible
    Dimensions:
      - {Name: QueueName, Value: !GetAtt OrdersDLQ.QueueName}
    Statistic: Maximum
    Period: 60
    EvaluationPeriods: 1
    Threshold: 0
    ComparisonOperator: GreaterThanThreshold
    AlarmActions: [!Ref OnCallTopic]
```

Terraform:

```hcl
resource "aws_cloudwatch_metric_alarm" "orders_dlq" {
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateNumberOfMessagesVisible"
  dimensions          = { QueueName = aws_sqs_queue.orders_dlq.name }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 1
  threshold           = 0
  comparison_operator = "GreaterThanThreshold"
  alarm_actions       = [aws_sns_topic.on_call.arn]
}
```

## References
- https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-dead-letter-queues.html
- https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-available-cloudwatch-metrics.html
- https://wa.aws.amazon.com/serv.question.OPS_1.en.html
"""

from __future__ import annotations

from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import ANY_ALARM, ANY_QUEUE, WATCHES_DEPTH, Queue
from fanout_lint.model.schema import DEPTH_METRIC
from fanout_lint.model.vocabulary import is_terraform
from fanout_lint.rule import Rule, Severity, Violation


def check(graph: Graph, options) -> list[Violation]:
    if not graph.mentions_of(ANY_ALARM, WATCHES_DEPTH):
        return []  # no alarm in the run: the unit's monitoring lives elsewhere
    if graph.mentions_of(ANY_QUEUE, WATCHES_DEPTH):
        return []  # an alarm the linter cannot place may watch any of them
    found = []
    for queue in graph.all(Queue):
        if not graph.is_dead_letter_target(queue.id) or graph.mentions_of(queue.id, WATCHES_DEPTH):
            continue
        found.append(Violation(
            at=queue,
            message=(
                f"Dead-letter queue {queue.resource} has no CloudWatch alarm on its depth ({DEPTH_METRIC}) in the "
                f"run: the failures that land in it go unnoticed until they expire; {_advice(queue)}"
            ),
        ))
    return found


def _advice(queue: Queue) -> str:
    if is_terraform(queue):
        alarm = "aws_cloudwatch_metric_alarm"
        return (f"add an {alarm} with namespace \"AWS/SQS\", metric_name \"{DEPTH_METRIC}\" and the queue's "
                f"name in dimensions, or suppress this where another stack alarms on it")
    alarm = "AWS::CloudWatch::Alarm"
    return (f"add an {alarm} with Namespace AWS/SQS, MetricName {DEPTH_METRIC} and a QueueName dimension "
            f"for it, or suppress this where another stack alarms on it")


RULE = Rule(
    id="FL106",
    name="dlq-without-alarm",
    severity=Severity.INFO,
    summary="A dead-letter queue no CloudWatch alarm on its depth watches in the run",
    check=check,
    doc=__doc__,
)
