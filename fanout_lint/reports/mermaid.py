"""``graph --format mermaid``: a Mermaid flowchart of the topology view.

GitHub renders Mermaid in markdown, so this is also the diagram of the markdown summary.
Ids come from the view already restricted to [A-Za-z0-9_]; every label is quoted and
escaped with Mermaid's entity codes, so no resource name can break the syntax: the view's
text is one line already, and a quote cannot end the label to start a ``click`` or any
other statement. ``%`` is an entity too, because Mermaid reads a ``%%{init: ...}%%``
directive anywhere in the text, and one in a label could restyle the diagram (and make
the error colours vanish).
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
from fanout_lint.reports.topology import FILL, STROKE, Topology, ViewEdge, ViewNode
from fanout_lint.results.records import Severity

# (open, close) around the quoted label, per shape of the schema.
_SHAPES = {
    HEXAGON: ("{{", "}}"),
    STADIUM: ("([", "])"),
    CYLINDER: ("[(", ")]"),
    PARALLELOGRAM: ("[/", "/]"),
    SUBROUTINE: ("[[", "]]"),
    DASHED: ("[", "]"),
    FLAG: (">", "]"),
    HOUSE: ("((", "))"),
    FOLDER: ("[/", "\\]"),
    BOX3D: ("[\\", "\\]"),
    BOLD_STADIUM: ("[\\", "/]"),
    BOX: ("[", "]"),
    OCTAGON: ("[\\", "/]"),
    TAB: ("(", ")"),
}
_ORDER = (Severity.ERROR, Severity.WARNING, Severity.INFO)


def escape(text: str) -> str:
    """Text safe inside a quoted Mermaid label."""
    text = text.replace("#", "#35;")  # first: the entity codes below start with '#'
    for char, code in (('"', "#quot;"), ("<", "#lt;"), (">", "#gt;"), ("&", "#amp;"), ("`", "#96;"),
                       ("%", "#37;")):
        text = text.replace(char, code)
    return " ".join(text.split())  # no newlines: a label is one statement


def node_text(node: ViewNode) -> str:
    lines = [node.label, *node.details]
    lines += [f"{m.severity.value}: {m.name}" for m in node.marks]
    return "<br/>".join(escape(line) for line in lines)


def edge_text(edge: ViewEdge) -> str:
    lines = [edge.label] if edge.label else []
    lines += [m.name for m in edge.marks]
    return "<br/>".join(escape(line) for line in lines)


def render(topology: Topology) -> str:
    lines = ["flowchart LR"]
    members = topology.nodes_by_cluster()
    for cluster in topology.clusters:
        lines.append(f'  subgraph {cluster.id}["{escape(cluster.path)}"]')
        for node in members[cluster.id]:
            opening, closing = _SHAPES[node.shape]
            lines.append(f'    {node.id}{opening}"{node_text(node)}"{closing}')
        lines.append("  end")
    for edge in topology.edges:
        arrow = "-.->" if edge.failure or edge.external else "-->"
        text = edge_text(edge)
        label = f'|"{text}"|' if text else ""
        lines.append(f"  {edge.source} {arrow}{label} {edge.target}")
    # after the resources' edges, so that their linkStyle indexes do not move
    for link in topology.links:
        lines.append(f'  {link.source} -.->|"{escape(link.text)}"| {link.target}')
    lines.extend(_styles(topology))
    return "\n".join(lines) + "\n"


def _styles(topology: Topology) -> list[str]:
    lines = []
    for severity in _ORDER:
        ids = [n.id for n in topology.nodes if n.severity == severity]
        if ids:
            lines.append(
                f"  classDef {severity.value} fill:{FILL[severity]},stroke:{STROKE[severity]},"
                "stroke-width:2px,color:#1f2328"
            )
            lines.append(f"  class {','.join(ids)} {severity.value}")
    outside = [n.id for n in topology.nodes if n.external]
    if outside:
        lines.append("  classDef outside stroke-dasharray:5 5")
        lines.append(f"  class {','.join(outside)} outside")
    for severity in _ORDER:
        indexes = [str(i) for i, e in enumerate(topology.edges) if e.severity == severity]
        if indexes:
            lines.append(f"  linkStyle {','.join(indexes)} stroke:{STROKE[severity]},stroke-width:2px")
    return lines
