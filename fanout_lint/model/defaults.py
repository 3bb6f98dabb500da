"""The one table of AWS defaults for absent properties.

Absent is knowledge, not ignorance: a queue without ``VisibilityTimeout`` has 30 s.
Every loader takes defaults from here, so CloudFormation and Terraform agree.
Sources are in docs/design.md and the AWS pages linked below.
"""

from __future__ import annotations

from dataclasses import dataclass

from fanout_lint.model.values import Known, default


@dataclass(frozen=True, eq=False, repr=False)
class Default:
    """An AWS default and the documentation that states it."""

    value: object
    source: str


DEFAULTS: dict[str, Default] = {
    # SQS CreateQueue attributes (botocore; CloudFormation AWS::SQS::Queue; Terraform
    # aws_sqs_queue uses the same values).
    "queue.visibility_timeout": Default(
        30,
        "https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_CreateQueue.html",
    ),
    "queue.message_retention": Default(
        345_600,
        "https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_CreateQueue.html",
    ),
    "queue.fifo": Default(
        False,
        "https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/aws-resource-sqs-queue.html",
    ),
    # maxReceiveCount inside a RedrivePolicy that omits it.
    "redrive.max_receive_count": Default(
        10,
        "https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_CreateQueue.html",
    ),
    "topic.fifo": Default(
        False,
        "https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/aws-resource-sns-topic.html",
    ),
    "subscription.raw_message_delivery": Default(
        False,
        "https://docs.aws.amazon.com/sns/latest/dg/sns-large-payload-raw-message-delivery.html",
    ),
    "function.timeout": Default(
        3, "https://docs.aws.amazon.com/lambda/latest/dg/configuration-timeout.html"
    ),
    # Event source mapping for SQS.
    "mapping.batch_size": Default(
        10, "https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-parameters.html"
    ),
    "mapping.batching_window": Default(
        0, "https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-parameters.html"
    ),
    # No FunctionResponseTypes: a batch fails or succeeds as a whole.
    "mapping.response_types": Default(
        (), "https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-errorhandling.html"
    ),
    "mapping.enabled": Default(
        True, "https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-parameters.html"
    ),
    "queue.content_based_deduplication": Default(
        False,
        "https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_CreateQueue.html",
    ),
    # Stream mappings (Kinesis, DynamoDB): -1 is "until the record expires" and "no age limit".
    "mapping.maximum_retry_attempts": Default(
        -1, "https://docs.aws.amazon.com/lambda/latest/api/API_CreateEventSourceMapping.html"
    ),
    "mapping.maximum_record_age": Default(
        -1, "https://docs.aws.amazon.com/lambda/latest/api/API_CreateEventSourceMapping.html"
    ),
    "mapping.bisect": Default(
        False, "https://docs.aws.amazon.com/lambda/latest/api/API_CreateEventSourceMapping.html"
    ),
    # Asynchronous invocation: two retries after a function error, events kept up to 6 hours.
    "invoke.maximum_retry_attempts": Default(
        2, "https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-error-handling.html"
    ),
    "invoke.maximum_event_age": Default(
        21_600, "https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-error-handling.html"
    ),
    # EventBridge rule targets: retried for 24 hours and up to 185 times (not Scheduler's).
    "event_target.retry_attempts": Default(
        185, "https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-rule-retry-policy.html"
    ),
    "event_target.event_age": Default(
        86_400, "https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-rule-retry-policy.html"
    ),
    "event_rule.state": Default(
        "ENABLED", "https://docs.aws.amazon.com/eventbridge/latest/APIReference/API_PutRule.html"
    ),
}


# Every default is an immutable scalar in an immutable Known, so one instance per key
# serves every absent property (loaders ask for about two defaults a resource).
_KNOWN_DEFAULTS: dict[str, Known] = {key: default(entry.value) for key, entry in DEFAULTS.items()}


def default_of(key: str) -> Known:
    """The default for ``key`` as a known value of origin 'default'."""
    return _KNOWN_DEFAULTS[key]
