"""## What it does
Flags an event source mapping that reads a Kinesis stream or a DynamoDB stream without an
on-failure destination (`DestinationConfig.OnFailure.Destination`,
`destination_config.on_failure.destination_arn`; SAM: `DestinationConfig.OnFailure` of a
`Kinesis` or `DynamoDB` event). The source is a stream when the mapping names an
`AWS::Kinesis::Stream`, a stream consumer, a DynamoDB table's `StreamArn`
(`aws_kinesis_stream`, `aws_kinesis_stream_consumer`, `aws_dynamodb_table`), or a literal
stream ARN. A source the template does not show is left alone: a mapping with a
`StartingPosition` may also read Kafka, Amazon MQ or DocumentDB. A disabled mapping is not
flagged.

The same holds for a mapping that reads Apache Kafka (Amazon MSK or a self-managed
cluster: the mapping names `Topics`, `topics`), and for an EventBridge pipe
(`AWS::Pipes::Pipe`, `aws_pipes_pipe`) whose source is a Kinesis or DynamoDB stream and
whose source parameters have no dead-letter queue
(`SourceParameters.KinesisStreamParameters.DeadLetterConfig.Arn`,
`source_parameters.kinesis_stream_parameters.dead_letter_config.arn`; the
`DynamoDBStreamParameters` likewise). A stopped pipe is not flagged.

## Why is this bad?
A stream mapping retries a failing batch until it succeeds, in order, on its shard.
With the defaults (`MaximumRetryAttempts` and `MaximumRecordAgeInSeconds` of -1: no
limit) one record the function keeps failing on blocks its shard until the record
expires from the stream (AWS: 24 hours by default for Kinesis, up to 365 days; one day
for DynamoDB Streams),
and then it is lost. Lambda documents the same -1 defaults for Kafka mappings, where a
failing record holds up its partition until the topic's retention deletes it, and
EventBridge Pipes for stream sources (a failing record is retried until it expires in
the source). With limits, the record is discarded once they are reached, and
without a destination nothing says which record it was. (`BisectBatchOnFunctionError`
narrows a failure down to the bad record, but discards it all the same.)

## How to fix
Give the mapping an on-failure destination (an SQS queue, an SNS topic or an S3 bucket;
the function's execution role needs permission to write to it; a pipe's dead-letter
queue is an SQS queue or SNS topic its role may write to) and limits that fit the
stream: a few retries, a maximum record age, and bisecting failed batches. The
destination receives the record's metadata (shard, sequence numbers), not the record
itself: read it from the stream before it expires.

CloudFormation:

```yaml
ClicksMapping:
  Type: AWS::Lambda::EventSourceMapping
  Properties:
    EventSourceArn: !GetAtt ClicksStream.Arn
    FunctionName: !Ref ClicksFunction
    StartingPosition: LATEST
    MaximumRetryAttempts: 3
    MaximumRecordAgeInSeconds: 3600
    BisectBatchOnFunctionError: true
    DestinationConfig:
      OnFailure: {Destination: !GetAtt ClicksFailures.Arn}
```

Terraform:

```hcl
resource "aws_lambda_event_source_mapping" "clicks" {
  event_source_arn               = aws_kinesis_stream.clicks.arn
  function_name                  = aws_lambda_function.clicks.arn
  starting_position              = "LATEST"
  maximum_retry_attempts         = 3
  maximum_record_age_in_seconds  = 3600
  bisect_batch_on_function_error = true
  destination_config {
    on_failure {
      destination_arn = aws_sqs_queue.clicks_failures.arn
    }
  }
}
```

## References
- https://docs.aws.amazon.com/lambda/latest/dg/kinesis-on-failure-destination.html
- https://docs.aws.amazon.com/lambda/latest/dg/services-kinesis-errors.html
- https://docs.aws.amazon.com/lambda/latest/dg/services-dynamodb-errors.html
- https://docs.aws.amazon.com/lambda/latest/api/API_CreateEventSourceMapping.html
- https://docs.aws.amazon.com/lambda/latest/dg/kafka-retry-configurations.html
- https://docs.aws.amazon.com/eventbridge/latest/pipes-reference/API_PipeSourceKinesisStreamParameters.html
- https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-pipes-error-troubleshooting.html
"""

from __future__ import annotations

from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import EventSourceMapping, Node, Pipe
from fanout_lint.model.values import describe, is_false, verdict
from fanout_lint.model.vocabulary import term
from fanout_lint.rule import Rule, Severity, Violation

