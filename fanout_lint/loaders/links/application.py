"""An application: CloudFormation templates linked into one graph.

Which templates form one is decided before loading (``fanout_lint/run/link_plan.py``);
here they are read and linked, in three steps:

1. **load**: each template of the application is opened (``cloudformation.open_stack``)
   behind a namespace of its own (``orders/``), and each nested stack whose template is
   local is opened as a child (``orders/Workers/``), its parameters bound to what the
   parent passes, evaluated in the parent (``Intrinsics.bound``), and its outputs made
   visible to the parent's ``!GetAtt Workers.Outputs.X`` (``Intrinsics.nested``);
2. **link**: every stack's exports whose names the templates prove go into one table,
   and every evaluator resolves ``Fn::ImportValue`` through it. A name two stacks export
   is ambiguous, and an import of it stays unknown, as does an import of a name no stack
   of the application exports;
3. **build**: every stack's resources are indexed (names, aliases) before any is built,
   since a reference may now cross into another stack, then built into one graph whose
   nodes each keep the file they are written in (``Graph.unit_of``).

Rules then see one graph: a queue exported by one stack and read by mappings in two
others has two consumers. Nothing else changes for them.

One budget covers the application (``budget.py``), nested stack instances included; a
nested template that includes itself, directly or not, is not followed again.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from fanout_lint.loaders import Parsed, read_template
from fanout_lint.loaders.build import build_indexed, index
from fanout_lint.loaders.cloudformation.intrinsics import Bound, ChildStack, Intrinsics
from fanout_lint.loaders.cloudformation.loader import Stack, open_stack
from fanout_lint.loaders.links.stack_links import Nested, exports, nested_stacks, stack_pseudo
from fanout_lint.loaders.parsing.budget import Budget
from fanout_lint.model.format import Format
from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import IMPORTS, NESTS, Loc, Unit, UnitLink
from fanout_lint.results.records import LoadError, Notice

if TYPE_CHECKING:
    from typing import Any


class Exports:
    """The names the application's stacks export, and what each names."""

    def __init__(self, ambiguous: frozenset[str] = frozenset()):
        self._by_name: dict[str, tuple[Stack, Any]] = {}
        self._ambiguous = set(ambiguous)  # also exported by a template outside the application
        self.used: dict[tuple[str, str, str], None] = {}  # (importer, exporter, name), in order

    def add(self, name: str, stack: Stack, value: Any) -> None:
        if name in self._by_name:
            self._ambiguous.add(name)
        else:
            self._by_name[name] = (stack, value)

    def target(self, importer: Intrinsics, name: str | None, kind: str, depth: int) -> str | None:
        """The node an import of ``name`` names, or None (then it stays unknown)."""
        if name is None or name in self._ambiguous or name not in self._by_name:
            return None
        stack, value = self._by_name[name]
        found = stack.intrinsics.resolve_node(value, kind, depth)
        if found is not None:
            self.used.setdefault((importer.file, stack.file, name), None)
        return found


def load_application(paths: tuple[str, ...], root: str, stack_names: dict[str, str] | None = None,
                     ambiguous: frozenset[str] = frozenset(),
                     given: dict[str, Parsed] | None = None) -> tuple[Graph | None, list[LoadError], list[Notice]]:
    """The application's graph (None when none of its templates could be read), its load
    errors, and notices about nested stacks not followed.

    ``root``: nested templates are read only inside it. ``stack_names``: template -> stack
    name, from a CDK cloud assembly. ``ambiguous``: export names also defined outside
    the application. ``given``: templates already parsed (the cfn-lint plugin's).
    """
    linking = _Linking(root, Budget(file=paths[0]), given or {})
    for path in paths:  # 1. load
        linking.open(path, (stack_names or {}).get(path))
    if not linking.stacks:
        return None, linking.errors, linking.notices
    table = Exports(ambiguous)  # 2. link
    for stack in linking.stacks:
        for name, _, value in exports(stack.data, stack.intrinsics):
            table.add(name, stack, value)
    for stack in linking.stacks:
        stack.intrinsics.exports = table
    graph = linking.graph(paths[0], table)  # 3. build
    linking.release()
    return graph, linking.errors, linking.notices


