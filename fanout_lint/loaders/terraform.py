"""Terraform directories (and their local modules) into the resource graph.

The nodes are those the CloudFormation loader builds, so no rule knows which format it
reads: a node's id is the Terraform address (``aws_sqs_queue.orders``,
``module.billing.aws_sqs_queue.this``) and its location the block's line in its file.
Absent arguments take the provider defaults (``fanout_lint.model.defaults``), and an
argument set to ``null`` is absent.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from fanout_lint.findings import LoadError
from fanout_lint.loaders.hcl_expressions import (
    ATOMS,
    EvalError,
    Hole,
    Interpolated,
    Ref,
    decode_json,
    refs_in,
    render,
)
from fanout_lint.loaders.hcl_syntax import Block
from fanout_lint.loaders.policy_documents import parse_policy
from fanout_lint.loaders.terraform_modules import (
    Instance,
    Module,
    Resource,
    UnitState,
    exists,
    instance_scope,
    load_unit,
)
from fanout_lint.model.defaults import default_of
from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import (
    NONE,
    DeadLetterUse,
    EventSourceMapping,
    External,
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
    Unit,
)
from fanout_lint.model.values import Known, OneOf, Unknown, Value, candidates, choice, to_bool, to_int

NAME_ARGUMENTS = {"aws_sqs_queue": ("queue", "name"), "aws_sns_topic": ("topic", "name"),
                  "aws_lambda_function": ("function", "function_name")}

_ARN = re.compile(r"^arn:[^:]*:(sqs|sns|lambda):[^:]*:[^:]*:(.+)$")
_QUEUE_URL = re.compile(r"^https://(?:sqs\.)?[^/]*amazonaws\.com[^/]*/[^/]+/([^/]+)$")


def load_terraform_dir(path: str) -> tuple[list[Graph], list[LoadError]]:
    unit, root = load_unit(path)
    if root is None or unit.incomplete:
        return [], unit.errors
    builder = _Builder(unit, root)
    builder.build()
    graph = Graph(
        Unit(path, "terraform", tuple(unit.files)),
        builder.nodes + list(builder.externals.values()),
        builder.dead_letter_uses,
    )
    return [graph], unit.errors


class _Builder:
    def __init__(self, unit: UnitState, root: Module):
        self.unit = unit
        self.root = root
        self.nodes: list[Node] = []
        self.dead_letter_uses: list[DeadLetterUse] = []
        self.externals: dict[str, External] = {}
        self.resources = [r for r in unit.resources.values() if exists(r)]
        self.names: dict[tuple[str, str], str] = {}
        self.scopes: dict[str, Instance] = {}
        self.redrives: dict[str, tuple[Resource, Value]] = {}  # queue address -> separate redrive resource
        self.unknown_redrive_target = False
        self.exported: set[str] = set()

    def build(self) -> None:
        for resource in self.resources:
            if resource.type in NAME_ARGUMENTS:
                kind, argument = NAME_ARGUMENTS[resource.type]
                name = self.value(resource, argument)
                if isinstance(name, Known) and isinstance(name.value, str):
                    self.names.setdefault((kind, name.value), resource.address)
        for output in self.root.outputs:
            value = self.root.output(output)
            for option in candidates(value) or ():
                self.exported.update(ref.address for ref in refs_in(option.value))
        for resource in self.resources:
            if resource.type == "aws_sqs_queue_redrive_policy":
                queue = self.target(resource, "queue_url", "queue")
                if queue is None or queue not in self.unit.resources:
                    self.unknown_redrive_target = True
                    continue
                self.redrives[queue] = (resource, self.raw(resource, "redrive_policy"))
        for resource in self.resources:
            handler = _HANDLERS.get(resource.type)
            if handler is not None:
                handler(self, resource)

    # -- helpers ---------------------------------------------------------------
    def scope(self, resource: Resource) -> Instance:
        if resource.address not in self.scopes:
            self.scopes[resource.address] = instance_scope(resource)
        return self.scopes[resource.address]

    def raw(self, resource: Resource, name: str, block: Block | None = None) -> Value:
        """An argument's value as evaluated, atoms and all; Known(None) when absent."""
        attribute = (block or resource.block).body.attributes.get(name)
        if attribute is None:
            return NONE
        return self.scope(resource).evaluator.eval(attribute.expr)

    def value(self, resource: Resource, name: str, default: Value | None = None, block: Block | None = None) -> Value:
        """A plain argument value; null and absent take ``default``; references resolve."""
        value = self.raw(resource, name, block)
        return _plain(self.scope(resource).evaluator.resolved(value), default)

    def loc(self, resource: Resource, name: str | None = None, block: Block | None = None) -> Loc:
        attribute = (block or resource.block).body.attributes.get(name) if name else None
        return Loc(resource.file, attribute.line if attribute else resource.block.line, 1)

    def common(self, resource: Resource) -> dict:
        return {
            "id": resource.address,
            "loc": Loc(resource.file, resource.block.line, 1),
            "type": resource.type,
            "suppressions": self.suppressions(resource),
        }

    def target(self, resource: Resource, name: str, kind: str | None, block: Block | None = None) -> str | None:
        """The node an argument points at, an External node, or None when it is unset."""
        attribute = (block or resource.block).body.attributes.get(name)
        if attribute is None:
            return None
        value = self.raw(resource, name, block)
        label = render(attribute.expr)
        return self.target_of(value, kind, label, self.loc(resource, name, block))

    def targets(self, resource: Resource, name: str, kind: str | None) -> tuple[str, ...]:
        """Every node an argument may point at: one per ``for_each`` instance or branch."""
        attribute = resource.block.body.attributes.get(name)
        if attribute is None:
            return ()
        options = candidates(self.raw(resource, name))
        if options is None or len(options) == 1:
            one = self.target(resource, name, kind)
            return (one,) if one else ()
        loc = self.loc(resource, name)
        found = [self.target_of(o, kind, render(attribute.expr), loc) for o in options]
        return tuple(dict.fromkeys(f for f in found if f))

    def target_of(self, value: Value, kind: str | None, label: str, loc: Loc) -> str | None:
        options = candidates(value)
        if options is None:
            return self.external(label, loc)
        found = {self._payload_target(o.value, kind) for o in options}
        if found == {None}:
            return None
        if len(found) == 1:
            found_one = found.pop()
            return found_one if found_one != "" else self.external(label, loc)
        return self.external("conditional reference", loc)

    def _payload_target(self, payload: Any, kind: str | None) -> str | None:
        """An address, "" for something outside the unit, None for null."""
        if payload is None:
            return None
        if isinstance(payload, Ref):
            return self._follow_alias(payload.address)
        if isinstance(payload, Interpolated):
            addresses = {r.address for r in payload.parts if isinstance(r, Ref)}
            return self._follow_alias(addresses.pop()) if len(addresses) == 1 else ""
        if isinstance(payload, str):
            return self._literal(payload, kind) or ""
        return ""

    def _follow_alias(self, address: str) -> str:
        resource = self.unit.resources.get(address)
        if resource is not None and resource.type == "aws_lambda_alias":
            target = self.target(resource, "function_name", "function")
            return target if target in self.unit.resources else ""
        return address if resource is not None else ""

    def _literal(self, text: str, kind: str | None) -> str | None:
        match = _ARN.match(text)
        if match:
            service, rest = match.groups()
            if service == "lambda":
                parts = rest.split(":")
                if len(parts) >= 2 and parts[0] == "function":
                    return self.names.get(("function", parts[1]))
                return None
            return self.names.get(("queue" if service == "sqs" else "topic", rest))
        match = _QUEUE_URL.match(text)
        if match:
            return self.names.get(("queue", match.group(1)))
        if kind in ("queue", "topic", "function"):
            return self.names.get((kind, text))
        return None

    def external(self, label: str, loc: Loc) -> str:
        node_id = f"external: {label}"
        if node_id not in self.externals:
            self.externals[node_id] = External(id=node_id, loc=loc, label=label, type="external")
        return node_id

    def dead_letter(self, resource: Resource, name: str, block: Block, via: str) -> None:
        target = self.target(resource, name, "queue", block)
        if target:
            self.dead_letter_uses.append(DeadLetterUse(target, resource.address, via))

    def suppressions(self, resource: Resource) -> tuple[Suppression, ...]:
        comments = self.unit.comments.get(resource.file, {})
        block = resource.block
        lines = [line for line in comments if block.line <= line <= block.end_line]
        above = block.line - 1
        while above in comments:
            lines.append(above)
            above -= 1
        found: list[Suppression] = []
        for line in sorted(lines):
            found.extend(parse_suppression(comments[line], Loc(resource.file, line, 1)))
        return tuple(found)


