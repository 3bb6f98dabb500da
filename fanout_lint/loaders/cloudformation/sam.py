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
- ``Type: Kinesis`` and ``DynamoDB``: ``<Fn><Event>`` (AWS::Lambda::EventSourceMapping
  on the ``Stream``, with its retry, age, bisect and on-failure settings).
- ``Type: Schedule``, ``EventBridgeRule``, ``CloudWatchEvent``: ``<Fn><Event>``
  (AWS::Events::Rule with one target, the function) and ``<Fn><Event>Permission``
  (events.amazonaws.com, the rule as source); a ``DeadLetterConfig`` with ``Type: SQS``
  adds ``<Fn><Event>Queue`` (or ``QueueLogicalId``) and ``<Fn><Event>QueuePolicy``.
- ``Type: ScheduleV2``: ``<Fn><Event>`` (AWS::Scheduler::Schedule, invoking through a
  role SAM creates, so no permission); ``Type: SQS`` adds the queue only.
- ``Type: S3``: the bucket (which must be in the template) gets a
  ``NotificationConfiguration.LambdaConfigurations`` entry per event type, and
  ``<Fn><Event>Permission`` lets s3.amazonaws.com invoke (with ``SourceAccount`` only).
- ``EventInvokeConfig``: ``<Fn>EventInvokeConfig`` (``Qualifier`` the alias or
  ``$LATEST``); a destination of ``Type: SQS`` or ``SNS`` without ``Destination`` adds
  ``<Fn>EventInvokeConfig<OnFailure|OnSuccess><Queue|Topic>``.
- ``AutoPublishAlias``: ``<Fn>Alias<name>`` (``-`` and ``_`` spelled ``D`` and ``U``), which
  every event invokes; ``!Ref <Fn>.Alias`` and ``!Ref <Fn>.Version`` written elsewhere
  name the function too.

``AWS::Serverless::StateMachine`` becomes an ``AWS::StepFunctions::StateMachine``, and per
``Schedule``, ``EventBridgeRule`` or ``CloudWatchEvent`` event ``<SM><Event>``
(AWS::Events::Rule whose target starts the state machine with the role
``<SM><Event>Role`` SAM creates, so no permission), per ``ScheduleV2`` event
``<SM><Event>`` (AWS::Scheduler::Schedule, role ``<SM><Event>Role``); dead-letter queues
as for functions. An ``Api`` event starts it through API Gateway and is not modelled.

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

from typing import TYPE_CHECKING

from fanout_lint.loaders.cloudformation.template import RawResource
from fanout_lint.loaders.parsing.located import DerivedMap, Map, loc_of
from fanout_lint.model.format import Format
from fanout_lint.model.nodes import Body, Written

if TYPE_CHECKING:
    from typing import Any

FUNCTION_GLOBALS = "Function"
_SQS_SUBSCRIPTION_QUEUE = (
    "SAM's SqsSubscription: true creates this queue with default settings: declare the queue "
    "yourself (AWS::SQS::Queue with the settings it needs) and pass it to SqsSubscription as "
    "QueueArn and QueueUrl"
)

# How SAM names the settings of what it generates, and what it cannot express.
FUNCTION = Written(Format.CLOUDFORMATION, "AWS::Serverless::Function",
                   names=(("dead_letter", "DeadLetterQueue.TargetArn"),
                          ("invoke_on_failure", "EventInvokeConfig.DestinationConfig.OnFailure")))
SQS_EVENT = Written(Format.CLOUDFORMATION, "SAM SQS event", transform=True, names=(("source", "Queue"),),
                    source="sqs")
