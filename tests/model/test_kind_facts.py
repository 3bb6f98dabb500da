"""What each node kind is called, how it is drawn and what the graph indexes it by are facts
of the schema: the graph and every diagram read them there."""

from __future__ import annotations

import dataclasses

from fanout_lint.model import schema
from fanout_lint.model.format import Format
from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import IamPolicy, Loc, PolicyAttachment, Queue, Role, Subscription, Topic, Unit
from fanout_lint.model.values import Known
from fanout_lint.reports import dot, mermaid, topology

LOC = Loc("t.yaml", 1)


def test_every_shape_is_drawn_by_every_diagram():
    assert set(dot._SHAPES) == set(mermaid._SHAPES) == set(schema.SHAPES)
    used = {k.drawing.shape for k in schema.EVERY_KIND if k.drawing is not None}
    assert used <= set(schema.SHAPES)


def test_every_kind_of_node_is_drawn_or_shown_on_what_it_governs():
    hidden = {k.key for k in schema.EVERY_KIND if k.node is not None and k.drawing is None}
    assert hidden == {"queue_policy", "permission", "invoke_config", "recursion_config", "key_policy", "key_grant",
                      "iam_policy", "policy_attachment"}
    # one view kind per node class, and a drawn kind has a title
    views: dict[type, set[str]] = {}
    for kind in schema.EVERY_KIND:
        if kind.drawing is not None:
            assert kind.drawing.title and kind.drawing.view not in (topology.DLQ, topology.MISSING)
            views.setdefault(kind.node, set()).add(kind.drawing.view)  # type: ignore[arg-type]
    assert all(len(v) == 1 for cls, v in views.items() if cls.__name__ != "EventTarget"), views
    assert topology.CONNECTORS == {"subscription", "mapping", "target", "notification", "pipe"}


def test_every_index_reads_fields_its_nodes_have():
    for node_class, groups in schema.INDEXES.items():
        names = {f.name for f in dataclasses.fields(node_class)}
        for fields in groups:
            assert set(fields) <= names, (node_class.__name__, fields)


def test_the_graph_keeps_the_schema_indexes():
    topic = Topic(id="T", loc=LOC)
    first = Subscription(id="S1", loc=LOC, topic="T", endpoint="Q")
    second = Subscription(id="S2", loc=LOC, topic="T", endpoint="DLQ", redrive_dlq=Known("DLQ"))
    role = Role(id="R", loc=LOC)
    # a policy naming the role in ``roles`` before one naming it in ``role``: model order
    by_list = IamPolicy(id="P1", loc=LOC, roles=("R",))
    by_name = IamPolicy(id="P2", loc=LOC, role="R")
    attached = PolicyAttachment(id="A", loc=LOC, role="elsewhere")
    graph = Graph(Unit("t.yaml", Format.CLOUDFORMATION),
                  [topic, first, second, Queue(id="Q", loc=LOC), role, attached, by_list, by_name])
    assert graph.subscriptions_of("T") == [first, second]
    assert graph.indexed(Subscription, ("endpoint",), "DLQ") == [second] == graph.subscriptions_to("DLQ")
    assert graph.is_dead_letter_target("DLQ") and not graph.is_dead_letter_target("Q")
    assert graph.policies_of_role("R") == [by_list, by_name]
    assert graph.policies_of_role("T") == []  # only a role of the unit has policies
    assert graph.has_loose_role_policy  # the attachment names a role the unit does not hold
