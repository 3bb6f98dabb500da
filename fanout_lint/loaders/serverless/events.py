"""The Serverless Framework's ``schedule``, ``eventBridge``, ``s3`` and ``stream`` events,
expanded to the resources its event compilers deploy (``loaders/serverless/loader.py`` expands the
functions, ``sqs`` and ``sns``).

As the Framework compiles them (``lib/plugins/aws/package/compile/events/``, names from
``naming.py``):

- ``schedule`` (a rate or cron string, or ``rate`` with one or more expressions,
  ``enabled``, ``name``, ``method``): each expression an ``AWS::Events::Rule``
  ``<Fn>EventsRuleSchedule<n>`` targeting the function, with the permission
  ``<Fn>LambdaPermissionEventsRuleSchedule<n>``; ``method: scheduler`` an
  ``AWS::Scheduler::Schedule`` ``<Fn>SchedulerSchedule<n>`` invoking it with the
  function's role. ``n`` counts the function's schedule expressions from 1. A schedule
  event sets no dead-letter queue and no retry policy.
- ``eventBridge`` (``pattern`` or ``schedule``, ``eventBus``, ``enabled``,
  ``retryPolicy``, ``deadLetterQueueArn``): with CloudFormation (the default when
  ``provider.eventBridge`` is absent, else ``provider.eventBridge.useCloudFormation``)
  the rule ``<name>EventBridgeRule``, named after ``<function name>-rule-<i>`` (``i``
  the event's position in the function's events, from 1; the function's name is
  ``name``, else ``<service>-<stage>-<key>``), and the permission
  ``<Fn>EventBridgeLambdaPermission<i>``; a bus named in ``eventBus`` is created as
  ``<Bus>EventBridgeEventBus`` unless it is ``default`` or an ARN. Otherwise the
  Framework deploys a custom resource (``<Fn>CustomEventBridge<i>``): not modelled.
- ``s3`` (a bucket name, or ``bucket`` with ``event``, ``rules``): the bucket
  ``S3Bucket<Bucket>`` with a Lambda notification per event (events of every function
  naming one bucket share it; ``provider.s3.<ref>`` names it and adds its settings), and
  the permission ``<Fn>LambdaPermission<Bucket>S3``. ``existing: true`` is a custom
  resource (``<Fn>CustomS31``): not modelled.
- ``stream`` (an ARN string, or ``arn`` with ``type``, ``batchSize`` (default 10),
  ``startingPosition`` (default TRIM_HORIZON), ``enabled``, ``batchWindow``,
  ``maximumRetryAttempts``, ``bisectBatchOnFunctionError``, ``functionResponseType``,
  ``maximumRecordAgeInSeconds``, ``destinations.onFailure``): the mapping
  ``<Fn>EventSourceMapping<Type><Stream>``; the type is ``type``, else the ARN's service.
  A mapping with ``consumer`` reads through a stream consumer the Framework creates; it is
  modelled as reading the stream itself, whose failures it handles the same way.

A name the file does not prove makes the logical ID one named by its event
(``...<events[2]>``), as in ``loaders/serverless/loader.py``. A construct not modelled is recorded in
``Expansion.unmodelled`` (what, where), for the unit's notice.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from fanout_lint.loaders.cloudformation.template import RawResource
from fanout_lint.loaders.parsing.located import DerivedMap, Map, Seq, loc_of
from fanout_lint.loaders.serverless import naming
from fanout_lint.model.format import Format
from fanout_lint.model.nodes import Body, Loc, Written
from fanout_lint.model.record import Record, ValueRecord
from fanout_lint.model.schema import EXISTING_BUCKET_NOTIFICATION
from fanout_lint.results.records import LoadError

if TYPE_CHECKING:
    from typing import Any

_SCHEDULE_DLQ = (
    "the Framework's schedule event cannot set a dead-letter queue: write the schedule as an eventBridge "
    "event (schedule, deadLetterQueueArn, retryPolicy) with provider.eventBridge.useCloudFormation: true, "
    "or declare the rule in resources.Resources"
)
SCHEDULE_EVENT = Written(
    Format.CLOUDFORMATION, "Serverless schedule event", transform=True,
    names=(("schedule", "rate"), ("state", "enabled"),
           ("dead_letter", "deadLetterQueueArn of an eventBridge event with this schedule (the schedule event "
                           "cannot set one; provider.eventBridge.useCloudFormation: true)")),
    fixed=(("dead_letter", _SCHEDULE_DLQ), ("retry_attempts", _SCHEDULE_DLQ), ("event_age", _SCHEDULE_DLQ)),
)
SCHEDULER_EVENT = Written(
    Format.CLOUDFORMATION, "Serverless schedule event (method: scheduler)", transform=True,
    names=(("schedule", "rate"),
           ("dead_letter", "Target.DeadLetterConfig.Arn of an AWS::Scheduler::Schedule declared in "
                           "resources.Resources (the schedule event cannot set one)")),
    fixed=(("dead_letter", "the Framework's schedule event cannot set a dead-letter queue: declare the "
                           "AWS::Scheduler::Schedule in resources.Resources with Target.DeadLetterConfig"),),
)
EVENTBRIDGE_EVENT = Written(
    Format.CLOUDFORMATION, "Serverless eventBridge event", transform=True,
    names=(("dead_letter", "deadLetterQueueArn"), ("retry_attempts", "retryPolicy.maximumRetryAttempts"),
           ("event_age", "retryPolicy.maximumEventAge"), ("pattern", "pattern"), ("schedule", "schedule"),
           ("state", "enabled")),
)
S3_EVENT = Written(Format.CLOUDFORMATION, "Serverless s3 event", transform=True)
S3_EXISTING_EVENT = Written(Format.CLOUDFORMATION, "Serverless s3 event on an existing bucket", transform=True)
STREAM_EVENTS = {
    service: Written(
        Format.CLOUDFORMATION, "Serverless stream event", transform=True,
        names=(("source", "arn"), ("batch_size", "batchSize"), ("on_failure", "destinations.onFailure"),
               ("maximum_retry_attempts", "maximumRetryAttempts"),
               ("maximum_record_age", "maximumRecordAgeInSeconds"), ("bisect", "bisectBatchOnFunctionError"),
               ("batching_window", "batchWindow"), ("response_types", "functionResponseType"),
               ("enabled", "enabled")),
        source=service,
    )
    for service in ("kinesis", "dynamodb", "")
}


@dataclass(eq=False, repr=False)
class Unmodelled(ValueRecord):
    """A messaging construct the file declares and the linter does not model."""

    what: str  # "functions.report.events[1].eventBridge: a custom resource (Custom::EventBridge)"
    loc: Loc


@dataclass(eq=False, repr=False)
class Expansion(Record):
    """What one function's events need beside the service: its counters and findings."""

    schedules: int = 0  # the function's schedule expressions so far (the Framework's n)
    unmodelled: list[Unmodelled] = field(default_factory=list)