STREAM_EVENTS = {
    kind: Written(Format.CLOUDFORMATION, f"SAM {kind} event", transform=True,
                  names=(("source", "Stream"), ("on_failure", "DestinationConfig.OnFailure")))
    for kind in ("Kinesis", "DynamoDB")
}
RULE_EVENTS = {
    kind: Written(Format.CLOUDFORMATION, f"SAM {kind} event", transform=True,
                  names=(("dead_letter", "DeadLetterConfig"),))
    for kind in ("Schedule", "EventBridgeRule", "CloudWatchEvent", "ScheduleV2")
}
S3_EVENT = Written(Format.CLOUDFORMATION, "SAM S3 event", transform=True)
EVENT_DEAD_LETTER_QUEUE = Written(
    Format.CLOUDFORMATION, "SAM DeadLetterConfig", transform=True,
    fixed=(("*", "SAM's DeadLetterConfig with Type: SQS creates this queue with default settings: declare the "
                 "queue yourself and give its ARN as DeadLetterConfig.Arn"),),
)
INVOKE_DESTINATION = Written(
    Format.CLOUDFORMATION, "SAM EventInvokeConfig", transform=True,
    fixed=(("*", "SAM's EventInvokeConfig creates this destination with default settings: declare it "
                 "yourself and give its ARN as the Destination"),),
)
SNS_EVENT = Written(
    Format.CLOUDFORMATION, "SAM SNS event", transform=True, names=(("topic", "Topic"),),
    fixed=(("endpoint", "set SqsSubscription: true on the SNS event, or better, declare the queue "
                        "yourself and read it with an SQS event"),),
)
SQS_SUBSCRIPTION_QUEUE = Written(
    Format.CLOUDFORMATION, "SAM SqsSubscription", transform=True,
    fixed=(("*", _SQS_SUBSCRIPTION_QUEUE),),
)
SQS_SUBSCRIPTION = Written(
    Format.CLOUDFORMATION, "SAM SqsSubscription", transform=True, names=(("topic", "Topic"),),
    fixed=(("raw_message_delivery", "SAM's SqsSubscription cannot enable it: declare the queue and an "
                                    "AWS::SNS::Subscription with RawMessageDelivery: true"),),
)
SQS_SUBSCRIPTION_MAPPING = Written(
    Format.CLOUDFORMATION, "SAM SqsSubscription", transform=True, names=(("batch_size", "SqsSubscription.BatchSize"),),
    source="sqs",
    fixed=(("response_types", "SAM's SqsSubscription cannot enable it: declare the queue and an SQS event "
                              "with FunctionResponseTypes: [ReportBatchItemFailures], or set the "
                              "SqsSubscription's BatchSize to 1"),),
)
SQS_SUBSCRIPTION_POLICY = Written(Format.CLOUDFORMATION, "SAM SqsSubscription", transform=True)
CONNECTOR = Written(Format.CLOUDFORMATION, "SAM connector", transform=True)
EVENT_INVOKE_CONFIG = Written(Format.CLOUDFORMATION, "SAM EventInvokeConfig", transform=True,
                              names=(("on_failure", "EventInvokeConfig.DestinationConfig.OnFailure"),
                                     ("on_success", "EventInvokeConfig.DestinationConfig.OnSuccess")))
AUTO_PUBLISH_ALIAS = Written(Format.CLOUDFORMATION, "SAM AutoPublishAlias", transform=True)


def expand(resources: list[RawResource], data: dict) -> list[RawResource]:
    globals_section = data.get("Globals")
    function_globals = {}
    if isinstance(globals_section, dict) and isinstance(globals_section.get(FUNCTION_GLOBALS), dict):
        function_globals = globals_section[FUNCTION_GLOBALS]
    by_id = {r.id: r for r in resources}
    notifications = _s3_notifications(resources, function_globals, by_id)
    out: list[RawResource] = []
    for resource in resources:
        if resource.type == "AWS::Serverless::Function":
            out.extend(_function(resource, function_globals, by_id))
        elif resource.type == "AWS::Serverless::StateMachine":
            out.extend(_state_machine(resource))
        elif resource.type == "AWS::Serverless::Connector":
            out.extend(_connector(resource, resource.props, resource.id, by_id))
        elif resource.id in notifications:
            out.append(_with_notifications(resource, notifications[resource.id]))
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
    for key in ("FunctionName", "Timeout", "DeadLetterConfig", "ReservedConcurrentExecutions", "Role", "RecursiveLoop"):
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
    alias = _alias_name(props)
    invoked = _invoked(fn, alias)
    if alias is not None:
        alias_id = _alias_id(fn, alias)
        for logical_id, type_ in ((alias_id, "AWS::Lambda::Alias"), (f"{fn}.Alias", "AWS::Lambda::Alias"),
                                  (f"{fn}.Version", "AWS::Lambda::Version")):
            # the last two are what `!Ref <Fn>.Alias` and `!Ref <Fn>.Version` name elsewhere
            out.append(_generated(logical_id, type_, {"FunctionName": {"Ref": fn}}, resource, resource.loc,
                                  AUTO_PUBLISH_ALIAS))
    invoke_config = props.get("EventInvokeConfig")
    if isinstance(invoke_config, dict):
        out.extend(_invoke_config(resource, fn, alias, invoke_config))
    events = props.get("Events")
    if isinstance(events, dict):
        for name, event in events.items():
            if isinstance(event, dict):
                event_loc = loc_of(events, name, resource.loc)
                out.extend(_event(resource, fn, invoked, str(name), event, event_loc, by_id))
    return out


