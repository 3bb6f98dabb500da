"""Fixes: a rule's ``Fix`` (set a setting to a value) as text edits in the source."""

from __future__ import annotations

from fanout_lint.findings import FindingFix
from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import Node
from fanout_lint.rule import Fix


def plan_fix(graph: Graph, node: Node, fix: Fix) -> FindingFix | None:
    """The edits that make ``fix`` in the node's source, or None where it cannot be made."""
    return None
