"""Terraform directories (and their local modules) into the resource graph.

The nodes are those the CloudFormation loader builds, so no rule knows which format it
reads: a node's id is the Terraform address (``aws_sqs_queue.orders``,
``module.billing.aws_sqs_queue.this``) and its location the block's line in its file.
What each resource type means is ``terraform_resources.py`` (shared with the plan
loader); this module answers its questions from HCL: arguments evaluated in the
resource's scope (an argument set to ``null`` is absent, so the provider default
applies), references followed to the resources of the unit, comments read as
suppressions.
"""

from __future__ import annotations

import bisect
import re
from typing import Any

from fanout_lint.budget import TooLarge
from fanout_lint.findings import LoadError
from fanout_lint.loaders.hcl_expressions import (
    ATOMS,
    EvalError,
    Hole,
    Interpolated,
    Ref,
    decode_json,
    refs_in,
    render,
)
from fanout_lint.loaders.hcl_syntax import Block
from fanout_lint.loaders.terraform_modules import (
    Instance,
    Module,
    Resource,
    UnitState,
    exists,
    instance_scope,
    load_unit,
    several,
)
from fanout_lint.loaders.names import named_resource
from fanout_lint.loaders.terraform_resources import (
    HANDLERS,
    NAME_ARGUMENTS,
    Collected,
    add_resource,
)
from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import NONE, External, Loc, Suppression, Unit
from fanout_lint.model.values import Known, Unknown, Value, candidates, choice


def load_terraform_dir(path: str) -> tuple[list[Graph], list[LoadError]]:
    unit, root = load_unit(path)
    if root is None or unit.incomplete:
        return [], unit.errors
    resolver = _Resolver(unit, root)
    out = Collected()
    for resource in unit.resources.values():
        unit.budget.at(resource.file, resource.block.line, resource.address)
        if resource.type in HANDLERS and exists(resource):
            add_resource(out, _HclResource(resolver, resource))
    graph = Graph(
        Unit(path, "terraform", tuple(unit.files)),
        out.finish() + list(resolver.externals.values()),
        out.dead_letter_uses,
    )
    return [graph], unit.errors


class _Resolver:
    """Arguments evaluated and references followed, with what the unit's resources share:
    names (for literal ARNs), exported addresses, scopes, External nodes."""

    def __init__(self, unit: UnitState, root: Module):
        self.unit = unit
        self.externals: dict[str, External] = {}
        self.names: dict[tuple[str, str], str] = {}
        self.scopes: dict[str, Instance] = {}
        self.exported: set[str] = set()
        self.comment_lines: dict[str, list[int]] = {}  # file -> its comment lines, sorted
        for resource in unit.resources.values():
            unit.budget.at(resource.file, resource.block.line, resource.address)
            if resource.type in NAME_ARGUMENTS and exists(resource):
                kind, argument = NAME_ARGUMENTS[resource.type]
                name = self.value(resource, argument)
                if isinstance(name, Known) and isinstance(name.value, str):
                    self.names.setdefault((kind, name.value), resource.address)
        for output in root.outputs:
            value = root.output(output)
            for option in candidates(value) or ():
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
        return Loc(resource.file, attribute.line if attribute else resource.block.line, 1)

    def target(self, resource: Resource, name: str, kind: str | None, block: Block | None = None) -> str | None:
        """The node an argument points at, an External node, or None when it is unset."""
        attribute = (block or resource.block).body.attributes.get(name)
        if attribute is None:
            return None
        value = self.raw(resource, name, block)
        label = render(attribute.expr)
        return self.target_of(value, kind, label, self.loc(resource, name, block))

    def targets(self, resource: Resource, name: str, kind: str | None) -> tuple[str, ...]:
        """Every node an argument may point at: one per ``for_each`` instance or branch."""
        attribute = resource.block.body.attributes.get(name)
        if attribute is None:
            return ()
        options = candidates(self.raw(resource, name))
        if options is None or len(options) == 1:
            one = self.target(resource, name, kind)
            return (one,) if one else ()
        loc = self.loc(resource, name)
        found = [self.target_of(o, kind, render(attribute.expr), loc) for o in options]
        return tuple(dict.fromkeys(f for f in found if f))

    def target_of(self, value: Value, kind: str | None, label: str, loc: Loc) -> str | None:
        options = candidates(value)
        if options is None:
            return self.external(label, loc)
        found = {self._payload_target(o.value, kind) for o in options}
        if found == {None}:
            return None
        if len(found) == 1:
            found_one = found.pop()
            return found_one if found_one != "" else self.external(label, loc)
        return self.external("conditional reference", loc)

    def _payload_target(self, payload: Any, kind: str | None) -> str | None:
        """An address, "" for something outside the unit, None for null."""
        if payload is None:
            return None
        if isinstance(payload, Ref):
            return self._follow_alias(payload.address)
        if isinstance(payload, Interpolated):
            addresses = {r.address for r in payload.parts if isinstance(r, Ref)}
            return self._follow_alias(addresses.pop()) if len(addresses) == 1 else ""
        if isinstance(payload, str):
            return self._literal(payload, kind) or ""
        return ""

    def _follow_alias(self, address: str) -> str:
        resource = self.unit.resources.get(address)
        if resource is not None and resource.type == "aws_lambda_alias":
            target = self.target(resource, "function_name", "function")
            return target if target in self.unit.resources else ""
        return address if resource is not None else ""

    def _literal(self, text: str, kind: str | None) -> str | None:
        return named_resource(text, kind, self.names)

    def external(self, label: str, loc: Loc) -> str:
        node_id = f"external: {label}"
        if node_id not in self.externals:
            self.externals[node_id] = External(id=node_id, loc=loc, label=label, type="external")
        return node_id

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


