"""A Serverless Framework service (``serverless.yml``, ``.yaml``, ``.json``) into the graph.

A file is a service when it says so: ``service`` plus ``functions`` or ``provider: {name:
aws}`` (another provider's service is not ours). Its variables are resolved within the
file first (``loaders/serverless/variables.py``). Then the resources the Framework would
generate are made as plain CloudFormation, under its logical IDs
(``naming.py``), and handed to the one builder through CloudFormation views,
so rules need no change:

- each function: ``<Fn>LambdaFunction`` with ``name``, ``timeout`` (else
  ``provider.timeout``, else the Framework's 6 s: a zero or empty timeout counts as
  unset, as the Framework tests it), ``reservedConcurrency``, ``onError``
  (``DeadLetterConfig``), ``condition``; ``destinations`` (``onSuccess``, ``onFailure``),
  ``maximumRetryAttempts`` and ``maximumEventAge`` an ``AWS::Lambda::EventInvokeConfig``;
  its ``Role`` and the shared ``IamRoleLambdaExecution`` role: ``iam.py``;
- ``schedule``, ``eventBridge``, ``s3`` and ``stream`` events: ``loaders/serverless/events.py``;
- each ``sqs`` event (an ARN string, or ``arn`` with ``batchSize`` (a zero is the
  default 10, as the Framework tests it), ``maximumBatchingWindow``,
  ``functionResponseType``, ``enabled``): an event source mapping;
- each ``sns`` event (a topic name or ARN string, or ``arn``/``topicName`` with
  ``filterPolicy``, ``filterPolicyScope``, ``redrivePolicy``, ``displayName``,
  ``kmsMasterKeyId``): the Lambda subscription and its permission; an event without
  ``arn`` creates the topic, and subscribes inline in it unless it filters or has a
  redrive policy; a redrive policy also grants the topic's SNS to its queue
  (``deadLetterTargetArn``, ``deadLetterTargetRef``, ``deadLetterTargetImport``);
- ``resources.Resources`` is raw CloudFormation, merged over what the Framework
  generates as the Framework merges it (a resource of the same logical ID is merged
  into the generated one, property by property), then ``resources.extensions``
  (``Properties`` and ``Metadata`` assigned key by key, ``Condition`` replaced; only the
  attributes the Framework lets an extension set; one of a resource the Framework
  generates and this loader does not model, such as ``<Fn>LogGroup``, is no error). Every
  ``resources.Outputs`` entry is exported (the Framework adds an export to each).

``${file(...)}`` of ``functions`` and ``resources`` is read first, where the file is
inside the repository (``loaders/serverless/files.py``).

Every generated setting stays located where the user wrote it (``located.DerivedMap``:
the mapping's ``BatchSize`` is the event's ``batchSize``), and each generated resource
says, as a ``Written`` construct, how the Framework names its settings and what it
cannot express, so messages speak the Framework's vocabulary, and which keys wrote it
(``where``: ``functions.send-email.events[0].sqs``), which a finding's message starts with.

Suppressions: a resource of ``resources`` (or one extended there) takes the
CloudFormation ``Metadata`` form; a function and an event take a comment on the lines
just above the function's key or the event's item, ``# fanout-lint: ignore=rule -- why``
(a function's covers what its events generate too).

What the file does not show is unknown, so rules stay silent on it: values from
``${opt:}``, ``${env:}``, ``${ssm:}``, ``${cf:}``, ``${file(...)}`` (but the files above) and every source
other than ``self`` (and the stack's region and account); a logical ID built from an
unknown name (the resource is named by its event, ``...<events[2]>``); and when
``functions`` or a function's ``events`` come from elsewhere, the subscribers a topic
may have (every topic counts as exported).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from fanout_lint.loaders.build import build
from fanout_lint.loaders.cloudformation import sam
from fanout_lint.loaders.cloudformation.intrinsics import Intrinsics
from fanout_lint.loaders.cloudformation.loader import exported_ids, metadata_suppressions
from fanout_lint.loaders.cloudformation.template import RawResource, means_sam, raw_resources
from fanout_lint.loaders.cloudformation.view import CfnView
from fanout_lint.loaders.links.linker import Linker
from fanout_lint.loaders.parsing.budget import Budget
from fanout_lint.loaders.parsing.located import DerivedMap, Map, Seq, loc_of, share_entry
from fanout_lint.loaders.parsing.suppression_comments import parse_suppression
from fanout_lint.loaders.serverless import events as events_module
from fanout_lint.loaders.serverless import iam, naming
from fanout_lint.loaders.serverless.files import include_files
from fanout_lint.loaders.serverless.variables import Resolution, resolve_variables
from fanout_lint.model.format import Format
from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import CLOUDFORMATION, Body, Loc, Suppression, Unit, Written
from fanout_lint.model.values import default
from fanout_lint.results.not_modelled import NotModelled, note, of_cloudformation, of_serverless_plugins
from fanout_lint.results.records import LoadError

if TYPE_CHECKING:
    from typing import Any

FRAMEWORK_TIMEOUT = 6  # seconds: compile/functions.js, "provider.timeout || 6"
_SNS_DIRECT = (
    "the Framework's sns event invokes the function directly: declare an AWS::SQS::Queue in "
    "resources.Resources, subscribe it to the topic (AWS::SNS::Subscription with RawMessageDelivery: true) "
    "and read it with an sqs event"
)

# How the Framework names the settings of what it generates, and what it cannot express.
FUNCTION = Written(Format.CLOUDFORMATION, "Serverless function", names=(
    ("name", "name"), ("timeout", "timeout"), ("dead_letter", "onError"),
    ("reserved_concurrency", "reservedConcurrency"), ("invoke_on_failure", "destinations.onFailure"),
    ("role", "role"),
))
SQS_EVENT = Written(
    Format.CLOUDFORMATION, "Serverless sqs event", transform=True,
    names=(("source", "arn"), ("batch_size", "batchSize"), ("batching_window", "maximumBatchingWindow"),
           ("response_types", "functionResponseType"), ("enabled", "enabled")),
    # the event takes one response type, not a list: the advice says it the Framework's way
    fixed=(("response_types", "set functionResponseType: ReportBatchItemFailures on the sqs event and "
                              "return batchItemFailures from the function"),),
    source="sqs",
)
SNS_SUBSCRIPTION = Written(
    Format.CLOUDFORMATION, "Serverless sns event", transform=True,
    names=(("topic", "arn"), ("filter_policy", "filterPolicy"), ("redrive_dlq", "redrivePolicy")),
    fixed=(("endpoint", _SNS_DIRECT),
           ("raw_message_delivery", "the Framework's sns event subscribes a function, which always gets the "
                                    "SNS envelope")),
)
SNS_EVENT = Written(Format.CLOUDFORMATION, "Serverless sns event", transform=True)
SNS_TOPIC = Written(
    Format.CLOUDFORMATION, "Serverless sns event", transform=True,
    names=(("name", "topicName"), ("kms_master_key_id", "kmsMasterKeyId")),
    fixed=(("fifo", "the Framework's sns event creates a standard topic: declare the topic in "
                    "resources.Resources and name its ARN in the event's arn"),),
)
DESTINATIONS = Written(Format.CLOUDFORMATION, "Serverless destinations", transform=True,
                       names=(("on_failure", "destinations.onFailure"), ("on_success", "destinations.onSuccess"),
                              ("maximum_retry_attempts", "maximumRetryAttempts"),
                              ("maximum_event_age", "maximumEventAge")))


def load_service(data: dict, file: str, syntax: str, text: str) -> tuple[list[Graph], list[LoadError]]:
    budget = Budget(file=file)
    included = include_files(data, file, syntax)
    resolution = resolve_variables(data, budget)
    seen: set[int] = set()
    for container, key in resolution.shared:  # what a variable is or reads is no fix's to edit
        budget.step()
        share_entry(container, key, seen)
    service = _Service(data, file, syntax, text, resolution, budget)
    service.errors.extend(included.errors)
    if syntax == "yaml":
        for path, included_text in included.texts.items():
            service.comments[path] = _comment_lines(included_text)
    resources = service.expand()
    parameters = dict(resolution.parameters)
    user_parameters = service.section("Parameters")
    parameters.update(user_parameters)
    linker = Linker({r.id: r.type for r in resources})
    intrinsics = Intrinsics(file=file, parameters=parameters, mappings=service.section("Mappings"),
                            resource_types=linker.types, linker=linker, budget=budget)
    exported = exported_ids({"Outputs": service.section("Outputs")}, intrinsics, every_output=True)
    views = [service.view(r, intrinsics, exported) for r in resources]
    nodes, uses, mentions = build(views, linker)
    sources = {file: text} if text else {}
    sources.update(included.texts)
    graph = Graph(Unit(file, Format.SERVERLESS, (file, *included.texts)), nodes, uses, sources=sources,
                  mentions=mentions)
    graph.not_modelled.extend(of_serverless_plugins(data, Loc(file, 1, 1)))
    graph.not_modelled.extend(of_cloudformation(resources))
    graph.not_modelled.extend(service.not_modelled)
    for passed in service.unmodelled:  # the events the expansion saw and did not model
        written, _, what = passed.what.partition(": ")
        note(graph, what or "Serverless event not modelled", written, passed.loc)
    return [graph], service.errors


class FrameworkView(CfnView):
    """A CloudFormation view that knows the Framework's defaults for what it generates."""

    def __init__(self, *args, defaults: dict | None = None):
        super().__init__(*args)
        self.defaults = defaults or {}
        self.plain_keys = None  # an unwritten setting may take a Framework default: ask

    def value(self, path, default=None):
        if path in self.defaults and not self.is_written(path):
            return self.defaults[path]
        return super().value(path, default)


