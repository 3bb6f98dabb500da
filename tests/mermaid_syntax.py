"""A strict checker for the subset of Mermaid flowchart syntax that fanout-lint writes.

It is deliberately narrower than Mermaid: every line must be one of the statement forms
below, ids are [A-Za-z0-9_] only, labels are quoted and contain no quote, newline or
raw HTML other than ``<br/>``, and every edge endpoint and styled node is declared.
"""

from __future__ import annotations

import re

ID = r"[A-Za-z0-9_]+"
LABEL = r'"([^"\n]*)"'
SHAPES = [("{{", "}}"), ("([", "])"), ("[(", ")]"), ("[/", "/]"), ("[/", "\\]"), ("[\\", "\\]"), ("[\\", "/]"),
          ("[[", "]]"),
          (">", "]"), ("((", "))"), ("[", "]"), ("(", ")")]
_NODE = re.compile(rf"^    ({ID})(\S.*)$")
_SUBGRAPH = re.compile(rf"^  subgraph ({ID})\[{LABEL}\]$")
_EDGE = re.compile(rf"^  ({ID}) (-->|-\.->)(?:\|{LABEL}\|)? ({ID})$")
_STYLE = r"[a-z-]+:[#A-Za-z0-9. ]+(?:,[a-z-]+:[#A-Za-z0-9. ]+)*"
_CLASSDEF = re.compile(rf"^  classDef ({ID}) {_STYLE}$")
_CLASS = re.compile(rf"^  class ({ID}(?:,{ID})*) ({ID})$")
_LINKSTYLE = re.compile(rf"^  linkStyle (\d+(?:,\d+)*) {_STYLE}$")


def _shape_label(rest: str) -> str:
    for opening, closing in SHAPES:
        start, end = opening + '"', '"' + closing
        if rest.startswith(start) and rest.endswith(end) and len(rest) >= len(start) + len(end):
            label = rest[len(start):-len(end)]
            assert '"' not in label and "\n" not in label, f"unescaped label {rest!r}"
            return label
    raise AssertionError(f"not a quoted node shape: {rest!r}")


def check_label(text: str) -> None:
    without_breaks = text.replace("<br/>", "")
    assert "<" not in without_breaks and ">" not in without_breaks, f"raw HTML in label {text!r}"
    # '#' only as the start of an entity code
    assert re.fullmatch(r"(?:[^#]|#(?:\d+|quot|lt|gt|amp);)*", without_breaks), f"stray '#' in {text!r}"


def check(text: str) -> None:
    """Raise AssertionError when ``text`` is not well-formed."""
    lines = text.rstrip("\n").split("\n")
    assert lines[0] == "flowchart LR", lines[0]
    declared: set[str] = set()
    subgraphs: set[str] = set()
    classes: set[str] = set()
    edges = 0
    in_subgraph = False
    for line in lines[1:]:
        if match := _SUBGRAPH.match(line):
            assert not in_subgraph, "nested subgraph"
            in_subgraph = True
            assert match.group(1) not in subgraphs, f"duplicate subgraph {match.group(1)}"
            subgraphs.add(match.group(1))
            check_label(match.group(2))
        elif line == "  end":
            assert in_subgraph, "end without subgraph"
            in_subgraph = False
        elif match := _NODE.match(line):
            assert in_subgraph, f"node outside a subgraph: {line}"
            node_id = match.group(1)
            assert node_id not in declared, f"duplicate node {node_id}"
            assert node_id not in subgraphs, f"node id {node_id} reuses a subgraph id"
            declared.add(node_id)
            check_label(_shape_label(match.group(2)))
        elif match := _EDGE.match(line):
            assert not in_subgraph, f"edge inside a subgraph: {line}"
            source, _, label, target = match.groups()
            # a link between two units of an application joins their subgraphs
            assert source in declared or source in subgraphs, f"undeclared edge source {source}"
            assert target in declared or target in subgraphs, f"undeclared edge target {target}"
            if label is not None:
                assert label, "empty edge label"
                check_label(label)
            edges += 1
        elif match := _CLASSDEF.match(line):
            classes.add(match.group(1))
        elif match := _CLASS.match(line):
            assert match.group(2) in classes, f"class {match.group(2)} used before classDef"
            for node_id in match.group(1).split(","):
                assert node_id in declared, f"styled node {node_id} not declared"
        elif match := _LINKSTYLE.match(line):
            for index in match.group(1).split(","):
                assert int(index) < edges, f"linkStyle {index} but only {edges} edges"
        else:
            raise AssertionError(f"not a recognised statement: {line!r}")
    assert not in_subgraph, "subgraph not closed"