_IGNORE = re.compile(r"^fanout-lint:\s*ignore\s*=\s*([\w.-]+(?:\s*,\s*[\w.-]+)*)(.*)$")
_UNTIL = re.compile(r"\buntil\s*=\s*(\d{4}-\d{2}-\d{2})")


def parse_suppression(text: str, loc: Loc) -> list[Suppression]:
    """``fanout-lint: ignore=ID-or-name[,other] [until=YYYY-MM-DD] [-- reason]``."""
    match = _IGNORE.match(text.strip())
    if not match:
        return []
    rules = [r.strip() for r in match.group(1).split(",") if r.strip()]
    rest = match.group(2)
    until_match = _UNTIL.search(rest)
    until = until_match.group(1) if until_match else None
    rest = _UNTIL.sub("", rest)
    reason = rest.split("--", 1)[1].strip() if "--" in rest else ""
    return [Suppression(rule=r, reason=reason, until=until, loc=loc) for r in rules]


def _plain(value: Value, default: Value | None) -> Value:
    """Null means unset (the default applies); atoms mean known only after apply."""
    options = candidates(value)
    if options is None:
        return value
    out: list[Value] = []
    for option in options:
        payload = option.value
        if payload is None:
            out.append(default if default is not None else NONE)
        elif isinstance(payload, Hole):
            return Unknown(payload.reason)
        elif isinstance(payload, ATOMS):
            return Unknown("known only after apply")
        else:
            out.append(option)
    return choice(out)


