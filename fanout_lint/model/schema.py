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
- ``events``: a string or a list of strings, as a tuple (an S3 notification's events);
- ``redrive``: a redrive policy document (dead-letter queue and ``maxReceiveCount``);
  ``redrive_target``: only the dead-letter queue of one (a subscription's);
- ``policy``: an IAM policy document reduced to statements; ``key_policy`` the same, but
  Known(None) when none is written (a KMS key then has AWS's default key policy);
- ``filter_policy``: an SNS filter policy reduced to what AWS's limits ask of it (a
  ``FilterShape``: keys, combinations, nested keys);
- ``dead_letter``: a setting that names a queue as where failures go, recorded as a
  ``DeadLetterUse`` of the graph, and read as a destination when the node has the field;
- ``at:<kind>``: the node a reference names, read as a destination is (so a finding can
  point at where it is written): a queue's KMS key, a function's role;
- ``destination``: a reference read as a value: Known(node id), Known(None) when the
  template proves it unset, Unknown when it cannot tell (an intrinsic around the
  setting, a ``dynamic`` block);
- ``written``: Known(False) when the template proves the setting (or block) absent,
  Known(True) when it writes it, else Unknown;
- ``mention:<role>``: references of a resource the graph does not model (an alarm's
  actions), recorded as ``Mention``s with the role (``model.nodes.PUBLISHES_ONLY``, ...);
- ``part``: read by another field's reader (a key of a document);
- ``named``: not read, only named in advice (a permission's ``SourceArn``).
"""

from __future__ import annotations

from dataclasses import dataclass

from fanout_lint.model.format import Format
from fanout_lint.model.nodes import (
    EXPORTS,
    PUBLISHES_ONLY,
    SUBSCRIBES,
    Bucket,
    EventRule,
    EventSourceMapping,
    EventTarget,
    Function,
    IamPolicy,
    InvokeConfig,
    Key,
    KeyGrant,
    KeyPolicy,
    LambdaPermission,
    Node,
    Notification,
    Pipe,
    PolicyAttachment,
    Queue,
    QueuePolicy,
    RecursionConfig,
    Role,
    RoleTarget,
    Stream,
    Subscription,
    Topic,
)

# The kinds a reference names: a ``ref:<kind>``, ``refs:<kind>`` or ``at:<kind>`` field
# (``ref:any``, ``refs:any``: a node of any kind), and what a literal name (no ARN or URL)
# is looked up as, among the physical names of the kinds that have a ``name`` field.
REFERENCED = ("queue", "topic", "function", "event_rule", "bucket", "key", "role")  # key, role: failure paths


@dataclass(frozen=True, eq=False, repr=False)
class Field:
    """One node field: where each format writes it, its default and its reader."""

    name: str  # the node's attribute
    cfn: str = ""  # property path; "" when CloudFormation has no such property
    tf: str = ""  # argument path; "" when Terraform has no such argument
    read: str = "text"
    default: str | None = None  # key of model.defaults.DEFAULTS
    unit: str = ""  # how messages measure it: "s"

    def path(self, format: Format) -> str:
        """The path in the names of ``format``'s resources (``Format.vocabulary``)."""
        return self.tf if format.vocabulary is Format.TERRAFORM else self.cfn

    def steps(self, format: Format) -> tuple[str, ...]:
        """The path as the keys a view follows (a document's key is one more step)."""
        return _steps(self.path(format))


def _steps(path: str) -> tuple[str, ...]:
    found = _STEPS.get(path)
    if found is None:
        found = _STEPS[path] = tuple(path.replace("/", ".").split("."))
    return found


# A pure function of a constant: the table's paths split once, not per resource.
_STEPS: dict[str, tuple[str, ...]] = {}


@dataclass(frozen=True, eq=False, repr=False)
class Items:
    """A list property whose items are nodes of their own (a topic's inline subscriptions).

    ``path`` is the CloudFormation list (dotted when nested), ``tf`` the Terraform
    block name (repeatable blocks: ``queue`` of ``aws_s3_bucket_notification``); each
    item is read with ``kind``'s paths, relative to the item. The node's id is
    ``<resource>.<path>[<index>]`` and findings name the resource.
    """

    path: str
    kind: "Kind"
    construct: str  # what the user wrote, for messages: "inline subscription"
    # The item node's field that names what holds it: the resource, or, when the resource
    # is no node of its own, the node its field of that name reads (a notification's bucket).
    parent: str = ""
    marks: tuple[tuple[str, object], ...] = ()  # fields every item node has: (("inline", True),)
    tf: str = ""

    def path_of(self, format: Format) -> str:
        return self.tf if format.vocabulary is Format.TERRAFORM else self.path


# Shapes of the topology view: names that each diagram format maps to its own syntax
# (``reports/dot.py``, ``reports/mermaid.py``), so a kind says how it looks once.
HEXAGON, CYLINDER, STADIUM, PARALLELOGRAM, SUBROUTINE, DASHED = (
    "hexagon", "cylinder", "stadium", "parallelogram", "subroutine", "dashed")
FLAG, HOUSE, FOLDER, BOX3D, BOLD_STADIUM, BOX, OCTAGON, TAB = (
    "flag", "house", "folder", "box3d", "bold-stadium", "box", "octagon", "tab")
SHAPES = (HEXAGON, CYLINDER, STADIUM, PARALLELOGRAM, SUBROUTINE, DASHED, FLAG, HOUSE, FOLDER, BOX3D, BOLD_STADIUM,
          BOX, OCTAGON, TAB)


@dataclass(frozen=True, eq=False, repr=False)
class Drawing:
    """How the topology view (``reports/topology.py``) shows a node of a kind."""

    view: str  # the view's name for the kind: a node's ``kind`` in ``graph --format json``
    title: str  # what it is called for humans, the first line under the node's name
    shape: str  # one of SHAPES
    always: bool = False  # drawn even when no edge and no finding reaches it
    connector: bool = False  # it sits between two resources: half a hop for ``--focus``


@dataclass(frozen=True, eq=False, repr=False)
class Kind:
    """One kind of node: its resource types in each format and its fields; how the
    topology view draws it; what the graph indexes its nodes by."""

    key: str  # "queue", as literal names are indexed and messages say
    node: type[Node] | None  # None: the resource only records dead-letter uses
    cfn_types: tuple[str, ...]
    tf_types: tuple[str, ...]
    fields: tuple[Field, ...]
    items: tuple[Items, ...] = ()
    marks: tuple[tuple[str, object], ...] = ()  # fields every node of the kind has: (("service", "kinesis"),)
    # None: not drawn; a finding on it is shown on what it governs (a queue policy's queues)
    drawing: Drawing | None = None
    # The graph keeps the nodes of the kind's class by the node ids each group of fields
    # names (``Graph.indexed``): (("topic",),) lists a topic's subscriptions.
    indexes: tuple[tuple[str, ...], ...] = ()

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
    Field("kms_key", "KmsMasterKeyId", "kms_master_key_id", "at:key"),
    Field("content_based_deduplication", "ContentBasedDeduplication", "content_based_deduplication", "bool",
          "queue.content_based_deduplication"),
    # -- FIFO high throughput (FL005) --
    Field("deduplication_scope", "DeduplicationScope", "deduplication_scope", "text", "queue.deduplication_scope"),
    Field("fifo_throughput_limit", "FifoThroughputLimit", "fifo_throughput_limit", "text",
          "queue.fifo_throughput_limit"),
), drawing=Drawing("queue", "SQS queue", CYLINDER, always=True), indexes=(("redrive",),))

SUBSCRIPTION = Kind("subscription", Subscription, ("AWS::SNS::Subscription",), ("aws_sns_topic_subscription",), (
    Field("topic", "TopicArn", "topic_arn", "ref:topic"),
    Field("protocol", "Protocol", "protocol"),
    Field("endpoint", "Endpoint", "endpoint", "endpoint"),
    Field("raw_message_delivery", "RawMessageDelivery", "raw_message_delivery", "bool",
          "subscription.raw_message_delivery"),
    Field("redrive_dlq", "RedrivePolicy", "redrive_policy", "redrive_target"),
    Field("filter_policy", "FilterPolicy", "filter_policy", "present"),
    # -- filter policies (FL006, FL007) --
    Field("filter_shape", "FilterPolicy", "filter_policy", "filter_policy"),
    Field("filter_scope", "FilterPolicyScope", "filter_policy_scope", "text", "subscription.filter_policy_scope"),
), drawing=Drawing("subscription", "subscription", STADIUM, always=True, connector=True),
   indexes=(("topic",), ("endpoint",), ("redrive_dlq",)))

TOPIC = Kind("topic", Topic, ("AWS::SNS::Topic",), ("aws_sns_topic",), (
    Field("name", "TopicName", "name"),
    Field("fifo", "FifoTopic", "fifo_topic", "bool", "topic.fifo"),
    Field("kms_master_key_id", "KmsMasterKeyId", "kms_master_key_id"),
    Field("kms_key", "KmsMasterKeyId", "kms_master_key_id", "at:key"),
), items=(Items("Subscription", SUBSCRIPTION, "inline subscription", "topic", (("inline", True),)),),
   drawing=Drawing("topic", "SNS topic", HEXAGON, always=True))

FUNCTION = Kind("function", Function, ("AWS::Lambda::Function",), ("aws_lambda_function",), (
    Field("name", "FunctionName", "function_name"),
    Field("timeout", "Timeout", "timeout", "int", "function.timeout", "s"),
    Field("dead_letter", "DeadLetterConfig.TargetArn", "dead_letter_config.target_arn", "dead_letter"),
    Field("reserved_concurrency", "ReservedConcurrentExecutions", "reserved_concurrent_executions", "int"),
    Field("role", "Role", "role", "at:role"),  # failure paths
    Field("recursive_loop", "RecursiveLoop", "", "text"),  # failure paths; Terraform: RECURSION_CONFIG
), drawing=Drawing("function", "Lambda function", SUBROUTINE))

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
    Field("maximum_retry_attempts", "MaximumRetryAttempts", "maximum_retry_attempts", "int",
          "mapping.maximum_retry_attempts"),
    Field("maximum_record_age", "MaximumRecordAgeInSeconds", "maximum_record_age_in_seconds", "int",
          "mapping.maximum_record_age", "s"),
    Field("bisect", "BisectBatchOnFunctionError", "bisect_batch_on_function_error", "bool", "mapping.bisect"),
    Field("maximum_concurrency", "ScalingConfig.MaximumConcurrency", "scaling_config.maximum_concurrency", "int"),
    Field("provisioned_pollers", "ProvisionedPollerConfig", "provisioned_poller_config", "written"),
    # Kafka (Amazon MSK or self-managed): only a Kafka mapping names topics
    Field("kafka_topics", "Topics", "topics", "written"),
    Field("self_managed_source", "SelfManagedEventSource", "self_managed_event_source", "written"),
    # an SQS mapping with filters deletes the messages they leave out (shared-queue)
    Field("filter_criteria", "FilterCriteria", "filter_criteria", "written"),
    # -- batching and provisioned mode (FL205, FL206) --
    Field("maximum_pollers", "ProvisionedPollerConfig.MaximumPollers", "provisioned_poller_config.maximum_pollers",
          "int", "mapping.maximum_pollers"),
), drawing=Drawing("mapping", "event source mapping", PARALLELOGRAM, always=True, connector=True),
   indexes=(("source",), ("function",)))

