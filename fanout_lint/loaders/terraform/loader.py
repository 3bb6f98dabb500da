"""Terraform directories (and their local modules) into the resource graph.

A node's id is the Terraform address (``aws_sqs_queue.orders``,
``module.billing.aws_sqs_queue.this``) and its location the block in its file. What each
resource type means is the schema (``model/schema.py``), read by the one builder
(``build.py``) through an ``HclView``: arguments evaluated in the resource's scope (an
argument set to ``null`` is absent, so the provider default applies), references
followed to the resources of the unit through the ``Linker``, comments read as
suppressions. Every written argument keeps its span, so findings point at it.
"""

from __future__ import annotations

import bisect
from typing import TYPE_CHECKING

from fanout_lint.files.confine import Roots
from fanout_lint.loaders.build import build
from fanout_lint.loaders.links.linker import Linker
from fanout_lint.loaders.parsing.budget import TooLarge
from fanout_lint.loaders.parsing.parse_cache import ParseCache
from fanout_lint.loaders.parsing.suppression_comments import parse_suppression
from fanout_lint.loaders.terraform.argument_blocks import nested_blocks, written_otherwise
from fanout_lint.loaders.terraform.files import is_json
from fanout_lint.loaders.terraform.hcl.expressions import (
    ATOMS,
    EvalError,
    Hole,
    Interpolated,
    Ref,
    decode_json,
    refs_in,
    render,
)
from fanout_lint.loaders.terraform.hcl.tree import Attribute, Block, Call, Literal, ObjectExpr
from fanout_lint.loaders.terraform.modules import (
    Instance,
    Module,
    Resource,
    UnitState,
    exists,
    instance_scope,
    load_unit,
    several,
)
from fanout_lint.loaders.terraform.overrides import attribute_file
from fanout_lint.model.format import Format
from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import NONE, TERRAFORM, Body, Loc, Suppression, Unit
from fanout_lint.model.schema import ALIAS_TYPES, BY_TYPE, KEY_ALIAS_TYPES, Items
from fanout_lint.model.values import Known, Unknown, Value, candidates, choice, with_site
from fanout_lint.results.not_modelled import NotModelled, esm_kind
from fanout_lint.results.records import LoadError

if TYPE_CHECKING:
    from typing import Any

# Resources the builder reads: the schema's, aliases, and redrive policies set apart.
_READ = set(BY_TYPE) | set(ALIAS_TYPES) | set(KEY_ALIAS_TYPES) | {"aws_sqs_queue_redrive_policy"}


def load_terraform_dir(path: str, cache: ParseCache | None = None,
                       root: str | None = None,
                       var_files: tuple[str, ...] = ()) -> tuple[list[Graph], list[LoadError]]:
    """``root``: the repository local modules are confined to (``confine.py``; None: the
    one ``confine.Roots`` gives a path named alone). ``var_files``: tfvars read after the
    directory's own, as ``-var-file``."""
    unit, root = load_unit(path, cache, Roots().of(path) if root is None else root, var_files)
    if root is None or unit.incomplete:
        return [], unit.errors
    linker = Linker({address: r.type for address, r in unit.resources.items()})
    resolver = _Resolver(unit, root, linker)
    views = []
    passed_over: list[NotModelled] = []
    for resource in unit.resources.values():
        if resource.type in _READ and exists(resource):
            unit.budget.at(resource.file, resource.block.line, resource.address)
            views.append(HclView(resolver, resource))
        if resource.type in _MAY_BE_UNMODELLED and resource.mode == "managed" and exists(resource):
            kind = _not_modelled(resolver, resource)
            if kind:
                passed_over.append(NotModelled(kind, resource.address, Loc(resource.file, resource.block.line, 1)))
    nodes, uses, mentions = build(views, linker)
    graph = Graph(Unit(path, Format.TERRAFORM, tuple(unit.files)), nodes, uses, sources=dict(unit.texts), mentions=mentions)
    graph.not_modelled.extend(passed_over)
    return [graph], unit.errors


_MAY_BE_UNMODELLED = {"aws_lambda_event_source_mapping"}


def _not_modelled(resolver: _Resolver, resource: Resource) -> str | None:
    """What the resource carries that the graph does not model (see ``not_modelled.py``)."""
    body = resource.block.body
    present = {name: True for name in body.attributes} | {b.type: True for b in body.blocks}
    source = resolver.value(resource, "event_source_arn")
    return esm_kind(present, source.value if isinstance(source, Known) else None)