def function_arn(fn: str) -> dict:
    return {"Fn::GetAtt": [fn, "Arn"]}


def schedule(service, key: str, fn: str, function: dict, item: dict, index: int, loc: Loc, suppressions,
             counts: Expansion) -> None:
    event = item["schedule"]
    path = f"functions.{key}.events[{index}].schedule"
    if isinstance(event, dict) and not _intrinsic(event):
        options = event
        rates = event.get("rate")
        if isinstance(rates, (str, dict)):
            rates, rate_holder = [rates], None  # one expression, as older versions took it
        else:
            rate_holder = rates
        if not isinstance(rates, list):
            return  # the Framework refuses a schedule without rate
        enabled = event.get("enabled")
        method = event.get("method")
    else:
        options, rates, rate_holder, enabled, method = {}, [event], None, None, None
    if not isinstance(method, (str, type(None))):
        counts.unmodelled.append(Unmodelled(f"{path}: a method the file does not give", loc))
        return
    for position, expression in enumerate(rates):
        if not isinstance(expression, (str, dict)):
            continue  # the Framework refuses it
        counts.schedules += 1
        number = counts.schedules
        where = loc_of(rate_holder, position, loc) if isinstance(rate_holder, list) else loc
        state = _state(enabled)
        if method == "scheduler":
            target = DerivedMap(where)
            target["Arn"] = function_arn(fn)
            target["RoleArn"] = function.get("role") or {"Fn::GetAtt": ["IamRoleLambdaExecution", "Arn"]}
            props = DerivedMap(where, options if isinstance(options, Map) else None)
            props["ScheduleExpression"] = expression
            props["State"] = state
            props["Target"] = target
            props["FlexibleTimeWindow"] = {"Mode": "OFF"}
            service.add(RawResource(id=naming.scheduler_schedule_id(key, number), type="AWS::Scheduler::Schedule",
                                    props=props, loc=where, written=SCHEDULER_EVENT, syntax=service.syntax),
                        suppressions)
            continue
        rule_id = naming.schedule_rule_id(key, number)
        target = DerivedMap(where)
        target.update({"Arn": function_arn(fn), "Id": f"{key}Schedule"})
        props = DerivedMap(where, options if isinstance(options, Map) else None)
        props["ScheduleExpression"] = expression
        props["State"] = state
        if options.get("name") is not None:
            props.take("Name", options, "name")
        targets = Seq(where)
        targets.append(target)
        targets.item_locs.append(where)
        props["Targets"] = targets
        service.add(RawResource(id=rule_id, type="AWS::Events::Rule", props=props, loc=where, written=SCHEDULE_EVENT,
                                items_written=SCHEDULE_EVENT, syntax=service.syntax), suppressions)
        _permission(service, naming.schedule_permission_id(key, number), fn, "events.amazonaws.com",
                    {"Fn::GetAtt": [rule_id, "Arn"]}, where, SCHEDULE_EVENT, suppressions)


