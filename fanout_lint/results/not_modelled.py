"""Messaging constructs a unit holds that the graph does not model, said once per unit.

A rule is silent about what the graph does not hold: an Amazon MQ event source, the
notifications a custom resource creates, the stacks a remote ``TemplateURL`` nests. So
that silence is never read as "all clear", each loader records what it saw and passed
over (``NotModelled``, on ``Graph.not_modelled``), and the run turns the list into one
notice per unit (``notice_of``), printed beside the report, carried in JSON and SARIF,
hidden by ``-q``. ``--statistics`` counts them against the messaging resources modelled.

A loader records a construct with ``note(graph_or_list, kind, name, loc)``; the kinds
are short descriptions (a resource type, "Serverless plugin"), the names what the user
wrote (a logical ID, a plugin's name).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from fanout_lint.loaders.parsing.located import loc_of
from fanout_lint.model.nodes import (
    EventRule,
    EventSourceMapping,
    EventTarget,
    Loc,
    Notification,
    Pipe,
    Queue,
    Subscription,
    Topic,
)
from fanout_lint.results.records import Notice

if TYPE_CHECKING:
    from typing import Any, Iterable

    from fanout_lint.model.graph import Graph

NOT_MODELLED = "not-modelled"  # Notice.kind
# what counts as a messaging resource modelled, for the coverage line of --statistics
MESSAGING_NODES = (Topic, Queue, Subscription, EventSourceMapping, Notification, EventRule, EventTarget, Pipe)
MAX_LISTED = 10  # constructs named in one notice; the rest are counted
MAX_NAME = 120  # characters of a name shown

# Resource types that carry messages and are not read (CloudFormation and Terraform);
# EventBridge pipes are nodes now (model/schema.py, PIPE).
UNMODELLED_TYPES: dict[str, str] = {}
# Custom resources known to create subscriptions or notifications that the template does not show
NOTIFYING_CUSTOM = {
    "Custom::S3BucketNotifications": "S3 bucket notifications made by a CDK custom resource",
    "Custom::S3": "S3 bucket notifications made by a Serverless custom resource",
    "Custom::EventBridge": "an EventBridge rule made by a Serverless custom resource",
}
# SAM event types that deliver messages to a function and are not expanded
SAM_EVENTS_NOT_EXPANDED = {
    "MSK": "MSK event source", "MQ": "Amazon MQ event source",
    "SelfManagedKafka": "self-managed Kafka event source", "DocumentDB": "DocumentDB event source",
}
# An event source mapping from one of these is not modelled (the graph reads SQS, Kinesis, DynamoDB)
ESM_KEYS = {
    "SelfManagedEventSource": "self-managed Kafka event source mapping",
    "AmazonManagedKafkaEventSourceConfig": "MSK event source mapping",
    "SelfManagedKafkaEventSourceConfig": "self-managed Kafka event source mapping",
    "Topics": "Kafka event source mapping",
    "Queues": "Amazon MQ event source mapping",
    "DocumentDBEventSourceConfig": "DocumentDB event source mapping",
    # Terraform's names
    "self_managed_event_source": "self-managed Kafka event source mapping",
    "amazon_managed_kafka_event_source_config": "MSK event source mapping",
    "self_managed_kafka_event_source_config": "self-managed Kafka event source mapping",
    "topics": "Kafka event source mapping",
    "queues": "Amazon MQ event source mapping",
    "document_db_event_source_config": "DocumentDB event source mapping",
}
ESM_ARN_SERVICES = {"kafka": "MSK event source mapping", "mq": "Amazon MQ event source mapping",
                    "rds": "DocumentDB event source mapping"}
# A Kafka mapping that names its topics is modelled (stream-mapping-without-failure-handling
# and stream-retries-unbounded read it as Kafka); one whose topics are not shown is noted.
KAFKA_KINDS = frozenset(("self-managed Kafka event source mapping", "MSK event source mapping",
                         "Kafka event source mapping"))
TOPICS = ("Topics", "topics")
REMOTE_PREFIXES = ("https://", "http://", "s3://")
# Well-known Serverless plugins that build, package or run the service locally, or read
# settings, and add no messaging resources to the stack: naming them as not modelled
# would only hide the notes that matter. A plugin that adds functions, events or
# resources (serverless-plugin-warmup's schedule, serverless-plugin-split-stacks'
# nested stacks, serverless-step-functions) is not here, nor one that rewrites the
# values fanout-lint reads (serverless-pseudo-parameters and serverless-cf-vars turn
# "#{...}" strings into Fn::Sub).
BUILD_ONLY_PLUGINS = frozenset((
    # build and package the code
    "serverless-webpack", "serverless-bundle", "serverless-esbuild", "serverless-plugin-typescript",
    "serverless-python-requirements", "serverless-jetpack", "serverless-plugin-include-dependencies",
    "serverless-plugin-optimize", "serverless-rust",
    # put a web framework's app behind the handler (API Gateway and ALB requests), with
    # its packages bundled and a local server
    "serverless-wsgi", "serverless-rack",
    # prune old versions after a deployment
    "serverless-prune-plugin",
    # run and emulate the service on a developer's machine
    "serverless-offline", "serverless-offline-sqs", "serverless-offline-sns", "serverless-dynamodb-local",
    "serverless-offline-direct-lambda",
    # read settings, or write them to a local .env file for local runs
    "serverless-dotenv-plugin", "serverless-export-env",
    # commands that sync a site to its bucket
    "serverless-single-page-app-plugin", "serverless-s3-sync",
))


@dataclass(frozen=True, eq=False, repr=False)
class NotModelled:
    """One construct passed over: what it is, the name written, where."""

    kind: str
    name: str
    loc: Loc


def note(into: Any, kind: str, name: str, loc: Loc) -> None:
    """Record a construct not modelled on a graph (``Graph.not_modelled``) or a list."""
    target = into if isinstance(into, list) else into.not_modelled
    target.append(NotModelled(kind, name, loc))


def of_cloudformation(resources: Iterable[Any]) -> list[NotModelled]:
    """The constructs of a template's raw resources (before the SAM expansion, which drops
    the events it does not expand) the graph will not model."""
    found: list[NotModelled] = []
    for r in resources:
        if r.type == "AWS::CloudFormation::Stack" and isinstance(r.metadata, dict) and "aws:asset:path" in r.metadata:
            continue  # a CDK nested stack: its template is in the assembly, and linked
        kind = _cfn_kind(r.type, r.props if r.props_known else {})
        if kind:
            found.append(NotModelled(kind, r.id, r.loc))
        if r.type == "AWS::Serverless::Function" and r.props_known:
            found.extend(_sam_events(r))
    return found


def _cfn_kind(type_: str, props: Any) -> str | None:
    if type_ in UNMODELLED_TYPES:
        return f"{UNMODELLED_TYPES[type_]}, {type_}"
    if type_ in NOTIFYING_CUSTOM:
        return f"{NOTIFYING_CUSTOM[type_]}, {type_}"
    if not isinstance(props, dict):
        return None
    if type_ == "AWS::Lambda::EventSourceMapping":
        return esm_kind(props, props.get("EventSourceArn"))
    if type_ == "AWS::CloudFormation::Stack":
        url = props.get("TemplateURL")
        if isinstance(url, str) and url.lower().startswith(REMOTE_PREFIXES):
            return "nested stack with a remote TemplateURL"
    return None


def esm_kind(props: dict, source: Any) -> str | None:
    """What an event source mapping reads when it is not a queue, a stream or Kafka topics
    it names, or None."""
    kafka = any(props.get(key) is not None for key in TOPICS)
    for key, kind in ESM_KEYS.items():
        if props.get(key) is not None and not (kafka and kind in KAFKA_KINDS):
            return kind
    if isinstance(source, str) and source.startswith("arn:"):
        parts = source.split(":", 3)
        if len(parts) > 2 and parts[2] in ESM_ARN_SERVICES and not (kafka and parts[2] == "kafka"):
            return ESM_ARN_SERVICES[parts[2]]
    return None


def of_serverless_plugins(data: dict, loc: Loc) -> list[NotModelled]:
    """Each plugin a Serverless service names (``plugins:``, a list or ``modules:``): what
    a plugin adds to the stack is only known by running it. The build-only plugins
    (``BUILD_ONLY_PLUGINS``) add no messaging resources, and are not named."""
    plugins = data.get("plugins")
    if isinstance(plugins, dict):
        plugins = plugins.get("modules")
    if not isinstance(plugins, list):
        return []
    return [NotModelled("Serverless plugin: the resources it adds", name, loc_of(plugins, index, loc))
            for index, name in enumerate(plugins)
            if isinstance(name, str) and name and name not in BUILD_ONLY_PLUGINS]


def _sam_events(resource: Any) -> list[NotModelled]:
    events = resource.props.get("Events")
    found = []
    for name, event in events.items() if isinstance(events, dict) else ():
        kind = event.get("Type") if isinstance(event, dict) else None
        if isinstance(kind, str) and kind in SAM_EVENTS_NOT_EXPANDED:
            found.append(NotModelled(f"{SAM_EVENTS_NOT_EXPANDED[kind]}, SAM event Type {kind}",
                                     f"{resource.id}.{name}", loc_of(events, name, resource.loc)))
    return found


def notice_of(graph: Graph) -> Notice | None:
    """One notice for the unit: each construct not modelled, first ``MAX_LISTED`` by name."""
    seen = list({(c.kind, c.name, c.loc.file, c.loc.line): c for c in graph.not_modelled}.values())
    if not seen:
        return None
    seen.sort(key=lambda c: (c.loc.file, c.loc.line, c.name))
    listed = "; ".join(f"{_short(c.name)} (line {c.loc.line}): {_short(c.kind)}" for c in seen[:MAX_LISTED])
    more = f"; and {len(seen) - MAX_LISTED} more" if len(seen) > MAX_LISTED else ""
    count = len(seen)
    message = (f"{count} messaging construct{'s' if count != 1 else ''} not modelled, so no rule checks "
               f"{'them' if count != 1 else 'it'}: {listed}{more}")
    return Notice(Loc(seen[0].loc.file, seen[0].loc.line, seen[0].loc.column), message, kind=NOT_MODELLED)


def _short(text: str) -> str:
    """A name as the note shows it: a template's names may be of any length."""
    return text if len(text) <= MAX_NAME else text[:MAX_NAME] + "..."


def modelled_count(graph: Graph, reported: Any = None) -> int:
    """The messaging resources the graph models (for the coverage line); ``reported``: the
    files of an application whose resources count (None: all)."""
    passed_over = {c.name for c in graph.not_modelled}  # an MSK mapping is a node, but not modelled
    return sum(1 for node in graph.nodes() if isinstance(node, MESSAGING_NODES) and node.id not in passed_over
               and (reported is None or reported(graph.unit_of(node))))


def account(result: Any, graph: Graph, reported: Any = None) -> None:
    """Add the graph's notice and coverage counts to ``result``; ``reported``: a test of
    the files whose constructs are reported (an application's named ones), or None."""
    if reported is not None:
        graph.not_modelled = [c for c in graph.not_modelled if reported(c.loc.file)]
    notice = notice_of(graph)
    if notice is not None:
        result.notices.append(notice)
    result.modelled += modelled_count(graph, reported)
    result.not_modelled += len({(c.kind, c.name, c.loc.file, c.loc.line) for c in graph.not_modelled})
