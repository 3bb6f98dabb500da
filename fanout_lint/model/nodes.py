"""The nodes of the resource graph: small dataclasses, one per kind of resource.

Every node has a stable ``id`` (CloudFormation logical ID, SAM-generated logical ID,
Terraform address), the ``resource`` a finding names (the same as ``id`` except for
inline topic subscriptions, which are reported on their topic) and a source location.

References between resources are node ids. A reference the loader cannot follow inside
the unit (an import, a parameter, a registry module output) points to an ``External``
node, so rules can tell "outside the template" from "absent".
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fanout_lint.model.format import Format
from fanout_lint.model.record import ValueRecord
from fanout_lint.model.values import Known, Unknown, Value

NONE = Known(None)  # an absent optional setting (no DLQ, no KMS key, ...)


# Every dataclass here has a docstring: without one, dataclass() makes one from
# inspect.signature, about a fifth of the cost of defining the class, paid at every start.

# Loc and the values are made hundreds of thousands of times a run: they are slotted
# dataclasses, hashable and compared by value (ValueRecord, model/record.py), and never
# changed once made. No record here is declared frozen (docs/design.md, "Performance"):
# that would cost two more compiled methods at every start, and three times as much to
# make one.
@dataclass(slots=True, eq=False, repr=False)
class Loc(ValueRecord):
    """Where something is written: a start point, and the end of its span when known.

    Lines and columns are 1-based; columns count characters (Unicode code points). The
    end column is exclusive, the column just after the last character, as in SARIF.
    ``end_line`` 0 means the location is a point.
    """

    file: str
    line: int
    column: int = 1
    end_line: int = 0
    end_column: int = 0

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"

    @property
    def has_end(self) -> bool:
        return self.end_line > 0

    def start(self) -> "Loc":
        """The start point alone (what an end-less location compares equal to)."""
        return Loc(self.file, self.line, self.column) if self.end_line else self


@dataclass(eq=False, repr=False)
class Suppression(ValueRecord):
    """An inline ``ignore`` written on a resource (CloudFormation Metadata, TF comment)."""

    rule: str  # ID or name, as written
    reason: str = ""
    until: str | None = None  # ISO date after which it no longer suppresses
    loc: Loc | None = None
    syntax: str = "metadata"  # "metadata" (CloudFormation) or "comment" (Terraform): how hints spell it


@dataclass(eq=False, repr=False)
class Written(ValueRecord):
    """How a resource is written: the vocabulary its settings are named in, and what the
    source can set.

    Plain resources share one instance per format. A construct that generates resources
    (a SAM event, SAM's ``SqsSubscription``, a topic's inline ``Subscription``) names some
    settings its own way and cannot express others; the loader that knows the construct
    says so here, so a rule can tell the user what to write without knowing SAM.
    """

    format: Format  # CLOUDFORMATION or TERRAFORM: whose property names the messages use
    construct: str = ""  # what the user wrote, when not a plain resource: "SAM SQS event"
    transform: bool = False  # made by a transform (SAM): the topology view says "from <construct>"
    generated: bool = False  # output of a tool (CDK, a plan): fixes go to the tool's source, never here
    names: tuple[tuple[str, str], ...] = ()  # (field, how the construct names it)
    fixed: tuple[tuple[str, str], ...] = ()  # (field, why it cannot be set here and what to do instead)
    # The service the construct proves its source is, where the resource alone may not
    # (a SAM or Serverless SQS event reads a queue, whatever its ARN resolves to): "sqs".
    source: str = ""
    # Where the construct is written in its source, when findings should say it beside the
    # resource's name (a Serverless event: "functions.send-email.events[0].sqs").
    where: str = ""

    def name_of(self, field_name: str) -> str | None:
        return next((name for key, name in self.names if key == field_name), None)

    def why_fixed(self, field_name: str) -> str | None:
        """Why the source cannot set the field, or None when it can."""
        return next((why for key, why in self.fixed if key in (field_name, "*")), None)


CLOUDFORMATION = Written(Format.CLOUDFORMATION)
TERRAFORM = Written(Format.TERRAFORM)


class Body:
    """Where a new setting of a node is written: its insertion point.

    ``loc`` spans the container that holds the node's settings (a resource's
    ``Properties`` mapping, a Terraform block, an object inside ``jsonencode``), in the
    file's ``syntax`` (yaml, json, hcl). ``path`` lists the keys a fix must create first
    (``("Properties",)`` for a resource written without properties). The span is made
    when a fix asks for it, from the parsed container (``where``, anything with a
    ``body()``) or given as a ``Loc``: most nodes are never fixed.
    """

    __slots__ = ("_where", "syntax", "path")

    def __init__(self, where, syntax: str, path: tuple[str, ...] = ()):
        self._where = where
        self.syntax = syntax
        self.path = path

    @property
    def loc(self) -> "Loc | None":
        return self._where if isinstance(self._where, Loc) or self._where is None else self._where.body()

    def __repr__(self) -> str:
        return f"Body({self.loc!r}, {self.syntax!r}, {self.path!r})"


# Nodes, like locations and values, are made for every resource of every unit: slotted
# dataclasses, never changed once made. A graph holds each node once, so nodes compare
# and hash by identity: no __eq__ or __hash__ is generated for them, nor a __repr__ per
# kind (Node's serves all): each generated method is a compilation at every start.
@dataclass(slots=True, kw_only=True, eq=False, repr=False)
class Node:
    """What every node has: identity, location, vocabulary and suppressions."""

    id: str
    loc: Loc
    resource: str = ""  # what findings name; defaults to id
    type: str = ""  # the source type: AWS::SQS::Queue, aws_sqs_queue, ...
    written: Written = CLOUDFORMATION
    body: Body | None = None
    cdk_path: str | None = None
    suppressions: tuple[Suppression, ...] = ()
    condition: str | None = None  # CloudFormation Condition: the resource exists only when it holds
    # Stands for several instances (Terraform count/for_each, here or on an enclosing module
    # call): two references to it may name two instances, so a count of distinct
    # referrers (subscribers, consumers, source queues) proves nothing.
    multi_instance: bool = False
    # The prefix of the id when the unit is linked with others into one graph ("" alone):
    # ids must not collide across stacks, while ``resource`` stays the logical ID.
    namespace: str = ""

    def __post_init__(self) -> None:
        if not self.resource:
            self.resource = self.id

    def __repr__(self) -> str:
        # one short repr for every kind: a generated one per kind costs a compilation at
        # every start, and would print the whole node (all its values) anyway
        return f"{type(self).__name__}({self.id!r})"

    @property
    def local_id(self) -> str:
        """The id inside its own unit: what ``resource`` is compared with."""
        return self.id[len(self.namespace):] if self.namespace else self.id

    def local(self, node_id: str | None) -> str | None:
        """Another node id of the same unit, inside that unit (see ``local_id``)."""
        if node_id and self.namespace and node_id.startswith(self.namespace):
            return node_id[len(self.namespace):]
        return node_id


@dataclass(slots=True, kw_only=True, eq=False, repr=False)
class External(Node):
    """Something outside the unit: an import, a parameter, a module output, a literal ARN."""

    label: str = ""


# Settings are Values (model/values.py). The builder sets every one from the schema,
# with the AWS default of model/defaults.py for an absent property, so none is defaulted
# here: UNREAD marks a setting no loader read (a node made by hand in a test).
UNREAD = Unknown("not read")


@dataclass(slots=True, kw_only=True, eq=False, repr=False)
class Topic(Node):
    """An SNS topic."""

    name: Value = UNREAD
    fifo: Value = UNREAD
    kms_master_key_id: Value = UNREAD
    kms_key: Value = UNREAD  # the key KmsMasterKeyId names, as a destination: Known(node id) / Known(None) / Unknown
    exported: bool = False  # other stacks or configurations may subscribe to it


@dataclass(eq=False, repr=False)
class Redrive(ValueRecord):
    """A queue's redrive policy: its dead-letter queue and receive count."""

    dlq: str  # node id of the dead-letter queue (possibly an External node)
    max_receive_count: Value
    # the policy as written: a Loc, or the value's site (its span is made when asked)
    where: object = field(default=None, compare=False, repr=False)
    body: Body | None = field(default=None, compare=False)  # where a key of the policy is added

    @property
    def loc(self) -> Loc | None:
        where = self.where
        return where if where is None or isinstance(where, Loc) else where.entry()