def _json_document(b: _Builder, resource: Resource, name: str) -> Value:
    """A JSON string argument (redrive_policy, policy) decoded, atoms kept."""
    value = b.scope(resource).evaluator.resolved(b.raw(resource, name))
    options = candidates(value)
    if options is None:
        return value
    decoded: list[Value] = []
    for option in options:
        payload = option.value
        if payload is None:
            decoded.append(NONE)
            continue
        if isinstance(payload, Hole):
            return Unknown(payload.reason)
        if isinstance(payload, Ref):
            return Unknown("document known only after apply")
        if isinstance(payload, dict):
            decoded.append(Known(payload))
            continue
        try:
            document = decode_json(payload)
        except EvalError:
            return Unknown(f"{name} is not valid JSON")
        if not isinstance(document, dict):
            return Unknown(f"{name} is not a JSON object")
        decoded.append(Known(document, option.origin, option.detail))
    if len(decoded) == 1:
        return decoded[0]
    return OneOf(tuple(decoded)) if all(isinstance(d, Known) for d in decoded) else Unknown("conditional document")


def _redrive_from(b: _Builder, resource: Resource, document: Value, loc: Loc, with_count: bool) -> Value:
    options = candidates(document)
    if options is None:
        return document
    results = set()
    built: list[Value] = []
    for option in options:
        policy = option.value
        if policy is None:
            built.append(NONE)
            results.add(None)
            continue
        if "deadLetterTargetArn" not in policy:
            return Unknown("redrive policy without deadLetterTargetArn")
        dlq = b.target_of(Known(policy["deadLetterTargetArn"]), "queue", "deadLetterTargetArn", loc)
        if dlq is None:
            built.append(NONE)
            results.add(None)
            continue
        count: Value = NONE
        if with_count:
            raw_count = policy.get("maxReceiveCount")
            if isinstance(raw_count, ATOMS):
                count = Unknown("maxReceiveCount is not known")
            elif raw_count is None:
                count = default_of("redrive.max_receive_count")
            else:
                count = to_int(Known(raw_count, option.origin, option.detail))
        built.append(Known(Redrive(dlq, count, loc)))
        results.add((dlq, count))
    if len(results) != 1:
        return Unknown("a condition chooses the redrive policy")
    return built[0]