class _HclResource:
    """One resource block, seen through ``terraform_resources.ResourceView``."""

    def __init__(self, resolver: _Resolver, resource: Resource):
        self.resolver = resolver
        self.resource = resource
        self.address = resource.address
        self.type = resource.type
        self.loc = Loc(resource.file, resource.block.line, 1)
        self.suppressions = resolver.suppressions(resource)
        self.exported = resource.address in resolver.exported
        scope = resolver.scope(resource)
        self.multi_instance = resource.module.multi_instance or several(scope.count, scope.for_each)

    def value(self, attr: str, default: Value | None = None) -> Value:
        return self.resolver.value(self.resource, attr, default)

    def written(self, attr: str) -> bool:
        return attr in self.resource.block.body.attributes

    def document(self, attr: str) -> Value:
        return _json_document(self.resolver, self.resource, attr)

    def leaf(self, raw: Any) -> Value:
        if isinstance(raw, Hole):
            return Unknown(raw.reason)
        if isinstance(raw, ATOMS):
            return Unknown("known only after apply")
        return Known(raw)

    def json_target(self, attr: str, raw: Any, kind: str) -> str | None:
        if raw is None:
            return None  # a document we cannot read names nothing we can follow
        return self.resolver.target_of(Known(raw), kind, render_payload(raw), self.prop_loc(attr))

    def target(self, attr: str, kind: str) -> str | None:
        return self.resolver.target(self.resource, attr, kind)

    def targets(self, attr: str, kind: str) -> tuple[str, ...]:
        return self.resolver.targets(self.resource, attr, kind)

    def block_targets(self, path: tuple[str, ...], kind: str) -> tuple[str, ...]:
        *nesting, attr = path
        blocks = [self.resource.block]
        for name in nesting:
            blocks = [child for block in blocks for child in block.body.blocks_of(name)]
        found = (self.resolver.target(self.resource, attr, kind, block) for block in blocks)
        return tuple(dict.fromkeys(f for f in found if f))

    def prop_loc(self, attr: str) -> Loc:
        return self.resolver.loc(self.resource, attr)


def render_payload(payload: Any) -> str:
    """A label for an External node named inside a document."""
    if isinstance(payload, Ref):
        return f"{payload.address}.{payload.attribute}".rstrip(".")
    if isinstance(payload, str):
        return payload
    return "expression"


# Linear on one line of text: the rule list's runs are separated by commas they cannot
# contain, and the rest (``.*`` up to the end) always matches, so nothing is tried twice.
# (A newline would let ``$`` fail after ``.*`` and make the list give back characters one
# by one, each time rescanning the rest; comments have none, and such text is refused.)
_IGNORE = re.compile(r"^fanout-lint:\s*ignore\s*=\s*([\w.-]+(?:\s*,\s*[\w.-]+)*)(.*)\Z")
_UNTIL = re.compile(r"\buntil\s*=\s*(\d{4}-\d{2}-\d{2})")


def parse_suppression(text: str, loc: Loc) -> list[Suppression]:
    """``fanout-lint: ignore=ID-or-name[,other] [until=YYYY-MM-DD] [-- reason]``."""
    text = text.strip()
    if "\n" in text:
        return []
    match = _IGNORE.match(text)
    if not match:
        return []
    rules = [r.strip() for r in match.group(1).split(",") if r.strip()]
    rest = match.group(2)
    until_match = _UNTIL.search(rest)
    until = until_match.group(1) if until_match else None
    rest = _UNTIL.sub("", rest)
    reason = rest.split("--", 1)[1].strip() if "--" in rest else ""
    return [Suppression(rule=r, reason=reason, until=until, loc=loc) for r in rules]


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


def _json_document(resolver: _Resolver, resource: Resource, name: str) -> Value:
    """A JSON string argument (redrive_policy, policy) decoded, atoms kept."""
    value = resolver.scope(resource).evaluator.resolved(resolver.raw(resource, name))
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