def _state_machine(resource: RawResource) -> list[RawResource]:
    """The state machine, and the rules and schedules its events create to start it."""
    sm = resource.id
    # SAM's Type is the generated state machine's StateMachineType: without it an Express
    # workflow would read as Standard.
    machine_type = resource.props.get("Type") if resource.props_known else None
    props = {"StateMachineType": machine_type} if machine_type is not None else {}
    out = [RawResource(id=sm, type="AWS::StepFunctions::StateMachine", props=props, loc=resource.loc,
                       metadata=resource.metadata, condition=resource.condition, node=resource.node,
                       props_known=resource.props_known)]
    events = resource.props.get("Events") if resource.props_known else None
    for name, event in events.items() if isinstance(events, dict) else ():
        kind = event.get("Type") if isinstance(event, dict) else None
        if kind not in RULE_EVENTS:
            continue  # an Api event starts it synchronously, through API Gateway
        props = event.get("Properties") if isinstance(event.get("Properties"), dict) else {}
        out.extend(_rule_event(resource, sm, {"Ref": sm}, f"{sm}{name}", kind, props,
                               loc_of(events, name, resource.loc), state_machine=True))
    return out


def _alias_name(props: dict) -> str | None:
    alias = props.get("AutoPublishAlias")
    return alias if isinstance(alias, str) and alias else None


def _alias_id(fn: str, alias: str) -> str:
    return f"{fn}Alias{alias.replace('-', 'D').replace('_', 'U')}"


def _invoked(fn: str, alias: str | None) -> dict:
    """What an event invokes: the function, or its alias when SAM publishes one."""
    return {"Ref": _alias_id(fn, alias)} if alias is not None else {"Fn::GetAtt": [fn, "Arn"]}


def _invoke_config(resource: RawResource, fn: str, alias: str | None, invoke_config: dict) -> list[RawResource]:
    logical = f"{fn}EventInvokeConfig"
    config = _located(getattr(invoke_config, "loc", resource.loc), invoke_config)
    config["FunctionName"] = {"Ref": fn}
    config["Qualifier"] = alias if alias is not None else "$LATEST"
    for key in ("MaximumRetryAttempts", "MaximumEventAgeInSeconds"):
        if key in invoke_config:
            config.take(key, invoke_config)
    out = []
    destinations = invoke_config.get("DestinationConfig")
    if isinstance(destinations, dict):
        written = _located(getattr(destinations, "loc", resource.loc), destinations)
        for when in ("OnSuccess", "OnFailure"):
            destination = destinations.get(when)
            if not isinstance(destination, dict):
                continue
            entry = _located(getattr(destination, "loc", resource.loc), destination)
            if "Destination" in destination:
                entry.take("Destination", destination)
            elif destination.get("Type") in ("SQS", "SNS"):
                # SAM creates the destination with default settings
                made = f"{logical}{when}{'Queue' if destination['Type'] == 'SQS' else 'Topic'}"
                made_type = "AWS::SQS::Queue" if destination["Type"] == "SQS" else "AWS::SNS::Topic"
                out.append(_generated(made, made_type, {}, resource, loc_of(destinations, when, resource.loc),
                                      INVOKE_DESTINATION))
                entry["Destination"] = {"Fn::GetAtt": [made, "Arn"]} if destination["Type"] == "SQS" \
                    else {"Ref": made}
            written[when] = entry
        config["DestinationConfig"] = written
    out.append(_generated(logical, "AWS::Lambda::EventInvokeConfig", config, resource,
                          loc_of(resource.props, "EventInvokeConfig", resource.loc), EVENT_INVOKE_CONFIG))
    return out


def _generated(logical_id, type_, props, origin: RawResource, loc, written: Written,
               body: Body | None = None) -> RawResource:
    # SAM copies the Condition of a function or connector to what it generates from it.
    return RawResource(id=logical_id, type=type_, props=props, loc=loc, written=written,
                       metadata=origin.metadata, condition=origin.condition, body=body,
                       syntax=origin.syntax)


