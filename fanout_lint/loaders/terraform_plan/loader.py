"""Terraform plan JSON (``terraform show -json plan.out``) into the resource graph.

Values come from ``planned_values`` (child modules included); edges from the
``configuration`` references, whose module-relative addresses are made absolute here.
A value Terraform knows only after apply is omitted from the plan: it stays unknown,
unless the configuration shows the attribute was never set (then the AWS default holds).

Node ids are the addresses Terraform prints, without instance keys: ``aws_sqs_queue.q``
and ``module.m.aws_sqs_queue.q`` (not ``...q[0]`` or ``module.m["a"]...``), as the HCL
loader names them. The instances of a ``count``/``for_each`` resource are one node whose
values are the instances' values: known when they all agree, a choice (so rules fire only
when every instance is wrong) when they differ. Locations point at the plan file, at the
first instance's ``"address"`` line.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from fanout_lint.loaders.build import build
from fanout_lint.loaders.links.linker import Linker
from fanout_lint.loaders.parsing.budget import Budget
from fanout_lint.loaders.parsing.located import Map, MapSite, loc_of
from fanout_lint.model.format import Format
from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import NONE, Body, Loc, Suppression, Unit, Written
from fanout_lint.model.schema import ALIAS_TYPES, BY_TYPE, KEY_ALIAS_TYPES, KINDS, Items
from fanout_lint.model.values import DEFAULT, VARIABLE, Known, Unknown, Value, candidates, choice, with_site
from fanout_lint.results.not_modelled import NotModelled, esm_kind
from fanout_lint.results.records import LoadError

if TYPE_CHECKING:
    from typing import Any

# A plan is generated: its findings speak Terraform, and a fix goes to the configuration.
PLAN = Written(Format.TERRAFORM, "plan", generated=True)
# The resource types a reference of a kind may name (a queue is an aws_sqs_queue).
KIND_TYPES = {kind.key: kind.tf_types for kind in KINDS if kind.tf_types}
_READ = set(BY_TYPE) | set(ALIAS_TYPES) | set(KEY_ALIAS_TYPES) | {"aws_sqs_queue_redrive_policy"}
PLAN_MAY_BE_UNMODELLED = {"aws_lambda_event_source_mapping"}
# Attributes whose unwritten value is AWS's default, which the plan shows as known only
# after apply (the provider reads it back): see PlanResource._computed_when_unset.
COMPUTED_WHEN_UNSET = {"aws_kms_key": ("policy",)}

SUPPORTED_MAJOR = "1"
MAX_MODULE_DEPTH = 64
MAX_REFERENCE_HOPS = 32

_IGNORED_HEADS = {"local", "each", "count", "path", "terraform", "self"}


def load_plan(parsed: Any, path: str) -> tuple[list[Graph], list[LoadError]]:
    version = parsed.get("format_version")
    if not isinstance(version, str) or version.split(".")[0] != SUPPORTED_MAJOR:
        line = loc_of(parsed, "format_version", Loc(path, 1, 1)).line
        return [], [LoadError(
            path, line,
            f"unsupported Terraform plan format_version {version!r}: fanout-lint reads format 1.x",
        )]
    planned = parsed.get("planned_values")
    if not isinstance(planned, dict):
        line = loc_of(parsed, "format_version", Loc(path, 1, 1)).line
        return [], [LoadError(path, line, "Terraform JSON without planned_values: not a plan (show -json of a plan file)")]
    plan = _Plan(parsed, path)
    nodes, uses, mentions = build(plan.resources.values(), plan.linker)
    graph = Graph(Unit(path, Format.TERRAFORM_PLAN, (path,)), nodes, uses, mentions=mentions)
    graph.not_modelled.extend(plan.not_modelled)
    return [graph], []


def strip_keys(address: str) -> str:
    """``module.m["a"].aws_sqs_queue.q[0]`` -> ``module.m.aws_sqs_queue.q``."""
    out = []
    in_key = in_quote = escaped = False
    for ch in address:
        if in_key:
            if in_quote:
                if escaped:
                    escaped = False
                elif ch == "\\":
                    escaped = True
                elif ch == '"':
                    in_quote = False
            elif ch == '"':
                in_quote = True
            elif ch == "]":
                in_key = False
            continue
        if ch == "[":
            in_key = True
            continue
        out.append(ch)
    return "".join(out)


def _prefix(module_path: tuple[str, ...]) -> str:
    return "".join(f"module.{name}." for name in module_path)


class _Plan:
    """The plan's resources, its configuration by module, and reference resolution."""

    def __init__(self, parsed: dict, path: str):
        self.path = path
        self.budget = Budget(file=path)
        self.fallback = loc_of(parsed, "planned_values", Loc(path, 1, 1))
        self.unknown_after = _after_unknown(parsed.get("resource_changes"))
        self.modules: dict[tuple[str, ...], dict] = {}
        self._config_index: dict[tuple[str, ...], dict[str, dict]] = {}
        # (reference, module path, hops) -> what it names: module outputs that read several
        # outputs of the level below would otherwise be resolved once per path to them
        self._resolved: dict[tuple[str, tuple[str, ...], int], frozenset[str]] = {}
        configuration = parsed.get("configuration")
        root = configuration.get("root_module") if isinstance(configuration, dict) else None
        self._index_modules(root, (), 0)
        self.resources: dict[str, PlanResource] = {}
        self.not_modelled: list[NotModelled] = []
        root_values = parsed["planned_values"].get("root_module")
        self._collect(root_values, 0)
        self.linker = Linker({address: r.type for address, r in self.resources.items()})
        self.literals: dict[str, str] = {}
        for resource in self.resources.values():
            self._index_names(resource)
        self.exported = self._exported(self.modules.get(()))

    def _exported(self, root: Any) -> set[str]:
        outputs = root.get("outputs") if isinstance(root, dict) else None
        found: set[str] = set()
        for output in outputs.values() if isinstance(outputs, dict) else []:
            if isinstance(output, dict):
                found |= self.resolve_expression(output.get("expression"), ())
        return found

    # -- reading -------------------------------------------------------------
    def _index_modules(self, module: Any, path: tuple[str, ...], depth: int) -> None:
        if not isinstance(module, dict) or depth > MAX_MODULE_DEPTH:
            return
        self.modules[path] = module
        calls = module.get("module_calls")
        if isinstance(calls, dict):
            for name, call in calls.items():
                if isinstance(call, dict):
                    self._index_modules(call.get("module"), path + (str(name),), depth + 1)

    def _collect(self, module: Any, depth: int) -> None:
        if not isinstance(module, dict) or depth > MAX_MODULE_DEPTH:
            return
        resources = module.get("resources")
        for index, item in enumerate(resources if isinstance(resources, list) else []):
            if not isinstance(item, dict) or item.get("mode", "managed") != "managed":
                continue
            address, rtype = item.get("address"), item.get("type")
            if isinstance(address, str) and rtype in PLAN_MAY_BE_UNMODELLED:
                self._note(address, rtype, item, loc_of(item, "address", loc_of(resources, index, self.fallback)))
            if not isinstance(address, str) or not isinstance(rtype, str) or rtype not in _READ:
                continue
            node_id = strip_keys(address)
            values = item.get("values")
            instance = _Instance(address, values if isinstance(values, dict) else {})
            if node_id in self.resources:
                self.resources[node_id].instances.append(instance)
                continue
            loc = loc_of(item, "address", loc_of(resources, index, self.fallback))
            module_path, local = _split_module(node_id)
            config = self._config_resource(module_path, local)
            self.resources[node_id] = PlanResource(self, node_id, rtype, loc, module_path, config, item, [instance])
        children = module.get("child_modules")
        for child in children if isinstance(children, list) else []:
            self._collect(child, depth + 1)

    def _note(self, address: str, rtype: str, item: dict, loc: Loc) -> None:
        """A Kafka or MQ mapping: not modelled (``not_modelled.py``), once per resource."""
        values = item.get("values") if isinstance(item.get("values"), dict) else {}
        present = {key: True for key, value in values.items() if value not in (None, [], {})}
        kind = esm_kind(present, values.get("event_source_arn"))
        node_id = strip_keys(address)
        if kind and all(c.name != node_id for c in self.not_modelled):
            self.not_modelled.append(NotModelled(kind, node_id, loc))

    def _config_resource(self, module_path: tuple[str, ...], local: str) -> dict:
        index = self._config_index.get(module_path)
        if index is None:  # built once per module: a scan per resource is quadratic
            index = self._config_index[module_path] = {}
            module = self.modules.get(module_path)
            resources = module.get("resources") if isinstance(module, dict) else None
            for item in resources if isinstance(resources, list) else []:
                if isinstance(item, dict):
                    address = item.get("address")
                    if isinstance(address, str):
                        index.setdefault(address, item)  # the first one, as a scan finds it
        return index.get(local, {})

    def _index_names(self, resource: "PlanResource") -> None:
        kind = BY_TYPE.get(resource.type)
        name_field = kind.field("name") if kind is not None else None
        if name_field is None:
            return
        for instance in resource.instances:
            # every instance's name, where the builder would index one name per resource
            name = instance.values.get(name_field.tf)
            if isinstance(name, str) and name:
                self.linker.name(kind.key, name, resource.address)
            for attr in ("arn", "url", "id"):
                text = instance.values.get(attr)
                if isinstance(text, str) and text:
                    self.literals.setdefault(text, resource.address)

    # -- references ----------------------------------------------------------
    def resolve_expression(self, expression: Any, module_path: tuple[str, ...], hops: int = 0) -> set[str]:
        """Node ids and ``external: ...`` labels an expression's references name."""
        if not isinstance(expression, dict) or hops > MAX_REFERENCE_HOPS:
            return set()
        references = expression.get("references")
        found: set[str] = set()
        for reference in references if isinstance(references, list) else []:
            if isinstance(reference, str):
                names = self._resolve(reference, module_path, hops + 1)
                self.budget.step(1 + len(names))
                found |= names
        return found

    def _resolve(self, reference: str, module_path: tuple[str, ...], hops: int) -> frozenset[str]:
        key = (reference, module_path, hops)
        names = self._resolved.get(key)
        if names is None:
            names = self._resolved[key] = frozenset(self._resolve_once(reference, module_path, hops))
        return names

    def _resolve_once(self, reference: str, module_path: tuple[str, ...], hops: int) -> set[str]:
        parts = strip_keys(reference).split(".")
        head = parts[0]
        if head in _IGNORED_HEADS or len(parts) < 2:
            return set()
        if head == "var":
            if not module_path:
                return set()  # a root variable holds a literal: the planned value says it
            parent = self.modules.get(module_path[:-1], {})
            call = (parent.get("module_calls") or {}).get(module_path[-1], {})
            expressions = call.get("expressions") if isinstance(call, dict) else None
            expression = expressions.get(parts[1]) if isinstance(expressions, dict) else None
            return self.resolve_expression(expression, module_path[:-1], hops)
        if head == "module":
            if len(parts) < 3:
                return set()
            child = module_path + (parts[1],)
            outputs = self.modules.get(child, {}).get("outputs")
            output = outputs.get(parts[2]) if isinstance(outputs, dict) else None
            expression = output.get("expression") if isinstance(output, dict) else None
            return self.resolve_expression(expression, child, hops)
        if head == "data":
            if len(parts) < 3:
                return set()
            return {self.external(_prefix(module_path) + ".".join(parts[:3]))}
        address = _prefix(module_path) + ".".join(parts[:2])
        if address in self.resources:
            return {address}
        return {self.external(address)}

    def literal(self, text: str, kind: str) -> str | None:
        """A resource of the plan named by an ARN, a queue URL or a name."""
        if text in self.literals:
            return self.linker.internal(self.literals[text])
        return self.linker.literal(text, kind)

    def external(self, label: str) -> str:
        return self.linker.external(label, self.fallback)


