"""## What it does
Flags a mapping that reads a Kinesis stream, a DynamoDB stream or Apache Kafka (Amazon MSK
or a self-managed cluster), and an EventBridge pipe (`AWS::Pipes::Pipe`, `aws_pipes_pipe`)
whose source is a Kinesis or DynamoDB stream, when both its retries and its record age are
unbounded: `MaximumRetryAttempts` and `MaximumRecordAgeInSeconds` are -1 or absent
(`maximum_retry_attempts`, `maximum_record_age_in_seconds`; for a pipe, in
`SourceParameters.KinesisStreamParameters` or `DynamoDBStreamParameters`,
`source_parameters.kinesis_stream_parameters` or `dynamodb_stream_parameters`).

A mapping or pipe with no on-failure destination at all is
`stream-mapping-without-failure-handling`'s, and not reported here. A disabled mapping
and a stopped pipe are not flagged; a limit the template does not show is left alone.

## Why is this bad?
The defaults are -1 for both: Lambda, and EventBridge Pipes for stream sources, retry a
failing batch until its records expire in the source (24 hours by default for Kinesis, up
to 365 days; one day for DynamoDB Streams; the topic's retention for Kafka). Records are processed in
order, so one record the consumer keeps failing on holds up its whole shard or partition
all that time, and the iterator age grows. The on-failure destination (or the pipe's
dead-letter queue) looks like a safety net, but it is reached only once the record has
expired: by then the record itself is gone from the stream, and the destination holds only
its metadata.

## How to fix
Bound the retries, the record age, or both, so that a failing record goes to the
destination while it can still be read, and split failing batches to isolate the bad
record (`BisectBatchOnFunctionError`, or `OnPartialBatchItemFailure: AUTOMATIC_BISECT` on
a pipe).

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
resource "aws_pipes_pipe" "clicks" {
  role_arn = aws_iam_role.clicks_pipe.arn
  source   = aws_kinesis_stream.clicks.arn
  target   = aws_sqs_queue.clicks.arn
  source_parameters {
    kinesis_stream_parameters {
      starting_position             = "LATEST"
      maximum_retry_attempts        = 3
      maximum_record_age_in_seconds = 3600
      dead_letter_config {
        arn = aws_sqs_queue.clicks_failures.arn
      }
    }
  }
}
```

## References
- https://docs.aws.amazon.com/lambda/latest/api/API_CreateEventSourceMapping.html
- https://docs.aws.amazon.com/lambda/latest/dg/services-kinesis-errors.html
- https://docs.aws.amazon.com/lambda/latest/dg/kafka-retry-configurations.html
- https://docs.aws.amazon.com/eventbridge/latest/pipes-reference/API_PipeSourceKinesisStreamParameters.html
- https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-pipes-error-troubleshooting.html
"""

from __future__ import annotations

from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import EventSourceMapping, Node, Pipe
from fanout_lint.model.values import Value, is_false, verdict
from fanout_lint.model.vocabulary import term
from fanout_lint.rule import Rule, Severity, Violation

from .common import is_stopped, kafka_service, named, pipe_stream_service, stream_service

READS = {"kinesis": "Kinesis stream {}", "dynamodb": "the stream of DynamoDB table {}",
         "msk": "topics of an Amazon MSK cluster", "kafka": "topics of a self-managed Apache Kafka cluster"}
EXPIRES = {"kinesis": "24 hours by default for Kinesis, up to 365 days", "dynamodb": "up to one day for DynamoDB Streams",
           "msk": "the topic's retention period", "kafka": "the topic's retention period"}
HELD = {"kinesis": "shard", "dynamodb": "shard", "msk": "partition", "kafka": "partition"}


def check(graph: Graph, options) -> list[Violation]:
    found = []
    for mapping in graph.all(EventSourceMapping):
        service = stream_service(graph, mapping) or kafka_service(mapping)
        if service is None or is_false(mapping.enabled):
            continue
        violation = _unbounded(graph, mapping, service, "maximum_retry_attempts", "maximum_record_age",
                               mapping.on_failure, "on-failure destination", graph.function(mapping.function))
        if violation is not None:
            found.append(violation)
    for pipe in graph.all(Pipe):
        service = pipe_stream_service(graph, pipe)
        if service is None or is_stopped(pipe):
            continue
        violation = _unbounded(graph, pipe, service, f"{service}_maximum_retry_attempts",
                               f"{service}_maximum_record_age", getattr(pipe, f"{service}_dead_letter"),
                               "dead-letter queue", graph.get(pipe.target))
        if violation is not None:
            found.append(violation)
    return found


def _unbounded(graph: Graph, node: EventSourceMapping | Pipe, service: str, retries_field: str, age_field: str,
               destination: Value, destination_name: str, consumer: Node | None) -> Violation | None:
    if verdict(lambda d: d is None, destination) is True:
        return None  # no destination at all: stream-mapping-without-failure-handling's
    retries, age = getattr(node, retries_field), getattr(node, age_field)
    if verdict(lambda r, a: r == -1 and a == -1, retries, age) is not True:
        return None
    source = graph.get(node.source)
    related = [(source, "stream")] if source is not None else []
    if consumer is not None:
        related.append((consumer, "consumer" if isinstance(node, EventSourceMapping) else "target"))
    owner = f"Event source mapping {node.resource}" if isinstance(node, EventSourceMapping) else f"Pipe {node.resource}"
    reads = READS[service].format(named(source) if source is not None else "(not shown)")
    held = HELD[service]
    return Violation(
        at=node,
        field=retries_field,
        message=(
            f"{owner} reads {reads} with no limit on retries or record age "
            f"({term(node, retries_field)} and {term(node, age_field)} are -1): a failing batch blocks its {held} "
            f"until its records expire ({EXPIRES[service]}), and any {destination_name} is reached only then, "
            f"when the record is gone from the source; set {term(node, retries_field)} or "
            f"{term(node, age_field)} to a limit"
        ),
        related=tuple(related),
    )


RULE = Rule(
    id="FL404",
    name="stream-retries-unbounded",
    severity=Severity.WARNING,
    summary="A stream or Kafka mapping, or a pipe on a stream, retries without limit",
    check=check,
    doc=__doc__,
)