QUEUE_POLICY = Kind("queue_policy", QueuePolicy, ("AWS::SQS::QueuePolicy",), ("aws_sqs_queue_policy",), (
    Field("queues", "Queues", "queue_url", "refs:queue"),
    Field("statements", "PolicyDocument", "policy", "policy"),
), indexes=(("queues",),))

QUEUE_INLINE_POLICY = Kind("queue_policy", QueuePolicy, ("AWS::SQS::QueueInlinePolicy",), (), (
    Field("queues", "Queue", "", "refs:queue"),
    Field("statements", "PolicyDocument", "", "policy"),
), indexes=(("queues",),))

PERMISSION = Kind("permission", LambdaPermission, ("AWS::Lambda::Permission",), ("aws_lambda_permission",), (
    Field("function", "FunctionName", "function_name", "ref:function"),
    Field("principal", "Principal", "principal"),
    Field("action", "Action", "action"),
    Field("source_arn", "SourceArn", "source_arn", "named"),
), indexes=(("function",),))

RECURSION_CONFIG = Kind("recursion_config", RecursionConfig, (), ("aws_lambda_function_recursion_config",), (
    Field("function", "", "function_name", "ref:function"),
    Field("recursive_loop", "", "recursive_loop", "text"),
), indexes=(("function",),))
INVOKE_CONFIG = Kind("invoke_config", InvokeConfig, ("AWS::Lambda::EventInvokeConfig",),
                     ("aws_lambda_function_event_invoke_config",), (
    Field("function", "FunctionName", "function_name", "ref:function"),
    Field("qualifier", "Qualifier", "qualifier"),
    Field("on_failure", "DestinationConfig.OnFailure.Destination", "destination_config.on_failure.destination",
          "dead_letter"),
    Field("on_success", "DestinationConfig.OnSuccess.Destination", "destination_config.on_success.destination",
          "destination"),
    Field("maximum_retry_attempts", "MaximumRetryAttempts", "maximum_retry_attempts", "int",
          "invoke.maximum_retry_attempts"),
    Field("maximum_event_age", "MaximumEventAgeInSeconds", "maximum_event_age_in_seconds", "int",
          "invoke.maximum_event_age", "s"),
), indexes=(("function",),))

