"""What the SAM translator generates, for the resources fan-out rules care about.

``AWS::Serverless::Function`` becomes an ``AWS::Lambda::Function`` (with ``Globals``
applied) plus, per event, the resources aws-sam-translator creates, under its logical
IDs and located at the event in the source:

- ``Type: SQS``: ``<Fn><Event>`` (AWS::Lambda::EventSourceMapping).
- ``Type: SNS``: ``<Fn><Event>`` (AWS::SNS::Subscription, protocol lambda) and
  ``<Fn><Event>Permission``.
- ``Type: SNS`` with ``SqsSubscription: true``: ``<Fn><Event>Queue`` (no properties: 30 s
  visibility, no DLQ), ``<Fn><Event>QueuePolicy`` (Principal ``*`` with aws:SourceArn),
  ``<Fn><Event>`` (subscription, protocol sqs, no raw delivery) and
  ``<Fn><Event>EventSourceMapping``. The object form names an existing queue instead.
- ``Type: Schedule``, ``EventBridgeRule``, ``CloudWatchEvent`` (AWS::Events::Rule) and
  ``ScheduleV2`` (AWS::Scheduler::Schedule): ``<Fn><Event>``, kept for the queue its
  ``DeadLetterConfig.Arn`` names as a dead-letter target.

Connectors (``AWS::Serverless::Connector`` and the ``Connectors`` property) that let a
topic write to a queue or a function become the queue policy or permission they grant.
See docs/design.md and the AWS SAM documentation for the exact shapes.
"""

from __future__ import annotations

from typing import Any

from fanout_lint.loaders.cfn_template import RawResource
from fanout_lint.loaders.source import Map, loc_of

FUNCTION_GLOBALS = "Function"


def expand(resources: list[RawResource], data: dict) -> list[RawResource]:
    globals_section = data.get("Globals")
    function_globals = {}
    if isinstance(globals_section, dict) and isinstance(globals_section.get(FUNCTION_GLOBALS), dict):
        function_globals = globals_section[FUNCTION_GLOBALS]
    by_id = {r.id: r for r in resources}
    out: list[RawResource] = []
    for resource in resources:
        if resource.type == "AWS::Serverless::Function":
            out.extend(_function(resource, function_globals, by_id))
        elif resource.type == "AWS::Serverless::Connector":
            out.extend(_connector(resource, resource.props, resource.id, by_id))
        else:
            out.append(resource)
        out.extend(_embedded_connectors(resource, by_id))
    return out


def _embedded_connectors(resource: RawResource, by_id: dict) -> list[RawResource]:
    """The ``Connectors`` resource attribute: connectors whose source is this resource."""
    out = []
    for name, connector in resource.connectors.items():
        if isinstance(connector, dict) and isinstance(connector.get("Properties"), dict):
            props = dict(connector["Properties"])
            props["Source"] = {"Id": resource.id}
            embedded = RawResource(
                id=f"{resource.id}{name}", type="AWS::Serverless::Connector", props=props,
                loc=loc_of(resource.connectors, name, resource.loc), condition=resource.condition,
            )
            out.extend(_connector(embedded, props, embedded.id, by_id))
    return out


def _merged(local: dict, global_props: dict) -> dict:
    merged = Map(getattr(local, "loc", None)) if isinstance(local, Map) else {}
    for source in (global_props, local):
        for key, value in source.items():
            merged[key] = value
            if isinstance(merged, Map) and isinstance(source, Map):
                merged.key_locs[key] = source.loc_of(key)
    return merged


def _function(resource: RawResource, function_globals: dict, by_id: dict) -> list[RawResource]:
    fn = resource.id
    if not resource.props_known:  # hidden properties: nothing is known of it or its events
        return [RawResource(id=fn, type="AWS::Lambda::Function", props={}, loc=resource.loc,
                            metadata=resource.metadata, props_known=False, condition=resource.condition)]
    props = _merged(resource.props, function_globals)
    lambda_props = {
        key: props[key]
        for key in ("FunctionName", "Timeout", "DeadLetterConfig")
        if key in props
    }
    if isinstance(props, Map):
        lambda_props = _with_locs(lambda_props, props)
    dlq = props.get("DeadLetterQueue")
    if isinstance(dlq, dict) and "TargetArn" in dlq:
        lambda_props["DeadLetterConfig"] = {"TargetArn": dlq["TargetArn"]}
    out = [
        RawResource(
            id=fn, type="AWS::Lambda::Function", props=lambda_props, loc=resource.loc,
            metadata=resource.metadata, condition=resource.condition,
        )
    ]
    invoke_config = props.get("EventInvokeConfig")
    if isinstance(invoke_config, dict):
        out.append(
            _generated(f"{fn}EventInvokeConfig", "AWS::Lambda::EventInvokeConfig", {
                "FunctionName": {"Ref": fn},
                "DestinationConfig": invoke_config.get("DestinationConfig"),
            }, resource, resource.loc, "SAM EventInvokeConfig")
        )
    alias = props.get("AutoPublishAlias")
    if isinstance(alias, str):
        out.append(
            _generated(f"{fn}Alias{alias}", "AWS::Lambda::Alias", {"FunctionName": {"Ref": fn}},
                       resource, resource.loc, "SAM AutoPublishAlias")
        )
    events = props.get("Events")
    if isinstance(events, dict):
        for name, event in events.items():
            if isinstance(event, dict):
                event_loc = loc_of(events, name, resource.loc)
                out.extend(_event(resource, fn, str(name), event, event_loc, by_id))
    return out