from .common import is_stopped, kafka_service, named, pipe_stream_service, stream_service

SERVICES = {"kinesis": "Kinesis stream {}", "dynamodb": "the stream of DynamoDB table {}"}
EXPIRES = {"kinesis": "24 hours by default for Kinesis, up to 365 days", "dynamodb": "up to one day for DynamoDB Streams"}
# Kafka: what the mapping reads (its topics), and how long a record stays there
KAFKA = {"msk": "topics of an Amazon MSK cluster", "kafka": "topics of a self-managed Apache Kafka cluster"}
KAFKA_EXPIRES = "by the topic's retention period"


def check(graph: Graph, options) -> list[Violation]:
    found = []
    for mapping in graph.all(EventSourceMapping):
        service = stream_service(graph, mapping)
        kafka = kafka_service(mapping) if service is None else None
        if (service is None and kafka is None) or is_false(mapping.enabled):
            continue
        if verdict(lambda destination: destination is None, mapping.on_failure) is not True:
            continue
        source = graph.get(mapping.source)
        related = [(source, "stream")] if source is not None else []
        function = graph.function(mapping.function)
        if function is not None:
            related.append((function, "consumer"))
        if kafka is not None:
            reads = KAFKA[kafka]
            fate = _fate(mapping, "maximum_retry_attempts", "maximum_record_age", "partition", "topic",
                         KAFKA_EXPIRES)
        else:
            reads = SERVICES[service].format(named(source))
            fate = _fate(mapping, "maximum_retry_attempts", "maximum_record_age", "shard", "stream",
                         EXPIRES[service])
        found.append(Violation(
            at=mapping,
            field="on_failure",
            message=(
                f"Event source mapping {mapping.resource} reads {reads} without an "
                f"on-failure destination: {fate}; set {term(mapping, 'on_failure')} to an SQS "
                f"queue, SNS topic or S3 bucket"
            ),
            related=tuple(related),
        ))
    found.extend(_pipes(graph))
    return found


def _pipes(graph: Graph) -> list[Violation]:
    """EventBridge pipes reading a stream without a dead-letter queue."""
    found = []
    for pipe in graph.all(Pipe):
        service = pipe_stream_service(graph, pipe)
        if service is None or is_stopped(pipe):
            continue
        dead_letter = f"{service}_dead_letter"
        if verdict(lambda destination: destination is None, getattr(pipe, dead_letter)) is not True:
            continue
        source = graph.get(pipe.source)
        related = [(source, "stream")] if source is not None else []
        target = graph.get(pipe.target)
        if target is not None:
            related.append((target, "target"))
        fate = _fate(pipe, f"{service}_maximum_retry_attempts", f"{service}_maximum_record_age", "shard", "stream",
                     EXPIRES[service])
        found.append(Violation(
            at=pipe,
            field=dead_letter,
            message=(
                f"Pipe {pipe.resource} reads {SERVICES[service].format(named(source))} without a dead-letter "
                f"queue: {fate.replace('the function keeps', 'its target keeps')}; set {term(pipe, dead_letter)} "
                f"to an SQS queue or SNS topic"
            ),
            related=tuple(related),
        ))
    return found


def _fate(node: Node, retries_field: str, age_field: str, shard: str, stream: str, expires: str) -> str:
    """What becomes of a record the function keeps failing on, by the node's limits."""
    retries, age = getattr(node, retries_field), getattr(node, age_field)
    limits = (f"{term(node, retries_field)} {describe(retries)}, "
              f"{term(node, age_field)} {describe(age)}")
    unlimited = verdict(lambda r, a: r == -1 and a == -1, retries, age)
    if unlimited is True:
        return (f"with no limit on retries or record age ({limits}) a record the function keeps failing on blocks "
                f"its {shard} until it expires from the {stream} ({expires}), and is then lost")
    if unlimited is False:
        return f"a record the function keeps failing on is discarded without trace once the limits are reached ({limits})"
    return f"a record the function keeps failing on blocks its {shard} while it is retried and is then lost ({limits})"


RULE = Rule(
    id="FL403",
    name="stream-mapping-without-failure-handling",
    severity=Severity.WARNING,
    summary="A stream or Kafka mapping, or a pipe on a stream, has no failure destination",
    check=check,
    doc=__doc__,
)