# An EventBridge rule's target: an item of AWS::Events::Rule.Targets, or a resource of its own.
EVENT_TARGET = Kind("event_target", EventTarget, (), ("aws_cloudwatch_event_target",), (
    Field("rule", "", "rule", "ref:event_rule"),
    Field("target", "Arn", "arn", "ref:any"),
    Field("dead_letter", "DeadLetterConfig.Arn", "dead_letter_config.arn", "dead_letter"),
    Field("role", "RoleArn", "role_arn"),
    Field("message_group", "SqsParameters.MessageGroupId", "sqs_target.message_group_id"),
    Field("retry_attempts", "RetryPolicy.MaximumRetryAttempts", "retry_policy.maximum_retry_attempts", "int",
          "event_target.retry_attempts"),
    Field("event_age", "RetryPolicy.MaximumEventAgeInSeconds", "retry_policy.maximum_event_age_in_seconds", "int",
          "event_target.event_age", "s"),
), drawing=Drawing("target", "EventBridge target", STADIUM, always=True, connector=True))

EVENT_RULE = Kind("event_rule", EventRule, ("AWS::Events::Rule",), ("aws_cloudwatch_event_rule",), (
    Field("name", "Name", "name"),
    Field("state", "State", "state", "text", "event_rule.state"),
    Field("enabled", "", "is_enabled", "bool"),
    Field("schedule", "ScheduleExpression", "schedule_expression"),
    Field("pattern", "EventPattern", "event_pattern", "written"),
), items=(Items("Targets", EVENT_TARGET, "EventBridge target", "rule"),),
   drawing=Drawing("rule", "EventBridge rule", FLAG, always=True))

