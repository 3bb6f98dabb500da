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

The generated resources keep their settings located where the user wrote them (the
mapping's ``BatchSize`` is the event's), and each says, as a ``Written`` construct, how
SAM names its settings and which ones it cannot express (the queue of
``SqsSubscription: true`` has no redrive policy), so that findings give advice the user
can follow in SAM.
"""

from __future__ import annotations

from typing import Any

from fanout_lint.loaders.cfn_template import RawResource
from fanout_lint.loaders.located import DerivedMap, Map, loc_of
from fanout_lint.model.nodes import Body, Written

FUNCTION_GLOBALS = "Function"
_SQS_SUBSCRIPTION_QUEUE = (
    "SAM's SqsSubscription: true creates this queue with default settings: declare the queue "
    "yourself (AWS::SQS::Queue with the settings it needs) and pass it to SqsSubscription as "
    "QueueArn and QueueUrl"
)

# How SAM names the settings of what it generates, and what it cannot express.
FUNCTION = Written("cloudformation", "AWS::Serverless::Function",
                   names=(("dead_letter", "DeadLetterQueue.TargetArn"),))
SQS_EVENT = Written("cloudformation", "SAM SQS event", transform=True, names=(("source", "Queue"),))
SNS_EVENT = Written(
    "cloudformation", "SAM SNS event", transform=True, names=(("topic", "Topic"),),
    fixed=(("endpoint", "set SqsSubscription: true on the SNS event, or better, declare the queue "
                        "yourself and read it with an SQS event"),),
)
SQS_SUBSCRIPTION_QUEUE = Written(
    "cloudformation", "SAM SqsSubscription", transform=True,
    fixed=(("*", _SQS_SUBSCRIPTION_QUEUE),),
)
SQS_SUBSCRIPTION = Written(
    "cloudformation", "SAM SqsSubscription", transform=True, names=(("topic", "Topic"),),
    fixed=(("raw_message_delivery", "SAM's SqsSubscription cannot enable it: declare the queue and an "
                                    "AWS::SNS::Subscription with RawMessageDelivery: true"),),
)
SQS_SUBSCRIPTION_MAPPING = Written(
    "cloudformation", "SAM SqsSubscription", transform=True, names=(("batch_size", "SqsSubscription.BatchSize"),),
    fixed=(("response_types", "SAM's SqsSubscription cannot enable it: declare the queue and an SQS event "
                              "with FunctionResponseTypes: [ReportBatchItemFailures], or set the "
                              "SqsSubscription's BatchSize to 1"),),
)
SQS_SUBSCRIPTION_POLICY = Written("cloudformation", "SAM SqsSubscription", transform=True)
CONNECTOR = Written("cloudformation", "SAM connector", transform=True)
EVENT_INVOKE_CONFIG = Written("cloudformation", "SAM EventInvokeConfig", transform=True)
AUTO_PUBLISH_ALIAS = Written("cloudformation", "SAM AutoPublishAlias", transform=True)


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


def _located(loc, home: Map | None = None) -> DerivedMap:
    return DerivedMap(loc, home if isinstance(home, Map) else None)


def _merged(local: dict, global_props: dict) -> DerivedMap:
    """The function's properties over Globals, each located where it is written."""
    merged = _located(getattr(local, "loc", None), local)
    for source in (global_props, local):
        for key in source:
            merged.take(key, source)
    return merged