class _Service:
    def __init__(self, data: dict, file: str, syntax: str, text: str, resolution: Resolution, budget: Budget):
        self.data = data
        self.file = file
        self.syntax = syntax
        self.resolution = resolution
        self.budget = budget
        self.errors: list[LoadError] = []
        # constructs seen and not modelled: not_modelled.note(self.not_modelled, kind, name, loc)
        self.not_modelled: list[NotModelled] = []
        # file -> its comment lines: functions and resources may come from included files
        self.comments = {file: _comment_lines(text)} if syntax == "yaml" and text else {}
        self.generated: dict[str, RawResource] = {}
        self.suppressions: dict[str, tuple[Suppression, ...]] = {}
        self.hidden_functions = False  # functions or events the file does not show
        self.unexpanded = False  # an event of a type not expanded here, which generates resources of its own
        # messaging constructs seen and not modelled (a custom resource), for the unit's notice
        self.unmodelled: list[events_module.Unmodelled] = []
        # what the resources being added are written as (functions.<key>.events[<i>].<type>),
        # and, by logical ID, the first construct that wrote each: findings name it
        self.path = ""
        self.wheres: dict[str, str] = {}
        self.log_groups: set[str] | None = None  # the logical IDs of the functions' log groups, once asked
        provider = data.get("provider")
        self.provider = provider if isinstance(provider, dict) else {}
        self.fallback = data.loc if isinstance(data, Map) else Loc(file, 1, 1)

    def section(self, name: str) -> dict:
        found = self.resources().get(name)
        return found if isinstance(found, dict) else {}

    def resources(self) -> dict:
        found = self.data.get("resources")
        if isinstance(found, list):  # the Framework merges a list of resource files
            merged: dict = {}
            for item in found:
                if isinstance(item, dict):
                    for key, value in item.items():
                        if isinstance(value, dict) and isinstance(merged.get(key), dict):
                            merged[key] = {**merged[key], **value}
                        else:
                            merged[key] = value
            return merged
        return found if isinstance(found, dict) else {}

    # -- the expansion -------------------------------------------------------------------
    def expand(self) -> list[RawResource]:
        functions = self.functions()
        for key, function, loc in functions:
            self.function(key, function, loc)
        service = self.data.get("service")
        role = iam.shared_role(functions, self.provider, service.get("name") if isinstance(service, dict) else service,
                               self.fallback, self.syntax)
        if role is not None:
            self.add(role, ())
        return self.merged_with_resources()

    def functions(self):
        found = self.data.get("functions")
        groups = found if isinstance(found, list) else [found]
        seen: dict[str, tuple] = {}
        for group in groups:
            if group is None:
                continue
            if not isinstance(group, dict) or _intrinsic(group):
                self.hidden_functions = True  # from a file, or from a variable we cannot resolve
                continue
            for key, function in group.items():
                if function is None:
                    continue
                if not isinstance(function, dict) or _intrinsic(function):
                    self.hidden_functions = True
                    continue
                seen[str(key)] = (str(key), function, loc_of(group, key, self.fallback))
        return list(seen.values())

    def function(self, key: str, function: dict, loc: Loc) -> None:
        fn = naming.function_id(key)
        self.path = f"functions.{key}"
        own = self.comment_suppressions(loc)
        # a setting the Framework writes by itself (no origin) is located at the function
        props = DerivedMap(loc, function if isinstance(function, Map) else None)
        if "name" in function:
            props.take("FunctionName", function, "name")
        if _truthy(function.get("timeout")):
            props.take("Timeout", function, "timeout")
        elif _truthy(self.provider.get("timeout")):
            props.take("Timeout", self.provider, "timeout")
        concurrency = function.get("reservedConcurrency")
        if _truthy(concurrency) or concurrency == 0:
            props.take("ReservedConcurrentExecutions", function, "reservedConcurrency")
        if function.get("onError") is not None:
            dead_letter = DerivedMap(loc)
            dead_letter.take("TargetArn", function, "onError")
            props.put("DeadLetterConfig", dead_letter, function, "onError")
        iam.set_role(props, function, self.provider)
        condition = function.get("condition")
        body = Body(function, self.syntax) if isinstance(function, Map) and function else None
        self.add(RawResource(id=fn, type="AWS::Lambda::Function", props=props, loc=loc, written=FUNCTION,
                             condition=condition if isinstance(condition, str) else None, node=function,
                             body=body, syntax=self.syntax), own)
        self.path = f"functions.{key}.destinations"
        self.destinations(key, fn, function, loc, own)
        self.path = ""
        events = function.get("events")
        if events is None:
            return
        if not isinstance(events, list):
            self.hidden_functions = True
            return
        counts = events_module.Expansion()
        for index, item in enumerate(events):
            if not isinstance(item, dict) or _intrinsic(item):
                self.hidden_functions = True  # an event from a variable we cannot resolve
                continue
            where = loc_of(events, index, loc)
            suppressions = own + self.comment_suppressions(where)
            written_as = next((str(k) for k in item if k in _EXPANDED), None)
            self.path = f"functions.{key}.events[{index}].{written_as}" if written_as else ""
            if "sqs" in item:
                self.sqs(key, fn, item, index, where, suppressions)
            if "sns" in item:
                self.sns(key, fn, item, index, where, suppressions)
            for kind, expand in _EVENTS.items():
                if kind in item:
                    expand(self, key, fn, function, item, index, where, suppressions, counts)
            if written_as is None:
                self.unexpanded = True  # http, alb, iot...: resources of its own the Framework generates
        self.path = ""
        self.unmodelled.extend(counts.unmodelled)

    def function_name(self, key: str, function: dict) -> str | None:
        """The function's deployed name: ``name``, else ``<service>-<stage>-<key>`` (the
        stage ``provider.stage``, else the Framework's ``dev``); None when not proved."""
        if function.get("name") is not None:
            return self.text(function["name"])
        service = self.data.get("service")
        service = service.get("name") if isinstance(service, dict) else service
        stage = self.provider.get("stage", "dev")
        service, stage = self.text(service), self.text(stage)
        return f"{service}-{stage}-{key}" if service is not None and stage is not None else None

    def destinations(self, key: str, fn: str, function: dict, loc: Loc, suppressions) -> None:
        """``destinations`` (onSuccess, onFailure), ``maximumRetryAttempts`` and
        ``maximumEventAge``: the function's ``AWS::Lambda::EventInvokeConfig``."""
        destinations = function.get("destinations")
        retries, age = function.get("maximumRetryAttempts"), function.get("maximumEventAge")
        if not _truthy(destinations) and not _truthy(age) and retries is None:
            return
        config = DerivedMap(loc)
        if isinstance(destinations, dict) and not _intrinsic(destinations):
            for outcome in ("onSuccess", "onFailure"):
                if not _truthy(destinations.get(outcome)):
                    continue
                target = DerivedMap(loc_of(destinations, outcome, loc))
                given = destinations[outcome]
                if isinstance(given, dict) and not _intrinsic(given):
                    if given.get("arn") is not None:
                        target.take("Destination", given, "arn")
                elif isinstance(given, str) and not given.startswith("arn:"):
                    # another function of the service, by its key
                    target.put("Destination", {"Fn::GetAtt": [naming.function_id(given), "Arn"]},
                               destinations, outcome)
                else:
                    target.take("Destination", destinations, outcome)
                config.put(naming.upper_first(outcome), target, destinations, outcome)
        props = DerivedMap(loc)
        props["FunctionName"] = {"Ref": fn}
        if destinations is not None and (not isinstance(destinations, dict) or _intrinsic(destinations)):
            props.take("DestinationConfig", function, "destinations")  # from a variable: unknown
        elif config:
            props.put("DestinationConfig", config, function, "destinations")
        if _truthy(age):
            props.take("MaximumEventAgeInSeconds", function, "maximumEventAge")
        if retries is not None:
            props.take("MaximumRetryAttempts", function, "maximumRetryAttempts")
        self.add(RawResource(id=naming.invoke_config_id(key), type="AWS::Lambda::EventInvokeConfig", props=props,
                             loc=loc, written=DESTINATIONS, syntax=self.syntax), suppressions)

    def sqs(self, key: str, fn: str, item: dict, index: int, loc: Loc, suppressions) -> None:
        event = item["sqs"]
        if isinstance(event, dict) and not _intrinsic(event):
            holder, arn_key, options = event, "arn", event
        else:
            holder, arn_key, options = item, "sqs", {}
        arn = holder.get(arn_key)
        if arn is None:
            return  # the Framework refuses an sqs event without arn
        queue = self.queue_name(arn)
        if queue is _CANNOT:
            self.errors.append(LoadError(self.file, loc.line, (
                f"functions.{key}.events[{index}].sqs: the Framework cannot name the event source mapping of an "
                "arn written as Ref or Fn::Sub (and fails to package it); write Fn::GetAtt: [Queue, Arn]"
            ), loc.column))
            return
        logical = naming.sqs_mapping_id(key, queue) if queue is not None else _unnamed(
            f"{naming.normalized(key)}EventSourceMappingSQS", index)
        props = DerivedMap(loc, options if isinstance(options, Map) else None)
        props.take("EventSourceArn", holder, arn_key)
        props["FunctionName"] = {"Fn::GetAtt": [fn, "Arn"]}
        if _truthy(options.get("batchSize")):
            props.take("BatchSize", options, "batchSize")
        if options.get("maximumBatchingWindow") is not None:
            props.take("MaximumBatchingWindowInSeconds", options, "maximumBatchingWindow")
        if "enabled" in options:
            props.take("Enabled", options, "enabled")
        if options.get("functionResponseType") is not None:
            props.put("FunctionResponseTypes", [options["functionResponseType"]], options, "functionResponseType")
        # as the Framework compiles them: a truthy maximumConcurrency is the ScalingConfig,
        # and filterPatterns the FilterCriteria (one filter per pattern)
        if _truthy(options.get("maximumConcurrency")):
            scaling = DerivedMap(loc, options if isinstance(options, Map) else None)
            scaling.take("MaximumConcurrency", options, "maximumConcurrency")
            props.put("ScalingConfig", scaling, options, "maximumConcurrency")
        if _truthy(options.get("filterPatterns")):
            props.put("FilterCriteria", {"Filters": options["filterPatterns"]}, options, "filterPatterns")
        body = Body(options, self.syntax) if isinstance(options, Map) and options else None
        self.add(RawResource(id=logical, type="AWS::Lambda::EventSourceMapping", props=props, loc=loc,
                             written=SQS_EVENT, body=body, syntax=self.syntax), suppressions)

    def sns(self, key: str, fn: str, item: dict, index: int, loc: Loc, suppressions) -> None:
        event = item["sns"]
        endpoint = {"Fn::GetAtt": [fn, "Arn"]}
        if isinstance(event, dict) and not _intrinsic(event):
            options, holder = event, event
            topic_arn = event.get("arn") if _truthy(event.get("arn")) else None
            name = self.text(event.get("topicName")) if event.get("topicName") is not None else None
            if topic_arn is not None and name is None and event.get("topicName") is None:
                arn_text = self.text(topic_arn)
                if arn_text is None and self.resolution.parts_of(topic_arn) is None:
                    self.errors.append(LoadError(self.file, loc.line, (
                        f"functions.{key}.events[{index}].sns: the Framework needs topicName when arn is not an "
                        "ARN string (and fails to package the service)"), loc.column))
                    return
                name = self.last_part(topic_arn)
            arn_key, name_key = "arn", "topicName"
            if topic_arn is None and event.get("topicName") is None:
                return  # the Framework refuses an sns event with neither
        else:
            options, holder, arn_key, name_key = {}, item, "sns", "sns"
            text = self.text(event)
            parts = self.resolution.parts_of(event)
            is_arn = (text or "").startswith("arn:") or bool(parts and isinstance(parts[0], str)
                                                             and parts[0].startswith("arn:"))
            topic_arn = event if is_arn else None
            name = self.last_part(event) if is_arn else text
        prefix = naming.normalized(key)
        subscription_id = (naming.sns_subscription_id(key, name) if name is not None
                           else _unnamed(f"{prefix}SnsSubscription", index))
        permission_id = (naming.sns_permission_id(key, name) if name is not None
                         else _unnamed(f"{prefix}LambdaPermission", index, "SNS"))
        redrive = self.redrive(key, name, options, topic_arn, index, loc, suppressions)
        if topic_arn is not None:
            source_arn = topic_arn
            subscription = self.subscription_props(options, loc, redrive)
            subscription.take("TopicArn", holder, arn_key)
            subscription.update({"Protocol": "lambda", "Endpoint": endpoint})
            self.add(RawResource(id=subscription_id, type="AWS::SNS::Subscription", props=subscription, loc=loc,
                                 written=SNS_SUBSCRIPTION, syntax=self.syntax), suppressions)
        else:
            # A name the file does not prove is no topic's: two events' unknown names may be
            # two topics, so each such event makes its own, named by its function and event.
            topic_id = naming.topic_id(name) if name is not None else _unnamed(f"SNSTopic{prefix}", index)
            source_arn = {"Fn::Join": ["", ["arn:", {"Ref": "AWS::Partition"}, ":sns:", {"Ref": "AWS::Region"}, ":",
                                            {"Ref": "AWS::AccountId"}, ":", holder.get(name_key)]]}
            topic = self.generated.get(topic_id)
            if topic is None:
                props = DerivedMap(loc)
                props.take("TopicName", holder, name_key)
                for source_key, prop in (("displayName", "DisplayName"), ("kmsMasterKeyId", "KmsMasterKeyId")):
                    if _truthy(options.get(source_key)):
                        props.take(prop, options, source_key)
                topic = RawResource(id=topic_id, type="AWS::SNS::Topic", props=props, loc=loc, written=SNS_TOPIC,
                                    items_written=SNS_SUBSCRIPTION, syntax=self.syntax)
                self.add(topic, suppressions)
            if _truthy(options.get("filterPolicy")) or redrive is not None:
                subscription = self.subscription_props(options, loc, redrive)
                subscription.update({"TopicArn": {"Ref": topic_id}, "Protocol": "lambda", "Endpoint": endpoint})
                self.add(RawResource(id=subscription_id, type="AWS::SNS::Subscription", props=subscription,
                                     loc=loc, written=SNS_SUBSCRIPTION, syntax=self.syntax), suppressions)
            else:
                inline = topic.props.get("Subscription")
                if not isinstance(inline, Seq):
                    inline = topic.props["Subscription"] = Seq(loc)
                entry = DerivedMap(loc, options if isinstance(options, Map) else None)
                entry.update({"Endpoint": endpoint, "Protocol": "lambda"})
                inline.append(entry)
                inline.item_locs.append(loc)
        permission = DerivedMap(loc)
        permission.update({"FunctionName": endpoint, "Action": "lambda:InvokeFunction",
                           "Principal": "sns.amazonaws.com", "SourceArn": source_arn})
        self.add(RawResource(id=permission_id, type="AWS::Lambda::Permission", props=permission, loc=loc,
                             written=SNS_EVENT, syntax=self.syntax), suppressions)

    def subscription_props(self, options: dict, loc: Loc, redrive) -> DerivedMap:
        props = DerivedMap(loc, options if isinstance(options, Map) else None)
        for source_key, prop in (("filterPolicy", "FilterPolicy"), ("filterPolicyScope", "FilterPolicyScope")):
            if options.get(source_key) is not None:
                props.take(prop, options, source_key)
        if redrive is not None:
            props.put("RedrivePolicy", {"deadLetterTargetArn": redrive}, options, "redrivePolicy")
        return props

    def redrive(self, key: str, name: str | None, options: dict, topic_arn, index: int, loc: Loc, suppressions):
        """The dead-letter target of an sns event's ``redrivePolicy``, after adding the queue
        policy the Framework grants it; None without one."""
        policy = options.get("redrivePolicy")
        if not isinstance(policy, dict) or _intrinsic(policy):
            return None
        if policy.get("deadLetterTargetArn") is not None:
            target = policy["deadLetterTargetArn"]
            text = self.text(target)
            # a URL from an ARN the file does not prove: the ARN names the same queue
            url = _queue_url(text) if text is not None else target
        elif isinstance(policy.get("deadLetterTargetRef"), str):
            target = {"Fn::GetAtt": [policy["deadLetterTargetRef"], "Arn"]}
            url = {"Ref": policy["deadLetterTargetRef"]}
        elif isinstance(policy.get("deadLetterTargetImport"), dict):
            imported = policy["deadLetterTargetImport"]
            target = {"Fn::ImportValue": imported.get("arn")}
            url = {"Fn::ImportValue": imported.get("url")}
        else:
            return None
        # The Framework writes the policy before it knows the ARN of a topic it creates:
        # such a policy's condition names no topic.
        condition = {"ArnEquals": {"aws:SourceArn": topic_arn} if topic_arn is not None else {}}
        statement = {"Effect": "Allow", "Principal": {"Service": "sns.amazonaws.com"}, "Action": "sqs:SendMessage",
                     "Resource": target, "Condition": condition}
        policy_id = (naming.topic_dlq_policy_id(key, name) if name is not None
                     else _unnamed(f"To{naming.normalized(key)}DLQPolicy", index))
        props = DerivedMap(loc)
        props.update({"PolicyDocument": {"Version": "2012-10-17", "Id": policy_id, "Statement": [statement]},
                      "Queues": [url]})
        self.add(RawResource(id=policy_id, type="AWS::SQS::QueuePolicy", props=props, loc=loc, written=SNS_EVENT,
                             syntax=self.syntax), suppressions)
        return target

    # -- names ---------------------------------------------------------------------------
    def text(self, raw: Any) -> str | None:
        """A string the file proves, as the Framework sees it after its variables."""
        if isinstance(raw, str):
            return raw
        parts = self.resolution.parts_of(raw)
        if parts is not None and all(isinstance(part, str) for part in parts):
            return "".join(parts)
        return None

    def last_part(self, raw: Any) -> str | None:
        """The last ``:``-separated part of an ARN the file proves as far as that part."""
        text = self.text(raw)
        if text is not None:
            return naming.last_arn_part(text)
        parts = self.resolution.parts_of(raw)
        tail: list[str] = []
        for part in reversed(parts or (None,)):
            if part is None:
                return None
            if ":" in part:
                tail.append(part.rsplit(":", 1)[1])
                return "".join(reversed(tail))
            tail.append(part)
        return None

    def queue_name(self, arn: Any):
        """The queue name the Framework takes from an sqs event's arn, None when the file
        does not prove it, or _CANNOT when the Framework cannot take one."""
        if isinstance(arn, str) or self.resolution.parts_of(arn) is not None:
            return self.last_part(arn)
        if not (isinstance(arn, dict) and len(arn) == 1):
            return _CANNOT
        (function, argument), = arn.items()
        if function == "Fn::GetAtt":
            first = argument[0] if isinstance(argument, (list, str)) and argument else None
            return first if isinstance(first, str) else _CANNOT  # a string's first character, as in JavaScript
        if function == "Fn::ImportValue":
            return argument if isinstance(argument, str) else self.text(argument) if self.text(argument) else None
        if function == "Fn::Join":
            items = argument[1] if isinstance(argument, list) and len(argument) == 2 else None
            last = items[-1] if isinstance(items, list) and items else None
            return last if isinstance(last, str) else self.text(last)
        return _CANNOT

    # -- resources and suppressions ------------------------------------------------------
    def add(self, resource: RawResource, suppressions: tuple[Suppression, ...]) -> None:
        earlier = self.generated.get(resource.id)
        if earlier is not None:  # the Framework merges two events that make one logical ID
            merged = DerivedMap(resource.props.loc if isinstance(resource.props, Map) else resource.loc)
            for props in (earlier.props, resource.props):
                for key in props:
                    merged.take(key, props)
            earlier.props = merged
            self.suppressions[resource.id] = self.suppressions.get(resource.id, ()) + suppressions
            return
        self.generated[resource.id] = resource
        self.suppressions[resource.id] = suppressions
        if self.path:
            self.wheres.setdefault(resource.id, self.path)

    def merged_with_resources(self) -> list[RawResource]:
        block = self.resources().get("Resources")
        block = block if isinstance(block, dict) else {}
        own = raw_resources({"Resources": block}, self.file, self.syntax)
        out = dict(self.generated)
        merges = _Merges(self.budget)
        for resource in own:
            if resource.id not in out:
                out[resource.id] = resource
        for logical_id, body in block.items():
            if str(logical_id) in self.generated and isinstance(body, dict):
                self.budget.at(self.file, loc_of(block, logical_id, self.fallback).line, str(logical_id))
                out[str(logical_id)] = _merge_resource(self.generated[str(logical_id)], body, merges)
        extensions = self.resources().get("extensions")
        for logical_id, extension in (extensions.items() if isinstance(extensions, dict) else ()):
            target = out.get(str(logical_id))
            line = loc_of(extensions, logical_id, self.fallback).line
            unsupported = [str(k) for k in extension if k not in _EXTENSIBLE] if isinstance(extension, dict) else []
            if unsupported:
                self.errors.append(LoadError(self.file, line, (
                    f"resources.extensions.{logical_id}: the Framework cannot extend {unsupported[0]} "
                    f"(only {', '.join(_EXTENSIBLE)}) and fails to package the service")))
                continue
            if target is None:
                if not self.may_generate(str(logical_id)):
                    self.errors.append(LoadError(
                        self.file, line, f"resources.extensions.{logical_id} extends no resource of the service"))
                continue  # the Framework generates it, and it holds nothing messaging (a log group, the role)
            if isinstance(extension, dict):
                out[str(logical_id)] = _extended(target, extension)
        resources = list(out.values())
        if means_sam(self.resources(), resources):
            resources = sam.expand(resources, self.resources())
        return resources

    def may_generate(self, logical_id: str) -> bool:
        """Whether the Framework may generate a resource of that ID that is not modelled
        here: a function's log group, the shared role, the deployment bucket, or anything
        when the service has functions or events not expanded or not modelled here (a
        custom resource and its handler)."""
        if self.hidden_functions or self.unexpanded or self.unmodelled or logical_id in _FRAMEWORK_RESOURCES:
            return True
        if self.log_groups is None:
            keys = [key for key, _, _ in self.functions()]
            self.log_groups = {naming.log_group_id(key) + suffix for key in keys for suffix in ("", "IA")}
        return logical_id in self.log_groups

    def view(self, resource: RawResource, intrinsics: Intrinsics, exported: set[str]) -> CfnView:
        intrinsics.budget.at(self.file, resource.loc.line, resource.id)
        suppressions = metadata_suppressions(resource.metadata, resource.loc) + self.suppressions.get(resource.id, ())
        is_exported = resource.id in exported or (self.hidden_functions and resource.type == "AWS::SNS::Topic")
        defaults = {}
        if resource.written is FUNCTION:
            defaults[("Timeout",)] = default(FRAMEWORK_TIMEOUT)
        where = self.wheres.get(resource.id)
        if where and resource.written is not None:
            items = resource.items_written
            resource = replace(resource, written=replace(resource.written, where=where),
                               items_written=replace(items, where=where) if items is not None else None)
        return FrameworkView(resource, intrinsics, resource.written or CLOUDFORMATION, self.syntax, suppressions,
                             is_exported, None, defaults=defaults)

    def comment_suppressions(self, loc: Loc) -> tuple[Suppression, ...]:
        """``# fanout-lint: ignore=...`` on the lines just above a key or list item (at its
        column or left of it: an indented line above is the end of another value)."""
        found: list[Suppression] = []
        line = loc.line - 1
        comments = self.comments.get(loc.file, {})
        while line in comments and comments[line][0] <= loc.column:
            found.extend(parse_suppression(comments[line][1], Loc(loc.file, line, 1)))
            line -= 1
        return tuple(found)


