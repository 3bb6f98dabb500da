"""The topology view: the graphs the rules saw, reduced to what a diagram draws.

One neutral view model feeds every diagram format (Mermaid, DOT, JSON, markdown), so
the formats cannot disagree about what is connected to what. Subscriptions and event
source mappings are nodes of their own: they hold the settings that matter (protocol,
raw delivery, filter policy) and the findings about them.

An application (templates linked by imports and nested stacks) is one graph of several
units: each unit is a cluster of its own, an edge between two of its clusters is marked
``between_units``, and the view's ``links`` say which unit imports from or nests which.

Findings are placed by the node ids the engine recorded on them. A finding about a
resource that is not drawn (a queue policy, a Lambda permission) is shown on the
resources it governs.

The view's records clean their text when they are made (``fanout_lint.results.untrusted``), like
the findings they carry; the graph ids they were built from stay raw inside ``build``.
Building and rendering are linear in nodes, edges and findings: every lookup goes
through a table made once, because one unit can hold tens of thousands of resources.
"""

from __future__ import annotations

import heapq
import re
from dataclasses import dataclass, replace
from functools import cached_property

from fanout_lint.model.format import Format
from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import (
    NESTS,
    EventRule,
    EventSourceMapping,
    EventTarget,
    External,
    Function,
    InvokeConfig,
    LambdaPermission,
    Node,
    Notification,
    Pipe,
    Queue,
    QueuePolicy,
    RoleTarget,
    Subscription,
    Topic,
)
from fanout_lint.model.record import ValueRecord
from fanout_lint.model.schema import DASHED, EVERY_KIND, Drawing, own_kind
from fanout_lint.model.values import candidates, is_false, single
from fanout_lint.results.records import Finding, LoadError, Severity
from fanout_lint.results.untrusted import clean

# Kinds of view nodes: each drawn kind of the schema says its own (``Drawing.view``: "topic",
# "rule", ...); these are the view's. A queue that is a dead-letter target is a "dlq";
# "missing" is a reference to a resource the model does not hold (a resource type no loader
# reads), drawn so no edge dangles.
DLQ, EXTERNAL, MISSING = "dlq", "external", "missing"
# Severity colours shared by the renderers: GitHub's Primer palette, readable in light
# and dark themes.
STROKE = {Severity.ERROR: "#cf222e", Severity.WARNING: "#9a6700", Severity.INFO: "#0969da"}
FILL = {Severity.ERROR: "#ffebe9", Severity.WARNING: "#fff8c5", Severity.INFO: "#ddf4ff"}

# Kinds that do not count as a hop for --focus: they sit between two resources.
CONNECTORS = frozenset(k.drawing.view for k in EVERY_KIND if k.drawing is not None and k.drawing.connector)


@dataclass(eq=False, repr=False)
class Mark(ValueRecord):
    """A finding as a diagram shows it."""

    rule: str
    name: str
    severity: Severity

    def as_dict(self) -> dict:
        return {"rule": self.rule, "name": self.name, "severity": self.severity.value}


@dataclass(eq=False, repr=False)
class Cluster(ValueRecord):
    """One unit of the drawing: a template file or a Terraform directory."""

    id: str
    path: str  # the template file or Terraform directory
    format: Format

    def __post_init__(self) -> None:
        self.path = clean(self.path)


@dataclass(eq=False, repr=False)
class ViewNode(ValueRecord):
    """One resource as drawn, with what its box shows."""

    id: str  # unique in the view, already safe as a Mermaid/DOT id: [A-Za-z0-9_]
    cluster: str
    key: str  # the graph node id inside its unit
    resource: str
    kind: str
    label: str
    shape: str = DASHED  # a shape of the schema (SHAPES), which each renderer draws its way
    details: tuple[str, ...] = ()
    type: str = ""
    file: str = ""
    line: int = 0
    marks: tuple[Mark, ...] = ()

    def __post_init__(self) -> None:
        self.key = clean(self.key)
        self.resource = clean(self.resource)
        self.label = clean(self.label)
        self.details = tuple(clean(d) for d in self.details)
        self.type = clean(self.type)
        self.file = clean(self.file)

    @property
    def external(self) -> bool:
        return self.kind in (EXTERNAL, MISSING)

    @property
    def severity(self) -> Severity | None:
        return worst(self.marks)