# An EventBridge Scheduler schedule is its own target: it invokes with a role, and its
# default retry policy is not documented (so none is assumed).
SCHEDULE = Kind("schedule", EventTarget, ("AWS::Scheduler::Schedule",), ("aws_scheduler_schedule",), (
    Field("target", "Target.Arn", "target.arn", "ref:any"),
    Field("dead_letter", "Target.DeadLetterConfig.Arn", "target.dead_letter_config.arn", "dead_letter"),
    Field("role", "Target.RoleArn", "target.role_arn"),
    Field("retry_attempts", "Target.RetryPolicy.MaximumRetryAttempts", "target.retry_policy.maximum_retry_attempts",
          "int"),
    Field("event_age", "Target.RetryPolicy.MaximumEventAgeInSeconds",
          "target.retry_policy.maximum_event_age_in_seconds", "int", unit="s"),
    Field("state", "State", "state"),
    Field("schedule", "ScheduleExpression", "schedule_expression"),
), marks=(("scheduler", True),), drawing=Drawing("schedule", "EventBridge Scheduler schedule", HOUSE, always=True))

# What a stream mapping reads: the stream, its consumer, or the table whose stream it is.
KINESIS_STREAM = Kind("stream", Stream, ("AWS::Kinesis::Stream", "AWS::Kinesis::StreamConsumer"),
                      ("aws_kinesis_stream", "aws_kinesis_stream_consumer"), (), marks=(("service", "kinesis"),),
                      drawing=Drawing("stream", "Kinesis stream", BOX3D))
DYNAMODB_STREAM = Kind("stream", Stream, ("AWS::DynamoDB::Table", "AWS::DynamoDB::GlobalTable"),
                       ("aws_dynamodb_table",), (), marks=(("service", "dynamodb"),),
                       drawing=Drawing("stream", "DynamoDB stream", BOX3D))

# -- EventBridge Pipes --------------------------------------------------------
# A pipe reads its source as a mapping does and invokes its target with its role. A
# stream source's limits and dead-letter queue sit in a block per source service.
def _pipe_stream_fields(service: str, cfn_block: str, tf_block: str) -> tuple[Field, ...]:
    cfn, tf = f"SourceParameters.{cfn_block}", f"source_parameters.{tf_block}"
    return (
        Field(f"{service}_dead_letter", f"{cfn}.DeadLetterConfig.Arn", f"{tf}.dead_letter_config.arn", "dead_letter"),
        Field(f"{service}_maximum_retry_attempts", f"{cfn}.MaximumRetryAttempts", f"{tf}.maximum_retry_attempts",
              "int", "pipe.maximum_retry_attempts"),
        Field(f"{service}_maximum_record_age", f"{cfn}.MaximumRecordAgeInSeconds",
              f"{tf}.maximum_record_age_in_seconds", "int", "pipe.maximum_record_age", "s"),
    )


