"""``graph --format dot``: the topology view as Graphviz DOT (``dot -Tsvg`` draws it).

Every label is a double-quoted DOT string with ``\\`` and ``"`` escaped, so a name can
neither end it nor use a DOT escape (``\\N``, ``\\l``); the only line breaks are the
view's own, between the lines of a label.
"""

from __future__ import annotations

from fanout_lint.model.schema import (
    BOLD_STADIUM,
    BOX,
    BOX3D,
    CYLINDER,
    DASHED,
    FLAG,
    FOLDER,
    HEXAGON,
    HOUSE,
    OCTAGON,
    PARALLELOGRAM,
    STADIUM,
    SUBROUTINE,
    TAB,
)
from fanout_lint.reports.topology import DLQ, FILL, STROKE, Topology, ViewEdge, ViewNode

# (shape, style) per shape of the schema
_SHAPES = {
    HEXAGON: ("hexagon", ""),
    STADIUM: ("box", "rounded"),
    CYLINDER: ("cylinder", ""),
    PARALLELOGRAM: ("box", "rounded,diagonals"),
    SUBROUTINE: ("component", ""),
    DASHED: ("box", "dashed"),
    FLAG: ("cds", ""),
    HOUSE: ("house", ""),
    FOLDER: ("folder", ""),
    BOX3D: ("box3d", ""),
    BOLD_STADIUM: ("box", "rounded,bold"),
    BOX: ("box", ""),
    OCTAGON: ("octagon", ""),
    TAB: ("tab", ""),
}


def quote(text: str) -> str:
    """A DOT double-quoted string; lines are joined with DOT's centred line break."""
    lines = (line.replace("\\", "\\\\").replace('"', '\\"') for line in text.split("\n"))
    return '"' + "\\n".join(lines) + '"'


def render(topology: Topology) -> str:
    lines = [
        "digraph fanout {",
        "  rankdir=LR;",
        '  node [fontname="Helvetica", fontsize=11];',
        '  edge [fontname="Helvetica", fontsize=10];',
    ]
    if topology.links:
        lines.append("  compound=true;")  # edges between clusters (units of an application)
    linked = {c for link in topology.links for c in (link.source, link.target)}
    members = topology.nodes_by_cluster()
    for cluster in topology.clusters:
        lines.append(f"  subgraph cluster_{cluster.id} {{")
        lines.append(f'    label={quote(cluster.path)}; style="rounded"; color="#8c959f";')
        for node in members[cluster.id]:
            lines.append(f"    {node.id} [{_node_attributes(node)}];")
        if cluster.id in linked:  # a cluster edge needs a node inside; an empty cluster has none
            lines.append(f"    {cluster.id}_unit [shape=point, style=invis];")
        lines.append("  }")
    for edge in topology.edges:
        lines.append(f"  {edge.source} -> {edge.target} [{_edge_attributes(edge)}];")
    for link in topology.links:
        lines.append(f"  {link.source}_unit -> {link.target}_unit [ltail=cluster_{link.source}, "
                     f"lhead=cluster_{link.target}, label={quote(link.text)}, style=dashed];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _node_attributes(node: ViewNode) -> str:
    shape, style = _SHAPES[node.shape]
    styles = [s for s in (style,) if s]
    text = [node.label, *node.details, *(f"{m.severity.value}: {m.name}" for m in node.marks)]
    attributes = [f"label={quote(chr(10).join(text))}", f"shape={shape}"]
    severity = node.severity
    if severity is not None:
        styles.append("filled")
        attributes += [f'fillcolor="{FILL[severity]}"', f'color="{STROKE[severity]}"', "penwidth=2"]
    elif node.kind == DLQ:
        styles.append("filled")
        attributes.append('fillcolor="#f6f8fa"')
    if styles:
        attributes.append(f'style="{",".join(styles)}"')
    return ", ".join(attributes)


def _edge_attributes(edge: ViewEdge) -> str:
    text = ([edge.label] if edge.label else []) + [m.name for m in edge.marks]
    attributes = [f"label={quote(chr(10).join(text))}"] if text else []
    if edge.external:
        attributes.append("style=dashed")
    elif edge.failure:
        attributes.append("style=dotted")
    severity = edge.severity
    if severity is not None:
        attributes += [f'color="{STROKE[severity]}"', f'fontcolor="{STROKE[severity]}"', "penwidth=2"]
    return ", ".join(attributes)