@dataclass(eq=False, repr=False)
class ViewEdge(ValueRecord):
    """One arrow of the drawing: how messages or invocations go from one resource to another."""

    source: str  # ViewNode ids
    target: str
    # subscribes, delivers, undeliverable, redrive, polls, invokes, dead-letter, targets,
    # notifies, on-success
    kind: str
    label: str = ""
    failure: bool = False  # the path failed messages take
    external: bool = False  # one end is outside the unit
    marks: tuple[Mark, ...] = ()
    between_units: bool = False  # its ends are in two units of one application

    def __post_init__(self) -> None:
        self.label = clean(self.label)  # may quote a template value

    @property
    def severity(self) -> Severity | None:
        return worst(self.marks)


@dataclass(eq=False, repr=False)
class UnitEdge(ValueRecord):
    """One unit of an application uses another: ``imports`` a name it exports, or
    ``nests`` it as a stack (``label``: the export name, the nested stack's logical ID)."""

    source: str  # Cluster ids
    target: str
    kind: str
    label: str

    def __post_init__(self) -> None:
        self.label = clean(self.label)

    @property
    def text(self) -> str:
        return f"nested stack {self.label}" if self.kind == NESTS else f"imports {self.label}"


@dataclass(eq=False, repr=False)
class Topology(ValueRecord):
    """What the ``graph`` command draws: units, resources, arrows and the findings on them."""

    clusters: tuple[Cluster, ...] = ()
    nodes: tuple[ViewNode, ...] = ()
    edges: tuple[ViewEdge, ...] = ()
    findings: tuple[Finding, ...] = ()
    errors: tuple[LoadError, ...] = ()
    placements: tuple[tuple[str, ...], ...] = ()  # per finding: the node ids showing it
    links: tuple[UnitEdge, ...] = ()  # between the clusters of one application

    def node(self, node_id: str) -> ViewNode | None:
        return self._by_id.get(node_id)

    @cached_property
    def _by_id(self) -> dict[str, ViewNode]:
        return {n.id: n for n in self.nodes}

    def nodes_by_cluster(self) -> dict[str, list[ViewNode]]:
        """Each cluster's nodes in view order, for renderers that draw cluster by cluster."""
        grouped: dict[str, list[ViewNode]] = {c.id: [] for c in self.clusters}
        for node in self.nodes:
            grouped.setdefault(node.cluster, []).append(node)
        return grouped


def worst(marks: tuple[Mark, ...]) -> Severity | None:
    return max((m.severity for m in marks), key=lambda s: s.rank, default=None)


def safe_ids(keys, prefix: str) -> dict[str, str]:
    """Ids made of [A-Za-z0-9_] for ``keys``, readable and distinct.

    Other characters become ``_``; when that makes two names equal (``a.b`` and ``a-b``)
    the later one gets a number. ``prefix`` keeps units apart and ids off Mermaid keywords.
    """
    ids: dict[str, str] = {}
    used: set[str] = set()
    last_number: dict[str, int] = {}  # per base, so many equal bases cost no rescans
    for key in keys:
        base = prefix + re.sub(r"[^A-Za-z0-9_]", "_", key)
        candidate, number = base, last_number.get(base, 1)
        while candidate in used:
            number += 1
            candidate = f"{base}_{number}"
        last_number[base] = number
        used.add(candidate)
        ids[key] = candidate
    return ids


# -- building ------------------------------------------------------------------


