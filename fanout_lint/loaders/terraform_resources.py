"""Terraform resources (hashicorp/aws) into graph nodes, whatever the Terraform source.

The one mapping from ``aws_sqs_queue`` & co. to model nodes, used by the HCL loader
(``terraform.py``) and the plan JSON loader (``terraform_plan.py``). A loader hands each
resource over as a ``ResourceView``, which answers with values already evaluated:
"what is this attribute?" (a ``Value``), "what JSON document does it hold?", and "which
node does this attribute point at?" (a node id, an External node id, or None when
unset). How it answers (HCL expressions and modules, planned values and configuration
references) is the loader's business; what the attributes mean is this module's.

Defaults come from ``fanout_lint.model.defaults``; the provider uses the AWS values for
every attribute read here (aws-facts.md sections 1 and 10).
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any, Callable, Protocol

from fanout_lint.loaders.policy_documents import parse_policy
from fanout_lint.model.defaults import default_of
from fanout_lint.model.nodes import (
    NONE,
    DeadLetterUse,
    EventSourceMapping,
    Function,
    LambdaPermission,
    Loc,
    Node,
    Queue,
    QueuePolicy,
    Redrive,
    Subscription,
    Suppression,
    Topic,
)
from fanout_lint.model.values import Known, Unknown, Value, candidates, choice, to_bool, to_int

# The resources a name, ARN or queue URL written as a literal can name, and the
# argument that holds their name.
NAME_ARGUMENTS = {
    "aws_sqs_queue": ("queue", "name"),
    "aws_sns_topic": ("topic", "name"),
    "aws_lambda_function": ("function", "function_name"),
}
KIND_TYPES = {kind: (rtype,) for rtype, (kind, _) in NAME_ARGUMENTS.items()}



class ResourceView(Protocol):
    address: str  # the node id
    type: str
    loc: Loc
    suppressions: tuple[Suppression, ...]
    exported: bool  # a root module output names it: other configurations may use it
    multi_instance: bool  # count/for_each (or a module call's) may make several instances

    def value(self, attr: str, default: Value | None = None) -> Value:
        """The attribute's plain value; ``default`` (or Known(None)) when unset or null."""

    def written(self, attr: str) -> bool:
        """The configuration sets the attribute (the provider does not compute it)."""

    def document(self, attr: str) -> Value:
        """A JSON-document attribute (``redrive_policy``, ``policy``) decoded: Known(dict)
        per option, Known(None) when unset, or Unknown. Leaves may be kept in the loader's
        own form; ``leaf`` and ``json_target`` read them."""

    def leaf(self, raw: Any) -> Value:
        """A leaf of a document as a value."""

    def json_target(self, attr: str, raw: Any, kind: str) -> str | None:
        """The node a leaf of the document in ``attr`` names (an ARN); ``raw`` None asks
        for the node an unknown document names, if the configuration shows one."""

    def target(self, attr: str, kind: str) -> str | None:
        """The node the attribute points at (kind: queue, topic, function)."""

    def targets(self, attr: str, kind: str) -> tuple[str, ...]:
        """Every node the attribute may point at (one per ``for_each`` instance)."""

    def block_targets(self, path: tuple[str, ...], kind: str) -> tuple[str, ...]:
        """The nodes named by a nested block attribute, e.g. (dead_letter_config, target_arn)."""

    def prop_loc(self, attr: str) -> Loc:
        """Where the attribute is written; the resource's location when unknown."""


class Collected:
    """Nodes and dead-letter uses, with the redrive policies declared as resources."""

    def __init__(self) -> None:
        self.nodes: list[Node] = []
        self.dead_letter_uses: list[DeadLetterUse] = []
        self.redrives: dict[str, Value] = {}  # queue id -> redrive from aws_sqs_queue_redrive_policy
        self.unresolved_redrive = False  # an aws_sqs_queue_redrive_policy names no queue we know

    def finish(self) -> list[Node]:
        """Nodes, with ``aws_sqs_queue_redrive_policy`` applied to the queues it names."""
        queues = {node.id for node in self.nodes if isinstance(node, Queue)}
        unresolved = self.unresolved_redrive or any(queue not in queues for queue in self.redrives)
        out = []
        for node in self.nodes:
            if isinstance(node, Queue):
                node = _with_separate_redrive(node, self.redrives.get(node.id), unresolved)
            out.append(node)
        return out


def _with_separate_redrive(queue: Queue, separate: Value | None, unresolved: bool) -> Queue:
    unset = isinstance(queue.redrive, Known) and queue.redrive.value is None
    if separate is None:
        # A redrive policy resource whose queue we cannot tell may be this queue's.
        if unset and unresolved:
            return replace(queue, redrive=Unknown("an aws_sqs_queue_redrive_policy names a queue we cannot resolve"))
        return queue
    if unset:
        return replace(queue, redrive=separate)
    # Two settings are resolved by AWS in apply order, which we cannot know.
    return replace(queue, redrive=Unknown("redrive policy set in two places"))