PIPE = Kind("pipe", Pipe, ("AWS::Pipes::Pipe",), ("aws_pipes_pipe",), (
    Field("name", "Name", "name"),
    Field("source", "Source", "source", "ref:queue"),
    Field("target", "Target", "target", "ref:any"),
    Field("role", "RoleArn", "role_arn"),
    Field("desired_state", "DesiredState", "desired_state"),
    Field("filter_criteria", "SourceParameters.FilterCriteria", "source_parameters.filter_criteria", "written"),
    *_pipe_stream_fields("kinesis", "KinesisStreamParameters", "kinesis_stream_parameters"),
    *_pipe_stream_fields("dynamodb", "DynamoDBStreamParameters", "dynamodb_stream_parameters"),
    Field("invocation_type", "TargetParameters.StepFunctionStateMachineParameters.InvocationType",
          "target_parameters.step_function_state_machine_parameters.invocation_type", "text",
          "pipe.invocation_type"),
), drawing=Drawing("pipe", "EventBridge pipe", BOLD_STADIUM, always=True, connector=True), indexes=(("source",),))
# -- end of EventBridge Pipes ---------------------------------------------------

# -- targets EventBridge reaches only through an execution role ---------------
def _service(title: str) -> Drawing:
    return Drawing("service", title, BOX)


STATE_MACHINE = Kind("state_machine", RoleTarget, ("AWS::StepFunctions::StateMachine",), ("aws_sfn_state_machine",), (
    Field("machine_type", "StateMachineType", "type", "text", "state_machine.type"),
), marks=(("service", "states"),), drawing=_service("Step Functions state machine"))
ROLE_TARGETS = (
    STATE_MACHINE,
    Kind("delivery_stream", RoleTarget, ("AWS::KinesisFirehose::DeliveryStream",),
         ("aws_kinesis_firehose_delivery_stream",), (), marks=(("service", "firehose"),),
         drawing=_service("Firehose delivery stream")),
    Kind("ecs_cluster", RoleTarget, ("AWS::ECS::Cluster",), ("aws_ecs_cluster",), (), marks=(("service", "ecs"),),
         drawing=_service("ECS cluster")),
    Kind("batch_job_queue", RoleTarget, ("AWS::Batch::JobQueue",), ("aws_batch_job_queue",), (),
         marks=(("service", "batch"),), drawing=_service("Batch job queue")),
    Kind("api_destination", RoleTarget, ("AWS::Events::ApiDestination",), ("aws_cloudwatch_event_api_destination",),
         (), marks=(("service", "api-destination"),), drawing=_service("API destination")),
)
# -- end of role targets ----------------------------------------------------------

# S3 event notifications, one node per destination: in CloudFormation the bucket's
# NotificationConfiguration lists, in Terraform the blocks of aws_s3_bucket_notification.
_NOTIFICATION = Drawing("notification", "S3 notification", STADIUM, always=True, connector=True)
S3_TO_QUEUE = Kind("notification", Notification, (), (), (Field("destination", "Queue", "queue_arn", "ref:queue"),),
                   drawing=_NOTIFICATION)
S3_TO_TOPIC = Kind("notification", Notification, (), (), (Field("destination", "Topic", "topic_arn", "ref:topic"),),
                   drawing=_NOTIFICATION)
S3_TO_FUNCTION = Kind("notification", Notification, (), (), (
    Field("destination", "Function", "lambda_function_arn", "ref:function"),
    # failure paths (recursive loops)
    Field("events", "Event", "events", "events"),
    Field("filter", "Filter", "", "written"),
    Field("filter_prefix", "", "filter_prefix", "written"),
    Field("filter_suffix", "", "filter_suffix", "written"),
), drawing=_NOTIFICATION)
_S3_NOTIFICATIONS = (
    Items("NotificationConfiguration.QueueConfigurations", S3_TO_QUEUE, "S3 notification", "bucket", tf="queue"),
    Items("NotificationConfiguration.TopicConfigurations", S3_TO_TOPIC, "S3 notification", "bucket", tf="topic"),
    Items("NotificationConfiguration.LambdaConfigurations", S3_TO_FUNCTION, "S3 notification", "bucket",
          tf="lambda_function"),
)
BUCKET = Kind("bucket", Bucket, ("AWS::S3::Bucket",), ("aws_s3_bucket",), (
    Field("name", "BucketName", "bucket"),
), items=_S3_NOTIFICATIONS, drawing=Drawing("bucket", "S3 bucket", FOLDER))
# The notification of a bucket the template does not create: Terraform's resource, and what
# the Serverless Framework's ``existing: true`` s3 event deploys (a custom resource that
# writes the bucket's notification configuration), which only that loader writes.
EXISTING_BUCKET_NOTIFICATION = "Serverless::S3::ExistingBucketNotification"
BUCKET_NOTIFICATION = Kind("bucket_notification", None, (EXISTING_BUCKET_NOTIFICATION,),
                           ("aws_s3_bucket_notification",), (
    Field("bucket", "BucketName", "bucket", "ref:bucket"),
), items=_S3_NOTIFICATIONS)