def build(graphs: list[Graph], findings: list[Finding], errors: list[LoadError] = ()) -> Topology:
    clusters, nodes, edges, links = [], [], [], []
    placed: dict[int, tuple[str, ...]] = {}
    by_unit: dict[str, list[tuple[int, Finding]]] = {}
    for i, f in enumerate(findings):
        by_unit.setdefault(f.unit, []).append((i, f))
    for graph in graphs:
        members: dict[str, Cluster] = {}
        for unit in graph.members:
            members[unit.path] = Cluster(id=f"u{len(clusters)}", path=_shown(unit.path), format=unit.format)
            clusters.append(members[unit.path])
        unit_findings = [entry for path in members for entry in by_unit.get(path, [])]
        unit_nodes, unit_edges, unit_placed = _unit_view(graph, members, [f for _, f in unit_findings])
        nodes.extend(unit_nodes)
        edges.extend(unit_edges)
        for (i, _), at in zip(unit_findings, unit_placed):
            placed[i] = at
        links += [UnitEdge(members[link.source].id, members[link.target].id, link.kind, link.label)
                  for link in graph.links if link.source in members and link.target in members]
    placements = tuple(placed.get(i, ()) for i in range(len(findings)))
    return Topology(tuple(clusters), tuple(nodes), tuple(edges), tuple(findings), tuple(errors), placements,
                    tuple(links))


def _unit_view(graph: Graph, members: dict[str, Cluster], findings: list[Finding]):
    """The graph's view nodes (each in the cluster of its unit), edges and placements."""
    raw_edges = _edges(graph)
    node_marks, edge_marks, shown_at = _place(graph, findings, raw_edges)
    home = members[graph.unit.path] if graph.unit.path in members else next(iter(members.values()))

    drawn: dict[str, None] = {}  # insertion-ordered set of graph node ids
    for node in graph.nodes():
        drawing = _drawing(node)
        if drawing is None and not isinstance(node, External):
            continue  # a kind the view does not draw: its findings are shown on what it governs
        # the rest (functions, buckets, streams) when an edge or a finding reaches them
        if (drawing is not None and drawing.always) or node.id in node_marks:
            drawn[node.id] = None
    for source, target, *_ in raw_edges:
        drawn.setdefault(source, None)
        drawn.setdefault(target, None)

    cluster_of: dict[str, Cluster] = {}
    grouped: dict[str, list[str]] = {}
    for key in drawn:
        node = graph.get(key)
        cluster = members.get(graph.unit_of(node), home) if node is not None else home
        cluster_of[key] = cluster
        grouped.setdefault(cluster.id, []).append(key)
    ids: dict[str, str] = {}
    for cluster_id, keys in grouped.items():  # ids are unique per cluster prefix
        ids.update(safe_ids(keys, f"n{cluster_id[1:]}_"))
    nodes = []
    for key in drawn:
        node = graph.get(key)
        cluster = cluster_of[key]
        marks = tuple(node_marks.get(key, ()))
        if node is None:
            nodes.append(ViewNode(
                id=ids[key], cluster=cluster.id, key=key, resource=key, kind=MISSING,
                label=key, shape=DASHED, details=("other resource",), file=cluster.path, marks=marks,
            ))
            continue
        kind, shape, details = _describe_node(graph, node)
        if node.written.transform:
            details += (f"from {node.written.construct}",)
        nodes.append(ViewNode(
            id=ids[key], cluster=cluster.id, key=key, resource=node.resource, kind=kind,
            label=_label(node), shape=shape, details=details, type=node.type,
            file=_shown(node.loc.file), line=node.loc.line, marks=marks,
        ))
    edges = [
        ViewEdge(
            source=ids[source], target=ids[target], kind=kind, label=label, failure=failure,
            external=graph.get(source) is None or graph.get(target) is None
            or graph.is_external(source) or graph.is_external(target),
            marks=tuple(edge_marks.get((source, target), ())),
            between_units=cluster_of[source] is not cluster_of[target],
        )
        for source, target, kind, label, failure in raw_edges
    ]
    placements = [tuple(ids[k] for k in keys if k in drawn) for keys in shown_at]
    return nodes, edges, placements


def _label(node: Node) -> str:
    if isinstance(node, External):
        return node.label or node.local_id
    return node.local_id  # its cluster says which unit of an application it is in


def _drawing(node: Node) -> Drawing | None:
    kind = own_kind(node)
    return kind.drawing if kind is not None else None