class _Resolver:
    """Arguments evaluated and references followed, with what the unit's resources share:
    exported addresses, scopes, and the linker (names, aliases, External nodes)."""

    def __init__(self, unit: UnitState, root: Module, linker: Linker):
        self.unit = unit
        self.linker = linker
        self.scopes: dict[str, Instance] = {}
        self.exported: set[str] = set()
        self.comment_lines: dict[str, list[int]] = {}  # file -> its comment lines, sorted
        for output in root.outputs:
            value = root.output(output)
            for option in candidates(value) or ():
                self.exported.update(ref.address for ref in refs_in(option.value, unit.budget))
        for module, block in unit.unread_calls:  # a missing module may subscribe to what it is given
            for name, attribute in block.body.attributes.items():
                if name != "source":
                    for option in candidates(module.evaluator.eval(attribute.expr)) or ():
                        self.exported.update(ref.address for ref in refs_in(option.value, unit.budget))

    # -- helpers ---------------------------------------------------------------
    def scope(self, resource: Resource) -> Instance:
        if resource.address not in self.scopes:
            self.scopes[resource.address] = instance_scope(resource)
        return self.scopes[resource.address]

    def raw(self, resource: Resource, name: str, block: Block | None = None) -> Value:
        """An argument's value as evaluated, atoms and all; Known(None) when absent."""
        attribute = (block or resource.block).body.attributes.get(name)
        if attribute is None:
            return NONE
        return self.scope(resource).evaluator.eval(attribute.expr)

    def value(self, resource: Resource, name: str, default: Value | None = None, block: Block | None = None) -> Value:
        """A plain argument value; null and absent take ``default``; references resolve."""
        value = self.raw(resource, name, block)
        return _plain(self.scope(resource).evaluator.resolved(value), default)

    def loc(self, resource: Resource, name: str | None = None, block: Block | None = None) -> Loc:
        attribute = (block or resource.block).body.attributes.get(name) if name else None
        if attribute is not None:
            return Loc(attribute_file(attribute, resource.file), attribute.line, attribute.column)
        return Loc(resource.file, resource.block.line, resource.block.column)

    def target(self, resource: Resource, name: str, kind: str | None, block: Block | None = None) -> str | None:
        """The node an argument points at, an External node, or None when it is unset."""
        attribute = (block or resource.block).body.attributes.get(name)
        if attribute is None:
            return None
        value = self.raw(resource, name, block)
        label = render(attribute.expr)
        return self.target_of(value, kind, label, self.loc(resource, name, block))

    def targets(self, resource: Resource, name: str, kind: str | None, block: Block | None = None) -> tuple[str, ...]:
        """Every node an argument may point at: one per ``for_each`` instance or branch,
        one per item of a list (``alarm_actions = [...]``)."""
        attribute = (block or resource.block).body.attributes.get(name)
        if attribute is None:
            return ()
        value = self.raw(resource, name, block)
        options = candidates(value)
        label, loc = render(attribute.expr), self.loc(resource, name, block)
        if options is None:
            return (self.linker.external(label, loc),)
        found = []
        for option in options:
            items = option.value if isinstance(option.value, list) else [option.value]
            found += [self.target_of(Known(item), kind, label, loc) for item in items]
        return tuple(dict.fromkeys(f for f in found if f))

    def target_of(self, value: Value, kind: str | None, label: str, loc: Loc) -> str | None:
        options = candidates(value)
        if options is None:
            return self.linker.external(label, loc)
        found = {self._payload_target(o.value, kind) for o in options}
        if found == {None}:
            return None
        if len(found) == 1:
            found_one = found.pop()
            return found_one if found_one != "" else self.linker.external(label, loc)
        return self.linker.external("conditional reference", loc)

    def _payload_target(self, payload: Any, kind: str | None) -> str | None:
        """An address, "" for something outside the unit, None for null."""
        if payload is None:
            return None
        if isinstance(payload, Ref):
            return self._resource(payload.address)
        if isinstance(payload, Interpolated):
            addresses = {r.address for r in payload.parts if isinstance(r, Ref)}
            return self._resource(addresses.pop()) if len(addresses) == 1 else ""
        if isinstance(payload, str):
            return self.linker.literal(payload, kind) or ""
        return ""

    def _resource(self, address: str) -> str:
        return self.linker.internal(address) if address in self.unit.resources else ""

    def suppressions(self, resource: Resource) -> tuple[Suppression, ...]:
        comments = self.unit.comments.get(resource.file, {})
        block = resource.block
        # The comments inside the block by bisection: a scan of the file's comments per
        # resource is quadratic in a file of many resources and comment lines.
        ordered = self.comment_lines.get(resource.file)
        if ordered is None:
            ordered = self.comment_lines[resource.file] = sorted(comments)
        first = bisect.bisect_left(ordered, block.line)
        lines = ordered[first:bisect.bisect_right(ordered, block.end_line, first)]
        above = block.line - 1
        while above in comments:
            lines.append(above)
            above -= 1
        found: list[Suppression] = []
        for line in sorted(lines):
            found.extend(parse_suppression(comments[line], Loc(resource.file, line, 1)))
        return tuple(found)


