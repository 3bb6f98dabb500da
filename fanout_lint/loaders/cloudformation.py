"""CloudFormation (YAML, JSON, SAM, CDK output) into the resource graph."""

from __future__ import annotations

import json
from typing import Any, Callable

from fanout_lint.budget import Budget
from fanout_lint.loaders import sam
from fanout_lint.loaders.cfn_intrinsics import Intrinsics, pseudo_text, sub_references
from fanout_lint.loaders.cfn_template import RawResource, means_sam, raw_resources
from fanout_lint.loaders.policy_documents import parse_policy
from fanout_lint.loaders.source import MAX_DEPTH, loc_of
from fanout_lint.model.defaults import default_of
from fanout_lint.model.graph import Graph
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
    Unit,
)
from fanout_lint.model.values import Known, Unknown, Value, to_bool, to_int

NAME_PROPERTIES = {
    "AWS::SQS::Queue": ("queue", "QueueName"),
    "AWS::SNS::Topic": ("topic", "TopicName"),
    "AWS::Lambda::Function": ("function", "FunctionName"),
}


def load_template(data: dict, file: str) -> Graph:
    resources = raw_resources(data, file)
    if means_sam(data, resources):
        resources = sam.expand(resources, data)
    parameters = data.get("Parameters") if isinstance(data.get("Parameters"), dict) else {}
    mappings = data.get("Mappings") if isinstance(data.get("Mappings"), dict) else {}
    intrinsics = Intrinsics(
        file=file,
        parameters=parameters,
        mappings=mappings,
        resource_types={r.id: r.type for r in resources},
        budget=Budget(file=file),
    )
    _index_names(resources, intrinsics)
    builder = _Builder(intrinsics, _exported_ids(data, intrinsics, file))
    for resource in resources:
        handler = (_HANDLERS if resource.props_known else _HIDDEN_HANDLERS).get(resource.type)
        if handler is not None:
            intrinsics.budget.at(file, resource.loc.line, resource.id)
            handler(builder, resource)
    nodes = builder.nodes + list(intrinsics.externals.values())
    return Graph(Unit(file, "cloudformation", (file,)), nodes, builder.dead_letter_uses)


def _index_names(resources: list[RawResource], intrinsics: Intrinsics) -> None:
    for resource in resources:
        if resource.type in NAME_PROPERTIES:
            kind, prop = NAME_PROPERTIES[resource.type]
            name = intrinsics.value(resource.props.get(prop))
            if isinstance(name, Known) and isinstance(name.value, str):
                intrinsics.names.setdefault((kind, name.value), resource.id)
            elif (text := pseudo_text(resource.props.get(prop))) is not None:
                intrinsics.names.setdefault((kind, text), resource.id)
        elif resource.type in ("AWS::Lambda::Alias", "AWS::Lambda::Version"):
            target = resource.props.get("FunctionName")
            if isinstance(target, dict) and len(target) == 1:
                (key, arg), = target.items()
                name = arg if key == "Ref" else (arg[0] if key == "Fn::GetAtt" and isinstance(arg, list) else None)
                if isinstance(name, str):
                    intrinsics.aliases[resource.id] = name


def _exported_ids(data: dict, intrinsics: Intrinsics, file: str) -> set[str]:
    outputs = data.get("Outputs")
    exported: set[str] = set()
    if not isinstance(outputs, dict):
        return exported
    for output in outputs.values():
        if isinstance(output, dict) and "Export" in output:
            target = intrinsics.target(output.get("Value"), "any", Loc(file, 1, 1))
            if target and target in intrinsics.resource_types:
                exported.add(target)
    # Exports are not graph nodes: drop the externals that resolving them created.
    for key in [k for k, v in intrinsics.externals.items() if v.loc == Loc(file, 1, 1)]:
        del intrinsics.externals[key]
    return exported