def event_bridge(service, key: str, fn: str, function: dict, item: dict, index: int, loc: Loc, suppressions,
                 counts: Expansion) -> None:
    event = item["eventBridge"]
    path = f"functions.{key}.events[{index}].eventBridge"
    if not isinstance(event, dict) or _intrinsic(event):
        counts.unmodelled.append(Unmodelled(f"{path}: an event the file does not give", loc))
        return
    settings = service.provider.get("eventBridge")
    cloudformation = True if settings is None else (
        settings.get("useCloudFormation") if isinstance(settings, dict) else None)
    if cloudformation is not True and cloudformation not in (False, None, 0, ""):
        counts.unmodelled.append(Unmodelled(f"{path}: provider.eventBridge.useCloudFormation is not given", loc))
        return
    position = index + 1
    if cloudformation is not True:
        counts.unmodelled.append(Unmodelled(
            f"{path}: deployed as a custom resource (Custom::EventBridge "
            f"{naming.normalized(key)}CustomEventBridge{position}); set provider.eventBridge.useCloudFormation: "
            "true to deploy it as an AWS::Events::Rule", loc))
        return
    name = service.function_name(key, function)
    rule_id = (naming.event_bridge_rule_id(name, position) if name is not None
               else f"{naming.normalized(key)}<events[{index}]>EventBridgeRule")
    target = DerivedMap(loc, event if isinstance(event, Map) else None)
    target["Arn"] = function_arn(fn)
    retry = event.get("retryPolicy")
    if isinstance(retry, dict) and not _intrinsic(retry):
        policy = DerivedMap(loc_of(event, "retryPolicy", loc), retry if isinstance(retry, Map) else None)
        if retry.get("maximumEventAge") is not None:
            policy.take("MaximumEventAgeInSeconds", retry, "maximumEventAge")
        if retry.get("maximumRetryAttempts") is not None:
            policy.take("MaximumRetryAttempts", retry, "maximumRetryAttempts")
        target.put("RetryPolicy", policy, event, "retryPolicy")
    if event.get("deadLetterQueueArn") is not None:
        dead_letter = DerivedMap(loc_of(event, "deadLetterQueueArn", loc))
        dead_letter.take("Arn", event, "deadLetterQueueArn")
        target.put("DeadLetterConfig", dead_letter, event, "deadLetterQueueArn")
    props = DerivedMap(loc, event if isinstance(event, Map) else None)
    bus = event.get("eventBus")
    bus_text = service.text(bus) if bus is not None else None
    if bus_text is not None and bus_text.startswith("arn"):
        props["EventBusName"] = bus_text[bus_text.find("/") + 1:]
    elif bus is not None and bus_text != "default":
        props.take("EventBusName", event, "eventBus")
        if bus_text is not None:
            bus_props = DerivedMap(loc)
            bus_props.take("Name", event, "eventBus")
            service.add(RawResource(id=naming.event_bus_id(bus_text), type="AWS::Events::EventBus", props=bus_props,
                                    loc=loc, written=EVENTBRIDGE_EVENT, syntax=service.syntax), suppressions)
    for source_key, prop in (("pattern", "EventPattern"), ("schedule", "ScheduleExpression"), ("name", "Name"),
                             ("description", "Description")):
        if event.get(source_key) is not None:
            props.take(prop, event, source_key)
    enabled = event.get("enabled")
    props["State"] = _state(enabled)
    targets = Seq(loc)
    targets.append(target)
    targets.item_locs.append(loc)
    props["Targets"] = targets
    body = Body(event, service.syntax) if isinstance(event, Map) and event else None
    service.add(RawResource(id=rule_id, type="AWS::Events::Rule", props=props, loc=loc, written=EVENTBRIDGE_EVENT,
                            items_written=EVENTBRIDGE_EVENT, body=body, syntax=service.syntax), suppressions)
    # The Framework writes the rule's ARN from its name; the rule's own ARN is the same.
    _permission(service, naming.event_bridge_permission_id(key, position), fn, "events.amazonaws.com",
                {"Fn::GetAtt": [rule_id, "Arn"]}, loc, EVENTBRIDGE_EVENT, suppressions)