@dataclass(slots=True, kw_only=True, eq=False, repr=False)
class Queue(Node):
    """An SQS queue."""

    name: Value = UNREAD
    fifo: Value = UNREAD
    visibility_timeout: Value = UNREAD
    message_retention: Value = UNREAD
    redrive: Value = UNREAD  # Known(Redrive) / Known(None) / Unknown
    kms_master_key_id: Value = UNREAD
    kms_key: Value = UNREAD  # the key KmsMasterKeyId names, as a destination: Known(node id) / Known(None) / Unknown
    content_based_deduplication: Value = UNREAD
    # -- FIFO high throughput (FL005) --
    deduplication_scope: Value = UNREAD  # "queue" (default) or "messageGroup"
    fifo_throughput_limit: Value = UNREAD  # "perQueue" (default) or "perMessageGroupId"


@dataclass(slots=True, kw_only=True, eq=False, repr=False)
class Subscription(Node):
    """An SNS subscription (a resource, or an inline item of a topic)."""

    topic: str | None = None  # node id
    protocol: Value = UNREAD
    endpoint: str | None = None  # node id when the endpoint is a resource
    raw_message_delivery: Value = UNREAD
    redrive_dlq: Value = UNREAD  # Known(node id) / Known(None) / Unknown
    filter_policy: bool = False
    inline: bool = False  # declared in AWS::SNS::Topic.Subscription
    # -- filter policies (FL006, FL007) --
    filter_shape: Value = UNREAD  # Known(FilterShape) / Known(None) when none / Unknown
    filter_scope: Value = UNREAD  # FilterPolicyScope: "MessageAttributes" (default) or "MessageBody"