def _describe_node(graph: Graph, node: Node) -> tuple[str, str, tuple[str, ...]]:
    """The node's view kind, its shape, and the lines under its name: what its kind is
    called (``Drawing.title``), then what matters of its settings."""
    if isinstance(node, External):
        return EXTERNAL, DASHED, ("outside the unit",)
    drawing = _drawing(node)
    if drawing is None:
        return MISSING, DASHED, (node.type or "not in the model",)
    if isinstance(node, Queue) and graph.is_dead_letter_target(node.id):
        return DLQ, drawing.shape, ("SQS dead-letter queue", *_settings(node))
    title = "inline subscription" if isinstance(node, Subscription) and node.inline else drawing.title
    return drawing.view, drawing.shape, (title, *_settings(node))


def _settings(node: Node) -> tuple[str, ...]:
    """What a node's box shows of its settings, below its kind."""
    details: list[str] = []
    if isinstance(node, Topic):
        if _true(node.fifo):
            details.append("FIFO")
        if node.exported:
            details.append("exported")
    elif isinstance(node, Subscription):
        details.append(_subscription_summary(node))
    elif isinstance(node, Queue):
        if _true(node.fifo):
            details.append("FIFO")
    elif isinstance(node, EventSourceMapping):
        batch = [f"batch {_short(node.batch_size)}"]
        if _contains(node.response_types, "ReportBatchItemFailures"):
            batch.append("partial batch failures")
        if is_false(node.enabled):
            batch.append("disabled")
        details.append(" · ".join(batch))
    elif isinstance(node, Function):
        details.append(f"timeout {_short(node.timeout)} s")
        reserved = single(node.reserved_concurrency)
        if isinstance(reserved, int) and reserved >= 0:
            details.append(f"reserved concurrency {reserved}")
    elif isinstance(node, EventRule):
        if _disabled(node.state) or _switched_off(node.enabled):
            details.append("disabled")
    elif isinstance(node, EventTarget):
        details.append(_dlq_summary(node.dead_letter))
    elif isinstance(node, Pipe):
        if _stopped(node.desired_state):
            details.append("stopped")
    elif isinstance(node, RoleTarget):
        machine_type = single(node.machine_type)
        if node.service == "states" and isinstance(machine_type, str):
            details.append(machine_type.capitalize())
    return tuple(details)


def _stopped(state) -> bool:
    value = single(state)
    return isinstance(value, str) and value.upper() == "STOPPED"


def _shown(path: str) -> str:
    """A file as the other reports show it: without the leading ``./`` of a path given as
    ``./infra`` (cleaning stays with the renderers)."""
    while path.startswith("./") and len(path) > 2:
        path = path[2:].lstrip("/") or "."
    return path


def _dlq_summary(dead_letter) -> str:
    present = single(dead_letter)
    if isinstance(present, str):
        return "DLQ"
    return "no DLQ" if present is None and candidates(dead_letter) else "DLQ ?"


def _disabled(state) -> bool:
    """Only an explicit ``DISABLED``: an absent state is AWS's default, ``ENABLED``, and
    ``ENABLED_WITH_ALL_CLOUDTRAIL_MANAGEMENT_EVENTS`` is enabled too."""
    value = single(state)
    return isinstance(value, str) and value.upper() == "DISABLED"


def _switched_off(enabled) -> bool:
    """Terraform's older ``is_enabled = false``; absent (None) is not false, as the rules
    read it (``rules/common.py``, ``is_disabled``)."""
    return single(enabled) is False


def _subscription_summary(sub: Subscription) -> str:
    protocol = single(sub.protocol)
    parts = [str(protocol).lower() if isinstance(protocol, str) else "protocol ?"]
    if protocol in ("sqs", "http", "https", "firehose") or protocol is None:
        raw = single(sub.raw_message_delivery)
        parts.append("raw on" if raw is True else "raw off" if raw is False else "raw ?")
    parts.append("filter" if sub.filter_policy else "no filter")
    return " · ".join(parts)