def _event(resource: RawResource, fn: str, invoked: dict, name: str, event: dict, loc,
           by_id: dict) -> list[RawResource]:
    kind = event.get("Type")
    props = event.get("Properties") if isinstance(event.get("Properties"), dict) else {}
    logical = f"{fn}{name}"
    # a new setting goes into the event's Properties, where SAM reads it from
    body = Body(props, resource.syntax) if isinstance(props, Map) and props else None
    if kind == "SQS":
        mapping = _located(getattr(props, "loc", loc), props)
        if "Queue" in props:
            mapping.take("EventSourceArn", props, "Queue")
        mapping["FunctionName"] = {"Ref": fn}
        for key in ("BatchSize", "Enabled", "MaximumBatchingWindowInSeconds", "FunctionResponseTypes",
                    "FilterCriteria", "ScalingConfig", "ProvisionedPollerConfig"):
            if key in props:
                mapping.take(key, props)
        return [_generated(logical, "AWS::Lambda::EventSourceMapping", mapping, resource, loc, SQS_EVENT, body)]
    if kind in STREAM_EVENTS:
        return [_generated(logical, "AWS::Lambda::EventSourceMapping", _stream_mapping(fn, props, loc),
                           resource, loc, STREAM_EVENTS[kind], body)]
    if kind in ("Schedule", "EventBridgeRule", "CloudWatchEvent", "ScheduleV2"):
        return _rule_event(resource, fn, invoked, logical, kind, props, loc)
    if kind == "S3":
        permission = {"FunctionName": _permitted(fn, invoked), "Action": "lambda:InvokeFunction",
                      "Principal": "s3.amazonaws.com", "SourceAccount": {"Ref": "AWS::AccountId"}}
        return [_generated(f"{logical}Permission", "AWS::Lambda::Permission", permission, resource, loc, S3_EVENT)]
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
    subscription.update({"Protocol": "lambda", "Endpoint": invoked})
    return [
        _generated(f"{logical}Permission", "AWS::Lambda::Permission",
                   {"FunctionName": _permitted(fn, invoked), "Action": "lambda:InvokeFunction",
                    "Principal": "sns.amazonaws.com", "SourceArn": topic},
                   resource, loc, SNS_EVENT),
        _generated(logical, "AWS::SNS::Subscription", subscription, resource, loc, SNS_EVENT),
    ]


def _permitted(fn: str, invoked: dict) -> dict:
    """What a permission SAM makes names: the function, or the alias the event invokes."""
    return invoked if "Ref" in invoked else {"Ref": fn}


def _stream_mapping(fn: str, props: dict, loc) -> DerivedMap:
    mapping = _located(getattr(props, "loc", loc), props)
    if "Stream" in props:
        mapping.take("EventSourceArn", props, "Stream")
    mapping["FunctionName"] = {"Ref": fn}
    for key in ("BatchSize", "Enabled", "StartingPosition", "MaximumBatchingWindowInSeconds",
                "MaximumRetryAttempts", "BisectBatchOnFunctionError", "MaximumRecordAgeInSeconds",
                "ParallelizationFactor", "FunctionResponseTypes", "FilterCriteria", "TumblingWindowInSeconds"):
        if key in props:
            mapping.take(key, props)
    destinations = props.get("DestinationConfig")
    on_failure = destinations.get("OnFailure") if isinstance(destinations, dict) else None
    if isinstance(on_failure, dict):
        # SAM drops the Type (it only chooses the role's policy) and passes the rest through
        entry = _located(getattr(on_failure, "loc", loc), on_failure)
        if "Destination" in on_failure:
            entry.take("Destination", on_failure)
        written = _located(getattr(destinations, "loc", loc), destinations)
        written["OnFailure"] = entry
        mapping["DestinationConfig"] = written
    elif isinstance(destinations, dict) or (destinations is not None and "DestinationConfig" in props):
        mapping.take("DestinationConfig", props)
    return mapping