def _function(resource: RawResource, function_globals: dict, by_id: dict) -> list[RawResource]:
    fn = resource.id
    if not resource.props_known:  # hidden properties: nothing is known of it or its events
        return [RawResource(id=fn, type="AWS::Lambda::Function", props={}, loc=resource.loc,
                            metadata=resource.metadata, props_known=False, condition=resource.condition,
                            written=FUNCTION)]
    props = _merged(resource.props, function_globals)
    lambda_props = _located(props.loc, resource.props)
    for key in ("FunctionName", "Timeout", "DeadLetterConfig"):
        if key in props:
            lambda_props.take(key, props)
    dlq = props.get("DeadLetterQueue")
    if isinstance(dlq, dict) and "TargetArn" in dlq:
        config = _located(getattr(dlq, "loc", resource.loc), dlq)
        config.take("TargetArn", dlq)
        lambda_props["DeadLetterConfig"] = config
    out = [
        RawResource(
            id=fn, type="AWS::Lambda::Function", props=lambda_props, loc=resource.loc,
            metadata=resource.metadata, condition=resource.condition, written=FUNCTION,
            node=resource.node,
        )
    ]
    invoke_config = props.get("EventInvokeConfig")
    if isinstance(invoke_config, dict):
        config = _located(getattr(invoke_config, "loc", resource.loc), invoke_config)
        config["FunctionName"] = {"Ref": fn}
        if "DestinationConfig" in invoke_config:
            config.take("DestinationConfig", invoke_config)
        out.append(_generated(f"{fn}EventInvokeConfig", "AWS::Lambda::EventInvokeConfig", config, resource,
                              resource.loc, EVENT_INVOKE_CONFIG))
    alias = props.get("AutoPublishAlias")
    if isinstance(alias, str):
        out.append(
            _generated(f"{fn}Alias{alias}", "AWS::Lambda::Alias", {"FunctionName": {"Ref": fn}},
                       resource, resource.loc, AUTO_PUBLISH_ALIAS)
        )
    events = props.get("Events")
    if isinstance(events, dict):
        for name, event in events.items():
            if isinstance(event, dict):
                event_loc = loc_of(events, name, resource.loc)
                out.extend(_event(resource, fn, str(name), event, event_loc, by_id))
    return out


def _generated(logical_id, type_, props, origin: RawResource, loc, written: Written,
               body: Body | None = None) -> RawResource:
    # SAM copies the Condition of a function or connector to what it generates from it.
    return RawResource(id=logical_id, type=type_, props=props, loc=loc, written=written,
                       metadata=origin.metadata, condition=origin.condition, body=body,
                       syntax=origin.syntax)