def add_resource(out: Collected, r: ResourceView) -> None:
    handler = HANDLERS.get(r.type)
    if handler is not None:
        handler(out, r)


def json_document(value: Value) -> Value:
    """A JSON-string attribute value (plain JSON, as in a plan) as Known(dict) per option,
    Known(None) when unset, or Unknown."""
    options = candidates(value)
    if options is None:
        return value
    out: list[Value] = []
    for option in options:
        raw = option.value
        if raw in (None, ""):
            out.append(NONE)
        elif isinstance(raw, dict):
            out.append(option)
        elif isinstance(raw, str):
            try:
                parsed = json.loads(raw)
            except (ValueError, RecursionError):
                return Unknown("not valid JSON")
            if not isinstance(parsed, dict):
                return Unknown("not a JSON object")
            out.append(Known(parsed, option.origin, option.detail))
        else:
            return Unknown("not a JSON document")
    return choice(out)


def _common(r: ResourceView) -> dict:
    return {"id": r.address, "loc": r.loc, "type": r.type, "suppressions": r.suppressions,
            "multi_instance": r.multi_instance}


def _endpoint_kind(protocol: Value) -> str | None:
    if isinstance(protocol, Known) and isinstance(protocol.value, str):
        return {"sqs": "queue", "lambda": "function"}.get(protocol.value.lower())
    return None


def _redrive(r: ResourceView, attr: str, with_count: bool) -> Value:
    """Known(Redrive), Known(None) when unset, or Unknown; a condition choosing between
    policies is known only when every branch names the same queue and count."""
    document = r.document(attr)
    loc = r.prop_loc(attr)
    options = candidates(document)
    if options is None:
        # The document is known only after apply (it holds a new queue's ARN), but the
        # configuration may show which queue it names: the redrive exists, its count is unknown.
        dlq = r.json_target(attr, None, "queue")
        if dlq is None:
            return document
        return Known(Redrive(dlq, Unknown("known after apply") if with_count else NONE, loc))
    built: dict[Any, Value] = {}
    for option in options:
        policy = option.value
        if policy is None:
            built.setdefault(None, NONE)
            continue
        if "deadLetterTargetArn" not in policy:
            return Unknown("redrive policy without deadLetterTargetArn")
        dlq = r.json_target(attr, policy["deadLetterTargetArn"], "queue")
        if dlq is None:
            return Unknown("dead-letter target not known")
        count = _max_receive_count(r, policy, option) if with_count else NONE
        built.setdefault((dlq, count), Known(Redrive(dlq, count, loc)))
    if len(built) != 1:
        return Unknown("a condition chooses the redrive policy")
    return next(iter(built.values()))


def _max_receive_count(r: ResourceView, policy: dict, document: Known) -> Value:
    raw = policy.get("maxReceiveCount")
    if raw is None:
        return default_of("redrive.max_receive_count")
    leaf = r.leaf(raw)
    if not isinstance(leaf, Known):
        return Unknown("maxReceiveCount is not known")
    # The count rests on whatever the document rests on (a variable, say).
    return to_int(Known(leaf.value, document.origin, document.detail))


def _statements(r: ResourceView, attr: str) -> Value:
    document = r.document(attr)
    if not isinstance(document, Known) or not isinstance(document.value, dict):
        return document if isinstance(document, Unknown) else Unknown("policy is not known")
    return parse_policy(
        document.value,
        r.prop_loc(attr),
        r.leaf,
        lambda raw, _at: r.json_target(attr, raw, "topic"),
    )


def _string_tuple(value: Value) -> Value:
    options = candidates(value)
    if options is None:
        return value
    out: list[Value] = []
    for option in options:
        items = option.value
        if items is None:
            out.append(Known(()))
        elif isinstance(items, (list, tuple)) and all(isinstance(v, str) for v in items):
            out.append(Known(tuple(items), option.origin, option.detail))
        else:
            return Unknown("list with unknown items")
    return choice(out)


def _dead_letter(out: Collected, r: ResourceView, path: tuple[str, ...], via: str) -> None:
    for target in r.block_targets(path, "queue"):
        out.dead_letter_uses.append(DeadLetterUse(target, r.address, via))


# -- one function per resource type ------------------------------------------

def _topic(out: Collected, r: ResourceView) -> None:
    out.nodes.append(Topic(
        **_common(r),
        name=r.value("name"),
        fifo=to_bool(r.value("fifo_topic", default_of("topic.fifo"))),
        kms_master_key_id=r.value("kms_master_key_id"),
        exported=r.exported,
    ))