# -- KMS keys and their policies (failure-path rules) ---------------------------------
KEY = Kind("key", Key, ("AWS::KMS::Key",), ("aws_kms_key",), (
    Field("policy", "KeyPolicy", "policy", "key_policy"),
), drawing=Drawing("key", "KMS key", OCTAGON))
KEY_POLICY = Kind("key_policy", KeyPolicy, (), ("aws_kms_key_policy",), (
    Field("key", "", "key_id", "ref:key"),
    Field("statements", "", "policy", "key_policy"),
), indexes=(("key",),))
KEY_GRANT = Kind("key_grant", KeyGrant, (), ("aws_kms_grant",), (
    Field("key", "", "key_id", "ref:key"),
), indexes=(("key",),))
# IAM roles and the policies that give them permissions.
# A policy, inline or not, and an attachment are indexed by every role they name, in one
# index (``role`` or ``roles``, whichever the resource writes), in model order.
_BY_ROLES = (("role", "roles"),)
INLINE_POLICY = Kind("iam_policy", IamPolicy, (), (), (Field("statements", "PolicyDocument", "policy", "policy"),),
                     indexes=_BY_ROLES)
ROLE = Kind("role", Role, ("AWS::IAM::Role",), ("aws_iam_role",), (
    Field("managed", "ManagedPolicyArns", "managed_policy_arns", "refs:any"),
    Field("managed_arns", "ManagedPolicyArns", "managed_policy_arns", "strings"),
    Field("inline_written", "Policies", "inline_policy", "written"),
), items=(Items("Policies", INLINE_POLICY, "inline policy", "role", tf="inline_policy"),),
   drawing=Drawing("role", "IAM role", TAB))
IAM_POLICY = Kind("iam_policy", IamPolicy, ("AWS::IAM::Policy", "AWS::IAM::ManagedPolicy"), ("aws_iam_policy",), (
    Field("roles", "Roles", "", "refs:role"),
    Field("statements", "PolicyDocument", "policy", "policy"),
), indexes=_BY_ROLES)
ROLE_POLICY = Kind("iam_policy", IamPolicy, ("AWS::IAM::RolePolicy",), ("aws_iam_role_policy",), (
    Field("role", "RoleName", "role", "ref:role"),
    Field("statements", "PolicyDocument", "policy", "policy"),
), indexes=_BY_ROLES)
POLICY_ATTACHMENT = Kind("policy_attachment", PolicyAttachment, (),
                         ("aws_iam_role_policy_attachment", "aws_iam_policy_attachment"), (
    Field("role", "", "role", "ref:role"),
    Field("roles", "", "roles", "refs:role"),
    Field("policy", "", "policy_arn", "ref:any"),
), indexes=_BY_ROLES)
FAILURE_PATH_KINDS = (KEY, KEY_POLICY, KEY_GRANT, ROLE, IAM_POLICY, ROLE_POLICY, POLICY_ATTACHMENT)


# Resources the graph does not model that name a topic: producers that can publish to a
# topic but cannot send to a queue (so a topic with one queue behind them is no extra
# hop), subscribers that are no SNS subscription, and SSM parameters that publish an ARN.
def _mentions(role: str, cfn_types: tuple[str, ...], tf_types: tuple[str, ...],
              *paths: tuple[str, str]) -> Kind:
    key = "mention"
    return Kind(key, None, cfn_types, tf_types,
                tuple(Field(role, cfn, tf, f"mention:{role}") for cfn, tf in paths))


_ALARM_ACTIONS = (("AlarmActions", "alarm_actions"), ("OKActions", "ok_actions"),
                  ("InsufficientDataActions", "insufficient_data_actions"))