def _edges(graph: Graph) -> list[tuple[str, str, str, str, bool]]:
    """(source, target, kind, label, failure) between graph node ids, in model order."""
    edges = []
    for node in graph.nodes():
        if isinstance(node, Subscription):
            if node.topic:
                edges.append((node.topic, node.id, "subscribes", "", False))
            if node.endpoint:
                edges.append((node.id, node.endpoint, "delivers", "", False))
            dlq = single(node.redrive_dlq)
            if isinstance(dlq, str) and dlq:
                edges.append((node.id, dlq, "undeliverable", "undeliverable", True))
        elif isinstance(node, Queue):
            redrive = graph.redrive_of(node)
            if redrive is not None:
                count = single(redrive.max_receive_count)
                label = f"after {count} receives" if count is not None else "redrive"
                edges.append((node.id, redrive.dlq, "redrive", label, True))
        elif isinstance(node, EventSourceMapping):
            if node.source:
                edges.append((node.source, node.id, "polls", "", False))
            if node.function:
                edges.append((node.id, node.function, "invokes", "", False))
        elif isinstance(node, EventTarget):
            if node.rule and not node.scheduler:
                edges.append((node.rule, node.id, "targets", "", False))
            if node.target:
                edges.append((node.id, node.target, "invokes" if node.scheduler else "delivers", "", False))
        elif isinstance(node, Notification):
            if node.bucket:
                edges.append((node.bucket, node.id, "notifies", "", False))
            if node.destination:
                edges.append((node.id, node.destination, "delivers", "", False))
        elif isinstance(node, Pipe):
            if node.source:
                edges.append((node.source, node.id, "polls", "", False))
            if node.target:
                edges.append((node.id, node.target, "invokes", "", False))
        elif isinstance(node, InvokeConfig) and node.function:
            success = single(node.on_success)
            if isinstance(success, str) and success:
                edges.append((node.function, success, "on-success", "on success", False))
        if isinstance(node, (Queue, Topic)):
            key = graph.key_of(node)  # a customer managed key of the unit
            if key is not None:
                edges.append((key.id, node.id, "encrypts", "encrypts", False))
    for node in graph.nodes():
        for use in graph.dead_letter_uses(node.id):
            user = graph.get(use.user)
            if isinstance(user, InvokeConfig):
                # an invoke configuration is drawn as what it configures: the function
                if user.function:
                    edges.append((user.function, use.target, "dead-letter", "on failure", True))
                continue
            edges.append((use.user, use.target, "dead-letter", use.via, True))
    return edges


def _place(graph: Graph, findings: list[Finding], edges):
    """Marks per graph node id and per (source, target) edge; where each finding is shown."""
    node_marks: dict[str, list[Mark]] = {}
    edge_marks: dict[tuple[str, str], list[Mark]] = {}
    shown: list[tuple[str, ...]] = []
    pairs = {(source, target) for source, target, *_ in edges}
    by_resource: dict[str, tuple[str, ...]] | None = None  # made on first use
    for finding in findings:
        mark = Mark(finding.rule, finding.name, finding.severity)
        ids = finding.node_ids
        if not ids:
            by_resource = _ids_by_resource(graph) if by_resource is None else by_resource
            ids = by_resource.get(finding.resource, ())
        at = _shown_at(graph, ids[0]) if ids else ()
        shown.append(at)
        for key in at:
            _add(node_marks, key, mark)
        if ids:
            # the edges between the primary resource and another one the finding involves
            primary = ids[0]
            for other in ids:
                if (primary, other) in pairs:
                    _add(edge_marks, (primary, other), mark)
                if other != primary and (other, primary) in pairs:
                    _add(edge_marks, (other, primary), mark)
    return node_marks, edge_marks, shown


def _shown_at(graph: Graph, key: str) -> tuple[str, ...]:
    node = graph.get(key)
    if isinstance(node, QueuePolicy):
        return node.queues
    if isinstance(node, (LambdaPermission, InvokeConfig)):
        return (node.function,) if node.function else ()
    return (key,)


def _ids_by_resource(graph: Graph) -> dict[str, tuple[str, ...]]:
    # For findings made outside the engine (no node ids): the first node with each name,
    # by the cleaned name a finding holds.
    found: dict[str, tuple[str, ...]] = {}
    for n in graph.nodes():
        found.setdefault(clean(n.resource), (n.id,))
    return found


def _add(table: dict, key, mark: Mark) -> None:
    marks = table.setdefault(key, [])
    if mark not in marks:
        marks.append(mark)


