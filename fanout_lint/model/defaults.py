"""The one table of AWS defaults for absent properties.

Absent is knowledge, not ignorance: a queue without ``VisibilityTimeout`` has 30 s.
Every loader takes defaults from here, so CloudFormation and Terraform agree.
Sources are in docs/design.md and the AWS pages linked below.

The same keys name the range AWS accepts for each whole-number setting (``BOUNDS``): a
value outside it is unknown, not known, since AWS refuses it and the template then proves
nothing about what is deployed.
"""

from __future__ import annotations

from dataclasses import dataclass

from fanout_lint.model.values import Known, Value, default, within


@dataclass(frozen=True, eq=False, repr=False)
class Default:
    """An AWS default and the documentation that states it."""

    value: object
    source: str


_PIPES_KINESIS = ("https://docs.aws.amazon.com/eventbridge/latest/pipes-reference/"
                  "API_PipeSourceKinesisStreamParameters.html")

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
    # FIFO queues: deduplication over the whole queue and its throughput quota per queue
    # unless high throughput is configured (both settings apply to FIFO queues only).
    "queue.deduplication_scope": Default(
        "queue", "https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_CreateQueue.html"
    ),
    "queue.fifo_throughput_limit": Default(
        "perQueue", "https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_CreateQueue.html"
    ),
    # SNS subscription filter policies apply to message attributes unless told otherwise.
    "subscription.filter_policy_scope": Default(
        "MessageAttributes", "https://docs.aws.amazon.com/sns/latest/dg/subscription-filter-policy-constraints.html"
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
    # Provisioned mode of an SQS mapping: "For Amazon SQS event source mappings, ... a default of 200".
    "mapping.maximum_pollers": Default(
        200, "https://docs.aws.amazon.com/lambda/latest/api/API_ProvisionedPollerConfig.html"
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
    # EventBridge Pipes stream sources (Kinesis, DynamoDB): -1 is "until the record
    # expires in the source" and "never discards old records", as for a Lambda mapping.
    "pipe.maximum_retry_attempts": Default(-1, _PIPES_KINESIS),
    "pipe.maximum_record_age": Default(-1, _PIPES_KINESIS),
    # A state machine is STANDARD unless it says EXPRESS; a pipe invokes one synchronously
    # unless told otherwise.
    "state_machine.type": Default(
        "STANDARD", "https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/aws-resource-stepfunctions-statemachine.html"
    ),
    "pipe.invocation_type": Default(
        "REQUEST_RESPONSE",
        "https://docs.aws.amazon.com/eventbridge/latest/pipes-reference/API_PipeTargetStateMachineParameters.html",
    ),
}


# Every default is an immutable scalar in an immutable Known, so one instance per key
# serves every absent property (loaders ask for about two defaults a resource).
_KNOWN_DEFAULTS: dict[str, Known] = {key: default(entry.value) for key, entry in DEFAULTS.items()}


def default_of(key: str) -> Known:
    """The default for ``key`` as a known value of origin 'default'."""
    return _KNOWN_DEFAULTS[key]


@dataclass(frozen=True, eq=False, repr=False)
class Bound:
    """The whole numbers AWS accepts for a setting, and the documentation that states it."""

    low: int
    high: int
    source: str


_LAMBDA_MAPPING = "https://docs.aws.amazon.com/lambda/latest/api/API_CreateEventSourceMapping.html"
_LAMBDA_INVOKE = "https://docs.aws.amazon.com/lambda/latest/api/API_PutFunctionEventInvokeConfig.html"
_SQS_ATTRIBUTES = "https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SetQueueAttributes.html"
_EVENTS_RETRY = "https://docs.aws.amazon.com/eventbridge/latest/APIReference/API_RetryPolicy.html"
_SQS_DLQ = ("https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/"
            "sqs-configure-dead-letter-queue.html")

BOUNDS: dict[str, Bound] = {
    "queue.visibility_timeout": Bound(0, 43_200, _SQS_ATTRIBUTES),
    "queue.message_retention": Bound(60, 1_209_600, _SQS_ATTRIBUTES),
    "redrive.max_receive_count": Bound(1, 1_000, _SQS_DLQ),
    "function.timeout": Bound(1, 900, "https://docs.aws.amazon.com/lambda/latest/dg/configuration-timeout.html"),
    "mapping.batch_size": Bound(1, 10_000, _LAMBDA_MAPPING),
    "mapping.batching_window": Bound(0, 300, _LAMBDA_MAPPING),
    "mapping.maximum_retry_attempts": Bound(-1, 10_000, _LAMBDA_MAPPING),
    "mapping.maximum_record_age": Bound(-1, 604_800, _LAMBDA_MAPPING),
    "mapping.maximum_pollers": Bound(1, 10_000, "https://docs.aws.amazon.com/lambda/latest/api/API_ProvisionedPollerConfig.html"),
    "invoke.maximum_retry_attempts": Bound(0, 2, _LAMBDA_INVOKE),
    "invoke.maximum_event_age": Bound(60, 21_600, _LAMBDA_INVOKE),
    "event_target.retry_attempts": Bound(0, 185, _EVENTS_RETRY),
    "event_target.event_age": Bound(60, 86_400, _EVENTS_RETRY),
    "pipe.maximum_retry_attempts": Bound(-1, 10_000, _PIPES_KINESIS),
    "pipe.maximum_record_age": Bound(-1, 604_800, _PIPES_KINESIS),
}

# Any other whole-number setting (reserved concurrency, a mapping's maximum concurrency):
# AWS's APIs take them as 32-bit integers.
ANY_INTEGER = Bound(-(2**31), 2**31 - 1, "https://smithy.io/2.0/spec/simple-types.html#integer")


def bound_of(key: str | None) -> Bound:
    """The range of the setting whose default (or bound) is ``key``; 32 bits for any other."""
    return BOUNDS.get(key, ANY_INTEGER) if key else ANY_INTEGER


def bounded(value: Value, key: str | None) -> Value:
    """``value``, or unknown where it may lie outside the setting's range (``BOUNDS``)."""
    bound = bound_of(key)
    return within(value, bound.low, bound.high)