_EVENT_SUBSCRIPTION = (("SnsTopicArn", "sns_topic_arn"),)
MENTIONS = (
    _mentions(PUBLISHES_ONLY, ("AWS::CloudWatch::Alarm",), ("aws_cloudwatch_metric_alarm",), *_ALARM_ACTIONS),
    _mentions(PUBLISHES_ONLY, ("AWS::CloudWatch::CompositeAlarm",), ("aws_cloudwatch_composite_alarm",),
              *_ALARM_ACTIONS),
    _mentions(PUBLISHES_ONLY, ("AWS::CloudFormation::Stack",), ("aws_cloudformation_stack",),
              ("NotificationARNs", "notification_arns")),
    _mentions(PUBLISHES_ONLY, ("AWS::ServiceCatalog::CloudFormationProvisionedProduct",), (),
              ("NotificationArns", "")),
    _mentions(PUBLISHES_ONLY, ("AWS::RDS::EventSubscription",), ("aws_db_event_subscription",),
              ("SnsTopicArn", "sns_topic")),
    _mentions(PUBLISHES_ONLY,
              ("AWS::DMS::EventSubscription", "AWS::Redshift::EventSubscription", "AWS::DocDB::EventSubscription",
               "AWS::Neptune::EventSubscription"),
              ("aws_dms_event_subscription", "aws_redshift_event_subscription", "aws_docdb_event_subscription",
               "aws_neptune_event_subscription"),
              *_EVENT_SUBSCRIPTION),
    _mentions(PUBLISHES_ONLY, ("AWS::ElastiCache::CacheCluster", "AWS::ElastiCache::ReplicationGroup"),
              ("aws_elasticache_cluster", "aws_elasticache_replication_group"),
              ("NotificationTopicArn", "notification_topic_arn")),
    _mentions(PUBLISHES_ONLY, ("AWS::AutoScaling::AutoScalingGroup",), ("aws_autoscaling_notification",),
              ("NotificationConfigurations.TopicARN", "topic_arn")),
    _mentions(PUBLISHES_ONLY, ("AWS::Budgets::Budget",), ("aws_budgets_budget",),
              ("NotificationsWithSubscribers.Subscribers.Address", "notification.subscriber_sns_topic_arns")),
    _mentions(PUBLISHES_ONLY, ("AWS::CE::AnomalySubscription",), ("aws_ce_anomaly_subscription",),
              ("Subscribers.Address", "subscriber.address")),
    _mentions(PUBLISHES_ONLY, ("AWS::CodeStarNotifications::NotificationRule",),
              ("aws_codestarnotifications_notification_rule",), ("Targets.TargetAddress", "target.address")),
    _mentions(PUBLISHES_ONLY, ("AWS::Backup::BackupVault",), ("aws_backup_vault_notifications",),
              ("Notifications.SNSTopicArn", "sns_topic_arn")),
    _mentions(PUBLISHES_ONLY, ("AWS::Config::DeliveryChannel",), ("aws_config_delivery_channel",),
              ("SnsTopicARN", "sns_topic_arn")),
    _mentions(PUBLISHES_ONLY, ("AWS::CloudTrail::Trail",), ("aws_cloudtrail",), ("SnsTopicName", "sns_topic_name")),
    _mentions(PUBLISHES_ONLY, ("AWS::SES::ReceiptRule",), ("aws_ses_receipt_rule",),
              *((f"Rule.Actions.{action}.TopicArn", f"{block}.topic_arn") for action, block in (
                  ("SNSAction", "sns_action"), ("S3Action", "s3_action"), ("BounceAction", "bounce_action"),
                  ("LambdaAction", "lambda_action"), ("StopAction", "stop_action"),
                  ("WorkmailAction", "workmail_action")))),
    _mentions(PUBLISHES_ONLY, ("AWS::SES::ConfigurationSetEventDestination",), ("aws_ses_event_destination",),
              ("EventDestination.SnsDestination.TopicARN", "sns_destination.topic_arn")),
    _mentions(PUBLISHES_ONLY, (), ("aws_ses_identity_notification_topic",), ("", "topic_arn")),
    _mentions(PUBLISHES_ONLY, ("AWS::DevOpsGuru::NotificationChannel",), ("aws_devopsguru_notification_channel",),
              ("Config.Sns.TopicArn", "sns.topic_arn")),
    _mentions(PUBLISHES_ONLY, ("AWS::SSM::MaintenanceWindowTask",), ("aws_ssm_maintenance_window_task",),
              ("TaskInvocationParameters.MaintenanceWindowRunCommandParameters.NotificationConfig.NotificationArn",
               "task_invocation_parameters.run_command_parameters.notification_config.notification_arn")),
    _mentions(SUBSCRIBES,
              ("AWS::Chatbot::SlackChannelConfiguration", "AWS::Chatbot::MicrosoftTeamsChannelConfiguration"),
              ("aws_chatbot_slack_channel_configuration", "aws_chatbot_teams_channel_configuration"),
              ("SnsTopicArns", "sns_topic_arns")),
    _mentions(EXPORTS, ("AWS::SSM::Parameter",), ("aws_ssm_parameter",), ("Value", "value")),
)