def _with_locs(values: dict, source: Map) -> Map:
    located = Map(source.loc)
    for key, value in values.items():
        located[key] = value
        located.key_locs[key] = source.loc_of(key)
    return located


def _generated(logical_id, type_, props, origin: RawResource, loc, how: str) -> RawResource:
    # SAM copies the Condition of a function or connector to what it generates from it.
    return RawResource(id=logical_id, type=type_, props=props, loc=loc, generated_by=how,
                       metadata=origin.metadata, condition=origin.condition)


def _event(resource: RawResource, fn: str, name: str, event: dict, loc, by_id: dict) -> list[RawResource]:
    kind = event.get("Type")
    props = event.get("Properties") if isinstance(event.get("Properties"), dict) else {}
    logical = f"{fn}{name}"
    if kind == "SQS":
        mapping = {"EventSourceArn": props.get("Queue"), "FunctionName": {"Ref": fn}}
        for key in ("BatchSize", "Enabled", "MaximumBatchingWindowInSeconds", "FunctionResponseTypes",
                    "FilterCriteria", "ScalingConfig"):
            if key in props:
                mapping[key] = props[key]
        return [_generated(logical, "AWS::Lambda::EventSourceMapping", mapping, resource, loc,
                           "SAM SQS event")]
    target = {"Arn": {"Fn::GetAtt": [fn, "Arn"]}}
    dead_letter = props.get("DeadLetterConfig")
    if isinstance(dead_letter, dict) and "Arn" in dead_letter:
        target["DeadLetterConfig"] = {"Arn": dead_letter["Arn"]}
    if kind in ("Schedule", "EventBridgeRule", "CloudWatchEvent"):
        return [_generated(logical, "AWS::Events::Rule", {"Targets": [target]}, resource, loc,
                           f"SAM {kind} event")]
    if kind == "ScheduleV2":
        return [_generated(logical, "AWS::Scheduler::Schedule", {"Target": target}, resource, loc,
                           "SAM ScheduleV2 event")]
    if kind != "SNS":
        return []
    topic = props.get("Topic")
    subscription = {"TopicArn": topic}
    for key in ("FilterPolicy", "FilterPolicyScope", "RedrivePolicy", "Region"):
        if key in props:
            subscription[key] = props[key]
    sqs = props.get("SqsSubscription")
    if sqs is True or (isinstance(sqs, str) and sqs.lower() == "true"):
        queue_id = f"{logical}Queue"
        queue_props = {"FifoQueue": True} if _topic_is_fifo(topic, by_id) else {}
        return [
            _generated(queue_id, "AWS::SQS::Queue", queue_props, resource, loc, "SAM SqsSubscription"),
            _queue_policy(f"{logical}QueuePolicy", [{"Ref": queue_id}], topic, resource, loc),
            _generated(logical, "AWS::SNS::Subscription",
                       {**subscription, "Protocol": "sqs", "Endpoint": {"Fn::GetAtt": [queue_id, "Arn"]}},
                       resource, loc, "SAM SqsSubscription"),
            _generated(f"{logical}EventSourceMapping", "AWS::Lambda::EventSourceMapping",
                       {"EventSourceArn": {"Fn::GetAtt": [queue_id, "Arn"]}, "FunctionName": {"Ref": fn},
                        "BatchSize": 10, "Enabled": True}, resource, loc, "SAM SqsSubscription"),
        ]
    if isinstance(sqs, dict):
        policy_id = sqs.get("QueuePolicyLogicalId")
        policy_id = policy_id if isinstance(policy_id, str) else f"{logical}QueuePolicy"
        return [
            _queue_policy(policy_id, [sqs.get("QueueUrl")], topic, resource, loc),
            _generated(logical, "AWS::SNS::Subscription",
                       {**subscription, "Protocol": "sqs", "Endpoint": sqs.get("QueueArn")},
                       resource, loc, "SAM SqsSubscription"),
            # SAM ignores SqsSubscription.Enabled and always enables the mapping.
            _generated(f"{logical}EventSourceMapping", "AWS::Lambda::EventSourceMapping",
                       {"EventSourceArn": sqs.get("QueueArn"), "FunctionName": {"Ref": fn},
                        "BatchSize": sqs.get("BatchSize", 10), "Enabled": True},
                       resource, loc, "SAM SqsSubscription"),
        ]
    return [
        _generated(f"{logical}Permission", "AWS::Lambda::Permission",
                   {"FunctionName": {"Ref": fn}, "Action": "lambda:InvokeFunction",
                    "Principal": "sns.amazonaws.com", "SourceArn": topic},
                   resource, loc, "SAM SNS event"),
        _generated(logical, "AWS::SNS::Subscription",
                   {**subscription, "Protocol": "lambda", "Endpoint": {"Fn::GetAtt": [fn, "Arn"]}},
                   resource, loc, "SAM SNS event"),
    ]