class _Builder:
    def __init__(self, intrinsics: Intrinsics, exported: set[str]):
        self.x = intrinsics
        self.exported = exported
        self.nodes: list[Node] = []
        self.dead_letter_uses: list[DeadLetterUse] = []

    def common(self, resource: RawResource) -> dict:
        metadata = resource.metadata
        cdk_path = metadata.get("aws:cdk:path") if isinstance(metadata, dict) else None
        return {
            "id": resource.id,
            "loc": resource.loc,
            "type": resource.type,
            "cdk_path": cdk_path if isinstance(cdk_path, str) else None,
            "generated_by": resource.generated_by,
            "suppressions": _suppressions(metadata, resource.loc),
            "condition": resource.condition,
        }

    def value(self, resource: RawResource, key: str, default: Value | None = None) -> Value:
        return self.x.value(resource.props.get(key), default)

    def target(self, resource: RawResource, node: Any, kind: str, key: str) -> str | None:
        # The property's location is looked up only for a target outside the unit.
        return self.x.internal_target(node, kind) or self.x.target(node, kind, resource.prop_loc(key))

    def dead_letter(self, resource: RawResource, node: Any, key: str, via: str) -> None:
        target = self.target(resource, node, "queue", key)
        if target:
            self.dead_letter_uses.append(DeadLetterUse(target, resource.id, via))


def _suppressions(metadata: Any, loc: Loc) -> tuple[Suppression, ...]:
    """``Metadata: {fanout-lint: {ignore: [...]}}``; entries may carry a reason and expiry."""
    if not isinstance(metadata, dict):
        return ()
    section = metadata.get("fanout-lint")
    if not isinstance(section, dict):
        return ()
    entries = section.get("ignore")
    entries = entries if isinstance(entries, list) else [entries] if entries else []
    # plain strings take the section's reason and until; a mapping gives its own
    reason, until = _text(section.get("reason")), section.get("until")
    found = []
    for index, entry in enumerate(entries):
        entry_loc = loc_of(entries, index, loc)
        if isinstance(entry, str):
            found.append(Suppression(rule=entry, reason=reason, until=_text(until) or None, loc=entry_loc))
        elif isinstance(entry, dict) and isinstance(entry.get("rule"), str):
            found.append(Suppression(
                rule=entry["rule"],
                reason=_text(entry.get("reason")) or reason,
                until=_text(entry.get("until", until)) or None,
                loc=entry_loc,
            ))
    return tuple(found)


def _text(value: Any) -> str:
    return "" if value is None else str(value)


# -- one function per resource type ------------------------------------------

def _topic(b: _Builder, r: RawResource) -> None:
    b.nodes.append(Topic(
        **b.common(r),
        name=b.value(r, "TopicName"),
        fifo=to_bool(b.value(r, "FifoTopic", default_of("topic.fifo"))),
        kms_master_key_id=b.value(r, "KmsMasterKeyId"),
        exported=r.id in b.exported,
    ))
    inline = r.props.get("Subscription")
    if isinstance(inline, list):
        for index, item in enumerate(inline):
            if not isinstance(item, dict):
                continue
            protocol = b.x.value(item.get("Protocol"))
            kind = _endpoint_kind(protocol)
            item_loc = loc_of(inline, index, r.prop_loc("Subscription"))
            endpoint = b.x.target(item.get("Endpoint"), kind, item_loc) if kind else None
            b.nodes.append(Subscription(
                id=f"{r.id}.Subscription[{index}]",
                resource=r.id,
                loc=item_loc,
                type="AWS::SNS::Topic.Subscription",
                cdk_path=b.common(r)["cdk_path"],
                suppressions=b.common(r)["suppressions"],
                generated_by=r.generated_by,
                condition=r.condition,
                topic=r.id,
                protocol=protocol,
                endpoint=endpoint,
                raw_message_delivery=default_of("subscription.raw_message_delivery"),
                inline=True,
            ))


def _endpoint_kind(protocol: Value) -> str | None:
    if isinstance(protocol, Known) and isinstance(protocol.value, str):
        return {"sqs": "queue", "lambda": "function"}.get(protocol.value.lower())
    return None