def s3(service, key: str, fn: str, function: dict, item: dict, index: int, loc: Loc, suppressions,
       counts: Expansion) -> None:
    event = item["s3"]
    path = f"functions.{key}.events[{index}].s3"
    if isinstance(event, dict) and not _intrinsic(event):
        if event.get("existing") is True:
            _existing_bucket(service, key, fn, event, path, loc, suppressions, counts)
            return
        if event.get("existing") is not None and event.get("existing") is not False:
            counts.unmodelled.append(Unmodelled(f"{path}: existing is not given", loc))
            return
        raw = event.get("bucket")
        notification_event = event.get("event") if event.get("event") is not None else "s3:ObjectCreated:*"
        rules = event.get("rules")
    else:
        raw, notification_event, rules = event, "s3:ObjectCreated:*", None
    ref = service.text(raw)
    if ref is None and service.resolution.parts_of(raw) is None:
        counts.unmodelled.append(Unmodelled(f"{path}: a bucket the file does not name", loc))
        return  # an intrinsic, which the Framework refuses without existing: true
    if ref is None:  # a name given when the Framework runs: a bucket of its own, named by its event
        _unnamed_bucket(service, key, fn, raw, notification_event, rules, index, loc, suppressions)
        return
    buckets = service.provider.get("s3")
    configured = buckets.get(ref) if isinstance(buckets, dict) else None
    configured = configured if isinstance(configured, dict) else None
    name = ref
    if configured is not None and configured.get("name") is not None:
        name = service.text(configured["name"])
        if name is None:
            counts.unmodelled.append(Unmodelled(f"{path}: provider.s3.{ref}.name is not given", loc))
            return
    bucket_id = naming.bucket_id(ref)
    configuration = _lambda_configuration(fn, notification_event, rules, loc)
    bucket = service.generated.get(bucket_id)
    if bucket is None:
        props = DerivedMap(loc)
        props["BucketName"] = name
        for setting, _value in (configured or {}).items():
            if setting != "name" and isinstance(setting, str):
                props.take(naming.upper_first(setting), configured, setting)
        lambdas = Seq(loc)
        notification = DerivedMap(loc)
        notification["LambdaConfigurations"] = lambdas
        given = props.get("NotificationConfiguration")
        if isinstance(given, dict):
            for setting in given:
                notification.take(setting, given)
        props["NotificationConfiguration"] = notification
        bucket = RawResource(id=bucket_id, type="AWS::S3::Bucket", props=props, loc=loc, written=S3_EVENT,
                             syntax=service.syntax)
        service.add(bucket, suppressions)
    else:
        service.suppressions[bucket_id] = service.suppressions.get(bucket_id, ()) + suppressions
    notification = bucket.props.get("NotificationConfiguration") if isinstance(bucket.props, dict) else None
    lambdas = notification.get("LambdaConfigurations") if isinstance(notification, dict) else None
    if isinstance(lambdas, Seq):
        lambdas.append(configuration)
        lambdas.item_locs.append(loc)
    source_arn = {"Fn::Join": ["", ["arn:", {"Ref": "AWS::Partition"}, f":s3:::{name}"]]}
    _permission(service, naming.s3_permission_id(key, ref), fn, "s3.amazonaws.com", source_arn, loc, S3_EVENT,
                suppressions, source_account=True)


