"""The one mapping from template resources to graph nodes, for every format.

Each node kind lists its fields once: the CloudFormation property path, the Terraform
argument path, the AWS default from ``defaults.py`` when the property is absent, and how
the value is read. The CloudFormation, SAM, CDK, Terraform HCL and plan loaders all
build nodes by interpreting this table (``loaders/build.py``), so the formats cannot
drift apart, and rules name a setting the way the user writes it by asking the same
table (``vocabulary.py``), never by spelling a property name.

Paths are dotted (``DeadLetterConfig.TargetArn``, ``dead_letter_config.target_arn``:
nested properties, or nested blocks in Terraform). A ``/`` separates a key inside a
JSON document held by a property (``RedrivePolicy/maxReceiveCount``): such a key is
read by the reader of its document and is listed here for its name.

Readers (how a value is read; the builder implements each once):

- ``int``, ``bool``, ``text``: a plain value, coerced; ``strings``: a list of strings;
- ``ref:<kind>``: the node a reference points at (an ARN, ``Ref``, ``aws_x.y.arn``),
  ``refs:<kind>`` every node a list or a ``for_each`` may point at;
- ``endpoint``: a subscription's endpoint, whose kind its protocol decides;
- ``present``: whether the property is written at all (a filter policy);
- ``redrive``: a redrive policy document (dead-letter queue and ``maxReceiveCount``);
  ``redrive_target``: only the dead-letter queue of one (a subscription's);
- ``policy``: an IAM policy document reduced to statements;
- ``dead_letter``: a setting that names a queue as where failures go, recorded as a
  ``DeadLetterUse`` of the graph rather than a field;
- ``part``: read by another field's reader (a key of a document);
- ``named``: not read, only named in advice (a permission's ``SourceArn``).
"""

from __future__ import annotations

from dataclasses import dataclass

from fanout_lint.model.nodes import (
    EventSourceMapping,
    Function,
    LambdaPermission,
    Node,
    Queue,
    QueuePolicy,
    Subscription,
    Topic,
)


@dataclass(frozen=True)
class Field:
    """One node field: where each format writes it, its default and its reader."""

    name: str  # the node's attribute
    cfn: str = ""  # property path; "" when CloudFormation has no such property
    tf: str = ""  # argument path; "" when Terraform has no such argument
    read: str = "text"
    default: str | None = None  # key of model.defaults.DEFAULTS
    unit: str = ""  # how messages measure it: "s"

    def path(self, format: str) -> str:
        return self.cfn if format == "cloudformation" else self.tf

    def steps(self, format: str) -> tuple[str, ...]:
        """The path as the keys a view follows (a document's key is one more step)."""
        return _steps(self.path(format))


def _steps(path: str) -> tuple[str, ...]:
    found = _STEPS.get(path)
    if found is None:
        found = _STEPS[path] = tuple(path.replace("/", ".").split("."))
    return found


# A pure function of a constant: the table's paths split once, not per resource.
_STEPS: dict[str, tuple[str, ...]] = {}


@dataclass(frozen=True)
class Items:
    """A list property whose items are nodes of their own (a topic's inline subscriptions).

    Each item is read with ``kind``'s CloudFormation paths, relative to the item; the
    node's id is ``<resource>.<path>[<index>]`` and findings name the resource.
    """

    path: str
    kind: "Kind"
    construct: str  # what the user wrote, for messages: "inline subscription"
    parent: str = ""  # the item node's field that names the resource holding it
    marks: tuple[tuple[str, object], ...] = ()  # fields every item node has: (("inline", True),)


@dataclass(frozen=True)
class Kind:
    """One kind of node: its resource types in each format and its fields."""

    key: str  # "queue", as literal names are indexed and messages say
    node: type[Node] | None  # None: the resource only records dead-letter uses
    cfn_types: tuple[str, ...]
    tf_types: tuple[str, ...]
    fields: tuple[Field, ...]
    items: tuple[Items, ...] = ()

    def field(self, name: str) -> Field | None:
        for field in self.fields:
            if field.name == name:
                return field
        return None


QUEUE = Kind("queue", Queue, ("AWS::SQS::Queue",), ("aws_sqs_queue",), (
    Field("name", "QueueName", "name"),
    Field("fifo", "FifoQueue", "fifo_queue", "bool", "queue.fifo"),
    Field("visibility_timeout", "VisibilityTimeout", "visibility_timeout_seconds", "int",
          "queue.visibility_timeout", "s"),
    Field("message_retention", "MessageRetentionPeriod", "message_retention_seconds", "int",
          "queue.message_retention", "s"),
    Field("redrive", "RedrivePolicy", "redrive_policy", "redrive"),
    Field("max_receive_count", "RedrivePolicy/maxReceiveCount", "redrive_policy/maxReceiveCount", "part",
          "redrive.max_receive_count"),
    Field("dead_letter_target", "RedrivePolicy/deadLetterTargetArn", "redrive_policy/deadLetterTargetArn",
          "part"),
    Field("kms_master_key_id", "KmsMasterKeyId", "kms_master_key_id"),
))

SUBSCRIPTION = Kind("subscription", Subscription, ("AWS::SNS::Subscription",), ("aws_sns_topic_subscription",), (
    Field("topic", "TopicArn", "topic_arn", "ref:topic"),
    Field("protocol", "Protocol", "protocol"),
    Field("endpoint", "Endpoint", "endpoint", "endpoint"),
    Field("raw_message_delivery", "RawMessageDelivery", "raw_message_delivery", "bool",
          "subscription.raw_message_delivery"),
    Field("redrive_dlq", "RedrivePolicy", "redrive_policy", "redrive_target"),
    Field("filter_policy", "FilterPolicy", "filter_policy", "present"),
))

