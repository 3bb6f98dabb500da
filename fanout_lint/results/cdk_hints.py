"""Where to fix a finding on CDK output: the construct, and the construct property.

A template CDK synthesised is never edited: the fix goes into the CDK app. Its resources
carry their construct path (``aws:cdk:path``: ``Stack/Jobs/Resource``, the ``Resource``
being the L1 an L2 construct wraps); the message names the construct, and the property
of the L2 construct that sets the CloudFormation property, where one is well known. The
table is small and deliberately partial: a property not in it is not guessed.
"""

from __future__ import annotations

from fanout_lint.model.format import Format
from fanout_lint.model.nodes import Node
from fanout_lint.model.schema import field_of

# CloudFormation property (its first segment) -> the CDK construct property that sets it
CDK_PROPERTIES = {
    "VisibilityTimeout": "visibilityTimeout",  # sqs.Queue
    "MessageRetentionPeriod": "retentionPeriod",  # sqs.Queue
    "RedrivePolicy": "deadLetterQueue",  # sqs.Queue, sns subscriptions
    "KmsMasterKeyId": "encryptionMasterKey",  # sqs.Queue, sns.Topic (masterKey)
    "RawMessageDelivery": "rawMessageDelivery",  # subscriptions.SqsSubscription
    "FunctionResponseTypes": "reportBatchItemFailures",  # SqsEventSource, EventSourceMapping
    "MaximumBatchingWindowInSeconds": "maxBatchingWindow",
    "BatchSize": "batchSize",
    "DestinationConfig": "onFailure",  # stream event sources
    "Timeout": "timeout",  # lambda.Function
    "ReservedConcurrentExecutions": "reservedConcurrentExecutions",
    "DeadLetterConfig": "deadLetterQueue",  # lambda.Function
}
# where one construct names the property its own way
BY_KIND = {("Topic", "KmsMasterKeyId"): "masterKey"}
_L1 = "/Resource"


def construct_of(cdk_path: str) -> str:
    """The construct to change: the L2 that wraps the ``Resource`` L1, else the path."""
    return cdk_path[: -len(_L1)] if cdk_path.endswith(_L1) and len(cdk_path) > len(_L1) else cdk_path


def cdk_property(node: Node, field_name: str | None) -> str | None:
    """The CDK property that sets the finding's setting, when the table knows it."""
    if not field_name or getattr(node, "inline", False):
        return None  # an inline item (a topic's subscription) is no construct of its own
    field = field_of(node, field_name)
    path = field.path(Format.CLOUDFORMATION) if field is not None else None
    if not path:
        return None
    key = path.split(".", 1)[0].split("[", 1)[0]
    return BY_KIND.get((type(node).__name__, key)) or CDK_PROPERTIES.get(key)


def where_in_cdk(node: Node, field_name: str | None) -> str:
    """The sentence a finding on CDK output ends with ("" for any other)."""
    if not node.cdk_path:
        return ""
    construct = construct_of(node.cdk_path)
    prop = cdk_property(node, field_name)
    return f"; in the CDK app: {prop} of {construct}" if prop else f"; in the CDK app: {construct}"