def _existing_bucket(service, key: str, fn: str, event: dict, path: str, loc: Loc, suppressions,
                     counts: Expansion) -> None:
    """``existing: true``: the Framework deploys one custom resource per function
    (``Custom::S3`` ``<Fn>CustomS31``) whose code writes each such event into its bucket's
    notification configuration and lets S3 invoke the function. Modelled as that: the
    bucket's notification to the function (the bucket is not the template's), and the
    permission the custom resource adds."""
    raw = event.get("bucket")
    if raw is None:
        counts.unmodelled.append(Unmodelled(f"{path}: an existing bucket the file does not name", loc))
        return
    # a name given when the Framework runs (another construct's, a parameter) is a bucket
    # the linter cannot tell: the function is still invoked by S3
    name = service.text(raw)
    notification_event = event.get("event") if event.get("event") is not None else "s3:ObjectCreated:*"
    configuration = _lambda_configuration(fn, notification_event, event.get("rules"), loc)
    logical = f"{naming.normalized(key)}CustomS31"
    existing = service.generated.get(logical)
    bucket = name if name is not None else raw  # as the Framework compares them: the text written
    if existing is not None and existing.props.get("BucketName") != bucket:
        service.errors.append(LoadError(service.file, loc.line, (
            f"{path}: only one existing bucket can be configured per function (the Framework refuses a second, "
            "S3_MULTIPLE_BUCKETS_PER_FUNCTION)"), loc.column))
        return
    if existing is None:
        lambdas = Seq(loc)
        props = DerivedMap(loc)
        props.update({"BucketName": bucket, "NotificationConfiguration": {"LambdaConfigurations": lambdas}})
        service.add(RawResource(id=logical, type=EXISTING_BUCKET_NOTIFICATION, props=props, loc=loc,
                                written=S3_EXISTING_EVENT, items_written=S3_EXISTING_EVENT, syntax=service.syntax),
                    suppressions)
        source_arn = {"Fn::Join": ["", ["arn:", {"Ref": "AWS::Partition"}, ":s3:::", bucket]]}
        _permission(service, f"{logical}<permission>", fn, "s3.amazonaws.com", source_arn, loc,
                    S3_EXISTING_EVENT, suppressions, source_account=True)
        existing = service.generated[logical]
    lambdas = existing.props["NotificationConfiguration"]["LambdaConfigurations"]
    lambdas.append(configuration)
    lambdas.item_locs.append(loc)