def _queue(out: Collected, r: ResourceView) -> None:
    out.nodes.append(Queue(
        **_common(r),
        name=r.value("name"),
        fifo=to_bool(r.value("fifo_queue", default_of("queue.fifo"))),
        visibility_timeout=to_int(r.value("visibility_timeout_seconds", default_of("queue.visibility_timeout"))),
        message_retention=to_int(r.value("message_retention_seconds", default_of("queue.message_retention"))),
        redrive=_redrive(r, "redrive_policy", True),
        kms_master_key_id=r.value("kms_master_key_id"),
        sqs_managed_sse=to_bool(r.value("sqs_managed_sse_enabled")),
    ))
    # The queue's own ``policy`` argument is a queue policy like aws_sqs_queue_policy. Only
    # a written one counts: the provider also fills it in from aws_sqs_queue_policy.
    if r.written("policy") and r.document("policy") != NONE:
        out.nodes.append(QueuePolicy(
            **{**_common(r), "id": f"{r.address}.policy", "type": "aws_sqs_queue.policy"},
            resource=r.address,
            queues=(r.address,),
            statements=_statements(r, "policy"),
        ))


def _queue_redrive_policy(out: Collected, r: ResourceView) -> None:
    queue = r.target("queue_url", "queue")
    if queue is None:
        out.unresolved_redrive = True
        return
    out.redrives[queue] = _redrive(r, "redrive_policy", True)


def _queue_policy(out: Collected, r: ResourceView) -> None:
    out.nodes.append(QueuePolicy(
        **_common(r),
        queues=r.targets("queue_url", "queue"),
        statements=_statements(r, "policy"),
    ))


def _subscription(out: Collected, r: ResourceView) -> None:
    protocol = r.value("protocol")
    kind = _endpoint_kind(protocol)
    redrive = _redrive(r, "redrive_policy", False)
    redrive_dlq: Value = Known(redrive.value.dlq) if isinstance(redrive, Known) and redrive.value else redrive
    filter_policy = r.value("filter_policy")
    out.nodes.append(Subscription(
        **_common(r),
        topic=r.target("topic_arn", "topic"),
        protocol=protocol,
        endpoint=r.target("endpoint", kind) if kind else None,
        raw_message_delivery=to_bool(
            r.value("raw_message_delivery", default_of("subscription.raw_message_delivery"))
        ),
        redrive_dlq=redrive_dlq,
        filter_policy=not (isinstance(filter_policy, Known) and filter_policy.value in (None, "")),
    ))


def _function(out: Collected, r: ResourceView) -> None:
    out.nodes.append(Function(
        **_common(r),
        name=r.value("function_name"),
        timeout=to_int(r.value("timeout", default_of("function.timeout"))),
    ))
    _dead_letter(out, r, ("dead_letter_config", "target_arn"), "dead_letter_config")


def _mapping(out: Collected, r: ResourceView) -> None:
    out.nodes.append(EventSourceMapping(
        **_common(r),
        source=r.target("event_source_arn", "queue"),
        function=r.target("function_name", "function"),
        batch_size=to_int(r.value("batch_size", default_of("mapping.batch_size"))),
        batching_window=to_int(
            r.value("maximum_batching_window_in_seconds", default_of("mapping.batching_window"))
        ),
        response_types=_string_tuple(r.value("function_response_types", Known(()))),
        enabled=to_bool(r.value("enabled", default_of("mapping.enabled"))),
    ))
    _dead_letter(out, r, ("destination_config", "on_failure", "destination_arn"), "destination_config on_failure")


def _invoke_config(out: Collected, r: ResourceView) -> None:
    _dead_letter(out, r, ("destination_config", "on_failure", "destination"), "destination_config on_failure")


def _permission(out: Collected, r: ResourceView) -> None:
    out.nodes.append(LambdaPermission(
        **_common(r),
        function=r.target("function_name", "function"),
        principal=r.value("principal"),
        action=r.value("action"),
        source_arn=r.target("source_arn", "topic"),
    ))


def _event_target(out: Collected, r: ResourceView) -> None:
    _dead_letter(out, r, ("dead_letter_config", "arn"), "EventBridge target dead_letter_config")


def _schedule(out: Collected, r: ResourceView) -> None:
    _dead_letter(out, r, ("target", "dead_letter_config", "arn"), "Scheduler dead_letter_config")


HANDLERS: dict[str, Callable[[Collected, ResourceView], None]] = {
    "aws_sns_topic": _topic,
    "aws_sqs_queue": _queue,
    "aws_sqs_queue_redrive_policy": _queue_redrive_policy,
    "aws_sqs_queue_policy": _queue_policy,
    "aws_sns_topic_subscription": _subscription,
    "aws_lambda_function": _function,
    "aws_lambda_event_source_mapping": _mapping,
    "aws_lambda_function_event_invoke_config": _invoke_config,
    "aws_lambda_permission": _permission,
    "aws_cloudwatch_event_target": _event_target,
    "aws_scheduler_schedule": _schedule,
}