def _rule_event(resource: RawResource, fn: str, invoked: dict, logical: str, kind: str, props: dict,
                loc, state_machine: bool = False) -> list[RawResource]:
    """An EventBridge rule (or, for ScheduleV2, a Scheduler schedule) invoking the function,
    or starting the state machine (through a role SAM creates, ``<SM><Event>Role``)."""
    out = []
    target = _located(getattr(props, "loc", loc), props)
    target["Arn"] = invoked
    if "RetryPolicy" in props:
        target.take("RetryPolicy", props)
    dead_letter = props.get("DeadLetterConfig")
    if isinstance(dead_letter, dict):
        config = _located(getattr(dead_letter, "loc", loc), dead_letter)
        if "Arn" in dead_letter:
            config.take("Arn", dead_letter)
        elif dead_letter.get("Type") == "SQS":
            queue_id = dead_letter.get("QueueLogicalId")
            queue_id = queue_id if isinstance(queue_id, str) else f"{logical}Queue"
            dlq_loc = loc_of(props, "DeadLetterConfig", loc)
            out.append(_generated(queue_id, "AWS::SQS::Queue", {}, resource, dlq_loc, EVENT_DEAD_LETTER_QUEUE))
            if kind != "ScheduleV2":  # a schedule's role, not a queue policy, lets it send
                out.append(_dlq_policy(f"{logical}QueuePolicy", queue_id, logical, resource, dlq_loc))
            config["Arn"] = {"Fn::GetAtt": [queue_id, "Arn"]}
        target["DeadLetterConfig"] = config
    written = RULE_EVENTS[kind]
    if kind == "ScheduleV2":
        if "RoleArn" in props:
            target.take("RoleArn", props)
        else:
            target["RoleArn"] = {"Fn::GetAtt": [f"{logical}Role", "Arn"]}  # the role SAM creates
        schedule = _located(getattr(props, "loc", loc), props)
        schedule["Target"] = target
        for key in ("State", "ScheduleExpression"):
            if key in props:
                schedule.take(key, props)
        return [_generated(logical, "AWS::Scheduler::Schedule", schedule, resource, loc, written), *out]
    rule = _located(getattr(props, "loc", loc), props)
    rule["Targets"] = [target]
    if "State" in props:
        rule.take("State", props)
    elif isinstance(props.get("Enabled"), bool):
        rule["State"] = "ENABLED" if props["Enabled"] else "DISABLED"
    if kind == "Schedule" and "Schedule" in props:
        rule.take("ScheduleExpression", props, "Schedule")
    elif kind != "Schedule" and "Pattern" in props:
        rule.take("EventPattern", props, "Pattern")
    if state_machine:  # EventBridge starts the execution with the role SAM creates for the event
        target["RoleArn"] = {"Fn::GetAtt": [f"{logical}Role", "Arn"]}
        return [_generated(logical, "AWS::Events::Rule", rule, resource, loc, written), *out]
    permission = {"FunctionName": _permitted(fn, invoked), "Action": "lambda:InvokeFunction",
                  "Principal": "events.amazonaws.com", "SourceArn": {"Fn::GetAtt": [logical, "Arn"]}}
    return [
        _generated(logical, "AWS::Events::Rule", rule, resource, loc, written),
        _generated(f"{logical}Permission", "AWS::Lambda::Permission", permission, resource, loc, written),
        *out,
    ]


def _dlq_policy(logical_id: str, queue_id: str, rule_id: str, origin: RawResource, loc) -> RawResource:
    statement = {
        "Effect": "Allow",
        "Principal": {"Service": "events.amazonaws.com"},
        "Action": "sqs:SendMessage",
        "Resource": {"Fn::GetAtt": [queue_id, "Arn"]},
        "Condition": {"ArnEquals": {"aws:SourceArn": {"Fn::GetAtt": [rule_id, "Arn"]}}},
    }
    return _generated(logical_id, "AWS::SQS::QueuePolicy",
                      {"Queues": [{"Ref": queue_id}],
                       "PolicyDocument": {"Version": "2012-10-17", "Statement": [statement]}},
                      origin, loc, EVENT_DEAD_LETTER_QUEUE)