def _split_module(address: str) -> tuple[tuple[str, ...], str]:
    parts = address.split(".")
    path = []
    while len(parts) > 2 and parts[0] == "module":
        path.append(parts[1])
        parts = parts[2:]
    return tuple(path), ".".join(parts)


def _after_unknown(changes: Any) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for change in changes if isinstance(changes, list) else []:
        if not isinstance(change, dict) or not isinstance(change.get("address"), str):
            continue
        body = change.get("change")
        unknown = body.get("after_unknown") if isinstance(body, dict) else None
        if isinstance(unknown, dict):
            found[change["address"]] = unknown
    return found


class _Instance:
    def __init__(self, address: str, values: dict):
        self.address = address
        self.values = values


class PlanResource:
    """One resource of the plan, as ``build.View``."""

    suppressions: tuple[Suppression, ...] = ()  # a plan has no comments to carry them
    resource = ""
    written = PLAN
    body: Body | None = None  # never edited
    cdk_path = None
    condition = None
    shows_properties = True
    plain_keys = None  # every setting is asked about (build.View.plain_keys)

    def __init__(self, plan: _Plan, address: str, rtype: str, loc: Loc,
                 module_path: tuple[str, ...], config: dict, item: Any, instances: list[_Instance]):
        self.plan = plan
        self.id = self.address = address
        self.type = rtype
        self.loc = loc
        self.module_path = module_path
        self.config = config
        self.item = item
        self.instances = instances

    @property
    def exported(self) -> bool:
        return self.address in self.plan.exported

    @property
    def multi_instance(self) -> bool:
        return len(self.instances) > 1  # the plan lists every instance, modules' included

    def evaluating(self) -> None:
        self.plan.budget.at(self.loc.file, self.loc.line, self.address)

    # -- values --------------------------------------------------------------
    def _expression(self, path: tuple[str, ...]) -> Any:
        node: Any = self.config.get("expressions")
        for key in path:
            if isinstance(node, list):
                node = node[0] if len(node) == 1 else None  # several blocks: ambiguous
            if not isinstance(node, dict):
                return None
            node = node.get(key)
        if isinstance(node, dict) and node.get("constant_value", 0) is None and not node.get("references"):
            return None  # written `= null`: unset, as if not written (the provider default holds)
        return node

    def _is_unknown(self, instance: _Instance, attr: str | tuple[str, ...]) -> bool:
        marks = self.plan.unknown_after.get(instance.address, {})
        node: Any = marks
        for key in (attr,) if isinstance(attr, str) else attr:
            if node is True:
                return True  # the whole block is unknown
            if isinstance(node, list):
                node = node[0] if len(node) == 1 else None
            if not isinstance(node, dict):
                return False
            node = node.get(key)
        return node is True

    def value(self, path, default: Value | None = None) -> Value:
        if len(path) != 1:
            return self._nested_value(tuple(path), default)
        return with_site(self._value(path[0], default), self._site(path[0]))

    def _nested_value(self, path: tuple[str, ...], default: Value | None) -> Value:
        """A value inside nested blocks (``scaling_config.maximum_concurrency``): each
        instance's block, as planned (a ``dynamic`` block's too)."""
        expression = self._expression(path)
        # Not written in a block the configuration writes: the provider fills in the AWS
        # default, which the plan marks known only after apply (a block the configuration
        # does not show may be a ``dynamic`` one, whose settings it does not show either).
        unwritten = expression is None and self._expression(path[:-1]) is not None
        options: list[Value] = []
        for instance in self.instances:
            if self._is_unknown(instance, path) and not unwritten:
                return Unknown(f"{'.'.join(path)} is known only after apply")
            raw = _dig(instance.values, path)
            if raw is not None:
                options.append(Known(raw))
            elif instance.address not in self.plan.unknown_after and _has_references(expression):
                return Unknown(f"{'.'.join(path)} depends on other resources")
            else:
                options.append(default if default is not None else Known(None))
        return choice(options) if options else Unknown("no instance")

    def site(self, path):
        return self._site(path[0]) if len(path) == 1 else None

    def _site(self, attr: str):
        values = self.item.get("values") if isinstance(self.item, dict) else None
        return MapSite(values, attr) if isinstance(values, Map) and attr in values else None

    def _value(self, attr: str, default: Value | None = None) -> Value:
        expression = self._expression((attr,))
        options: list[Value] = []
        for instance in self.instances:
            raw = instance.values.get(attr)
            if raw is not None:
                options.append(self._known(raw, expression))
            elif expression is None and self.config:
                # Not written: a computed attribute the provider fills in (redrive_policy,
                # policy) is set, if at all, by another resource; the default holds here.
                options.append(default if default is not None else Known(None))
            elif self._is_unknown(instance, attr):
                return Unknown(f"{attr} is known only after apply")
            elif instance.address not in self.plan.unknown_after and _has_references(expression):
                return Unknown(f"{attr} depends on other resources")  # a plan without resource_changes
            elif isinstance(expression, dict) and expression.get("constant_value") is not None:
                options.append(Known(expression["constant_value"]))
            else:
                options.append(default if default is not None else Known(None))
        return choice(options) if options else Unknown("no instance")

    def is_written(self, path) -> bool:
        return self._expression(tuple(path)) is not None

    def proves_absent(self, path) -> bool:
        path = tuple(path)
        computed = self._computed_when_unset(path)
        for instance in self.instances:
            if _present(instance.values, path) or (self._is_unknown(instance, path) and not computed):
                return False
        return not self._pending(path, self._expression(path))

    def _computed_when_unset(self, path: tuple[str, ...]) -> bool:
        """An attribute the provider fills in with AWS's default when the configuration does
        not write it (a KMS key's ``policy``): the plan marks it known only after apply, yet
        it is as absent as in HCL. Only attributes are listed: an unwritten nested block is
        marked the same way as a ``dynamic`` block whose ``for_each`` is not known yet, which
        the configuration does not show either."""
        return (len(path) == 1 and path[0] in COMPUTED_WHEN_UNSET.get(self.type, ())
                and bool(self.config) and self._expression(path) is None)

    def name(self, path) -> str | None:
        return None  # indexed by the plan, instance by instance

    def document(self, path) -> Value:
        return json_document(self._value(path[0]))

    def leaf(self, raw: Any) -> Value:
        return Known(raw)  # a planned document is plain JSON

    def doc_site(self, path, key: str):
        return None

    def doc_body(self, path) -> Body | None:
        return None

    def items(self, items: Items) -> list:
        """The planned blocks of the first instance (nested blocks are listed in order)."""
        blocks = self.instances[0].values.get(items.tf) if items.tf else None
        if not isinstance(blocks, list):
            return []
        expressions = self.config.get("expressions") if isinstance(self.config, dict) else None
        configured = expressions.get(items.tf) if isinstance(expressions, dict) else None
        marks = self.plan.unknown_after.get(self.instances[0].address, {})
        unknown = marks.get(items.tf) if isinstance(marks, dict) else None
        out = []
        for index, block in enumerate(blocks):
            if not isinstance(block, dict):
                continue
            address = f"{self.address}.{items.tf}[{index}]"
            if isinstance(unknown, list) and index < len(unknown) and isinstance(unknown[index], dict):
                self.plan.unknown_after.setdefault(address, unknown[index])
            written = configured[index] if isinstance(configured, list) and index < len(configured) else None
            config = {"expressions": written} if isinstance(written, dict) else {}
            out.append(PlanItem(self, address, items.tf, config, block))
        return out

    def _known(self, raw: Any, expression: Any) -> Known:
        if expression is None and self.config:
            return Known(raw, DEFAULT)  # not written: the provider filled in its default
        references = expression.get("references") if isinstance(expression, dict) else None
        if isinstance(references, list):
            variables = {r.split(".")[1] for r in references if isinstance(r, str) and r.startswith("var.")}
            if len(variables) == 1 and len(references) == 1:
                return Known(raw, VARIABLE, variables.pop())
        return Known(raw)

    # -- references ----------------------------------------------------------
    def target(self, path, kind: str | None) -> str | None:
        path = tuple(path)
        return self._target(path, kind, [_dig(i.values, path) for i in self.instances])

    def targets(self, path, kind: str | None) -> tuple[str, ...]:
        path = tuple(path)
        lists = [_dig(i.values, path) for i in self.instances]
        if not any(isinstance(value, list) for value in lists):
            found = self.target(path, kind)
            return (found,) if found else ()
        # a list of references (an alarm's actions): each one it names
        strings = [t for value in lists if isinstance(value, list) for t in value if isinstance(t, str) and t]
        resolved = self.plan.resolve_expression(self._expression(path), self.module_path)
        found = [self.plan.linker.internal(r) if r in self.plan.resources else r for r in sorted(resolved)]
        found += [self.plan.literal(t, kind) or self.plan.external(t) for t in strings]
        return tuple(dict.fromkeys(found))

    def doc_target(self, path, text: Any, kind: str) -> str | None:
        if text is not None and not isinstance(text, str):
            return None  # a planned document names resources by ARN strings only
        # A document known only after apply: its references are all there is to follow.
        return self._target(tuple(path), kind, [text] if text is not None else None)

    def _target(self, path: tuple[str, ...], kind: str, texts: list[Any] | None) -> str | None:
        expression = self._expression(path)
        strings = {t for t in texts or () if isinstance(t, str) and t}
        if texts is not None and not strings and not self._pending(path, expression):
            return None  # not set (a known null, or never written)
        resolved = self.plan.resolve_expression(expression, self.module_path)
        wanted = KIND_TYPES.get(kind) if kind else None
        # a reference to an alias is one to its function, as in HCL
        resolved = {self.plan.linker.internal(r) if r in self.plan.resources else r for r in resolved}
        named = {r for r in resolved if r in self.plan.resources}
        nodes = {r for r in named if wanted is None or self.plan.resources[r].type in wanted}
        if len(nodes) == 1:
            return nodes.pop()
        if len(nodes) > 1:
            return self.plan.external(f"one of {', '.join(sorted(nodes))}")
        if len(named) == 1:
            # one resource of another kind, as the HCL loader follows a reference: a mapping's
            # event_source_arn (read as a queue) names a Kinesis stream or a DynamoDB table
            return named.pop()
        if strings:
            found = {self.plan.literal(t, kind) for t in strings}
            if len(found) == 1 and None not in found:
                return found.pop()
            return self.plan.external(strings.pop() if len(strings) == 1 else f"one of {len(strings)} values")
        externals = sorted(r for r in resolved if r.startswith("external: "))
        if externals:
            return externals[0]
        return self.plan.external(f"{self.address}.{'.'.join(path)} (known after apply)")

    def _pending(self, path: tuple[str, ...], expression: Any) -> bool:
        """Some instance's value is known only after apply."""
        if expression is None and self.config:
            return False
        return any(
            self._is_unknown(i, path)
            or (i.address not in self.plan.unknown_after and _has_references(expression))
            for i in self.instances
        )