class HclSite:
    """Where an argument is written (a site: its ``entry()`` and ``value()`` spans)."""

    __slots__ = ("file", "attribute")

    def __init__(self, file: str, attribute: Attribute):
        self.file = file
        self.attribute = attribute

    def entry(self) -> Loc:
        return Loc(self.file, *self.attribute.pos)

    def value(self) -> Loc | None:
        position = self.attribute.value_pos
        return Loc(self.file, *position) if position else None


class HclItemSite:
    """Where a key of an object is written (``maxReceiveCount = 5`` in ``jsonencode({...})``)."""

    __slots__ = ("file", "key_pos", "value_pos")

    def __init__(self, file: str, key_pos, value_pos):
        self.file = file
        self.key_pos = key_pos
        self.value_pos = value_pos

    def entry(self) -> Loc:
        return Loc(self.file, self.key_pos[0], self.key_pos[1], self.value_pos[2], self.value_pos[3])

    def value(self) -> Loc:
        return Loc(self.file, *self.value_pos)


class HclView:
    """One resource block as ``build.View``."""

    resource = ""
    written = TERRAFORM
    cdk_path = None
    condition = None
    shows_properties = True
    plain_keys = None  # every setting is asked about (build.View.plain_keys)

    def __init__(self, resolver: _Resolver, resource: Resource):
        self.resolver = resolver
        self.block_resource = resource
        self.root = resource.block  # the block whose arguments the paths start from
        self.id = resource.address
        self.type = resource.type
        block = resource.block
        self.file = resource.file
        self.loc = Loc(resource.file, block.line, block.column, *block.header_end)
        self.syntax = "json" if is_json(resource.file) else "hcl"
        self.body = Body(Loc(resource.file, block.line, block.column, block.end_line, block.end_column), self.syntax)
        self.suppressions = resolver.suppressions(resource)
        self.exported = resource.address in resolver.exported
        scope = resolver.scope(resource)
        self.multi_instance = resource.module.multi_instance or several(scope.count, scope.for_each)

    def evaluating(self) -> None:
        self.resolver.unit.budget.at(self.file, self.loc.line, self.block_resource.address)

    def _attribute(self, path) -> tuple[Block | None, Attribute | None]:
        """The block holding the last step of ``path``, and the attribute there (the first
        of nested blocks of one name)."""
        block = self.root
        for name in path[:-1]:
            children = nested_blocks(block, name)
            if not children:
                return None, None
            block = children[0]
        return block, block.body.attributes.get(path[-1])

    def value(self, path, default: Value | None = None) -> Value:
        block, attribute = self._attribute(path)
        if attribute is None:
            return default if default is not None else NONE
        value = self.resolver.value(self.block_resource, path[-1], default, block)
        return with_site(value, HclSite(attribute_file(attribute, self.file), attribute))

    def site(self, path):
        _, attribute = self._attribute(path)
        return HclSite(self.file, attribute) if attribute is not None else None

    def is_written(self, path) -> bool:
        block, attribute = self._attribute(path)
        return attribute is not None or (block is not None and bool(_blocks_named(block, path[-1])))

    def proves_absent(self, path) -> bool:
        blocks = [self.root]
        for depth, name in enumerate(path):
            if any(_dynamic(block, name) for block in blocks):
                return False  # a dynamic block may write it
            if depth == len(path) - 1:
                break
            if any(written_otherwise(block, name) and not self._null(block, name) for block in blocks):
                return False  # written as an argument we cannot read as the block: unknown
            blocks = [child for block in blocks for child in nested_blocks(block, name)]
            if not blocks:
                return True
        for block in blocks:
            if block.body.blocks_of(path[-1]):
                return False
            if path[-1] in block.body.attributes and not self._null(block, path[-1]):
                return False
        return True

    def _null(self, block: Block, name: str) -> bool:
        value = self.resolver.value(self.block_resource, name, None, block)
        return isinstance(value, Known) and value.value is None

    def name(self, path) -> str | None:
        value = self.value(path)
        return value.value if isinstance(value, Known) and isinstance(value.value, str) else None

    def target(self, path, kind: str | None) -> str | None:
        block, attribute = self._attribute(path)
        if attribute is None:
            return None
        return self.resolver.target(self.block_resource, path[-1], kind, block)

    def targets(self, path, kind: str | None) -> tuple[str, ...]:
        *nesting, attr = path
        blocks = [self.root]
        for name in nesting:
            blocks = [child for block in blocks for child in nested_blocks(block, name)]
        found = (t for block in blocks for t in self.resolver.targets(self.block_resource, attr, kind, block))
        return tuple(dict.fromkeys(found))

    def document(self, path) -> Value:
        # the block holding the argument: a nested block's own (a role's inline_policy), or the resource's
        block, _ = self._attribute(path)
        return _json_document(self.resolver, self.block_resource, path[-1], block)

    def leaf(self, raw: Any) -> Value:
        if isinstance(raw, Hole):
            return Unknown(raw.reason)
        if isinstance(raw, ATOMS):
            return Unknown("known only after apply")
        return Known(raw)

    def doc_target(self, path, raw: Any, kind: str) -> str | None:
        if raw is None:
            return None  # a document we cannot read names nothing we can follow
        return self.resolver.target_of(Known(raw), kind, render_payload(raw),
                                       self.resolver.loc(self.block_resource, path[-1]))

    def _object(self, path) -> tuple[ObjectExpr | None, str]:
        """The object written inside ``jsonencode(...)`` at ``path``, when it is one, and
        the file it is written in."""
        _, attribute = self._attribute(path)
        expr = attribute.expr if attribute is not None else None
        if isinstance(expr, Call) and expr.name == "jsonencode" and len(expr.args) == 1:
            expr = expr.args[0]
        found = expr if isinstance(expr, ObjectExpr) and expr.pos is not None else None
        return found, attribute_file(attribute, self.file) if attribute is not None else self.file

    def doc_site(self, path, key: str):
        found, file = self._object(path)
        if found is None:
            return None
        for (key_expr, _), (key_pos, value_pos) in zip(found.items, found.item_pos):
            if isinstance(key_expr, Literal) and key_expr.value == key:
                return HclItemSite(file, key_pos, value_pos)
        return None

    def doc_body(self, path) -> Body | None:
        found, file = self._object(path)
        return Body(Loc(file, *found.pos), "json" if is_json(file) else "hcl") if found is not None else None

    def items(self, items: Items) -> list:
        if not items.tf:
            return []
        return [HclItemView(self, block, index, items) for index, block in enumerate(nested_blocks(self.root, items.tf))]