def _queue_policy(logical_id: str, queues: list, topic: Any, origin: RawResource, loc) -> RawResource:
    statement = {
        "Effect": "Allow",
        "Principal": "*",
        "Action": "sqs:SendMessage",
        "Condition": {"ArnEquals": {"aws:SourceArn": topic}},
    }
    return _generated(logical_id, "AWS::SQS::QueuePolicy",
                      {"Queues": queues, "PolicyDocument": {"Version": "2012-10-17", "Statement": [statement]}},
                      origin, loc, "SAM SqsSubscription")


def _topic_is_fifo(topic: Any, by_id: dict) -> bool:
    # SAM only detects a FIFO topic through a Ref to a topic of the same template.
    if isinstance(topic, dict) and isinstance(topic.get("Ref"), str):
        target = by_id.get(topic["Ref"])
        if target is not None and target.type == "AWS::SNS::Topic":
            fifo = target.props.get("FifoTopic")
            return fifo is True or (isinstance(fifo, str) and fifo.lower() == "true")
    return False


def _connector(resource: RawResource, props: dict, logical: str, by_id: dict) -> list[RawResource]:
    """The grants of a connector from a topic to a queue or a function.

    Each end is named by ``Id`` (a resource of the template) or by ``Type`` and ``Arn``
    (plus ``QueueUrl`` for a queue); both forms grant the same.
    """
    source = props.get("Source")
    permissions = props.get("Permissions")
    if not isinstance(source, dict) or not isinstance(permissions, list) or "Write" not in permissions:
        return []
    source_type, topic_arn, _ = _reference(source, by_id)
    if source_type != "AWS::SNS::Topic" or topic_arn is None:
        return []
    destinations = props.get("Destination")
    destinations = destinations if isinstance(destinations, list) else [destinations]
    out = []
    for index, destination in enumerate(destinations):
        if not isinstance(destination, dict):
            continue
        target_type, target_arn, target_url = _reference(destination, by_id)
        suffix = "" if len(destinations) == 1 else f"Destination{index}"
        if target_type == "AWS::SQS::Queue" and (target_url or target_arn) is not None:
            policy = _queue_policy(f"{logical}{suffix}QueuePolicy", [target_url or target_arn], topic_arn,
                                   resource, resource.loc)
            policy.generated_by = "SAM connector"
            out.append(policy)
        elif target_type in ("AWS::Lambda::Function", "AWS::Serverless::Function") and target_arn is not None:
            out.append(
                _generated(f"{logical}{suffix}WriteLambdaPermission", "AWS::Lambda::Permission",
                           {"FunctionName": target_arn, "Action": "lambda:InvokeFunction",
                            "Principal": "sns.amazonaws.com", "SourceArn": topic_arn},
                           resource, resource.loc, "SAM connector")
            )
    return out


def _reference(end: dict, by_id: dict) -> tuple[str | None, Any, Any]:
    """(type, ARN-or-ref, queue URL) of a connector end, or Nones when it names nothing."""
    end_id = end.get("Id")
    if isinstance(end_id, str):
        target = by_id.get(end_id)
        if target is None:
            return None, None, None
        return target.type, {"Ref": end_id}, {"Ref": end_id}
    end_type = end.get("Type")
    if not isinstance(end_type, str):
        return None, None, None
    return end_type, end.get("Arn"), end.get("QueueUrl")