def _event(resource: RawResource, fn: str, name: str, event: dict, loc, by_id: dict) -> list[RawResource]:
    kind = event.get("Type")
    props = event.get("Properties") if isinstance(event.get("Properties"), dict) else {}
    logical = f"{fn}{name}"
    if kind == "SQS":
        mapping = _located(getattr(props, "loc", loc), props)
        if "Queue" in props:
            mapping.take("EventSourceArn", props, "Queue")
        mapping["FunctionName"] = {"Ref": fn}
        for key in ("BatchSize", "Enabled", "MaximumBatchingWindowInSeconds", "FunctionResponseTypes",
                    "FilterCriteria", "ScalingConfig"):
            if key in props:
                mapping.take(key, props)
        # a new setting goes into the event's Properties, where SAM reads it from
        body = Body(props, resource.syntax) if isinstance(props, Map) and props else None
        return [_generated(logical, "AWS::Lambda::EventSourceMapping", mapping, resource, loc, SQS_EVENT, body)]
    target = {"Arn": {"Fn::GetAtt": [fn, "Arn"]}}
    dead_letter = props.get("DeadLetterConfig")
    if isinstance(dead_letter, dict) and "Arn" in dead_letter:
        config = _located(getattr(dead_letter, "loc", loc), dead_letter)
        config.take("Arn", dead_letter)
        target["DeadLetterConfig"] = config
    if kind in ("Schedule", "EventBridgeRule", "CloudWatchEvent"):
        return [_generated(logical, "AWS::Events::Rule", {"Targets": [target]}, resource, loc,
                           Written("cloudformation", f"SAM {kind} event", transform=True))]
    if kind == "ScheduleV2":
        return [_generated(logical, "AWS::Scheduler::Schedule", {"Target": target}, resource, loc,
                           Written("cloudformation", "SAM ScheduleV2 event", transform=True))]
    if kind != "SNS":
        return []
    topic = props.get("Topic")
    subscription = _located(getattr(props, "loc", loc), props)
    if "Topic" in props:
        subscription.take("TopicArn", props, "Topic")
    for key in ("FilterPolicy", "FilterPolicyScope", "RedrivePolicy", "Region"):
        if key in props:
            subscription.take(key, props)
    sqs = props.get("SqsSubscription")
    if sqs is True or (isinstance(sqs, str) and sqs.lower() == "true"):
        queue_id = f"{logical}Queue"
        queue_props = {"FifoQueue": True} if _topic_is_fifo(topic, by_id) else {}
        subscription.update({"Protocol": "sqs", "Endpoint": {"Fn::GetAtt": [queue_id, "Arn"]}})
        return [
            _generated(queue_id, "AWS::SQS::Queue", queue_props, resource, loc, SQS_SUBSCRIPTION_QUEUE),
            _queue_policy(f"{logical}QueuePolicy", [{"Ref": queue_id}], topic, resource, loc,
                          SQS_SUBSCRIPTION_POLICY),
            _generated(logical, "AWS::SNS::Subscription", subscription, resource, loc, SQS_SUBSCRIPTION),
            _generated(f"{logical}EventSourceMapping", "AWS::Lambda::EventSourceMapping",
                       {"EventSourceArn": {"Fn::GetAtt": [queue_id, "Arn"]}, "FunctionName": {"Ref": fn},
                        "BatchSize": 10, "Enabled": True}, resource, loc, SQS_SUBSCRIPTION_MAPPING),
        ]
    if isinstance(sqs, dict):
        policy_id = sqs.get("QueuePolicyLogicalId")
        policy_id = policy_id if isinstance(policy_id, str) else f"{logical}QueuePolicy"
        subscription["Protocol"] = "sqs"
        if "QueueArn" in sqs:
            subscription.take("Endpoint", sqs, "QueueArn")
        mapping = _located(getattr(sqs, "loc", loc))
        if "QueueArn" in sqs:
            mapping.take("EventSourceArn", sqs, "QueueArn")
        mapping["FunctionName"] = {"Ref": fn}
        if "BatchSize" in sqs:
            mapping.take("BatchSize", sqs)
        else:
            mapping["BatchSize"] = 10
        mapping["Enabled"] = True  # SAM ignores SqsSubscription.Enabled and always enables the mapping
        return [
            _queue_policy(policy_id, [sqs.get("QueueUrl")], topic, resource, loc, SQS_SUBSCRIPTION_POLICY),
            _generated(logical, "AWS::SNS::Subscription", subscription, resource, loc, SQS_SUBSCRIPTION),
            _generated(f"{logical}EventSourceMapping", "AWS::Lambda::EventSourceMapping", mapping,
                       resource, loc, SQS_SUBSCRIPTION_MAPPING),
        ]
    subscription.update({"Protocol": "lambda", "Endpoint": {"Fn::GetAtt": [fn, "Arn"]}})
    return [
        _generated(f"{logical}Permission", "AWS::Lambda::Permission",
                   {"FunctionName": {"Ref": fn}, "Action": "lambda:InvokeFunction",
                    "Principal": "sns.amazonaws.com", "SourceArn": topic},
                   resource, loc, SNS_EVENT),
        _generated(logical, "AWS::SNS::Subscription", subscription, resource, loc, SNS_EVENT),
    ]


def _queue_policy(logical_id: str, queues: list, topic: Any, origin: RawResource, loc,
                  written: Written) -> RawResource:
    statement = {
        "Effect": "Allow",
        "Principal": "*",
        "Action": "sqs:SendMessage",
        "Condition": {"ArnEquals": {"aws:SourceArn": topic}},
    }
    return _generated(logical_id, "AWS::SQS::QueuePolicy",
                      {"Queues": queues, "PolicyDocument": {"Version": "2012-10-17", "Statement": [statement]}},
                      origin, loc, written)


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
            out.append(_queue_policy(f"{logical}{suffix}QueuePolicy", [target_url or target_arn], topic_arn,
                                     resource, resource.loc, CONNECTOR))
        elif target_type in ("AWS::Lambda::Function", "AWS::Serverless::Function") and target_arn is not None:
            out.append(
                _generated(f"{logical}{suffix}WriteLambdaPermission", "AWS::Lambda::Permission",
                           {"FunctionName": target_arn, "Action": "lambda:InvokeFunction",
                            "Principal": "sns.amazonaws.com", "SourceArn": topic_arn},
                           resource, resource.loc, CONNECTOR)
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