def _lambda_configuration(fn: str, notification_event: Any, rules: Any, loc: Loc) -> DerivedMap:
    configuration = DerivedMap(loc)
    configuration.update({"Event": notification_event, "Function": function_arn(fn)})
    if isinstance(rules, list):
        filters = [{"Name": next(iter(rule)), "Value": rule[next(iter(rule))]}
                   for rule in rules if isinstance(rule, dict) and len(rule) == 1]
        configuration["Filter"] = {"S3Key": {"Rules": filters}}
    return configuration


def _unnamed_bucket(service, key: str, fn: str, raw: Any, notification_event: Any, rules: Any, index: int,
                    loc: Loc, suppressions) -> None:
    prefix = naming.normalized(key)
    lambdas = Seq(loc)
    lambdas.append(_lambda_configuration(fn, notification_event, rules, loc))
    lambdas.item_locs.append(loc)
    props = DerivedMap(loc)
    props.update({"BucketName": raw, "NotificationConfiguration": {"LambdaConfigurations": lambdas}})
    service.add(RawResource(id=f"S3Bucket{prefix}<events[{index}]>", type="AWS::S3::Bucket", props=props, loc=loc,
                            written=S3_EVENT, syntax=service.syntax), suppressions)
    source_arn = {"Fn::Join": ["", ["arn:", {"Ref": "AWS::Partition"}, ":s3:::", raw]]}
    _permission(service, f"{prefix}LambdaPermission<events[{index}]>S3", fn, "s3.amazonaws.com", source_arn, loc,
                S3_EVENT, suppressions, source_account=True)


def stream(service, key: str, fn: str, function: dict, item: dict, index: int, loc: Loc, suppressions,
           counts: Expansion) -> None:
    event = item["stream"]
    path = f"functions.{key}.events[{index}].stream"
    if isinstance(event, dict) and not _intrinsic(event):
        options, holder, arn_key = event, event, "arn"
    else:
        options, holder, arn_key = {}, item, "stream"
    arn = holder.get(arn_key)
    if not isinstance(arn, (str, dict)):
        return  # the Framework refuses a stream event without an arn
    arn_text = service.text(arn)
    kind = service.text(options.get("type")) if options.get("type") is not None else None
    if kind is None and options.get("type") is None:
        parts = arn_text.split(":") if arn_text is not None else _known_prefix(service, arn)
        kind = parts[2] if parts is not None and len(parts) > 2 else None
    stream_name = _stream_name(service, arn, arn_text)
    if kind is not None and stream_name is not None:
        logical = naming.stream_mapping_id(key, kind, stream_name)
    else:
        logical = f"{naming.normalized(key)}EventSourceMapping<events[{index}]>"
    props = DerivedMap(loc, options if isinstance(options, Map) else None)
    props.take("EventSourceArn", holder, arn_key)
    props["FunctionName"] = function_arn(fn)
    if _truthy(options.get("batchSize")):
        props.take("BatchSize", options, "batchSize")
    else:
        props["BatchSize"] = 10
    if _truthy(options.get("startingPosition")):
        props.take("StartingPosition", options, "startingPosition")
    else:
        props["StartingPosition"] = "TRIM_HORIZON"
    if "enabled" in options:
        props.take("Enabled", options, "enabled")
    else:
        props["Enabled"] = True
    for source_key, prop in (("batchWindow", "MaximumBatchingWindowInSeconds"),
                             ("maximumRetryAttempts", "MaximumRetryAttempts"),
                             ("bisectBatchOnFunctionError", "BisectBatchOnFunctionError"),
                             ("tumblingWindowInSeconds", "TumblingWindowInSeconds")):
        if options.get(source_key) is not None:
            props.take(prop, options, source_key)
    for source_key, prop in (("parallelizationFactor", "ParallelizationFactor"),
                             ("maximumRecordAgeInSeconds", "MaximumRecordAgeInSeconds")):
        if _truthy(options.get(source_key)):
            props.take(prop, options, source_key)
    if options.get("functionResponseType") is not None:
        props.put("FunctionResponseTypes", [options["functionResponseType"]], options, "functionResponseType")
    destinations = options.get("destinations")
    if isinstance(destinations, dict) and destinations.get("onFailure") is not None:
        on_failure = destinations["onFailure"]
        failure = DerivedMap(loc_of(destinations, "onFailure", loc))
        if isinstance(on_failure, dict) and not _intrinsic(on_failure):
            if on_failure.get("arn") is not None:
                failure.take("Destination", on_failure, "arn")
        else:
            failure.take("Destination", destinations, "onFailure")
        config = DerivedMap(loc_of(options, "destinations", loc))
        config.put("OnFailure", failure, destinations, "onFailure")
        props.put("DestinationConfig", config, options, "destinations")
    elif destinations is not None:
        props.take("DestinationConfig", options, "destinations")  # from a variable: unknown
    written = STREAM_EVENTS.get(kind or "", STREAM_EVENTS[""])
    body = Body(options, service.syntax) if isinstance(options, Map) and options else None
    service.add(RawResource(id=logical, type="AWS::Lambda::EventSourceMapping", props=props, loc=loc,
                            written=written, body=body, syntax=service.syntax), suppressions)
    if kind not in ("kinesis", "dynamodb"):
        counts.unmodelled.append(Unmodelled(f"{path}: a stream whose type the file does not give", loc))


