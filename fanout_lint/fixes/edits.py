"""A rule's ``Fix`` (set one setting of a node to a value) planned as a text edit.

A fix is planned only where making it changes that setting and nothing else:

- the node is written by hand (not CDK output or a plan, which their tools regenerate)
  and its source can express the setting (``Written.why_fixed``: a queue SAM's
  ``SqsSubscription`` creates cannot);
- the current value is one known value (no condition chooses it) that is written as a
  literal, or is the AWS default of an absent setting. A parameter or variable default
  is shared: editing it would change every resource that reads it;
- the literal's span is known (it is replaced) or the body holding the settings is
  (the setting is inserted there), and it is local: written for this setting alone, not
  through a YAML anchor, alias or merge key, nor a Serverless variable or what one reads
  (the site then has no value span, ``located.MapSite.value``), nor a parameter or a
  Terraform variable or local (their origin, or their text, is no literal);
- the new value lies in the range AWS accepts for the setting (``defaults.BOUNDS``): a
  value read past it is unknown already, so no rule proposes one from it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fanout_lint.fixes.insert import Change, Setting, insertion
from fanout_lint.fixes.positions import Lines, is_hcl
from fanout_lint.fixes.render import HCL, JSON, YAML, is_literal, replacement
from fanout_lint.fixes.render import value as written_value
from fanout_lint.model.defaults import bound_of
from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import Body, Node
from fanout_lint.model.schema import field_of, kind_of
from fanout_lint.model.values import DEFAULT, LITERAL, Known, Value
from fanout_lint.model.vocabulary import _path, literal, setting
from fanout_lint.results.records import Edit, FindingFix
from fanout_lint.rule import Fix

if TYPE_CHECKING:
    from typing import Any


class Planner:
    """Plans the fixes of one graph; each source's line table is built once."""

    def __init__(self, graph: Graph):
        self.sources = graph.sources
        self._lines: dict[str, Lines] = {}

    def plan(self, node: Node, fix: Fix) -> FindingFix | None:
        written = node.written
        if written.generated or written.why_fixed(fix.field) is not None:
            return None
        try:
            path = _path(node, fix.field)
        except KeyError:
            return None
        found = _setting(node, fix.field)
        if found is None:
            return None
        current, body = found
        if type(current) is not Known or current.origin not in (LITERAL, DEFAULT) or current.value == fix.value:
            return None
        if not _in_range(node, fix):
            return None
        try:
            if current.site is not None:
                planned = self._replace(node, current.site, fix.value)
            elif current.origin == DEFAULT and body is not None:
                planned = self._insert(node, body, path.rsplit("/", 1)[-1], fix.value)
            else:
                planned = None
        except (IndexError, ValueError):
            # text this module did not expect: the finding is still reported, without a fix
            planned = None
        if planned is None:
            return None
        file, lines, change = planned
        edit = Edit(file, *lines.position(change.start), *lines.position(change.end), change.new)
        described = setting(node, fix.field, fix.value)
        return FindingFix(described, fix.title or title(node, fix), fix.applicability, (edit,))

    def _lines_of(self, file: str) -> Lines | None:
        lines = self._lines.get(file)
        if lines is None:
            text = self.sources.get(file)
            if text is None:
                return None
            lines = self._lines[file] = Lines.of(text, file)
        return lines

    def _replace(self, node: Node, site: Any, raw: Any) -> tuple[str, Lines, Change] | None:
        loc = site.value()
        lines = self._lines_of(loc.file) if loc is not None and loc.has_end else None
        if lines is None:
            return None
        start, end = lines.offset(loc.line, loc.column), lines.offset(loc.end_line, loc.end_column)
        if start is None or end is None or end <= start:
            return None
        old = lines.text[start:end]
        syntax = _syntax(node.body, loc.file, lines.text)
        if not is_literal(syntax, old, loc.column):
            return None
        return loc.file, lines, Change(start, end, replacement(syntax, raw, old))

    def _insert(self, node: Node, body: Body, name: str, raw: Any) -> tuple[str, Lines, Change] | None:
        if "." in name:  # a nested property: its parents may exist, and are not located
            return None
        where = body.loc  # made from the parsed container now; None when it was not located
        if where is None:
            return None
        lines = self._lines_of(where.file)
        if lines is None:
            return None
        new = Setting(name, written_value(body.syntax, raw), body.path)
        owner = node.loc.line if node.loc.file == where.file and node.loc.line <= lines.count else where.line
        change = insertion(lines, where, body.syntax, new, owner)
        return (where.file, lines, change) if change is not None else None


def title(node: Node, fix: Fix) -> str:
    """The fix as an imperative in the unit's vocabulary: ``Set VisibilityTimeout to 360``,
    ``Set maxReceiveCount to 5 in RedrivePolicy``."""
    document, _, key = _path(node, fix.field).rpartition("/")
    written = f"Set {key} to {literal(node.written.format, fix.value)}"
    return f"{written} in {document}" if document else written


def _setting(node: Node, name: str) -> tuple[Value, Body | None] | None:
    """The setting's value and the body a new one goes into: the node's own, or, for a key
    of a document (``maxReceiveCount`` of the redrive policy), the document's."""
    if name in getattr(node, "__dataclass_fields__", {}):
        return getattr(node, name), node.body
    document = _document_field(node, name)
    holder = getattr(node, document, None) if document else None
    if isinstance(holder, Known) and holder.value is not None and hasattr(holder.value, name):
        return getattr(holder.value, name), getattr(holder.value, "body", None)
    return None


def _in_range(node: Node, fix: Fix) -> bool:
    """Whether a whole-number fix writes a value AWS accepts for its setting."""
    if type(fix.value) is not int:
        return True
    field = field_of(node, fix.field)
    bound = bound_of(field.default if field is not None else None)
    return bound.low <= fix.value <= bound.high


def _document_field(node: Node, name: str) -> str | None:
    """The field whose document holds ``name``: ``redrive`` for ``max_receive_count``."""
    field = field_of(node, name)
    kind = kind_of(node)
    if field is None or kind is None:
        return None
    path = field.path(node.written.format)
    if "/" not in path:
        return None
    document = path.rsplit("/", 1)[0]
    return next((f.name for f in kind.fields if f.path(node.written.format) == document), None)


def _syntax(body: Body | None, file: str, text: str) -> str:
    if body is not None:
        return body.syntax
    if is_hcl(file):
        return HCL
    return JSON if file.lower().endswith(".json") or text.lstrip().startswith("{") else YAML
