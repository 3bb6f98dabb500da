"""Terraform resources (hashicorp/aws) into graph nodes, whatever the Terraform source.

The mapping from ``aws_sqs_queue`` & co. to model nodes, written against a small view
of a resource so that any Terraform source can use it. The plan JSON loader does; the
HCL loader (``terraform.py``) still has its own builder with the same meaning, and the
twin fixtures keep the two in agreement. A loader hands each resource over as a
``ResourceView``: it answers "what is this attribute?" (a ``Value``) and "which node does
this attribute point at?" (a node id, an External node id, or None when unset). How it
answers (planned values, configuration references, HCL expressions) is the loader's
business; what the attributes mean is this module's.

Defaults come from ``fanout_lint.model.defaults``; the provider uses the AWS values for
every attribute read here (aws-facts.md sections 1 and 10).
"""

from __future__ import annotations

import json
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
from fanout_lint.model.values import Known, Unknown, Value, to_bool, to_int


class ResourceView(Protocol):
    address: str  # the node id
    type: str
    loc: Loc
    suppressions: tuple[Suppression, ...]
    exported: bool  # a root module output names it: other configurations may use it

    def value(self, attr: str, default: Value | None = None) -> Value:
        """The attribute's value; ``default`` (or Known(None)) when it is not set."""

    def target(self, attr: str, kind: str) -> str | None:
        """The node the attribute points at (kind: queue, topic, function, any)."""

    def json_target(self, attr: str, text: Any, kind: str) -> str | None:
        """The node a JSON document in ``attr`` names: ``text`` is the string found in the
        document (an ARN), or None when the document is known only after apply."""

    def block_target(self, path: tuple[str, ...], kind: str) -> str | None:
        """The node named by a nested block attribute, e.g. (dead_letter_config, target_arn)."""

    def prop_loc(self, attr: str) -> Loc:
        """Where the attribute is written; the resource's location when unknown."""


class Collected:
    """Nodes and dead-letter uses, with the redrive policies declared as resources."""

    def __init__(self) -> None:
        self.nodes: list[Node] = []
        self.dead_letter_uses: list[DeadLetterUse] = []
        self.redrives: dict[str, Value] = {}  # queue id -> redrive from aws_sqs_queue_redrive_policy

    def finish(self) -> list[Node]:
        """Nodes, with ``aws_sqs_queue_redrive_policy`` applied to the queues it names."""
        out = []
        for node in self.nodes:
            if isinstance(node, Queue) and node.id in self.redrives:
                node = _with_redrive(node, self.redrives[node.id])
            out.append(node)
        return out


def _with_redrive(queue: Queue, redrive: Value) -> Queue:
    from dataclasses import replace

    # The separate resource wins over an unset attribute; two conflicting settings are
    # resolved by AWS in apply order, which we cannot know.
    if isinstance(queue.redrive, Known) and queue.redrive.value is None:
        return replace(queue, redrive=redrive)
    return replace(queue, redrive=Unknown("redrive policy set in two places"))


def add_resource(out: Collected, r: ResourceView) -> None:
    handler = HANDLERS.get(r.type)
    if handler is not None:
        handler(out, r)


def _common(r: ResourceView) -> dict:
    return {"id": r.address, "loc": r.loc, "type": r.type, "suppressions": r.suppressions}


def _endpoint_kind(protocol: Value) -> str | None:
    if isinstance(protocol, Known) and isinstance(protocol.value, str):
        return {"sqs": "queue", "lambda": "function"}.get(protocol.value.lower())
    return None


def json_document(value: Value) -> Value:
    """A JSON-string attribute (redrive_policy, policy) as Known(dict), NONE or Unknown."""
    if isinstance(value, Known):
        if value.value in (None, ""):
            return NONE
        if isinstance(value.value, dict):
            return value
        if isinstance(value.value, str):
            try:
                parsed = json.loads(value.value)
            except (ValueError, RecursionError):
                return Unknown("not valid JSON")
            return Known(parsed, value.origin, value.detail) if isinstance(parsed, dict) else Unknown("not a JSON object")
        return Unknown("not a JSON document")
    return value if isinstance(value, Unknown) else Unknown("chosen by a condition")