# -- one function per resource type ------------------------------------------

def _topic(b: _Builder, r: Resource) -> None:
    b.nodes.append(Topic(
        **b.common(r),
        name=b.value(r, "name"),
        fifo=to_bool(b.value(r, "fifo_topic", default_of("topic.fifo"))),
        kms_master_key_id=b.value(r, "kms_master_key_id"),
        exported=r.address in b.exported,
    ))


def _queue(b: _Builder, r: Resource) -> None:
    redrive = _redrive_from(b, r, _json_document(b, r, "redrive_policy"), b.loc(r, "redrive_policy"), True)
    if isinstance(redrive, Known) and redrive.value is None:
        if r.address in b.redrives:
            separate, document = b.redrives[r.address]
            redrive = _redrive_from(b, separate, _json_document(b, separate, "redrive_policy"),
                                    Loc(separate.file, separate.block.line, 1), True)
        elif b.unknown_redrive_target:
            redrive = Unknown("an aws_sqs_queue_redrive_policy names a queue we cannot resolve")
    b.nodes.append(Queue(
        **b.common(r),
        name=b.value(r, "name"),
        fifo=to_bool(b.value(r, "fifo_queue", default_of("queue.fifo"))),
        visibility_timeout=to_int(b.value(r, "visibility_timeout_seconds", default_of("queue.visibility_timeout"))),
        message_retention=to_int(b.value(r, "message_retention_seconds", default_of("queue.message_retention"))),
        redrive=redrive,
        kms_master_key_id=b.value(r, "kms_master_key_id"),
        sqs_managed_sse=to_bool(b.value(r, "sqs_managed_sse_enabled")),
    ))
    if "policy" in r.block.body.attributes:
        common = b.common(r)
        b.nodes.append(QueuePolicy(
            **{**common, "id": f"{r.address}.policy", "type": "aws_sqs_queue.policy"},
            resource=r.address,
            queues=(r.address,),
            statements=_statements(b, r, "policy"),
        ))


def _statements(b: _Builder, r: Resource, name: str) -> Value:
    document = _json_document(b, r, name)
    if not isinstance(document, Known) or not isinstance(document.value, dict):
        return document if isinstance(document, Unknown) else Unknown("policy is not known")
    loc = b.loc(r, name)
    return parse_policy(
        document.value,
        loc,
        _policy_value,
        lambda node, at: b.target_of(Known(node), "topic", render_payload(node), at),
    )


def _policy_value(node: Any) -> Value:
    if isinstance(node, Hole):
        return Unknown(node.reason)
    if isinstance(node, ATOMS):
        return Unknown("known only after apply")
    return Known(node)


def render_payload(payload: Any) -> str:
    if isinstance(payload, Ref):
        return f"{payload.address}.{payload.attribute}".rstrip(".")
    if isinstance(payload, str):
        return payload
    return "expression"


def _queue_policy(b: _Builder, r: Resource) -> None:
    b.nodes.append(QueuePolicy(
        **b.common(r),
        queues=b.targets(r, "queue_url", "queue"),
        statements=_statements(b, r, "policy"),
    ))


def _endpoint_kind(protocol: Value) -> str | None:
    if isinstance(protocol, Known) and isinstance(protocol.value, str):
        return {"sqs": "queue", "lambda": "function"}.get(protocol.value.lower())
    return None