_CANNOT = object()
_EVENTS = {"schedule": events_module.schedule, "eventBridge": events_module.event_bridge, "s3": events_module.s3,
           "stream": events_module.stream}
_EXPANDED = ("sqs", "sns", *_EVENTS)
# What resources.extensions may set (merge-custom-provider-resources.js), and the
# resources every service has beside its functions' (naming.js).
_EXTENSIBLE = ("Properties", "Metadata", "DependsOn", "Condition", "CreationPolicy", "DeletionPolicy", "UpdatePolicy",
               "UpdateReplacePolicy")
_FRAMEWORK_RESOURCES = (naming.ROLE_ID, "ServerlessDeploymentBucket", "ServerlessDeploymentBucketPolicy")


def _unnamed(prefix: str, index: int, suffix: str = "") -> str:
    """The ID of a resource whose name the file does not prove: named by its event."""
    return f"{prefix}<events[{index}]>{suffix}"


def _truthy(value: Any) -> bool:
    """JavaScript's truth, which the Framework tests its settings with."""
    return value not in (None, False, 0, "") and not (isinstance(value, float) and value != value)


def _intrinsic(raw: dict) -> bool:
    if len(raw) != 1:
        return False
    key = next(iter(raw))
    return isinstance(key, str) and (key.startswith("Fn::") or key == "Ref")