class HclItemView(HclView):
    """A repeated nested block that is a node of its own (a ``queue`` block of an
    ``aws_s3_bucket_notification``); findings name the resource holding it."""

    def __init__(self, parent: HclView, block: Block, index: int, items: Items):
        self.resolver = parent.resolver
        self.block_resource = parent.block_resource
        self.root = block
        self.id = f"{parent.id}.{items.tf}[{index}]"
        self.type = f"{parent.type}.{items.tf}"
        self.resource = parent.id
        self.file = parent.file
        self.loc = Loc(parent.file, block.line, block.column, *block.header_end)
        self.body = Body(Loc(parent.file, block.line, block.column, block.end_line, block.end_column), "hcl")
        self.suppressions = parent.suppressions
        self.exported = False
        self.multi_instance = parent.multi_instance

    def items(self, items: Items) -> list:
        return []


def _blocks_named(block: Block, name: str) -> list[Block]:
    return nested_blocks(block, name) + [d for d in block.body.blocks_of("dynamic") if d.labels[:1] == (name,)]


def _dynamic(block: Block, name: str) -> bool:
    return any(d.labels[:1] == (name,) for d in block.body.blocks_of("dynamic"))


def render_payload(payload: Any) -> str:
    """A label for an External node named inside a document."""
    if isinstance(payload, Ref):
        return f"{payload.address}.{payload.attribute}".rstrip(".")
    if isinstance(payload, str):
        return payload
    return "expression"


def _plain(value: Value, default: Value | None) -> Value:
    """Null means unset (the default applies); atoms mean known only after apply."""
    options = candidates(value)
    if options is None:
        return value
    out: list[Value] = []
    for option in options:
        payload = option.value
        if payload is None:
            out.append(default if default is not None else NONE)
        elif isinstance(payload, Hole):
            return Unknown(payload.reason)
        elif isinstance(payload, ATOMS):
            return Unknown("known only after apply")
        else:
            out.append(option)
    return choice(out)


def _json_document(resolver: _Resolver, resource: Resource, name: str, block: Block | None = None) -> Value:
    """A JSON string argument (redrive_policy, policy) decoded, atoms kept."""
    value = resolver.scope(resource).evaluator.resolved(resolver.raw(resource, name, block))
    options = candidates(value)
    if options is None:
        return value
    decoded: list[Value] = []
    for option in options:
        payload = option.value
        if payload is None:
            decoded.append(NONE)
            continue
        if isinstance(payload, Hole):
            return Unknown(payload.reason)
        if isinstance(payload, Ref):
            return Unknown("document known only after apply")
        if isinstance(payload, dict):
            decoded.append(Known(payload))
            continue
        try:
            document = decode_json(payload, resolver.unit.budget)
        except TooLarge as exc:
            return Unknown(f"{name}: {exc}")
        except EvalError:
            return Unknown(f"{name} is not valid JSON")
        if not isinstance(document, dict):
            return Unknown(f"{name} is not a JSON object")
        decoded.append(Known(document, option.origin, option.detail))
    return choice(decoded)
