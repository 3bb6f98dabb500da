"""Small predicates several rules share. Not a rule."""

from __future__ import annotations

import math

from fanout_lint.model.arns import arn_service
from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import (
    EXPORTS,
    PUBLISHES_ONLY,
    DeadLetterUse,
    Delivery,
    EventSourceMapping,
    EventTarget,
    External,
    Function,
    LambdaPermission,
    Node,
    Notification,
    Pipe,
    Queue,
    QueuePolicy,
    Stream,
    Subscription,
    Topic,
)
from fanout_lint.model.permissions import EVENTS, S3, SNS, allows, principal_matches
from fanout_lint.model.values import Known, Value, candidates, describe, rests_on_input, verdict
from fanout_lint.model.vocabulary import term
from fanout_lint.rule import Options, Severity


def protocol_is(sub: Subscription, protocol: str) -> bool:
    """The subscription provably uses ``protocol``."""
    return verdict(lambda p: isinstance(p, str) and p.lower() == protocol, sub.protocol) is True


def reported(sub: Subscription, protocol_shown: bool = False) -> str:
    """How a message names a subscription: inline ones by their topic, with the protocol
    the finding rests on when a parameter or variable sets it (``protocol_note``), unless
    the message shows the protocol itself."""
    name = f"inline subscription of {sub.resource}" if sub.inline else sub.resource
    return name if protocol_shown else name + protocol_note(sub)


def protocol_note(sub: Subscription) -> str:
    """`` (Protocol sqs (default of parameter P))`` when the subscription's protocol is a
    parameter's default or a variable's value, else nothing."""
    if not rests_on_input(sub.protocol):
        return ""
    return f" ({term(sub, 'protocol')} {describe(sub.protocol)})"


def named(node: Node) -> str:
    """How a message names a node: something outside the unit by what the template wrote."""
    return node.label if isinstance(node, External) and node.label else node.resource


def is_consumed(graph: Graph, queue: Queue) -> bool:
    """An SNS subscription delivers to the queue, or a mapping or an EventBridge pipe reads it."""
    return bool(graph.consumers_of(queue.id)) or bool(graph.pipes_reading(queue.id)) or any(
        protocol_is(s, "sqs") for s in graph.subscriptions_to(queue.id)
    )


def provably_no_redrive(queue: Queue) -> bool:
    return isinstance(queue.redrive, Known) and queue.redrive.value is None


def queue_without_dlq(graph: Graph, queue: Queue) -> bool:
    """Consumed, no redrive policy, and not itself a dead-letter store (is_dead_letter_store)."""
    return (
        provably_no_redrive(queue)
        and is_consumed(graph, queue)
        and not is_dead_letter_store(graph, queue)
    )


def subscription_dlqs(graph: Graph, queue: Queue) -> list[Subscription]:
    """Subscriptions delivering to the queue that have a RedrivePolicy of their own."""
    return [
        s for s in graph.subscriptions_to(queue.id)
        if protocol_is(s, "sqs") and isinstance(s.redrive_dlq, Known) and s.redrive_dlq.value
    ]


def is_sqs_source(graph: Graph, mapping: EventSourceMapping) -> bool:
    """The mapping provably reads an SQS queue: of the unit, named by a literal ARN, or
    whatever the ARN, because the construct that wrote it reads queues only (a SAM or
    Serverless SQS event)."""
    if mapping.written.source == "sqs":
        return True
    source = graph.get(mapping.source)
    if isinstance(source, Queue):
        return True
    # an ARN template proves SQS only by a literal service segment (model/arns.py)
    return isinstance(source, External) and arn_service(source.label) == "sqs"


def stream_service(graph: Graph, mapping: EventSourceMapping) -> str | None:
    """"kinesis" or "dynamodb" when the mapping provably reads a stream, else None (a
    queue, Kafka, MQ, DocumentDB, or a source the template does not show); or the one the
    construct that wrote the mapping reads (a Serverless stream event's type)."""
    if mapping.written.source in ("kinesis", "dynamodb"):
        return mapping.written.source
    source = graph.get(mapping.source)
    if isinstance(source, Stream):
        return source.service or None
    if isinstance(source, External):
        return _stream_arn_service(source.label)
    return None