def _redrive(r: ResourceView, attr: str, with_count: bool) -> Value:
    document = json_document(r.value(attr))
    if isinstance(document, Known) and document.value is None:
        return NONE
    if isinstance(document, Known):
        if "deadLetterTargetArn" not in document.value:
            return Unknown("redrive policy without deadLetterTargetArn")
        dlq = r.json_target(attr, document.value["deadLetterTargetArn"], "queue")
        count = document.value.get("maxReceiveCount", None)
        max_receive = (
            to_int(Known(count) if count is not None else default_of("redrive.max_receive_count"))
            if with_count else NONE
        )
    elif isinstance(document, Unknown) and (dlq := r.json_target(attr, None, "queue")) is not None:
        # The document is known only after apply (it holds a new queue's ARN), but the
        # configuration shows which queue it names: the redrive exists, its count is unknown.
        max_receive = Unknown("known after apply") if with_count else NONE
    else:
        return document
    if dlq is None:
        return Unknown("dead-letter target not known")
    return Known(Redrive(dlq, max_receive, r.prop_loc(attr)))


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


def _queue_redrive_policy(out: Collected, r: ResourceView) -> None:
    queue = r.target("queue_url", "queue")
    if queue is not None:
        out.redrives[queue] = _redrive(r, "redrive_policy", True)


def _subscription(out: Collected, r: ResourceView) -> None:
    protocol = r.value("protocol")
    kind = _endpoint_kind(protocol)
    redrive = _redrive(r, "redrive_policy", False)
    if isinstance(redrive, Known) and redrive.value is not None:
        redrive_dlq: Value = Known(redrive.value.dlq)
    else:
        redrive_dlq = redrive
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
    _dead_letter(out, r, ("dead_letter_config", "target_arn"), "DeadLetterConfig")


def _dead_letter(out: Collected, r: ResourceView, path: tuple[str, ...], via: str) -> None:
    target = r.block_target(path, "queue")
    if target is not None:
        out.dead_letter_uses.append(DeadLetterUse(target, r.address, via))


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
    _dead_letter(out, r, ("destination_config", "on_failure", "destination_arn"), "OnFailure destination")


def _string_tuple(value: Value) -> Value:
    if isinstance(value, Known) and isinstance(value.value, (list, tuple)):
        if all(isinstance(v, str) for v in value.value):
            return Known(tuple(value.value), value.origin, value.detail)
        return Unknown("list with unknown items")
    if isinstance(value, Known) and value.value is None:
        return Known(())
    return value


def _invoke_config(out: Collected, r: ResourceView) -> None:
    _dead_letter(out, r, ("destination_config", "on_failure", "destination"), "OnFailure destination")


def _event_target(out: Collected, r: ResourceView) -> None:
    _dead_letter(out, r, ("dead_letter_config", "arn"), "EventBridge target DeadLetterConfig")


def _schedule(out: Collected, r: ResourceView) -> None:
    _dead_letter(out, r, ("target", "dead_letter_config", "arn"), "Scheduler DeadLetterConfig")


def _queue_policy(out: Collected, r: ResourceView) -> None:
    queue = r.target("queue_url", "queue")
    document = json_document(r.value("policy"))
    loc = r.prop_loc("policy")
    if isinstance(document, Known) and isinstance(document.value, dict):
        statements = parse_policy(
            document.value,
            loc,
            lambda raw: Known(raw),
            lambda raw, _loc: r.json_target("policy", raw, "topic") if isinstance(raw, str) else None,
        )
    else:
        statements = document if isinstance(document, Unknown) else Unknown("no policy document")
    out.nodes.append(QueuePolicy(
        **_common(r), queues=(queue,) if queue else (), statements=statements,
    ))


def _permission(out: Collected, r: ResourceView) -> None:
    source = r.value("source_arn")
    has_source = not (isinstance(source, Known) and source.value is None)
    out.nodes.append(LambdaPermission(
        **_common(r),
        function=r.target("function_name", "function"),
        principal=r.value("principal"),
        action=r.value("action"),
        source_arn=r.target("source_arn", "topic") if has_source else None,
    ))


HANDLERS: dict[str, Callable[[Collected, ResourceView], None]] = {
    "aws_sns_topic": _topic,
    "aws_sqs_queue": _queue,
    "aws_sqs_queue_redrive_policy": _queue_redrive_policy,
    "aws_sns_topic_subscription": _subscription,
    "aws_lambda_function": _function,
    "aws_lambda_event_source_mapping": _mapping,
    "aws_lambda_function_event_invoke_config": _invoke_config,
    "aws_cloudwatch_event_target": _event_target,
    "aws_scheduler_schedule": _schedule,
    "aws_sqs_queue_policy": _queue_policy,
    "aws_lambda_permission": _permission,
}