def _json_property(b: _Builder, raw: Any) -> Value:
    """A CloudFormation ``Json`` property: an object, or a string holding JSON."""
    if raw is None:
        return NONE
    if isinstance(raw, dict) and not _is_intrinsic(raw):
        return Known(raw)
    text = b.x.value(raw)
    if isinstance(text, Known) and isinstance(text.value, str):
        try:
            parsed = json.loads(text.value)
        except (ValueError, RecursionError):
            return Unknown("not valid JSON")
        return Known(parsed) if isinstance(parsed, dict) else Unknown("not a JSON object")
    template = _json_template(raw)
    if template is not None:
        return _sub_json(b, *template)
    return text if not isinstance(text, Known) else Unknown("not a JSON object")


def _json_template(raw: Any) -> tuple[str, dict] | None:
    """A ``Fn::Sub`` or ``Fn::Join`` string as Sub text plus its variable map.

    A Join's non-string items become variables, so ``["{...", !GetAtt DLQ.Arn, "...}"]``
    reads like ``!Sub ["{...${v1}...}", {v1: !GetAtt DLQ.Arn}]``.
    """
    if not isinstance(raw, dict) or len(raw) != 1:
        return None
    (key, arg), = raw.items()
    if key == "Fn::Sub":
        if isinstance(arg, str):
            return arg, {}
        if isinstance(arg, list) and len(arg) == 2 and isinstance(arg[0], str) and isinstance(arg[1], dict):
            return arg[0], dict(arg[1])
        return None
    if key == "Fn::Join" and isinstance(arg, list) and len(arg) == 2:
        delimiter, items = arg
        if not isinstance(delimiter, str) or not isinstance(items, list):
            return None
        parts, variables = [], {}
        for index, item in enumerate(items):
            if isinstance(item, str):
                parts.append(item.replace("${", "${!"))
            else:
                name = f"fanout-lint-join-{index}"
                variables[name] = item
                parts.append("${%s}" % name)
        return delimiter.join(parts), variables
    return None


_REFERABLE = ("Arn", "QueueName", "TopicName", "QueueUrl", "TopicArn")
_LONGEST_REFERABLE = max(map(len, _REFERABLE))


def _sub_json(b: _Builder, text: str, variables: dict) -> Value:
    """A ``!Sub`` JSON string whose ``${X.Arn}`` names a resource: keep the reference."""
    pieces = []
    last = 0
    for start, end, name in _attribute_references(text):
        if name in b.x.resource_types:
            pieces.append(text[last:start])
            pieces.append("${%s}" % name)
            last = end
    pieces.append(text[last:])
    placeholder = "".join(pieces)
    pieces = []
    last = 0
    for start, end, name in sub_references(placeholder, literal_too=True):
        pieces.append(placeholder[last:start])
        pieces.append("@@" + name + "@@")
        last = end
    pieces.append(placeholder[last:])
    try:
        parsed = json.loads("".join(pieces))
    except (ValueError, RecursionError):
        return Unknown("Fn::Sub JSON with unresolved parts")
    try:
        return Known(_restore_refs(parsed, variables, 0))
    except _TooDeep:
        return Unknown("Fn::Sub JSON nested too deeply")


def _attribute_references(text: str) -> list[tuple[int, int, str]]:
    """The ``${Name.Arn}``-style spans of a Sub string (Arn, QueueName, ... only):
    (start, end, Name), as the pattern
    ``\\$\\{([^}!.][^}.]*)\\.(Arn|QueueName|TopicName|QueueUrl|TopicArn)\\}`` finds them.

    In one pass, remembering the next ``}`` and the next ``.``: the pattern would scan from
    every ``${`` to the end of a string that has neither.
    """
    spans: list[tuple[int, int, str]] = []
    find = text.find
    position = 0
    close = dot = -1
    while True:
        start = find("${", position)
        if start < 0:
            return spans
        position = start + 1
        if close < start + 2:
            close = find("}", start + 2)
            if close < 0:
                return spans
        if dot < start + 2:
            dot = find(".", start + 2)
            if dot < 0:
                return spans  # every span needs a dot
        if dot == start + 2 or dot > close or text[start + 2] == "!":
            continue
        if close - dot - 1 <= _LONGEST_REFERABLE and text[dot + 1:close] in _REFERABLE:
            spans.append((start, close + 1, text[start + 2:dot]))
            position = close + 1


