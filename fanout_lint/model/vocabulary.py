"""Settings named the way the user writes them: CloudFormation properties, Terraform
arguments, or the names of the construct (SAM) that generated the resource.

Rules never spell a property name: they ask ``term(node, "visibility_timeout")`` and get
``VisibilityTimeout`` for a CloudFormation queue, ``visibility_timeout_seconds`` for a
Terraform one; ``setting(node, field, value)`` gives the line to write
(``VisibilityTimeout: 360``, ``visibility_timeout_seconds = 360``), and ``how_to_set``
the advice, or, when the source cannot express the setting (SAM's ``SqsSubscription``
queue has no redrive policy), what to do instead, as the loader described it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fanout_lint.model.format import Format
from fanout_lint.model.nodes import Node
from fanout_lint.model.schema import KINDS, field_of

if TYPE_CHECKING:
    from typing import Any


def term(node: Node, field_name: str) -> str:
    """The setting's name in the node's vocabulary (the key alone for a key of a document)."""
    path = _path(node, field_name)
    return path.rsplit("/", 1)[-1]


def setting(node: Node, field_name: str, value: Any) -> str:
    """The setting as the user writes it: ``Key: value`` or ``argument = value``.

    A key inside a document says which document: ``maxReceiveCount: 5 in RedrivePolicy``.
    """
    path = _path(node, field_name)
    document, _, key = path.rpartition("/")
    fmt = node.written.format
    written = f"{key} = {literal(fmt, value)}" if is_terraform(node) else f"{key}: {literal(fmt, value)}"
    return f"{written} in {document}" if document else written


def can_set(node: Node, field_name: str) -> bool:
    return node.written.why_fixed(field_name) is None


def how_to_set(node: Node, field_name: str, value: Any) -> str:
    """``set VisibilityTimeout: 360``, or what to do where the source cannot say it."""
    why = node.written.why_fixed(field_name)
    return why if why is not None else f"set {setting(node, field_name, value)}"


def resource_type(node: Node, kind_key: str) -> str:
    """The resource type of a kind in the node's format: ``AWS::SQS::QueuePolicy`` or
    ``aws_sqs_queue_policy``, for advice such as "add a queue policy"."""
    for kind in KINDS:
        if kind.key == kind_key:
            types = kind.tf_types if is_terraform(node) else kind.cfn_types
            if types:
                return types[0]
    raise KeyError(kind_key)


def term_of(node: Node, kind_key: str, field_name: str) -> str:
    """The name of a setting of another kind of resource, in the node's format: the
    ``SourceArn`` of the permission a subscription lacks."""
    for kind in KINDS:
        if kind.key == kind_key:
            field = kind.field(field_name)
            if field is not None:
                return field.path(node.written.format).rsplit("/", 1)[-1]
    raise KeyError(f"{kind_key}.{field_name}")


def is_terraform(node: Node) -> bool:
    """The node's settings are Terraform arguments (else CloudFormation properties)."""
    return node.written.format.vocabulary is Format.TERRAFORM


def literal(fmt: Format, value: Any) -> str:
    """A value as the format writes it (YAML flow style for CloudFormation, HCL)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(literal(fmt, v) for v in value) + "]"
    if fmt.vocabulary is Format.TERRAFORM:
        return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'
    return str(value)


def _path(node: Node, field_name: str) -> str:
    own = node.written.name_of(field_name)
    if own is not None:
        return own
    field = field_of(node, field_name)
    if field is None:
        raise KeyError(f"{type(node).__name__} has no setting {field_name!r}")
    path = field.path(node.written.format)
    if not path:
        raise KeyError(f"{field_name!r} has no name in {node.written.format}")
    return path

