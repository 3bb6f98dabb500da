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

from fanout_lint.model.values import Known, Value

NONE = Known(None)  # an absent optional setting (no DLQ, no KMS key, ...)


@dataclass(frozen=True)
class Loc:
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


@dataclass(frozen=True)
class Suppression:
    """An inline ``ignore`` written on a resource (CloudFormation Metadata, TF comment)."""

    rule: str  # ID or name, as written
    reason: str = ""
    until: str | None = None  # ISO date after which it no longer suppresses
    loc: Loc | None = None


@dataclass(frozen=True, kw_only=True)
class Node:
    id: str
    loc: Loc
    resource: str = ""  # what findings name; defaults to id
    type: str = ""  # the source type: AWS::SQS::Queue, aws_sqs_queue, ...
    cdk_path: str | None = None
    generated_by: str = ""  # e.g. "SAM SqsSubscription" when a transform creates it
    suppressions: tuple[Suppression, ...] = ()
    condition: str | None = None  # CloudFormation Condition: the resource exists only when it holds
    # Stands for several instances (Terraform count/for_each, here or on an enclosing module
    # call): two references to it may name two instances, so a count of distinct
    # referrers (subscribers, consumers, source queues) proves nothing.
    multi_instance: bool = False

    def __post_init__(self) -> None:
        if not self.resource:
            object.__setattr__(self, "resource", self.id)


@dataclass(frozen=True, kw_only=True)
class External(Node):
    """Something outside the unit: an import, a parameter, a module output, a literal ARN."""

    label: str = ""


@dataclass(frozen=True, kw_only=True)
class Topic(Node):
    name: Value = NONE
    fifo: Value = Known(False)
    kms_master_key_id: Value = NONE
    exported: bool = False  # other stacks or configurations may subscribe to it


@dataclass(frozen=True)
class Redrive:
    dlq: str  # node id of the dead-letter queue (possibly an External node)
    max_receive_count: Value
    loc: Loc


@dataclass(frozen=True, kw_only=True)
class Queue(Node):
    name: Value = NONE
    fifo: Value = Known(False)
    visibility_timeout: Value = Known(30)
    message_retention: Value = Known(345_600)
    redrive: Value = NONE  # Known(Redrive) / Known(None) / Unknown
    kms_master_key_id: Value = NONE
    sqs_managed_sse: Value = NONE


@dataclass(frozen=True, kw_only=True)
class Subscription(Node):
    topic: str | None = None  # node id
    protocol: Value = NONE
    endpoint: str | None = None  # node id when the endpoint is a resource
    raw_message_delivery: Value = Known(False)
    redrive_dlq: Value = NONE  # Known(node id) / Known(None) / Unknown
    filter_policy: bool = False
    inline: bool = False  # declared in AWS::SNS::Topic.Subscription


@dataclass(frozen=True, kw_only=True)
class Function(Node):
    name: Value = NONE
    timeout: Value = Known(3)


@dataclass(frozen=True, kw_only=True)
class EventSourceMapping(Node):
    source: str | None = None  # node id of the queue (or stream, or External)
    function: str | None = None  # node id
    batch_size: Value = Known(10)
    batching_window: Value = Known(0)
    response_types: Value = Known(())
    enabled: Value = Known(True)


@dataclass(frozen=True)
class Statement:
    """One IAM policy statement, reduced to what the rules ask of it.

    ``principals`` and ``actions`` are None when the template does not prove them.
    Principals are plain strings: ``*`` or a service (``sns.amazonaws.com``) or an ARN.
    """

    effect: str
    principals: tuple[str, ...] | None
    actions: tuple[str, ...] | None
    condition_keys: frozenset[str]  # lower-cased context keys, e.g. aws:sourcearn
    loc: Loc
    source_arns: tuple[str, ...] = ()  # node ids named by an aws:SourceArn condition


@dataclass(frozen=True, kw_only=True)
class QueuePolicy(Node):
    queues: tuple[str, ...] = ()  # node ids
    statements: Value = NONE  # Known(tuple[Statement, ...]) or Unknown


@dataclass(frozen=True, kw_only=True)
class LambdaPermission(Node):
    function: str | None = None  # node id
    principal: Value = NONE
    action: Value = NONE
    source_arn: str | None = None  # node id when it names a resource


@dataclass(frozen=True)
class DeadLetterUse:
    """A resource naming ``target`` as where its failures go."""

    target: str  # node id
    user: str  # node id of the resource holding the setting
    via: str  # "RedrivePolicy", "DeadLetterConfig", "OnFailure destination", ...


@dataclass(frozen=True)
class Unit:
    """What one graph describes: a template file, a Terraform directory, a plan file."""

    path: str
    format: str  # cloudformation | terraform | terraform-plan
    files: tuple[str, ...] = field(default=())