def _queue_url(arn: str) -> dict:
    """The URL the Framework builds from a queue ARN (``Fn::Join`` with
    ``AWS::URLSuffix``), written as the equivalent ``Fn::Sub`` so it names the queue."""
    parts = arn.split(":")
    name, account, region = (parts[::-1] + ["", "", ""])[:3]
    escaped = [part.replace("${", "${!") for part in (region, account, name)]
    return {"Fn::Sub": f"https://sqs.{escaped[0]}.${{AWS::URLSuffix}}/{escaped[1]}/{escaped[2]}"}


@dataclass(eq=False, repr=False)
class _Merges:
    """The merges of one service, each pair of values merged once: values that
    ``${self:}`` variables share are one object in several places, and a value holding
    the one below twice, level after level, would otherwise be merged (and copied)
    2^levels times. Each merge is a step of the service's budget."""

    budget: Budget
    done: dict[tuple[int, int, int], Any] = field(default_factory=dict)


def _merge_resource(generated: RawResource, body: dict, merges: _Merges) -> RawResource:
    """A resource of ``resources.Resources`` merged into the one the Framework generated
    under its logical ID, as lodash's ``merge`` does."""
    props = generated.props
    if isinstance(body.get("Properties"), dict):
        props = _merged(props, body["Properties"], 0, merges)
    metadata = generated.metadata
    if isinstance(body.get("Metadata"), dict):
        metadata = _merged(metadata, body["Metadata"], 0, merges)
    type_ = body.get("Type") if isinstance(body.get("Type"), str) else generated.type
    condition = body.get("Condition") if isinstance(body.get("Condition"), str) else generated.condition
    return RawResource(
        id=generated.id, type=type_, props=props, loc=generated.loc, metadata=metadata,
        written=generated.written if type_ == generated.type else None, condition=condition,
        node=generated.node, body=generated.body, syntax=generated.syntax, items_written=generated.items_written,
    )