def _true(value) -> bool:
    return single(value) is True


def _short(value) -> str:
    options = candidates(value)
    if options is None:
        return "?"
    return " or ".join(str(o.value) for o in options)


def _contains(value, item: str) -> bool:
    options = candidates(value)
    return bool(options) and all(isinstance(o.value, (list, tuple)) and item in o.value for o in options)


# -- focus ---------------------------------------------------------------------


def matching(topology: Topology, resource: str) -> list[ViewNode]:
    """Nodes named ``resource`` (by resource name, graph id, or view id).

    The view holds cleaned names, so ``resource`` is compared cleaned: the raw name and the
    shown one both find a node.
    """
    resource = clean(resource)
    return [n for n in topology.nodes if resource in (n.resource, n.key, n.id)]


def focus(topology: Topology, resource: str, hops: int = 2) -> Topology:
    """The neighbourhood of ``resource``: every node within ``hops`` resources of it.

    Subscriptions and mappings are the links between resources, so passing through one
    is half a hop: a topic's queues are one hop away, their DLQs two.
    """
    starts = matching(topology, resource)
    neighbours: dict[str, list[tuple[str, int]]] = {n.id: [] for n in topology.nodes}
    kinds = {n.id: n.kind for n in topology.nodes}
    for edge in topology.edges:
        # Costs in half hops: an edge touching a connector is one half.
        cost = 1 if kinds[edge.source] in CONNECTORS or kinds[edge.target] in CONNECTORS else 2
        neighbours[edge.source].append((edge.target, cost))
        neighbours[edge.target].append((edge.source, cost))
    limit = 2 * hops
    distance = {n.id: 0 for n in starts}
    queue = [(0, n.id) for n in starts]
    while queue:
        dist, current = heapq.heappop(queue)
        if dist > distance.get(current, limit + 1):
            continue
        for other, cost in neighbours[current]:
            total = dist + cost
            if total <= limit and total < distance.get(other, limit + 1):
                distance[other] = total
                heapq.heappush(queue, (total, other))
    keep = set(distance)
    nodes = tuple(n for n in topology.nodes if n.id in keep)
    edges = tuple(e for e in topology.edges if e.source in keep and e.target in keep)
    drawn_clusters = {n.cluster for n in nodes}
    clusters = tuple(c for c in topology.clusters if c.id in drawn_clusters)
    kept = [(f, at) for f, at in zip(topology.findings, topology.placements) if keep.intersection(at)]
    links = tuple(link for link in topology.links if link.source in drawn_clusters and link.target in drawn_clusters)
    return replace(
        topology, clusters=clusters, nodes=nodes, edges=edges,
        findings=tuple(f for f, _ in kept), placements=tuple(at for _, at in kept), links=links,
    )


# -- JSON ----------------------------------------------------------------------

SCHEMA_VERSION = 1


def as_dict(topology: Topology) -> dict:
    return {
        "version": SCHEMA_VERSION,
        "units": [{"id": c.id, "path": c.path, "format": c.format} for c in topology.clusters],
        "nodes": [
            {
                "id": n.id,
                "unit": n.cluster,
                "key": n.key,
                "resource": n.resource,
                "kind": n.kind,
                "type": n.type,
                "label": n.label,
                "details": list(n.details),
                "external": n.external,
                "file": n.file,
                "line": n.line,
                "severity": n.severity.value if n.severity else None,
                "findings": [m.as_dict() for m in n.marks],
            }
            for n in topology.nodes
        ],
        "edges": [
            {
                "source": e.source,
                "target": e.target,
                "kind": e.kind,
                "label": e.label,
                "failure": e.failure,
                "external": e.external,
                "between_units": e.between_units,
                "severity": e.severity.value if e.severity else None,
                "findings": [m.as_dict() for m in e.marks],
            }
            for e in topology.edges
        ],
        "links": [{"source": link.source, "target": link.target, "kind": link.kind, "label": link.label}
                  for link in topology.links],
        "findings": [f.as_dict() for f in topology.findings],
        "errors": [e.as_dict() for e in topology.errors],
    }