class _Linking:
    def __init__(self, root: str, budget: Budget, given: dict[str, Parsed]):
        self.root = root
        self.budget = budget
        self.given = given
        self.stacks: list[Stack] = []
        self.errors: list[LoadError] = []
        self.notices: list[Notice] = []
        self.links: list[UnitLink] = []
        self._labels: set[str] = set()
        # Each template read once, however many stacks nest it (an instance is evaluated
        # with its own parameters, but its parsed data is shared): real path -> parsed
        self._read_once: dict[str, Parsed | None] = {}

    def open(self, path: str, stack_name: str | None) -> None:
        parsed = self._read(path)
        if parsed is None:
            return
        namespace = self._label(path, stack_name) + "/"
        stack = open_stack(parsed.data, path, parsed.syntax, parsed.text, self.budget, namespace,
                           pseudo=stack_pseudo(stack_name))
        pending = [(stack, (_key(path),))]
        while pending:  # depth first, in template order, without recursion
            parent, chain = pending.pop()
            self.stacks.append(parent)
            found = nested_stacks(parent.data, parent.file, self.root)
            for nested in found:
                if nested.refused is not None:
                    error = LoadError(parent.file, nested.line, f"nested stack {nested.id}: {nested.refused}")
                    if error not in self.errors:
                        self.errors.append(error)
            children = [self._child(parent, nested, chain) for nested in found if nested.template is not None]
            pending.extend(reversed([c for c in children if c is not None]))

    def _child(self, parent: Stack, nested: Nested, chain: tuple[str, ...]):
        key = _key(nested.template)
        if key in chain:
            self.notices.append(Notice(
                Loc(parent.file, nested.line or 1),
                f"nested stack {nested.id} names a template that includes it ({nested.template}): not followed"))
            return None
        self.budget.nested_stack(parent.file, nested.line)
        parsed = self._read(nested.template)
        if parsed is None:
            return None
        x = parent.intrinsics
        child = open_stack(
            parsed.data, nested.template, parsed.syntax, parsed.text, self.budget,
            f"{x.namespace}{nested.id}/",
            bound=_bound(nested, parsed.data, x),
            stack_condition=x.condition_of(nested.condition),
        )
        outputs = parsed.data.get("Outputs") if isinstance(parsed.data.get("Outputs"), dict) else {}
        x.nested[nested.id] = ChildStack(child.intrinsics, outputs)
        self.links.append(UnitLink(parent.file, child.file, NESTS, nested.id))
        return child, chain + (key,)

    def release(self) -> None:
        """Drop the edges between the stacks' evaluators (the export table, nested stacks
        and their parameters), which form reference cycles: without them the parsed
        templates are freed as soon as the graph is built, not by the next full collection,
        which would also walk every finding kept so far."""
        for stack in self.stacks:
            stack.intrinsics.exports = None
            stack.intrinsics.nested = {}
            stack.intrinsics.bound = {}

    def _read(self, path: str) -> Parsed | None:
        parsed = self.given.get(path)
        if parsed is not None:
            return self._kept(parsed)
        key = _real_key(path)
        if key not in self._read_once:
            self._read_once[key] = self._kept(read_template(path))
        return self._read_once[key]

    def _kept(self, parsed: Parsed | LoadError | None) -> Parsed | None:
        if isinstance(parsed, LoadError):
            if parsed not in self.errors:  # a template nested twice fails once
                self.errors.append(parsed)
            return None
        return parsed

    def _label(self, path: str, stack_name: str | None) -> str:
        base = stack_name or os.path.basename(path).split(".", 1)[0] or "stack"
        label, number = base, 1
        while label in self._labels:
            number += 1
            label = f"{base}~{number}"
        self._labels.add(label)
        return label

    def graph(self, path: str, table: Exports) -> Graph:
        views = [stack.views() for stack in self.stacks]
        for stack, stack_views in zip(self.stacks, views):
            index(stack_views, stack.linker)
        nodes, uses, mentions = [], [], []
        node_units: dict[str, str] = {}
        for stack, stack_views in zip(self.stacks, views):
            built, stack_uses, stack_mentions = build_indexed(stack_views, stack.linker)
            nodes += built
            uses += stack_uses
            mentions += stack_mentions
            for node in built:
                node_units[node.id] = stack.file
        files = tuple(dict.fromkeys(stack.file for stack in self.stacks))
        sources = {stack.file: stack.text for stack in self.stacks if stack.text}
        links = tuple(self.links) + tuple(UnitLink(importer, exporter, IMPORTS, name)
                                          for importer, exporter, name in table.used)
        graph = Graph(Unit(path, Format.CLOUDFORMATION, files), nodes, uses, sources=sources, mentions=mentions,
                      members=tuple(Unit(f, Format.CLOUDFORMATION, (f,)) for f in files), node_units=node_units,
                      links=tuple(dict.fromkeys(links)))
        for stack in self.stacks:
            graph.not_modelled.extend(stack.not_modelled)
        return graph


def _bound(nested: Nested, child: Any, parent: Intrinsics) -> dict[str, Bound]:
    """The child's parameters as the parent passes them; those not passed keep their
    defaults, as CloudFormation leaves them. A parent that hides what it passes (an
    intrinsic in place of the properties or the parameters) proves none."""
    declared = child.get("Parameters") if isinstance(child.get("Parameters"), dict) else {}
    passed = nested.parameters
    if not nested.props_known or (passed is not None and (not isinstance(passed, dict) or _intrinsic(passed))):
        return {name: Bound(str(name), None, parent, known=False) for name in declared}
    return {name: Bound(name, raw, parent) for name, raw in (passed or {}).items() if name in declared}


def _intrinsic(value: dict) -> bool:
    return len(value) == 1 and str(next(iter(value))).startswith(("Fn::", "Ref"))


def _key(path: str) -> str:
    return os.path.normcase(os.path.abspath(path))


def _real_key(path: str) -> str:
    """One key for every spelling of a file (``./a.yaml``, ``sub/../a.yaml``, a link to it)."""
    return os.path.normcase(os.path.realpath(path))