def kafka_service(mapping: EventSourceMapping) -> str | None:
    """"msk" or "kafka" (self-managed) when the mapping provably reads Apache Kafka: it
    names topics, which only a Kafka mapping does; self-managed when it names a
    ``SelfManagedEventSource``, else its source is an Amazon MSK cluster. Else None."""
    if verdict(bool, mapping.kafka_topics) is not True:
        return None
    return "kafka" if verdict(bool, mapping.self_managed_source) is True else "msk"


def _stream_arn_service(label: str) -> str | None:
    if label.startswith("arn:") and ":kinesis:" in label and ":stream/" in label:
        return "kinesis"
    if label.startswith("arn:") and ":dynamodb:" in label and "/stream/" in label:
        return "dynamodb"
    return None


# -- EventBridge Pipes --------------------------------------------------------

def is_stopped(pipe: Pipe) -> bool:
    """The pipe provably does not run (``DesiredState: STOPPED``)."""
    return verdict(lambda state: isinstance(state, str) and state.upper() == "STOPPED", pipe.desired_state) is True


def pipe_stream_service(graph: Graph, pipe: Pipe) -> str | None:
    """"kinesis" or "dynamodb" when the pipe provably reads a stream, else None."""
    source = graph.get(pipe.source)
    if isinstance(source, Stream):
        return source.service or None
    if isinstance(source, External):
        return _stream_arn_service(source.label)
    return None


def is_standard(fifo: Value) -> bool:
    return verdict(lambda f: not f, fifo) is True


# -- who may send to a queue or invoke a function (permission rules) ----------

SEND = ("sqs:SendMessage",)
# How messages name each service that delivers through a resource policy.
SENDERS = {SNS: "SNS", EVENTS: "EventBridge", S3: "S3"}


def _policy_may_allow(policy: QueuePolicy, service: str, queue: Queue | None = None,
                      graph: Graph | None = None) -> bool | None:
    """True: a statement allows the service to send (to ``queue`` of ``graph``, when given:
    a statement whose ``Resource`` is provably another resource grants it nothing); None:
    not proved either way; False: none does."""
    if not isinstance(policy.statements, Known):
        return None
    answers = {allows(s, service, SEND) and (queue is None or graph is None or may_cover(graph, s, queue))
               for s in policy.statements.value}
    if True in answers:
        return True
    return None if None in answers else False


def _unattached(graph: Graph, node_ids: tuple[str, ...], kind: type) -> bool:
    return not node_ids or any(not isinstance(graph.get(i), kind) for i in node_ids)


def unresolved_policies_may_allow(graph: Graph) -> frozenset[str]:
    """The services that a queue policy whose queues the loader could not resolve may let send.

    Such a policy might be any queue's: while it may allow a service, nothing is proved
    about any queue. Asked once per graph, so that checking every queue stays linear.
    """
    loose = [p for p in graph.all(QueuePolicy) if _unattached(graph, p.queues, Queue)]
    return frozenset(service for service in SENDERS if any(_policy_may_allow(p, service) is not False for p in loose))


def may_cover(graph: Graph, statement, queue: Queue) -> bool | None:
    """Does the statement's ``Resource`` cover the queue? False only when every entry is
    provably something else: a reference to another resource of the unit, or a literal ARN
    of another service. None when not proved (``*``, a pattern, a parameter)."""
    resources = statement.resources
    if not resources:
        return None
    for kind, entry in resources:
        if kind == "text":
            if entry.startswith("arn:") and arn_service(entry) not in (None, "sqs"):
                continue
            return None
        if entry == queue.id:
            return True
        node = graph.get(entry)
        if node is None or isinstance(node, External):
            return None
    return False