def _s3_notifications(resources: list[RawResource], function_globals: dict, by_id: dict) -> dict[str, list]:
    """The LambdaConfigurations SAM adds to each bucket of the template, by bucket id:
    one per event type of every S3 event naming the bucket."""
    found: dict[str, list] = {}
    for resource in resources:
        if resource.type != "AWS::Serverless::Function" or not resource.props_known:
            continue
        props = _merged(resource.props, function_globals)
        events = props.get("Events")
        invoked = _invoked(resource.id, _alias_name(props))
        for event in events.values() if isinstance(events, dict) else ():
            if not isinstance(event, dict) or event.get("Type") != "S3":
                continue
            event_props = event.get("Properties")
            bucket = event_props.get("Bucket") if isinstance(event_props, dict) else None
            bucket_id = bucket.get("Ref") if isinstance(bucket, dict) else None
            if not isinstance(bucket_id, str) or bucket_id not in by_id:
                continue  # SAM rejects an S3 event whose bucket is not in the template
            kinds = event_props.get("Events")
            for event_type in kinds if isinstance(kinds, list) else [kinds]:
                entry = _located(getattr(event_props, "loc", resource.loc), event_props)
                entry["Function"] = invoked
                entry["Event"] = event_type
                if "Filter" in event_props:
                    entry.take("Filter", event_props)
                found.setdefault(bucket_id, []).append(entry)
    return found


def _with_notifications(bucket: RawResource, added: list) -> RawResource:
    """The bucket with SAM's notifications appended to what it writes itself."""
    if not bucket.props_known:
        return bucket
    props = _located(getattr(bucket.props, "loc", bucket.loc), bucket.props)
    for key in bucket.props:
        props.take(key, bucket.props)
    written = bucket.props.get("NotificationConfiguration")
    written = written if isinstance(written, dict) else {}
    configuration = _located(getattr(written, "loc", bucket.loc), written)
    for key in written:
        configuration.take(key, written)
    lambdas = written.get("LambdaConfigurations")
    if lambdas is not None and not isinstance(lambdas, list):
        return bucket  # SAM rejects it; nothing to add to
    configuration["LambdaConfigurations"] = list(lambdas or []) + added
    props["NotificationConfiguration"] = configuration
    return RawResource(id=bucket.id, type=bucket.type, props=props, loc=bucket.loc, metadata=bucket.metadata,
                       written=bucket.written, condition=bucket.condition, node=bucket.node, body=bucket.body,
                       syntax=bucket.syntax)


def _queue_policy(logical_id: str, queues: list, source: Any, origin: RawResource, loc,
                  written: Written, principal: Any = "*") -> RawResource:
    statement = {
        "Effect": "Allow",
        "Principal": principal,
        "Action": "sqs:SendMessage",
        "Condition": {"ArnEquals": {"aws:SourceArn": source}},
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


# The services a connector's source sends with, for the grants this expansion models.
_CONNECTOR_SOURCES = {
    "AWS::SNS::Topic": "sns.amazonaws.com",
    "AWS::Events::Rule": "events.amazonaws.com",
    "AWS::S3::Bucket": "s3.amazonaws.com",
}


def _connector(resource: RawResource, props: dict, logical: str, by_id: dict) -> list[RawResource]:
    """The grants of a connector from a topic, an EventBridge rule or a bucket to a queue
    or a function (SAM has no bucket-to-queue connector).

    Each end is named by ``Id`` (a resource of the template) or by ``Type`` and ``Arn``
    (plus ``QueueUrl`` for a queue); both forms grant the same.
    """
    source = props.get("Source")
    permissions = props.get("Permissions")
    if not isinstance(source, dict) or not isinstance(permissions, list) or "Write" not in permissions:
        return []
    source_type, source_arn, _ = _reference(source, by_id)
    service = _CONNECTOR_SOURCES.get(source_type)
    if service is None or source_arn is None:
        return []
    destinations = props.get("Destination")
    destinations = destinations if isinstance(destinations, list) else [destinations]
    out = []
    for index, destination in enumerate(destinations):
        if not isinstance(destination, dict):
            continue
        target_type, target_arn, target_url = _reference(destination, by_id)
        suffix = "" if len(destinations) == 1 else f"Destination{index}"
        if target_type == "AWS::SQS::Queue" and (target_url or target_arn) is not None \
                and source_type != "AWS::S3::Bucket":
            principal = "*" if source_type == "AWS::SNS::Topic" else {"Service": service}
            out.append(_queue_policy(f"{logical}{suffix}QueuePolicy", [target_url or target_arn], source_arn,
                                     resource, resource.loc, CONNECTOR, principal))
        elif target_type in ("AWS::Lambda::Function", "AWS::Serverless::Function") and target_arn is not None:
            out.append(
                _generated(f"{logical}{suffix}WriteLambdaPermission", "AWS::Lambda::Permission",
                           {"FunctionName": target_arn, "Action": "lambda:InvokeFunction",
                            "Principal": service, "SourceArn": source_arn},
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