# Where the builder stops multiplying a filter policy's array lengths: far above AWS's limit
# of 150, and small enough that the number prints (a hostile policy's product would not).
COMBINATIONS_CAP = 10**9


@dataclass(eq=False, repr=False)
class FilterShape(ValueRecord):
    """What AWS's limits ask of an SNS filter policy (its keys, value arrays and nesting),
    read from the document by the builder."""

    keys: tuple[str, ...]  # the top-level keys
    combinations: int | None  # the product of the value arrays' lengths (at most COMBINATIONS_CAP); None: unknown
    nested: tuple[str, ...]  # top-level keys whose value is an object (a nested policy)
    has_or: bool  # a "$or" key: AWS counts combinations otherwise, so they are not computed
    # top-level keys every value of which matches only a message that has the attribute
    # (strings, numbers, prefix, suffix, numeric, ...; not anything-but or exists: false)
    present_keys: tuple[str, ...] = ()


# A destination (a dead-letter queue, an on-failure destination) is a Value: Known(node id),
# Known(None) when the template proves there is none, Unknown when it cannot tell (an
# intrinsic around the setting, a dynamic block, a value known only after apply).


@dataclass(slots=True, kw_only=True, eq=False, repr=False)
class Function(Node):
    """A Lambda function."""

    name: Value = UNREAD
    timeout: Value = UNREAD
    dead_letter: Value = UNREAD  # the function's DLQ (a queue or topic): a destination
    reserved_concurrency: Value = UNREAD  # Known(None) when unreserved
    role: Value = UNREAD  # the execution role, as a destination: Known(node id) / Known(None) / Unknown
    recursive_loop: Value = UNREAD  # RecursiveLoop: Terminate (the default) or Allow


@dataclass(slots=True, kw_only=True, eq=False, repr=False)
class EventSourceMapping(Node):
    """A Lambda event source mapping: a function reading a queue or stream."""

    source: str | None = None  # node id of the queue (or stream, or External)
    function: str | None = None  # node id
    batch_size: Value = UNREAD
    batching_window: Value = UNREAD
    response_types: Value = UNREAD
    enabled: Value = UNREAD
    # streams (Kinesis, DynamoDB)
    on_failure: Value = UNREAD  # a destination
    maximum_retry_attempts: Value = UNREAD  # -1: until the record expires
    maximum_record_age: Value = UNREAD  # -1: no limit
    bisect: Value = UNREAD
    # SQS scaling
    maximum_concurrency: Value = UNREAD
    provisioned_pollers: Value = UNREAD  # the ProvisionedPollerConfig as written, Known(None) when absent
    # Kafka: whether Topics and a SelfManagedEventSource are written ("written" reader)
    kafka_topics: Value = UNREAD
    self_managed_source: Value = UNREAD
    filter_criteria: Value = UNREAD  # whether FilterCriteria is written ("written" reader)
    # -- provisioned mode (FL205, FL206) --
    maximum_pollers: Value = UNREAD  # ProvisionedPollerConfig.MaximumPollers (AWS default 200 for SQS)


