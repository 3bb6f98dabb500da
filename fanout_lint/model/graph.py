"""The resource graph of one unit, with the queries rules ask.

Indexes are built once, in linear time, so that no rule joins lists in a loop.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

from fanout_lint.model.nodes import (
    DeadLetterUse,
    Delivery,
    EventRule,
    EventSourceMapping,
    EventTarget,
    External,
    Function,
    IamPolicy,
    InvokeConfig,
    Key,
    KeyGrant,
    KeyPolicy,
    LambdaPermission,
    Mention,
    Node,
    Notification,
    Pipe,
    PolicyAttachment,
    Queue,
    QueuePolicy,
    RecursionConfig,
    Redrive,
    Role,
    Subscription,
    Topic,
    Unit,
    UnitLink,
)
from fanout_lint.model.permissions import EVENTS, S3, SNS
from fanout_lint.model.schema import INDEXES
from fanout_lint.model.values import Known, verdict

if TYPE_CHECKING:
    from typing import Iterable, TypeVar

    N = TypeVar("N", bound=Node)


class Graph:
    def __init__(self, unit: Unit, nodes: Iterable[Node], dead_letter_uses: Iterable[DeadLetterUse] = (),
                 sources: dict[str, str] | None = None, mentions: Iterable[Mention] = (),
                 members: tuple[Unit, ...] = (), node_units: dict[str, str] | None = None,
                 links: tuple[UnitLink, ...] = ()):
        self.unit = unit
        # messaging constructs the loader saw and the graph does not model (not_modelled.py)
        self.not_modelled: list = []
        # An application (templates linked by imports and nested stacks) is one graph of
        # several units: each node is in one of them (``unit_of``), and ``links`` says how
        # they are joined. A graph of one unit is its own only member.
        self.members: tuple[Unit, ...] = members or (unit,)
        self._node_units: dict[str, str] = node_units or {}
        self.links = links
        # file -> the text the nodes' locations point into, for fixes; dropped once they are made
        self.sources: dict[str, str] = sources or {}
        self._nodes: dict[str, Node] = {}
        for node in nodes:
            self._nodes.setdefault(node.id, node)
        self._by_kind: dict[type, list[Node]] = defaultdict(list)
        for node in self._nodes.values():
            self._by_kind[type(node)].append(node)
        self._dead_letter_uses: dict[str, list[DeadLetterUse]] = defaultdict(list)
        for use in dead_letter_uses:
            self._dead_letter_uses[use.target].append(use)

        # The indexes of the schema (``Kind.indexes``): a class's nodes by the ids a group of
        # their fields names, e.g. subscriptions by topic.
        self._indexes: dict[tuple[type, tuple[str, ...]], dict[str, list[Node]]] = {}
        for node_class, groups in INDEXES.items():
            of_class = self._by_kind.get(node_class, ())
            for fields in groups:
                index: dict[str, list[Node]] = defaultdict(list)
                for node in of_class:
                    for name in fields:
                        for target in _ids(getattr(node, name)):
                            index[target].append(node)
                self._indexes[(node_class, fields)] = index
        self._mentions: dict[str, list[Mention]] = defaultdict(list)
        for mention in mentions:
            self._mentions[mention.target].append(mention)
        # on-success destinations carry results, not failures; None when one cannot be read
        on_success = [c.on_success for c in self._of_kind(InvokeConfig)]
        known = [v for v in on_success if isinstance(v, Known)]
        self._on_success: frozenset[str] | None = (
            frozenset(v.value for v in known if v.value) if len(known) == len(on_success) else None
        )
        self._deliveries: dict[str, list[Delivery]] = defaultdict(list)
        for delivery in self._all_deliveries():
            self._deliveries[delivery.target].append(delivery)
        # -- KMS keys and IAM roles (failure-path rules) --
        # a policy naming what the loader could not resolve may be any key's or role's
        self._loose_key_policy = any(not isinstance(self.get(p.key), Key) for p in self._of_kind(KeyPolicy))
        self._loose_key_grant = any(not isinstance(self.get(g.key), Key) for g in self._of_kind(KeyGrant))
        holders: list[IamPolicy | PolicyAttachment] = [*self._of_kind(IamPolicy), *self._of_kind(PolicyAttachment)]
        self._loose_role_policy = any(not isinstance(self.get(role_id), Role)
                                      for holder in holders for name in _ROLES
                                      for role_id in _ids(getattr(holder, name)))

    def _all_deliveries(self) -> Iterable[Delivery]:
        for sub in self._of_kind(Subscription):
            if sub.endpoint and verdict(lambda p: isinstance(p, str) and p.lower() in ("sqs", "lambda"),
                                        sub.protocol):
                yield Delivery(sub, sub.endpoint, SNS)
            if isinstance(sub.redrive_dlq, Known) and sub.redrive_dlq.value:
                yield Delivery(sub, sub.redrive_dlq.value, SNS, dead_letter=True)
        for target in self._of_kind(EventTarget):
            if target.scheduler:
                continue  # a schedule delivers with its role, never through a resource policy
            if target.target:
                yield Delivery(target, target.target, EVENTS)
            if isinstance(target.dead_letter, Known) and target.dead_letter.value:
                yield Delivery(target, target.dead_letter.value, EVENTS, dead_letter=True)
        for notification in self._of_kind(Notification):
            if notification.destination:
                yield Delivery(notification, notification.destination, S3)

    # -- nodes -------------------------------------------------------------
    def unit_of(self, node: Node) -> str:
        """The path of the unit the node is in: its template file in an application."""
        return self._node_units.get(node.id, self.unit.path) if self._node_units else self.unit.path

    def _of_kind(self, kind: type[N]) -> Iterable[N]:
        # the index itself, not a copy as ``all`` gives: building the indexes only reads it
        return self._by_kind.get(kind, ())  # type: ignore[return-value]

    def all(self, kind: type[N]) -> list[N]:
        return list(self._by_kind.get(kind, ()))  # type: ignore[arg-type]

    def nodes(self) -> list[Node]:
        return list(self._nodes.values())

    def get(self, node_id: str | None) -> Node | None:
        return self._nodes.get(node_id) if node_id else None

    def queue(self, node_id: str | None) -> Queue | None:
        node = self.get(node_id)
        return node if isinstance(node, Queue) else None

    def function(self, node_id: str | None) -> Function | None:
        node = self.get(node_id)
        return node if isinstance(node, Function) else None

    def topic(self, node_id: str | None) -> Topic | None:
        node = self.get(node_id)
        return node if isinstance(node, Topic) else None

    def is_external(self, node_id: str | None) -> bool:
        return isinstance(self.get(node_id), External)

    # -- edges -------------------------------------------------------------
    def indexed(self, kind: type[N], fields: tuple[str, ...], node_id: str) -> list[N]:
        """The nodes of ``kind`` whose ``fields`` name ``node_id``, in model order: one of the
        indexes the schema lists for the kind (``Kind.indexes``)."""
        return list(self._indexes[(kind, fields)].get(node_id, ()))  # type: ignore[arg-type]

    def subscriptions_of(self, topic_id: str) -> list[Subscription]:
        return self.indexed(Subscription, ("topic",), topic_id)

    def subscriptions_to(self, endpoint_id: str) -> list[Subscription]:
        """Subscriptions delivering to a queue or function."""
        return self.indexed(Subscription, ("endpoint",), endpoint_id)

    def consumers_of(self, queue_id: str) -> list[EventSourceMapping]:
        """Event source mappings reading the queue."""
        return self.indexed(EventSourceMapping, ("source",), queue_id)

    @staticmethod
    def redrive_of(queue: Queue) -> Redrive | None:
        """The queue's redrive policy when the template proves one."""
        return queue.redrive.value if isinstance(queue.redrive, Known) else None

    def dlq_of(self, queue: Queue) -> Node | None:
        redrive = self.redrive_of(queue)
        return self.get(redrive.dlq) if redrive else None

    def sources_of(self, dlq_id: str) -> list[Queue]:
        """Queues whose redrive policy names ``dlq_id``."""
        return self.indexed(Queue, ("redrive",), dlq_id)

    def dead_letter_uses(self, node_id: str) -> list[DeadLetterUse]:
        """Other settings that name the node as a dead-letter target."""
        return list(self._dead_letter_uses.get(node_id, ()))

    def is_dead_letter_target(self, node_id: str) -> bool:
        return bool(
            self._indexes[(Queue, ("redrive",))].get(node_id)
            or self._dead_letter_uses.get(node_id)
            or self._indexes[(Subscription, ("redrive_dlq",))].get(node_id)
        )

    def policies_for(self, queue_id: str) -> list[QueuePolicy]:
        return self.indexed(QueuePolicy, ("queues",), queue_id)

    def permissions_for(self, function_id: str) -> list[LambdaPermission]:
        return self.indexed(LambdaPermission, ("function",), function_id)

    def mentions_of(self, node_id: str, role: str | None = None) -> list[Mention]:
        """Resources the graph does not model that name the node (with ``role``, when given)."""
        return [m for m in self._mentions.get(node_id, ()) if role is None or m.role == role]

    def rule_of(self, target: EventTarget) -> EventRule | None:
        node = self.get(target.rule)
        return node if isinstance(node, EventRule) else None

    def invoke_configs_for(self, function_id: str) -> list[InvokeConfig]:
        """The function's asynchronous invocation configurations, whatever their qualifier."""
        return self.indexed(InvokeConfig, ("function",), function_id)

    def pipes_reading(self, source_id: str) -> list[Pipe]:
        """EventBridge pipes polling the queue or stream (consumers beside its mappings)."""
        return self.indexed(Pipe, ("source",), source_id)

    def mappings_for(self, function_id: str) -> list[EventSourceMapping]:
        """Event source mappings invoking the function."""
        return self.indexed(EventSourceMapping, ("function",), function_id)

    def may_be_on_success(self, node_id: str) -> bool:
        """An on-success destination of the unit is, or may be, the node."""
        return self._on_success is None or node_id in self._on_success

    # -- KMS keys (failure-path rules) ------------------------------------------
    def key_of(self, node: Node) -> Key | None:
        """The customer managed key of the unit a queue or topic is encrypted with."""
        named = getattr(node, "kms_key", None)
        key = self.get(named.value) if isinstance(named, Known) and isinstance(named.value, str) else None
        return key if isinstance(key, Key) else None

    def key_policies_for(self, key_id: str) -> list[KeyPolicy]:
        """Key policies written apart from the key (``aws_kms_key_policy``)."""
        if not isinstance(self.get(key_id), Key):
            return []
        return self.indexed(KeyPolicy, ("key",), key_id)

    def loop_detection_off(self, function: Function) -> bool:
        """The function provably allows recursive loops: ``RecursiveLoop: Allow`` on it, or
        an ``aws_lambda_function_recursion_config`` of it with ``recursive_loop = "Allow"``."""
        modes = [function.recursive_loop, *(c.recursive_loop for c in self.indexed(
            RecursionConfig, ("function",), function.id))]
        return any(verdict(lambda mode: isinstance(mode, str) and mode == "Allow", m) is True for m in modes)

    def may_have_grants(self, key: Key) -> bool:
        """A grant (``aws_kms_grant``) is on the key, or on a key the loader could not
        resolve, which may be this one."""
        return self._loose_key_grant or bool(self.indexed(KeyGrant, ("key",), key.id))

    @property
    def has_loose_key_policy(self) -> bool:
        """A key policy resource names a key the loader could not resolve: it may be any key's."""
        return self._loose_key_policy

    def role_of(self, function: Function) -> Role | None:
        """The function's execution role, when it is a role of the unit."""
        named = function.role
        role = self.get(named.value) if isinstance(named, Known) and isinstance(named.value, str) else None
        return role if isinstance(role, Role) else None

    def policies_of_role(self, role_id: str) -> list[Node]:
        """The ``IamPolicy`` and ``PolicyAttachment`` nodes that name the role (its inline
        policies included); the role's ``managed`` list names the others."""
        if not isinstance(self.get(role_id), Role):
            return []
        return [*self.indexed(IamPolicy, _ROLES, role_id), *self.indexed(PolicyAttachment, _ROLES, role_id)]

    @property
    def has_loose_role_policy(self) -> bool:
        """A policy or attachment names a role the loader could not resolve: it may be any role's."""
        return self._loose_role_policy

    def deliveries_to(self, node_id: str) -> list[Delivery]:
        """Services sending to the queue or invoking the function through its resource
        policy: SNS subscriptions and their DLQs, EventBridge targets and their DLQs, S3
        notifications (in model order)."""
        return list(self._deliveries.get(node_id, ()))


_ROLES = ("role", "roles")  # the index of policies and attachments by the roles they name


def _ids(value: object) -> tuple[str, ...]:
    """The node ids a field of a node names: a reference (an id, or None), a list of them,
    a destination (``Known(id)``), a redrive policy (its dead-letter queue)."""
    if isinstance(value, Known):
        value = value.value
    if isinstance(value, Redrive):
        return (value.dlq,)
    if isinstance(value, str):
        return (value,) if value else ()
    if isinstance(value, tuple):
        return value
    return ()