TOPIC = Kind("topic", Topic, ("AWS::SNS::Topic",), ("aws_sns_topic",), (
    Field("name", "TopicName", "name"),
    Field("fifo", "FifoTopic", "fifo_topic", "bool", "topic.fifo"),
    Field("kms_master_key_id", "KmsMasterKeyId", "kms_master_key_id"),
), items=(Items("Subscription", SUBSCRIPTION, "inline subscription", "topic", (("inline", True),)),))

FUNCTION = Kind("function", Function, ("AWS::Lambda::Function",), ("aws_lambda_function",), (
    Field("name", "FunctionName", "function_name"),
    Field("timeout", "Timeout", "timeout", "int", "function.timeout", "s"),
    Field("dead_letter", "DeadLetterConfig.TargetArn", "dead_letter_config.target_arn", "dead_letter"),
))

MAPPING = Kind("mapping", EventSourceMapping, ("AWS::Lambda::EventSourceMapping",),
               ("aws_lambda_event_source_mapping",), (
    Field("source", "EventSourceArn", "event_source_arn", "ref:queue"),
    Field("function", "FunctionName", "function_name", "ref:function"),
    Field("batch_size", "BatchSize", "batch_size", "int", "mapping.batch_size"),
    Field("batching_window", "MaximumBatchingWindowInSeconds", "maximum_batching_window_in_seconds", "int",
          "mapping.batching_window", "s"),
    Field("response_types", "FunctionResponseTypes", "function_response_types", "strings",
          "mapping.response_types"),
    Field("enabled", "Enabled", "enabled", "bool", "mapping.enabled"),
    Field("on_failure", "DestinationConfig.OnFailure.Destination", "destination_config.on_failure.destination_arn",
          "dead_letter"),
))

QUEUE_POLICY = Kind("queue_policy", QueuePolicy, ("AWS::SQS::QueuePolicy",), ("aws_sqs_queue_policy",), (
    Field("queues", "Queues", "queue_url", "refs:queue"),
    Field("statements", "PolicyDocument", "policy", "policy"),
))

QUEUE_INLINE_POLICY = Kind("queue_policy", QueuePolicy, ("AWS::SQS::QueueInlinePolicy",), (), (
    Field("queues", "Queue", "", "refs:queue"),
    Field("statements", "PolicyDocument", "", "policy"),
))

PERMISSION = Kind("permission", LambdaPermission, ("AWS::Lambda::Permission",), ("aws_lambda_permission",), (
    Field("function", "FunctionName", "function_name", "ref:function"),
    Field("principal", "Principal", "principal"),
    Field("action", "Action", "action"),
    Field("source_arn", "SourceArn", "source_arn", "named"),
))

INVOKE_CONFIG = Kind("invoke_config", None, ("AWS::Lambda::EventInvokeConfig",),
                     ("aws_lambda_function_event_invoke_config",), (
    Field("on_failure", "DestinationConfig.OnFailure.Destination", "destination_config.on_failure.destination",
          "dead_letter"),
))

EVENT_TARGET = Kind("event_target", None, (), ("aws_cloudwatch_event_target",), (
    Field("dead_letter", "DeadLetterConfig.Arn", "dead_letter_config.arn", "dead_letter"),
))

EVENT_RULE = Kind("event_rule", None, ("AWS::Events::Rule",), (), (),
                  items=(Items("Targets", EVENT_TARGET, "EventBridge target"),))

SCHEDULE = Kind("schedule", None, ("AWS::Scheduler::Schedule",), ("aws_scheduler_schedule",), (
    Field("dead_letter", "Target.DeadLetterConfig.Arn", "target.dead_letter_config.arn", "dead_letter"),
))

KINDS: tuple[Kind, ...] = (
    TOPIC, QUEUE, SUBSCRIPTION, FUNCTION, MAPPING, QUEUE_POLICY, QUEUE_INLINE_POLICY, PERMISSION,
    INVOKE_CONFIG, EVENT_RULE, EVENT_TARGET, SCHEDULE,
)

# Resources that stand for a function: a reference to one is a reference to the function.
ALIAS_TYPES = {
    "AWS::Lambda::Alias": "FunctionName",
    "AWS::Lambda::Version": "FunctionName",
    "aws_lambda_alias": "function_name",
}

BY_TYPE: dict[str, Kind] = {t: kind for kind in KINDS for t in kind.cfn_types + kind.tf_types}
# The kind a node's messages speak of: the first kind that builds that node type.
BY_NODE: dict[type, Kind] = {}
for _kind in KINDS:
    if _kind.node is not None:
        BY_NODE.setdefault(_kind.node, _kind)
del _kind


def kind_of(node: Node) -> Kind | None:
    """The kind a node was built from (its resource type when known, else its class)."""
    return BY_TYPE.get(node.type) or BY_NODE.get(type(node))


def field_of(node: Node, name: str) -> Field | None:
    kind = kind_of(node)
    found = kind.field(name) if kind is not None else None
    if found is None and kind is not None and kind.node is not None:
        # An inline item (a topic's subscription) reads its fields with the item kind's paths.
        fallback = BY_NODE.get(type(node))
        found = fallback.field(name) if fallback is not None else None
    return found