def _merged(base: Any, over: Any, depth: int, merges: _Merges) -> Any:
    if depth > 64:
        return over
    if not (isinstance(base, (dict, list)) and isinstance(over, (dict, list))):
        return over
    # the objects are the file's (alive while the service loads): their ids are stable
    key = (id(base), id(over), depth)
    if key not in merges.done:
        merges.budget.step(1 + len(base) + len(over))
        merges.done[key] = _merged_once(base, over, depth, merges)
    return merges.done[key]


def _merged_once(base: Any, over: Any, depth: int, merges: _Merges) -> Any:
    if isinstance(base, dict) and isinstance(over, dict):
        out = DerivedMap(getattr(over, "loc", None) or getattr(base, "loc", None) or Loc("", 1),
                         over if isinstance(over, Map) else None)
        for key in base:
            out.take(key, base)
        for key, value in over.items():
            if key in base and isinstance(base[key], (dict, list)) and isinstance(value, (dict, list)):
                out.put(key, _merged(base[key], value, depth + 1, merges), over, key)
            else:
                out.take(key, over)
        return out
    if isinstance(base, list) and isinstance(over, list):
        merged = [(_merged(base[i], over[i], depth + 1, merges) if i < len(over) else base[i])
                  for i in range(len(base))]
        return merged + list(over[len(base):])
    return over