def may_send(graph: Graph, queue: Queue, service: str, unresolved: frozenset[str]) -> bool | None:
    """Does a queue policy of the unit let the service send to the queue? None when not proved."""
    answers = {_policy_may_allow(p, service, queue, graph) for p in graph.policies_for(queue.id)}
    if True in answers:
        return True
    if service in unresolved:
        return None
    return None if None in answers else False


def _permission_allows(permission: LambdaPermission, service: str) -> bool | None:
    return verdict(
        lambda principal, action: isinstance(principal, str) and principal_matches(principal, service)
        and _invoke_action(action),
        permission.principal, permission.action,
    )


def _invoke_action(action) -> bool:
    return isinstance(action, str) and action.lower() in ("lambda:invokefunction", "lambda:*", "*")


def unresolved_permissions_may_allow(graph: Graph) -> frozenset[str]:
    """The services that a Lambda permission whose function the loader could not resolve may allow."""
    loose = [p for p in graph.all(LambdaPermission) if _unattached(graph, (p.function,) if p.function else (), Function)]
    return frozenset(service for service in SENDERS if any(_permission_allows(p, service) is not False for p in loose))


def may_invoke(graph: Graph, function: Function, service: str, unresolved: frozenset[str]) -> bool | None:
    """Does a Lambda permission of the unit (on the function or an alias of it) let the
    service invoke the function? None when not proved."""
    answers = {_permission_allows(p, service) for p in graph.permissions_for(function.id)}
    if True in answers:
        return True
    if service in unresolved:
        return None
    return None if None in answers else False


def through_policy(delivery: Delivery) -> bool:
    """The delivery provably needs the target's resource policy: an EventBridge target with
    a role may be delivered with the role instead."""
    sender = delivery.sender
    return not isinstance(sender, EventTarget) or verdict(lambda role: role is None, sender.role) is True


def sender_name(delivery: Delivery) -> str:
    """How a message names who delivers: ``subscription S``, ``EventBridge rule R``, ..."""
    sender = delivery.sender
    return reported(sender) if isinstance(sender, Subscription) else source_name(sender)


def source_name(node: Node) -> str:
    """How a message names an EventBridge target or an S3 notification. An item (a rule's
    ``Targets`` entry, a bucket's notification) is named by what holds it."""
    held = node.resource != node.local_id
    if isinstance(node, EventTarget):
        if node.scheduler:
            return f"EventBridge Scheduler schedule {node.resource}"
        return f"EventBridge rule {node.resource}" if held else f"EventBridge target {node.resource}"
    if isinstance(node, Notification):
        return f"S3 bucket {node.resource}" if node.resource == node.local(node.bucket) else f"S3 notification {node.resource}"
    return node.resource


def is_disabled(graph: Graph, target: EventTarget) -> bool:
    """The rule (or schedule) delivering through the target is provably disabled."""
    rule = graph.rule_of(target)
    if rule is not None and verdict(lambda enabled: enabled is False, rule.enabled) is True:
        return True
    state = rule.state if rule is not None else target.state
    return verdict(lambda s: isinstance(s, str) and s.upper() == "DISABLED", state) is True


def single_values(*values: Value) -> tuple | None:
    """The one known value of each, or None when any is unknown or chosen by a condition:
    a fix is offered only when every value it rests on is known."""
    out = []
    for value in values:
        options = candidates(value)
        if options is None or len(options) != 1:
            return None
        out.append(options[0].value)
    return tuple(out)


def recommended_timeout(graph: Graph, queue: Queue, factor: float) -> int | None:
    """AWS's visibility timeout for the queue: factor x timeout + batching window of its
    slowest consumer, when every consumer's values are known (else None: no fix)."""
    best = None
    for mapping in graph.consumers_of(queue.id):
        function = graph.function(mapping.function)
        if function is None:
            return None
        known = single_values(function.timeout, mapping.batching_window)
        if known is None or not all(isinstance(v, int) for v in known):
            return None
        timeout, window = known
        best = max(best or 0, math.ceil(factor * timeout + window))
    return best