# -- CloudWatch alarms on queue depth (FL106) --
# An alarm resource is a mention kind (its actions publish to topics); the builder also reads
# these settings of it, to record which queue's depth it watches (``WATCHES_DEPTH``).
@dataclass(frozen=True, eq=False, repr=False)
class DepthAlarm:
    """Where an alarm type writes its metric, namespace, dimensions and metric math."""

    metric: str
    namespace: str
    dimensions: str  # CloudFormation: a list of {Name, Value}; Terraform: a map of name to value
    math: str  # metric math (Metrics, metric_query): the queue cannot be told


DEPTH_METRIC = "ApproximateNumberOfMessagesVisible"
DEPTH_ALARMS: dict[str, DepthAlarm] = {
    "AWS::CloudWatch::Alarm": DepthAlarm("MetricName", "Namespace", "Dimensions", "Metrics"),
    "aws_cloudwatch_metric_alarm": DepthAlarm("metric_name", "namespace", "dimensions", "metric_query"),
}


KINDS: tuple[Kind, ...] = (
    TOPIC, QUEUE, SUBSCRIPTION, FUNCTION, MAPPING, QUEUE_POLICY, QUEUE_INLINE_POLICY, PERMISSION,
    INVOKE_CONFIG, RECURSION_CONFIG, EVENT_RULE, EVENT_TARGET, SCHEDULE, KINESIS_STREAM, DYNAMODB_STREAM,
    BUCKET, BUCKET_NOTIFICATION, S3_TO_QUEUE, S3_TO_TOPIC, S3_TO_FUNCTION, *MENTIONS,
    PIPE,
    *ROLE_TARGETS,
    *FAILURE_PATH_KINDS,
)

# Resources that stand for a function: a reference to one is a reference to the function.
ALIAS_TYPES = {
    "AWS::Lambda::Alias": "FunctionName",
    "AWS::Lambda::Version": "FunctionName",
    "aws_lambda_alias": "function_name",
}

# Resources that stand for a KMS key (failure paths): a queue encrypted with the alias is
# encrypted with its target key.
KEY_ALIAS_TYPES = {
    "AWS::KMS::Alias": "TargetKeyId",
    "aws_kms_alias": "target_key_id",
}

BY_TYPE: dict[str, Kind] = {t: kind for kind in KINDS for t in kind.cfn_types + kind.tf_types}
# Item nodes are typed "<resource type>.<list>" (AWS::S3::Bucket.NotificationConfiguration.
# QueueConfigurations): their kind says how their settings are named.
ITEM_TYPES: dict[str, Kind] = {
    f"{t}.{items.path_of(fmt)}": items.kind
    for kind in KINDS for items in kind.items
    for fmt, types in ((Format.CLOUDFORMATION, kind.cfn_types), (Format.TERRAFORM, kind.tf_types)) for t in types
    if items.path_of(fmt)
}
# The kind a node's messages speak of: the first kind that builds that node type.
BY_NODE: dict[type, Kind] = {}
for _kind in KINDS:
    if _kind.node is not None:
        BY_NODE.setdefault(_kind.node, _kind)
del _kind


# Every kind, item kinds included (an inline policy is built only as a role's item).
EVERY_KIND: tuple[Kind, ...] = tuple(dict.fromkeys(
    k for kind in KINDS for k in (kind, *(items.kind for items in kind.items))))
# What the graph indexes each node class by: the groups of fields its kinds list, once each.
INDEXES: dict[type, tuple[tuple[str, ...], ...]] = {}
for _kind in EVERY_KIND:
    if _kind.node is not None and _kind.indexes:
        INDEXES[_kind.node] = tuple(dict.fromkeys((*INDEXES.get(_kind.node, ()), *_kind.indexes)))
del _kind


def kind_of(node: Node) -> Kind | None:
    """The kind a node was built from (its resource type when known, else its class)."""
    return BY_TYPE.get(node.type) or ITEM_TYPES.get(node.type) or BY_NODE.get(type(node))


def own_kind(node: Node) -> Kind | None:
    """The kind that built the node: ``kind_of`` when that kind builds the node's class,
    else its class's first kind (a queue policy written as ``aws_sqs_queue``'s argument)."""
    kind = kind_of(node)
    return kind if kind is not None and kind.node is type(node) else BY_NODE.get(type(node))


def field_of(node: Node, name: str) -> Field | None:
    kind = kind_of(node)
    found = kind.field(name) if kind is not None else None
    if found is None and kind is not None and kind.node is not None:
        # An inline item (a topic's subscription) reads its fields with the item kind's paths.
        fallback = BY_NODE.get(type(node))
        found = fallback.field(name) if fallback is not None else None
    return found