# -- EventBridge Pipes --------------------------------------------------------
@dataclass(slots=True, kw_only=True, eq=False, repr=False)
class Pipe(Node):
    """An EventBridge pipe: it polls its source (a queue or a stream, like an event source
    mapping) and invokes its target with its execution role (never through a resource
    policy, so it is no ``Delivery``). A stream source's limits and dead-letter queue are
    written per source service (``kinesis_*``, ``dynamodb_*``)."""

    name: Value = UNREAD
    source: str | None = None  # node id of the queue or stream (or External)
    target: str | None = None  # node id of what it invokes
    role: Value = UNREAD
    desired_state: Value = UNREAD  # RUNNING or STOPPED
    filter_criteria: Value = UNREAD  # whether SourceParameters.FilterCriteria is written
    kinesis_dead_letter: Value = UNREAD  # a destination
    kinesis_maximum_retry_attempts: Value = UNREAD  # -1: until the record expires
    kinesis_maximum_record_age: Value = UNREAD  # -1: no limit
    dynamodb_dead_letter: Value = UNREAD
    dynamodb_maximum_retry_attempts: Value = UNREAD
    dynamodb_maximum_record_age: Value = UNREAD
    invocation_type: Value = UNREAD  # of a Step Functions target: REQUEST_RESPONSE or FIRE_AND_FORGET


# -- targets EventBridge reaches only through an execution role ---------------
@dataclass(slots=True, kw_only=True, eq=False, repr=False)
class RoleTarget(Node):
    """A resource an EventBridge rule or pipe can invoke only with an IAM role: a Step
    Functions state machine, a Firehose delivery stream, an ECS cluster, a Batch job queue,
    an API destination. Only what the rules ask of it: its service (the ARN's, ``states``,
    ``firehose``, ...) and, for a state machine, its type."""

    service: str = ""
    machine_type: Value = UNREAD  # STANDARD or EXPRESS (state machines only)


@dataclass(slots=True, kw_only=True, eq=False, repr=False)
class Stream(Node):
    """What a stream mapping reads: a Kinesis stream or stream consumer, or a DynamoDB table's stream."""

    service: str = ""  # "kinesis" or "dynamodb"


@dataclass(slots=True, kw_only=True, eq=False, repr=False)
class Bucket(Node):
    """An S3 bucket: where S3 event notifications start."""

    name: Value = UNREAD


@dataclass(slots=True, kw_only=True, eq=False, repr=False)
class Notification(Node):
    """One S3 event notification: a bucket delivering to a queue, a topic or a function.

    CloudFormation writes them in the bucket (reported on it), Terraform in an
    ``aws_s3_bucket_notification`` (reported on that)."""

    bucket: str | None = None  # node id
    destination: str | None = None  # node id of the queue, topic or function (or External)
    # -- failure paths (recursive loops) --
    events: Value = UNREAD  # Known(tuple of event names): Event, events
    filter: Value = UNREAD  # whether a key filter is written (Filter; filter_prefix or filter_suffix)
    filter_prefix: Value = UNREAD
    filter_suffix: Value = UNREAD


@dataclass(slots=True, kw_only=True, eq=False, repr=False)
class EventRule(Node):
    """An EventBridge rule: the events it matches go to its targets (EventTarget nodes)."""

    name: Value = UNREAD
    state: Value = UNREAD  # ENABLED, DISABLED, ...
    enabled: Value = UNREAD  # Terraform's older is_enabled
    schedule: Value = UNREAD  # ScheduleExpression: rate(...) or cron(...), Known(None) when none
    pattern: Value = UNREAD  # whether an EventPattern is written ("written" reader)