def add_redrive(queue: Queue) -> str:
    """Advice to give a queue its own dead-letter queue, in the queue's vocabulary."""
    why = queue.written.why_fixed("redrive")
    if why is not None:
        return why
    return (
        f"add a {term(queue, 'redrive')} whose {term(queue, 'dead_letter_target')} is a DLQ of its own, "
        f"with a {term(queue, 'max_receive_count')} of 3 to 5"
    )


# -- shapes a team would not act on: reported lower, with the reason ----------

LEVELS = ("info", "warning", "error")


def level(rule_severity: Severity, options: Options, name: str) -> Severity | None:
    """The level an option gives a shape (``schedules = "info"``), or None when it is the
    rule's own, so that the finding is reported exactly as before."""
    chosen = options.severity(name)
    return None if chosen == rule_severity else chosen


def repeats(schedule: Value) -> bool:
    """A schedule expression that provably runs again: ``rate(...)`` or ``cron(...)``, not
    Scheduler's one-time ``at(...)``."""
    return verdict(lambda s: isinstance(s, str) and s.strip().lower().startswith(("rate(", "cron(")),
                   schedule) is True


def runs_on_schedule_only(graph: Graph, target: EventTarget) -> bool:
    """The target is provably triggered by a recurring schedule alone: a Scheduler schedule
    with a rate or cron expression, or a rule with one and no event pattern (a rule may
    have both, and then matching events trigger it too)."""
    if target.scheduler:
        return repeats(target.schedule)
    rule = graph.rule_of(target)
    return rule is not None and repeats(rule.schedule) and verdict(lambda p: p is False, rule.pattern) is True


# Why a schedule's lost run is not worth a dead-letter queue, for the messages.
SCHEDULED = ("the next scheduled run does the work again, and a lost scheduled event holds nothing "
             "the next one does not")


# -- dead-letter stores: queues and topics that only failures reach ----------

def dead_letter_topic_uses(graph: Graph, topic: Node | None) -> list[DeadLetterUse]:
    """The settings that send failures to the topic (a function's ``DeadLetterConfig``, an
    on-failure destination), when they are all the run shows publishing to it: no
    EventBridge target or S3 notification, no alarm or other notifier, no on-success
    destination, and no export through which another stack may publish. Else none."""
    if not isinstance(topic, Topic) or topic.exported:
        return []
    uses = graph.dead_letter_uses(topic.id)
    if not uses or graph.deliveries_to(topic.id) or graph.mentions_of(topic.id, PUBLISHES_ONLY):
        return []
    if graph.mentions_of(topic.id, EXPORTS) or graph.may_be_on_success(topic.id):
        return []
    return uses


def is_dead_letter_store(graph: Graph, queue: Queue) -> bool:
    """The queue holds only failures: a setting names it as a dead-letter target, or every
    inflow the run shows is an SQS subscription of a topic that only failures reach."""
    if graph.is_dead_letter_target(queue.id):
        return True
    subs = graph.subscriptions_to(queue.id)
    if not subs or any(not isinstance(d.sender, Subscription) for d in graph.deliveries_to(queue.id)):
        return False
    if graph.may_be_on_success(queue.id):
        return False
    return all(protocol_is(s, "sqs") and dead_letter_topic_uses(graph, graph.get(s.topic)) for s in subs)


def dead_letter_path(graph: Graph, uses: list[DeadLetterUse]) -> str:
    """Why a topic is a dead-letter path, for the messages: who sends their failures to it."""
    names = list(dict.fromkeys(f"{_user(graph, u)}'s {u.via}" for u in uses))
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    return f"only failures reach the topic ({shown})"


def _user(graph: Graph, use: DeadLetterUse) -> str:
    node = graph.get(use.user)
    return node.resource if node is not None else use.user
