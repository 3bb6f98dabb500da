"""Small predicates several rules share. Not a rule."""

from __future__ import annotations

import math

from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import External, Function, LambdaPermission, Node, Queue, QueuePolicy, Subscription
from fanout_lint.model.permissions import allows, principal_matches
from fanout_lint.model.values import Known, Value, candidates, verdict
from fanout_lint.model.vocabulary import term


def protocol_is(sub: Subscription, protocol: str) -> bool:
    """The subscription provably uses ``protocol``."""
    return verdict(lambda p: isinstance(p, str) and p.lower() == protocol, sub.protocol) is True


def reported(sub: Subscription) -> str:
    """How a message names a subscription: inline ones by their topic."""
    return f"inline subscription of {sub.resource}" if sub.inline else sub.resource


def named(node: Node) -> str:
    """How a message names a node: something outside the unit by what the template wrote."""
    return node.label if isinstance(node, External) and node.label else node.resource


def is_consumed(graph: Graph, queue: Queue) -> bool:
    """An SNS subscription delivers to the queue, or a mapping reads it."""
    return bool(graph.consumers_of(queue.id)) or any(
        protocol_is(s, "sqs") for s in graph.subscriptions_to(queue.id)
    )


def provably_no_redrive(queue: Queue) -> bool:
    return isinstance(queue.redrive, Known) and queue.redrive.value is None


def queue_without_dlq(graph: Graph, queue: Queue) -> bool:
    """Consumed, no redrive policy, and not itself a dead-letter queue."""
    return (
        provably_no_redrive(queue)
        and is_consumed(graph, queue)
        and not graph.is_dead_letter_target(queue.id)
    )


def subscription_dlqs(graph: Graph, queue: Queue) -> list[Subscription]:
    """Subscriptions delivering to the queue that have a RedrivePolicy of their own."""
    return [
        s for s in graph.subscriptions_to(queue.id)
        if protocol_is(s, "sqs") and isinstance(s.redrive_dlq, Known) and s.redrive_dlq.value
    ]


def is_standard(fifo: Value) -> bool:
    return verdict(lambda f: not f, fifo) is True


# -- who may send to a queue or invoke a function (permission rules) ----------

SNS = "sns.amazonaws.com"
SEND = ("sqs:SendMessage",)


def _policy_may_allow_sns(policy: QueuePolicy) -> bool | None:
    """True: a statement allows SNS to send; None: not proved either way; False: none does."""
    if not isinstance(policy.statements, Known):
        return None
    answers = {allows(s, SNS, SEND) for s in policy.statements.value}
    if True in answers:
        return True
    return None if None in answers else False


def _unattached(graph: Graph, node_ids: tuple[str, ...], kind: type) -> bool:
    return not node_ids or any(not isinstance(graph.get(i), kind) for i in node_ids)


def unresolved_policy_may_allow_sns(graph: Graph) -> bool:
    """A queue policy whose queues the loader could not resolve may allow SNS.

    It might be any queue's policy: while it may, nothing is proved about any queue.
    Asked once per graph, so that checking every queue stays linear.
    """
    return any(
        _unattached(graph, policy.queues, Queue) and _policy_may_allow_sns(policy) is not False
        for policy in graph.all(QueuePolicy)
    )


def sns_may_send(graph: Graph, queue: Queue, unresolved_may_allow: bool) -> bool | None:
    """Does a queue policy of the unit let SNS send to the queue? None when not proved."""
    answers = {_policy_may_allow_sns(p) for p in graph.policies_for(queue.id)}
    if True in answers:
        return True
    if unresolved_may_allow:
        return None
    return None if None in answers else False


def _permission_allows_sns(permission: LambdaPermission) -> bool | None:
    return verdict(
        lambda principal, action: _principal_is_sns(principal) and _invoke_action(action),
        permission.principal, permission.action,
    )


def _principal_is_sns(principal) -> bool:
    return isinstance(principal, str) and principal_matches(principal, SNS)


def _invoke_action(action) -> bool:
    return isinstance(action, str) and action.lower() in ("lambda:invokefunction", "lambda:*", "*")


def unresolved_permission_may_allow_sns(graph: Graph) -> bool:
    """A Lambda permission whose function the loader could not resolve may allow SNS."""
    return any(
        _unattached(graph, (p.function,) if p.function else (), Function)
        and _permission_allows_sns(p) is not False
        for p in graph.all(LambdaPermission)
    )


def sns_may_invoke(graph: Graph, function: Function, unresolved_may_allow: bool) -> bool | None:
    """Does a Lambda permission of the unit let SNS invoke the function? None when not proved."""
    answers = {_permission_allows_sns(p) for p in graph.permissions_for(function.id)}
    if True in answers:
        return True
    if unresolved_may_allow:
        return None
    return None if None in answers else False


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