def _subscription(b: _Builder, r: Resource) -> None:
    protocol = b.value(r, "protocol")
    kind = _endpoint_kind(protocol)
    redrive = _redrive_from(b, r, _json_document(b, r, "redrive_policy"), b.loc(r, "redrive_policy"), False)
    redrive_dlq: Value = Known(redrive.value.dlq) if isinstance(redrive, Known) and redrive.value else redrive
    filter_policy = b.value(r, "filter_policy")
    b.nodes.append(Subscription(
        **b.common(r),
        topic=b.target(r, "topic_arn", "topic"),
        protocol=protocol,
        endpoint=b.target(r, "endpoint", kind) if kind else None,
        raw_message_delivery=to_bool(b.value(r, "raw_message_delivery", default_of("subscription.raw_message_delivery"))),
        redrive_dlq=redrive_dlq,
        filter_policy=not (isinstance(filter_policy, Known) and filter_policy.value is None),
    ))


def _function(b: _Builder, r: Resource) -> None:
    b.nodes.append(Function(
        **b.common(r),
        name=b.value(r, "function_name"),
        timeout=to_int(b.value(r, "timeout", default_of("function.timeout"))),
    ))
    for config in r.block.body.blocks_of("dead_letter_config"):
        b.dead_letter(r, "target_arn", config, "dead_letter_config")


def _on_failure(b: _Builder, r: Resource) -> None:
    for destination in r.block.body.blocks_of("destination_config"):
        for on_failure in destination.body.blocks_of("on_failure"):
            for name in ("destination_arn", "destination"):
                if name in on_failure.body.attributes:
                    b.dead_letter(r, name, on_failure, "destination_config on_failure")


def _mapping(b: _Builder, r: Resource) -> None:
    b.nodes.append(EventSourceMapping(
        **b.common(r),
        source=b.target(r, "event_source_arn", "queue"),
        function=b.target(r, "function_name", "function"),
        batch_size=to_int(b.value(r, "batch_size", default_of("mapping.batch_size"))),
        batching_window=to_int(b.value(r, "maximum_batching_window_in_seconds", default_of("mapping.batching_window"))),
        response_types=_string_list(b.value(r, "function_response_types", Known(()))),
        enabled=to_bool(b.value(r, "enabled", default_of("mapping.enabled"))),
    ))
    _on_failure(b, r)


def _string_list(value: Value) -> Value:
    options = candidates(value)
    if options is None:
        return value
    out = []
    for option in options:
        items = option.value
        if not isinstance(items, (list, tuple)) or not all(isinstance(v, str) for v in items):
            return Unknown("list with unevaluated items")
        out.append(Known(tuple(items), option.origin, option.detail))
    return choice(out)


def _permission(b: _Builder, r: Resource) -> None:
    b.nodes.append(LambdaPermission(
        **b.common(r),
        function=b.target(r, "function_name", "function"),
        principal=b.value(r, "principal"),
        action=b.value(r, "action"),
        source_arn=b.target(r, "source_arn", "topic"),
    ))


def _event_target(b: _Builder, r: Resource) -> None:
    for config in r.block.body.blocks_of("dead_letter_config"):
        b.dead_letter(r, "arn", config, "EventBridge target dead_letter_config")


def _schedule(b: _Builder, r: Resource) -> None:
    for target in r.block.body.blocks_of("target"):
        for config in target.body.blocks_of("dead_letter_config"):
            b.dead_letter(r, "arn", config, "Scheduler dead_letter_config")


_HANDLERS: dict[str, Callable[[_Builder, Resource], None]] = {
    "aws_sns_topic": _topic,
    "aws_sqs_queue": _queue,
    "aws_sqs_queue_policy": _queue_policy,
    "aws_sns_topic_subscription": _subscription,
    "aws_lambda_function": _function,
    "aws_lambda_event_source_mapping": _mapping,
    "aws_lambda_function_event_invoke_config": _on_failure,
    "aws_lambda_permission": _permission,
    "aws_cloudwatch_event_target": _event_target,
    "aws_scheduler_schedule": _schedule,
}
