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

## Why is this bad?
A stream mapping retries a failing batch until it succeeds, in order, on its shard.
With the defaults (`MaximumRetryAttempts` and `MaximumRecordAgeInSeconds` of -1: no
limit) one record the function keeps failing on blocks its shard until the record
expires from the stream (AWS: up to one week for Kinesis, one day for DynamoDB Streams),
and then it is lost. With limits, the record is discarded once they are reached, and
without a destination nothing says which record it was. (`BisectBatchOnFunctionError`
narrows a failure down to the bad record, but discards it all the same.)

## How to fix
Give the mapping an on-failure destination (an SQS queue, an SNS topic or an S3 bucket;
the function's execution role needs permission to write to it) and limits that fit the
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
"""

from __future__ import annotations

from fanout_lint.findings import Severity
from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import EventSourceMapping
from fanout_lint.model.values import describe, is_false, verdict
from fanout_lint.model.vocabulary import term
from fanout_lint.rule import Rule, Violation

from .common import named, stream_service

SERVICES = {"kinesis": "Kinesis stream {}", "dynamodb": "the stream of DynamoDB table {}"}
EXPIRES = {"kinesis": "up to one week for Kinesis", "dynamodb": "up to one day for DynamoDB Streams"}


def check(graph: Graph, options) -> list[Violation]:
    found = []
    for mapping in graph.all(EventSourceMapping):
        service = stream_service(graph, mapping)
        if service is None or is_false(mapping.enabled):
            continue
        if verdict(lambda destination: destination is None, mapping.on_failure) is not True:
            continue
        source = graph.get(mapping.source)
        related = [(source, "stream")] if source is not None else []
        function = graph.function(mapping.function)
        if function is not None:
            related.append((function, "consumer"))
        found.append(Violation(
            at=mapping,
            field="on_failure",
            message=(
                f"Event source mapping {mapping.resource} reads {SERVICES[service].format(named(source))} without an "
                f"on-failure destination: {_fate(mapping, service)}; set {term(mapping, 'on_failure')} to an SQS "
                f"queue, SNS topic or S3 bucket"
            ),
            related=tuple(related),
        ))
    return found


def _fate(mapping: EventSourceMapping, service: str) -> str:
    """What becomes of a record the function keeps failing on, by the mapping's limits."""
    retries, age = mapping.maximum_retry_attempts, mapping.maximum_record_age
    limits = (f"{term(mapping, 'maximum_retry_attempts')} {describe(retries)}, "
              f"{term(mapping, 'maximum_record_age')} {describe(age)}")
    unlimited = verdict(lambda r, a: r == -1 and a == -1, retries, age)
    if unlimited is True:
        return (f"with no limit on retries or record age ({limits}) a record the function keeps failing on blocks "
                f"its shard until it expires from the stream ({EXPIRES[service]}), and is then lost")
    if unlimited is False:
        return f"a record the function keeps failing on is discarded without trace once the limits are reached ({limits})"
    return f"a record the function keeps failing on blocks its shard while it is retried and is then lost ({limits})"


RULE = Rule(
    id="FL403",
    name="stream-mapping-without-failure-handling",
    severity=Severity.WARNING,
    summary="A Kinesis or DynamoDB stream mapping has no on-failure destination",
    check=check,
    doc=__doc__,
)