class _TooDeep(Exception):
    pass


def _restore_refs(value: Any, variables: dict, depth: int) -> Any:
    if depth > MAX_DEPTH:
        raise _TooDeep
    if isinstance(value, dict):
        return {k: _restore_refs(v, variables, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_restore_refs(v, variables, depth + 1) for v in value]
    if isinstance(value, str) and value.startswith("@@") and value.endswith("@@") and "@@" not in value[2:-2]:
        name = value[2:-2]
        return variables[name] if name in variables else {"Ref": name}
    if isinstance(value, str) and "@@" in value:
        text = _marks_as_sub(value)
        return {"Fn::Sub": [text, variables] if variables else text}
    return value


def _marks_as_sub(text: str) -> str:
    """``@@name@@`` back to ``${name}``, as ``re.sub(r"@@([^@]+)@@", r"${\\1}", text)``,
    with ``str.find`` from a moving cursor."""
    pieces = []
    find = text.find
    last = position = 0
    while True:
        start = find("@@", position)
        if start < 0:
            break
        close = find("@", start + 2)
        if close < 0:
            break  # no later @@ can close either
        if close == start + 2 or not text.startswith("@@", close):
            position = start + 1
            continue
        pieces.append(text[last:start])
        pieces.append("${" + text[start + 2:close] + "}")
        last = position = close + 2
    pieces.append(text[last:])
    return "".join(pieces)


def _is_intrinsic(raw: dict) -> bool:
    return len(raw) == 1 and next(iter(raw)).startswith(("Fn::", "Ref"))


def _redrive(b: _Builder, r: RawResource, key: str, max_receive_default: bool) -> Value:
    policy = _json_property(b, r.props.get(key))
    if not isinstance(policy, Known) or policy.value is None:
        return policy
    document = policy.value
    target = document.get("deadLetterTargetArn")
    if target is None:
        return Unknown("RedrivePolicy without deadLetterTargetArn")
    dlq = b.target(r, target, "queue", key)
    if dlq is None:
        return NONE
    if max_receive_default:
        count = to_int(b.x.value(document.get("maxReceiveCount"), default_of("redrive.max_receive_count")))
    else:
        count = NONE
    return Known(Redrive(dlq, count, r.prop_loc(key)))


def _queue(b: _Builder, r: RawResource) -> None:
    redrive = _redrive(b, r, "RedrivePolicy", True)
    b.nodes.append(Queue(
        **b.common(r),
        name=b.value(r, "QueueName"),
        fifo=to_bool(b.value(r, "FifoQueue", default_of("queue.fifo"))),
        visibility_timeout=to_int(b.value(r, "VisibilityTimeout", default_of("queue.visibility_timeout"))),
        message_retention=to_int(b.value(r, "MessageRetentionPeriod", default_of("queue.message_retention"))),
        redrive=redrive,
        kms_master_key_id=b.value(r, "KmsMasterKeyId"),
        sqs_managed_sse=to_bool(b.value(r, "SqsManagedSseEnabled")),
    ))


def _subscription(b: _Builder, r: RawResource) -> None:
    protocol = b.value(r, "Protocol")
    kind = _endpoint_kind(protocol)
    redrive = _redrive(b, r, "RedrivePolicy", False)
    if isinstance(redrive, Known) and redrive.value is not None:
        redrive_dlq: Value = Known(redrive.value.dlq)
    else:
        redrive_dlq = redrive
    b.nodes.append(Subscription(
        **b.common(r),
        topic=b.target(r, r.props.get("TopicArn"), "topic", "TopicArn"),
        protocol=protocol,
        endpoint=b.target(r, r.props.get("Endpoint"), kind, "Endpoint") if kind else None,
        raw_message_delivery=to_bool(
            b.value(r, "RawMessageDelivery", default_of("subscription.raw_message_delivery"))
        ),
        redrive_dlq=redrive_dlq,
        filter_policy="FilterPolicy" in r.props,
    ))


def _function(b: _Builder, r: RawResource) -> None:
    b.nodes.append(Function(
        **b.common(r),
        name=b.value(r, "FunctionName"),
        timeout=to_int(b.value(r, "Timeout", default_of("function.timeout"))),
    ))
    config = r.props.get("DeadLetterConfig")
    if isinstance(config, dict) and "TargetArn" in config:
        b.dead_letter(r, config["TargetArn"], "DeadLetterConfig", "DeadLetterConfig")


def _on_failure(b: _Builder, r: RawResource) -> None:
    config = r.props.get("DestinationConfig")
    on_failure = config.get("OnFailure") if isinstance(config, dict) else None
    if isinstance(on_failure, dict) and "Destination" in on_failure:
        b.dead_letter(r, on_failure["Destination"], "DestinationConfig", "OnFailure destination")


def _mapping(b: _Builder, r: RawResource) -> None:
    b.nodes.append(EventSourceMapping(
        **b.common(r),
        source=b.target(r, r.props.get("EventSourceArn"), "queue", "EventSourceArn"),
        function=b.target(r, r.props.get("FunctionName"), "function", "FunctionName"),
        batch_size=to_int(b.value(r, "BatchSize", default_of("mapping.batch_size"))),
        batching_window=to_int(b.value(r, "MaximumBatchingWindowInSeconds", default_of("mapping.batching_window"))),
        response_types=_string_list(b.value(r, "FunctionResponseTypes", Known(()))),
        enabled=to_bool(b.value(r, "Enabled", default_of("mapping.enabled"))),
    ))
    _on_failure(b, r)


def _string_list(value: Value) -> Value:
    if isinstance(value, Known) and isinstance(value.value, (list, tuple)):
        if all(isinstance(v, str) for v in value.value):
            return Known(tuple(value.value), value.origin, value.detail)
        return Unknown("list with unevaluated items")
    return value


def _queue_policy(b: _Builder, r: RawResource) -> None:
    if r.type == "AWS::SQS::QueueInlinePolicy":
        raw_queues = [r.props.get("Queue")]
        key = "Queue"
    else:
        raw_queues = r.props.get("Queues")
        raw_queues = raw_queues if isinstance(raw_queues, list) else []
        key = "Queues"
    queues = tuple(
        q for q in (b.target(r, item, "queue", key) for item in raw_queues) if q
    )
    statements = parse_policy(
        _policy_document(b, r.props.get("PolicyDocument")),
        r.prop_loc("PolicyDocument"),
        b.x.value,
        lambda node, loc: b.x.target(node, "topic", loc),
    )
    b.nodes.append(QueuePolicy(**b.common(r), queues=queues, statements=statements))


def _policy_document(b: _Builder, raw: Any) -> Any:
    if isinstance(raw, dict) and not _is_intrinsic(raw):
        return raw
    parsed = _json_property(b, raw)
    return parsed.value if isinstance(parsed, Known) else raw


def _permission(b: _Builder, r: RawResource) -> None:
    source = r.props.get("SourceArn")
    b.nodes.append(LambdaPermission(
        **b.common(r),
        function=b.target(r, r.props.get("FunctionName"), "function", "FunctionName"),
        principal=b.value(r, "Principal"),
        action=b.value(r, "Action"),
        source_arn=b.target(r, source, "topic", "SourceArn") if source is not None else None,
    ))


def _events_rule(b: _Builder, r: RawResource) -> None:
    targets = r.props.get("Targets")
    for target in targets if isinstance(targets, list) else []:
        config = target.get("DeadLetterConfig") if isinstance(target, dict) else None
        if isinstance(config, dict) and "Arn" in config:
            b.dead_letter(r, config["Arn"], "Targets", "EventBridge target DeadLetterConfig")


def _schedule(b: _Builder, r: RawResource) -> None:
    target = r.props.get("Target")
    config = target.get("DeadLetterConfig") if isinstance(target, dict) else None
    if isinstance(config, dict) and "Arn" in config:
        b.dead_letter(r, config["Arn"], "Target", "Scheduler DeadLetterConfig")


_HANDLERS: dict[str, Callable[[_Builder, RawResource], None]] = {
    "AWS::SNS::Topic": _topic,
    "AWS::SNS::Subscription": _subscription,
    "AWS::SQS::Queue": _queue,
    "AWS::Lambda::Function": _function,
    "AWS::Lambda::EventSourceMapping": _mapping,
    "AWS::Lambda::EventInvokeConfig": _on_failure,
    "AWS::SQS::QueuePolicy": _queue_policy,
    "AWS::SQS::QueueInlinePolicy": _queue_policy,
    "AWS::Lambda::Permission": _permission,
    "AWS::Events::Rule": _events_rule,
    "AWS::Scheduler::Schedule": _schedule,
}


# -- resources whose properties the template hides --------------------------
# Every value is unknown and no reference is followed: the node exists (so a policy or
# permission that might grant access still silences the permission rules) but proves
# nothing.

_HIDDEN = Unknown("the template hides the properties")


def _hidden_topic(b: _Builder, r: RawResource) -> None:
    b.nodes.append(Topic(**b.common(r), name=_HIDDEN, fifo=_HIDDEN, kms_master_key_id=_HIDDEN,
                         exported=r.id in b.exported))


def _hidden_queue(b: _Builder, r: RawResource) -> None:
    b.nodes.append(Queue(
        **b.common(r), name=_HIDDEN, fifo=_HIDDEN, visibility_timeout=_HIDDEN,
        message_retention=_HIDDEN, redrive=_HIDDEN, kms_master_key_id=_HIDDEN, sqs_managed_sse=_HIDDEN,
    ))


def _hidden_subscription(b: _Builder, r: RawResource) -> None:
    b.nodes.append(Subscription(**b.common(r), protocol=_HIDDEN, raw_message_delivery=_HIDDEN,
                                redrive_dlq=_HIDDEN))


def _hidden_function(b: _Builder, r: RawResource) -> None:
    b.nodes.append(Function(**b.common(r), name=_HIDDEN, timeout=_HIDDEN))


def _hidden_mapping(b: _Builder, r: RawResource) -> None:
    b.nodes.append(EventSourceMapping(
        **b.common(r), batch_size=_HIDDEN, batching_window=_HIDDEN, response_types=_HIDDEN,
        enabled=_HIDDEN,
    ))


def _hidden_queue_policy(b: _Builder, r: RawResource) -> None:
    b.nodes.append(QueuePolicy(**b.common(r), statements=_HIDDEN))


def _hidden_permission(b: _Builder, r: RawResource) -> None:
    b.nodes.append(LambdaPermission(**b.common(r), principal=_HIDDEN, action=_HIDDEN))


_HIDDEN_HANDLERS: dict[str, Callable[[_Builder, RawResource], None]] = {
    "AWS::SNS::Topic": _hidden_topic,
    "AWS::SNS::Subscription": _hidden_subscription,
    "AWS::SQS::Queue": _hidden_queue,
    "AWS::Lambda::Function": _hidden_function,
    "AWS::Lambda::EventSourceMapping": _hidden_mapping,
    "AWS::SQS::QueuePolicy": _hidden_queue_policy,
    "AWS::SQS::QueueInlinePolicy": _hidden_queue_policy,
    "AWS::Lambda::Permission": _hidden_permission,
}