@dataclass(slots=True, kw_only=True, eq=False, repr=False)
class EventTarget(Node):
    """Where an EventBridge rule, or an EventBridge Scheduler schedule, delivers.

    A rule's ``Targets`` entry (reported on the rule), an ``aws_cloudwatch_event_target``,
    or the ``Target`` of a schedule (``scheduler``: it invokes with an IAM role, never
    through a resource policy, and has its own retry policy)."""

    rule: str | None = None  # node id of the rule; for a schedule, the schedule
    target: str | None = None  # node id of what it delivers to
    dead_letter: Value = UNREAD  # a destination
    role: Value = UNREAD  # RoleArn as written: a target with a role may not need a resource policy
    message_group: Value = UNREAD
    retry_attempts: Value = UNREAD
    event_age: Value = UNREAD
    state: Value = UNREAD  # a schedule's own (a rule target is as enabled as its rule)
    schedule: Value = UNREAD  # a schedule's own ScheduleExpression (a rule target's is its rule's)
    scheduler: bool = False


@dataclass(slots=True, kw_only=True, eq=False, repr=False)
class InvokeConfig(Node):
    """A function's asynchronous invocation settings (``AWS::Lambda::EventInvokeConfig``)."""

    function: str | None = None  # node id
    qualifier: Value = UNREAD
    on_failure: Value = UNREAD  # a destination
    on_success: Value = UNREAD  # a destination
    maximum_retry_attempts: Value = UNREAD
    maximum_event_age: Value = UNREAD


@dataclass(eq=False, repr=False)
class Statement(ValueRecord):
    """One IAM policy statement, reduced to what the rules ask of it.

    ``principals`` and ``actions`` are None when the template does not prove them.
    Principals are plain strings: ``*`` or a service (``sns.amazonaws.com``) or an ARN.
    """

    effect: str
    principals: tuple[str, ...] | None
    actions: tuple[str, ...] | None
    condition_keys: frozenset[str]  # lower-cased context keys, e.g. aws:sourcearn
    loc: Loc
    # -- failure paths --
    # What ``Resource`` names: ("ref", node id) for a reference the loader resolved, ("text",
    # literal) for a literal; None when any entry is not proved (or ``NotResource``).
    resources: tuple[tuple[str, str], ...] | None = None
    # condition keys whose every written value matches anything (``arn:aws:s3:::*`` under
    # ArnLike, ``*`` under StringLike): such a key restricts nothing
    wildcard_keys: frozenset[str] = frozenset()


@dataclass(slots=True, kw_only=True, eq=False, repr=False)
class QueuePolicy(Node):
    """An SQS queue policy, its statements reduced."""

    queues: tuple[str, ...] = ()  # node ids
    statements: Value = UNREAD  # Known(tuple[Statement, ...]) or Unknown


@dataclass(slots=True, kw_only=True, eq=False, repr=False)
class LambdaPermission(Node):
    """A permission to invoke a Lambda function."""

    function: str | None = None  # node id
    principal: Value = UNREAD
    action: Value = UNREAD


# -- KMS keys: who may use the key a queue or topic is encrypted with ------------------


@dataclass(slots=True, kw_only=True, eq=False, repr=False)
class Key(Node):
    """A customer managed KMS key (``AWS::KMS::Key``, ``aws_kms_key``) and its own key policy."""

    # Known(tuple[Statement, ...]); Known(None) when none is written (AWS applies its
    # default key policy, which names the account and no service); Unknown
    policy: Value = UNREAD


@dataclass(slots=True, kw_only=True, eq=False, repr=False)
class KeyPolicy(Node):
    """A key policy written apart from its key (Terraform's ``aws_kms_key_policy``): it
    replaces the key's own."""

    key: str | None = None  # node id
    statements: Value = UNREAD


@dataclass(slots=True, kw_only=True, eq=False, repr=False)
class RecursionConfig(Node):
    """Terraform's ``aws_lambda_function_recursion_config``: a function's recursive loop
    detection, which CloudFormation writes on the function (``RecursiveLoop``)."""

    function: str | None = None  # node id
    recursive_loop: Value = UNREAD  # Terminate or Allow


@dataclass(slots=True, kw_only=True, eq=False, repr=False)
class KeyGrant(Node):
    """A grant on a key (Terraform's ``aws_kms_grant``): it lets its grantee use the key
    whatever the key policy and IAM say, so what a key lets in is unknown once one exists."""

    key: str | None = None  # node id


# -- IAM roles and their policies: what a function's role may do -------------------------