class PlanItem(PlanResource):
    """A nested block that is a node of its own (a ``queue`` block of an
    ``aws_s3_bucket_notification``), read like a resource of its own values."""

    def __init__(self, parent: PlanResource, address: str, block_name: str, config: dict, values: dict):
        super().__init__(parent.plan, address, f"{parent.type}.{block_name}", parent.loc, parent.module_path,
                         config, {}, [_Instance(address, values)])
        self.resource = parent.address
        self.parent_instances = len(parent.instances)

    @property
    def multi_instance(self) -> bool:
        return self.parent_instances > 1

    @property
    def exported(self) -> bool:
        return False


def _present(values: Any, path: tuple[str, ...]) -> bool:
    """Something is planned at ``path``: a value, or at least one block on the way."""
    node = values
    for key in path:
        if isinstance(node, list):
            if len(node) > 1:
                return True  # several blocks: something is there
            node = node[0] if node else None
        if not isinstance(node, dict):
            return False
        node = node.get(key)
    return node not in (None, "", [])


def _has_references(expression: Any) -> bool:
    return isinstance(expression, dict) and bool(expression.get("references"))


def _dig(values: Any, path: tuple[str, ...]) -> Any:
    node = values
    for key in path:
        if isinstance(node, list):
            node = node[0] if len(node) == 1 else None
        if not isinstance(node, dict):
            return None
        node = node.get(key)
    return node


def json_document(value: Value) -> Value:
    """A JSON-string attribute value (plain JSON, as in a plan) as Known(dict) per option,
    Known(None) when unset, or Unknown."""
    options = candidates(value)
    if options is None:
        return value
    out: list[Value] = []
    for option in options:
        raw = option.value
        if raw in (None, ""):
            out.append(NONE)
        elif isinstance(raw, dict):
            out.append(option)
        elif isinstance(raw, str):
            try:
                parsed = json.loads(raw)
            except (ValueError, RecursionError):
                return Unknown("not valid JSON")
            if not isinstance(parsed, dict):
                return Unknown("not a JSON object")
            out.append(Known(parsed, option.origin, option.detail))
        else:
            return Unknown("not a JSON document")
    return choice(out)
