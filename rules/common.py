"""Small predicates several rules share. Not a rule."""

from __future__ import annotations

from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import Queue, Subscription
from fanout_lint.model.values import Known, Value, verdict


def protocol_is(sub: Subscription, protocol: str) -> bool:
    """The subscription provably uses ``protocol``."""
    return verdict(lambda p: isinstance(p, str) and p.lower() == protocol, sub.protocol) is True


def reported(sub: Subscription) -> str:
    """How a message names a subscription: inline ones by their topic."""
    return f"inline subscription of {sub.resource}" if sub.inline else sub.resource


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
