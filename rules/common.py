"""Small predicates several rules share. Not a rule."""

from __future__ import annotations

from fanout_lint.loaders.policy_documents import allows
from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import External, Function, LambdaPermission, Node, Queue, QueuePolicy, Subscription
from fanout_lint.model.values import Known, Value, verdict


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
    if not isinstance(principal, str):
        return False
    # Opt-in Regions name the service with its Region: sns.ap-east-1.amazonaws.com.
    return principal in ("*", SNS) or (principal.startswith("sns.") and principal.endswith(".amazonaws.com"))


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