@dataclass(slots=True, kw_only=True, eq=False, repr=False)
class Role(Node):
    """An IAM role (``AWS::IAM::Role``, ``aws_iam_role``); its inline policies are
    ``IamPolicy`` item nodes whose ``role`` is this one."""

    managed: tuple[str, ...] = ()  # ManagedPolicyArns: policy nodes, or External nodes labelled with the ARN
    managed_arns: Value = UNREAD  # the same list as written: Known(tuple of ARN strings) when every one is literal
    inline_written: Value = UNREAD  # whether Policies / inline_policy is written ("written" reader)


@dataclass(slots=True, kw_only=True, eq=False, repr=False)
class IamPolicy(Node):
    """An identity policy: a role's inline policy, ``AWS::IAM::Policy``, ``ManagedPolicy``,
    ``RolePolicy``, ``aws_iam_policy``, ``aws_iam_role_policy``."""

    role: str | None = None  # node id of the one role it is part of
    roles: tuple[str, ...] = ()  # node ids of the roles it is attached to
    statements: Value = UNREAD


@dataclass(slots=True, kw_only=True, eq=False, repr=False)
class PolicyAttachment(Node):
    """``aws_iam_role_policy_attachment`` or ``aws_iam_policy_attachment``: a managed policy on roles."""

    role: str | None = None
    roles: tuple[str, ...] = ()
    policy: str | None = None  # node id of the policy, or an External node labelled with its ARN


@dataclass(eq=False, repr=False)
class DeadLetterUse(ValueRecord):
    """A resource naming ``target`` as where its failures go."""

    target: str  # node id
    user: str  # node id of the resource holding the setting
    via: str  # the setting, as the template names it: "DeadLetterConfig.TargetArn", ...


# What a resource that is no node of its own does with the node it names (``Mention.role``).
PUBLISHES_ONLY = "publishes"  # a producer that can send to a topic but not to a queue (an alarm)
SUBSCRIBES = "subscribes"  # a subscriber that is no SNS subscription of the template (AWS Chatbot)
EXPORTS = "exports"  # makes it known to others (an SSM parameter holding its ARN)
# -- CloudWatch alarms on queue depth (FL106) --
WATCHES_DEPTH = "watches-depth"  # a CloudWatch alarm on the queue's ApproximateNumberOfMessagesVisible
# The target of a WATCHES_DEPTH mention whose queue cannot be told (metric math, a dimension
# or metric known only at deploy time): it may watch any queue.
ANY_QUEUE = "*"
# The target of the WATCHES_DEPTH mention every metric alarm records, whatever it watches:
# the run defines CloudWatch alarms.
ANY_ALARM = "+"


@dataclass(eq=False, repr=False)
class Mention(ValueRecord):
    """A resource the graph does not model naming ``target`` in a setting whose meaning
    the schema knows (``AWS::CloudWatch::Alarm.AlarmActions`` publishes to a topic)."""

    target: str  # node id
    user: str  # the resource's id
    type: str  # the resource's type, as written: AWS::CloudWatch::Alarm, aws_ssm_parameter
    via: str  # the setting
    role: str  # PUBLISHES_ONLY, SUBSCRIBES or EXPORTS


@dataclass(eq=False, repr=False)
class Delivery(ValueRecord):
    """A service sending to a queue or invoking a function on behalf of ``sender``: an SNS
    subscription (or its dead-letter queue), an EventBridge target (or its dead-letter
    queue), an S3 notification. Deliveries through a role (a schedule) are not listed."""

    sender: Node  # the subscription, target or notification
    target: str  # node id of the queue or function
    service: str  # the principal that sends: sns.amazonaws.com, events.amazonaws.com, s3.amazonaws.com
    dead_letter: bool = False  # to the sender's dead-letter queue, not its endpoint


@dataclass(eq=False, repr=False)
class Unit(ValueRecord):
    """What one graph describes: a template file, a Terraform directory, a plan file; for
    an application (linked templates), its first template, with every file in ``files``."""

    path: str
    format: Format
    files: tuple[str, ...] = field(default=())


# What links two units of an application (``UnitLink.kind``).
IMPORTS = "imports"  # Fn::ImportValue of a name the other unit exports
NESTS = "nests"  # a nested stack (AWS::CloudFormation::Stack) whose template is the other unit


@dataclass(eq=False, repr=False)
class UnitLink(ValueRecord):
    """``source`` uses ``target``: imports what it exports, or nests it as a stack."""

    source: str  # unit path (a template file)
    target: str
    kind: str  # IMPORTS or NESTS
    label: str  # the export name, or the nested stack's logical ID