# -- helpers ---------------------------------------------------------------------------
def _state(enabled: Any) -> Any:
    """The rule's State: only ``enabled: false`` disables it, as the Framework tests it; a
    value the file does not give (a variable) stays unknown."""
    if enabled is False:
        return "DISABLED"
    return enabled if isinstance(enabled, dict) else "ENABLED"


def _permission(service, logical: str, fn: str, principal: str, source_arn: Any, loc: Loc, written: Written,
                suppressions, source_account: bool = False) -> None:
    props = DerivedMap(loc)
    props.update({"FunctionName": function_arn(fn), "Action": "lambda:InvokeFunction", "Principal": principal,
                  "SourceArn": source_arn})
    if source_account:
        props["SourceAccount"] = {"Ref": "AWS::AccountId"}
    service.add(RawResource(id=logical, type="AWS::Lambda::Permission", props=props, loc=loc, written=written,
                            syntax=service.syntax), suppressions)


def _known_prefix(service, arn: Any) -> list[str] | None:
    """The ``:``-separated parts of an ARN the file proves up to its third part
    (``arn:aws:kinesis:${opt:region}:...``), or None."""
    parts = service.resolution.parts_of(arn)
    if not parts or not isinstance(parts[0], str):
        return None
    split = parts[0].split(":")
    return split if len(split) > 3 else None


def _stream_name(service, arn: Any, arn_text: str | None) -> str | None:
    """The stream's name as the Framework takes it for the logical ID, or None."""
    if arn_text is not None:
        pieces = arn_text.split("/")
        return pieces[1] if len(pieces) > 1 else None
    if not (isinstance(arn, dict) and len(arn) == 1) or service.resolution.parts_of(arn) is not None:
        return None
    (function, argument), = arn.items()
    if function == "Fn::GetAtt":
        first = argument[0] if isinstance(argument, list) and argument else None
        return first if isinstance(first, str) else None
    if function in ("Fn::ImportValue", "Ref"):
        return argument if isinstance(argument, str) else None
    if function == "Fn::Join":
        items = argument[1] if isinstance(argument, list) and len(argument) == 2 else None
        last = items[-1] if isinstance(items, list) and items else None
        text = last if isinstance(last, str) else service.text(last)
        return text.split("/")[-1] if text is not None else None
    return None


def _truthy(value: Any) -> bool:
    return value not in (None, False, 0, "")


def _intrinsic(raw: dict) -> bool:
    if len(raw) != 1:
        return False
    key = next(iter(raw))
    return isinstance(key, str) and (key.startswith("Fn::") or key == "Ref")