def _extended(target: RawResource, extension: dict) -> RawResource:
    """``resources.extensions``: Properties and Metadata assigned key by key, Condition replaced."""
    props, metadata, condition = target.props, target.metadata, target.condition
    if isinstance(extension.get("Properties"), dict):
        props = DerivedMap(getattr(target.props, "loc", target.loc), extension["Properties"]
                           if isinstance(extension["Properties"], Map) else None)
        for source in (target.props, extension["Properties"]):
            for key in source:
                props.take(key, source)
    if isinstance(extension.get("Metadata"), dict):
        metadata = {**target.metadata, **extension["Metadata"]}
    if isinstance(extension.get("Condition"), str):
        condition = extension["Condition"]
    return RawResource(
        id=target.id, type=target.type, props=props, loc=target.loc, metadata=metadata, written=target.written,
        resource=target.resource, connectors=target.connectors, props_known=target.props_known,
        condition=condition, node=target.node, body=target.body, syntax=target.syntax,
        items_written=target.items_written,
    )


def _comment_lines(text: str) -> dict[int, tuple[int, str]]:
    """line -> (column of the ``#``, text after it), for the lines that are comments only."""
    found: dict[int, tuple[int, str]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.lstrip(" \t")
        if stripped.startswith("#"):
            found[number] = (len(line) - len(stripped) + 1, stripped[1:].strip())
    return found
