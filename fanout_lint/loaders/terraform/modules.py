"""A Terraform directory and its local modules, as scopes the evaluator can ask.

The root directory is one unit: every configuration file in it (``*.tf`` and ``*.tf.json``,
OpenTofu's ``*.tofu`` and ``*.tofu.json``, override files merged last: see
``loaders/terraform/files.py``), with ``terraform.tfvars`` and ``*.auto.tfvars`` (and their
``.json`` forms) applied to the root variables. A ``module``
block whose ``source`` is a local path (``./x``, ``../x``) is loaded from that directory,
its variables set from the block's arguments; its resources get addresses such as
``module.billing.aws_sqs_queue.this``. Any other source (registry, git, URL) is opaque:
its outputs are unknown. A local source must stay inside the repository, through no
symbolic link (``confine.py``): one that does not is an error, and the unit is not
linted; no file of a directory is read through a link either.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field, replace

from fanout_lint.files.confine import problem
from fanout_lint.files.regular_files import HCL_FILE_BYTES, HCL_UNIT_BYTES, FileTooLarge, describe_size, read_bounded
from fanout_lint.loaders.parsing.budget import Budget, TooLarge
from fanout_lint.loaders.parsing.numbers import long_number_error
from fanout_lint.loaders.parsing.parse_cache import ParseCache
from fanout_lint.loaders.parsing.yaml_source import ParseError, decode
from fanout_lint.loaders.terraform.files import config_files, is_config_name, is_json
from fanout_lint.loaders.terraform.hcl.expressions import (
    EvalError,
    Evaluator,
    Hole,
    Ref,
    access,
    embed,
    encode_json,
)
from fanout_lint.loaders.terraform.hcl.parser import syntax_fingerprint
from fanout_lint.loaders.terraform.hcl.tree import Attribute, Block, Call, Expr, HclError, HclFile, ObjectExpr
from fanout_lint.loaders.terraform.hcl.tree_data import file_from_data, file_to_data
from fanout_lint.loaders.terraform.json_syntax import parse_tf_json
from fanout_lint.loaders.terraform.overrides import merge_overrides
from fanout_lint.model.record import Record
from fanout_lint.model.values import VARIABLE, Known, OneOf, Unknown, Value, candidates, choice
from fanout_lint.results.records import LoadError

MAX_MODULE_DEPTH = 16
MAX_FILE_BYTES = HCL_FILE_BYTES  # per file, and HCL_UNIT_BYTES per unit: why in regular_files.py

# A file that fails to parse but mentions none of these cannot change the graph, so the
# rest of its unit is still linted; otherwise the unit is reported and not linted.
_RELEVANT = re.compile(
    r"aws_sns_|aws_sqs_|aws_lambda_|aws_iam_policy_document|aws_cloudwatch_event_target|"
    r"aws_scheduler_|\bmodule\b|\blocals\b|\bvariable\b|\boutput\b"
)


@dataclass(eq=False, repr=False)
class Resource(Record):
    """One ``resource`` or ``data`` block, wherever it is in the module tree."""

    address: str
    type: str
    name: str
    block: Block
    file: str
    module: "Module"
    mode: str = "managed"  # managed | data


@dataclass(eq=False, repr=False)
class UnitState(Record):
    """One Terraform unit as it is read: its files, texts, comments, resources and errors."""

    path: str
    errors: list[LoadError] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    comments: dict[str, dict[int, str]] = field(default_factory=dict)  # file -> line -> text
    texts: dict[str, str] = field(default_factory=dict)  # file -> its text, for fixes
    resources: dict[str, Resource] = field(default_factory=dict)  # address -> resource
    incomplete: bool = False  # a broken file may hold what the rules need
    # the module calls whose directory is missing, with the module that makes each: what
    # they are given may be used there, as an exported resource may be elsewhere
    unread_calls: list = field(default_factory=list)
    bytes_read: int = 0  # of Terraform files, counted each time one is read (HCL_UNIT_BYTES)
    resolving: set = field(default_factory=set)
    budget: Budget = field(default_factory=Budget)
    # (address, argument) -> the argument's configured value, evaluated once: chains of
    # resources that read each other's arguments would otherwise evaluate them again for
    # every path that reaches them
    configured: dict = field(default_factory=dict)
    cache: ParseCache | None = None  # parsed files of this run and earlier ones (parse_cache.py)
    root: str = "."  # the repository: local modules are read only inside it (confine.py)


def load_unit(path: str, cache: ParseCache | None = None, root: str = ".",
              var_files: tuple[str, ...] = ()) -> tuple[UnitState, "Module | None"]:
    """``var_files``: tfvars read after the directory's own, as ``-var-file`` (a root
    module's only: a called module gets its inputs from the call)."""
    unit = UnitState(path, cache=cache, root=root)
    files = _read_dir(unit, path, root=True)
    tfvars = _read_tfvars(unit, path, var_files)
    if unit.incomplete:
        return unit, None
    root = Module(unit, path, "", files, inputs={}, tfvars=tfvars, chain=(os.path.realpath(path),))
    return unit, root


def _read_dir(unit: UnitState, directory: str, root: bool) -> list[HclFile]:
    try:
        files = config_files(os.listdir(directory))
    except OSError as exc:
        unit.errors.append(LoadError(directory, None, f"cannot read directory: {exc.strerror or exc}"))
        unit.incomplete = True
        return []
    parsed = _parse_all(unit, directory, files.primary)
    if not files.overrides:
        return parsed
    merged, problems = merge_overrides(parsed, _parse_all(unit, directory, files.overrides))
    for conflict in problems:
        # Terraform refuses such a configuration: what it means is not known.
        unit.errors.append(LoadError(conflict.file, conflict.line, f"{conflict.message} (the unit is not linted)"))
        unit.incomplete = True
    return merged


def _parse_all(unit: UnitState, directory: str, names) -> list[HclFile]:
    parsed = []
    for name in names:
        result = _parse_file(unit, os.path.join(directory, name))
        if result is not None:
            parsed.append(result)
    return parsed


def _parse_text(cache: ParseCache | None, data: bytes, text: str, file: str) -> HclFile:
    # Terraform JSON goes through ``json`` (C): caching it would save next to nothing
    return parse_tf_json(text, file) if is_json(file) else _parsed(cache, data, text, file)


def _parse_file(unit: UnitState, file: str) -> HclFile | None:
    data = _read(unit, file)
    if data is None:
        return None
    try:
        text = decode(data)
        hcl = _parse_text(unit.cache, data, text, file)
    except (ParseError, HclError) as exc:
        text = data.decode("utf-8", errors="replace")
        message = exc.message
        if _RELEVANT.search(text):
            unit.incomplete = True
            message += " (the unit is not linted: this file may declare what the rules need)"
        unit.errors.append(LoadError(file, exc.line, message, exc.column))
        return None
    unit.files.append(file)
    unit.comments[file] = {c.line: c.text for c in hcl.comments}
    if is_config_name(os.path.basename(file)):  # not tfvars: no finding points there
        unit.texts[file] = text
    return hcl


def _parsed(cache: ParseCache | None, data: bytes, text: str, file: str) -> HclFile:
    """``parse_hcl(text, file)``, or what it gave for the same bytes earlier in this run
    (a module loaded again) or in an earlier one. The parsed file is never changed, so
    module instances share it. Files that do not parse are not stored: they are parsed
    again, to say why."""
    if cache is not None:
        hit = cache.get("hcl", data, syntax_fingerprint, decode=_from_data)
        if isinstance(hit, HclFile):
            return replace(hit, path=file)  # the same bytes may be another file's
    from fanout_lint.loaders.terraform.hcl.syntax import parse_hcl  # Lark: only for a file not in the cache

    hcl = parse_hcl(text, file)
    if cache is None:
        return hcl
    cache.put("hcl", data, syntax_fingerprint, hcl, encode=file_to_data)
    return hcl


def _from_data(data) -> HclFile:
    return file_from_data(data, "")  # the path is set by the caller, as for a hit in memory


def _read_tfvars(unit: UnitState, directory: str, var_files: tuple[str, ...] = ()) -> dict[str, Value]:
    try:
        names = os.listdir(directory)
    except OSError:
        return {}
    # Terraform's order: terraform.tfvars, then *.auto.tfvars in lexical order, then each
    # -var-file in the order given; a later file's value wins.
    ordered = [n for n in ("terraform.tfvars", "terraform.tfvars.json") if n in names]
    ordered += sorted(n for n in names if n.endswith((".auto.tfvars", ".auto.tfvars.json")))
    values: dict[str, Value] = {}
    for file in [os.path.join(directory, name) for name in ordered] + list(var_files):
        if file.endswith(".json"):
            loaded = _json_tfvars(unit, file)
        else:
            hcl = _parse_file(unit, file)
            if hcl is None:
                unit.incomplete = True
                continue
            evaluator = Evaluator(_NoScope())
            loaded = {n: evaluator.eval(a.expr) for n, a in hcl.body.attributes.items()}
        for key, value in loaded.items():
            values[key] = _as_variable(value, key)
    return values


def _read(unit: UnitState, file: str) -> bytes | None:
    """A Terraform file's bytes within the per-file and per-unit limits, or None after
    recording why not (the unit is then not linted: the file may hold what rules need)."""
    budget = HCL_UNIT_BYTES - unit.bytes_read
    if budget < 0:
        return None  # the unit is over its total already, and that was reported once
    try:
        data = read_bounded(file, min(MAX_FILE_BYTES, budget), follow=False)
    except FileTooLarge as exc:
        if exc.size > MAX_FILE_BYTES:
            message = f"file is larger than {describe_size(MAX_FILE_BYTES)}, the limit for a Terraform file"
        else:
            message = (f"not read: this unit's Terraform files (its modules counted each time they "
                       f"are loaded) pass {describe_size(HCL_UNIT_BYTES)} in total")
            unit.bytes_read = HCL_UNIT_BYTES + 1
        unit.errors.append(LoadError(file, None, f"{message} (the unit is not linted)"))
        unit.incomplete = True
        return None
    except OSError as exc:
        unit.errors.append(LoadError(file, None, f"cannot read: {exc.strerror or exc}"))
        unit.incomplete = True
        return None
    unit.bytes_read += len(data)
    return data


def _json_tfvars(unit: UnitState, file: str) -> dict[str, Value]:
    raw = _read(unit, file)
    if raw is None:
        return {}
    try:
        text = decode(raw)
        data = json.loads(text)
    except (ValueError, ParseError, RecursionError) as exc:
        if type(exc) is ValueError:  # json's own, for an integer of more digits than Python converts
            long = long_number_error(text, "tfvars JSON")
            unit.errors.append(LoadError(file, long.line, long.message, long.column))
        else:
            unit.errors.append(LoadError(file, getattr(exc, "lineno", None), f"invalid tfvars JSON: {exc}"))
        unit.incomplete = True
        return {}
    unit.files.append(file)
    return {k: Known(v) for k, v in data.items()} if isinstance(data, dict) else {}


def _as_variable(value: Value, name: str) -> Value:
    options = candidates(value)
    if options is None:
        return value
    tagged = [Known(o.value, VARIABLE, name) for o in options]
    return tagged[0] if len(tagged) == 1 else OneOf(tuple(tagged))


class _NoScope:
    """tfvars and variable defaults cannot refer to anything."""

    def lookup(self, root: str, steps: tuple) -> Value:
        return Unknown(f"{root} cannot be referenced here")

    def configured(self, ref: Ref) -> Value:
        return Unknown("known after apply")


class Module:
    def __init__(self, unit: UnitState, directory: str, prefix: str, files: list[HclFile],
                 inputs: dict, tfvars: dict[str, Value], chain: tuple[str, ...],
                 multi_instance: bool = False):
        self.unit = unit
        self.multi_instance = multi_instance  # this module, or one calling it, has count/for_each
        self.directory = directory
        self.prefix = prefix  # "" or "module.billing."
        self.inputs = inputs  # variable name -> (Expr, parent Module)
        self.tfvars = tfvars
        self.variables: dict[str, Block] = {}
        self.locals: dict[str, Attribute] = {}
        self.outputs: dict[str, Attribute] = {}
        self.calls: dict[str, Block] = {}
        self.children: dict[str, Module | None] = {}
        self.resources: dict[str, Resource] = {}  # "type.name" -> managed resource
        self.data: dict[str, Resource] = {}  # "type.name" -> data source
        self._values: dict[tuple[str, str], Value] = {}
        self._busy: set[tuple[str, str]] = set()
        self.evaluator = Evaluator(self, unit.budget)
        self.call_files: dict[str, str] = {}  # module call name -> the file that holds it
        for hcl in files:
            self._collect(hcl)
        for name, block in self.calls.items():
            self.children[name] = self._child(name, block, chain)

    def _collect(self, hcl: HclFile) -> None:
        for block in hcl.body.blocks:
            if block.type == "resource" and len(block.labels) == 2:
                key = ".".join(block.labels)
                resource = Resource(self.prefix + key, block.labels[0], block.labels[1], block, hcl.path, self)
                self.resources.setdefault(key, resource)
                self.unit.resources.setdefault(resource.address, resource)
            elif block.type == "data" and len(block.labels) == 2:
                key = ".".join(block.labels)
                address = f"{self.prefix}data.{key}"
                self.data.setdefault(key, Resource(address, block.labels[0], block.labels[1], block, hcl.path, self, "data"))
            elif block.type == "variable" and block.labels:
                self.variables[block.labels[0]] = block
            elif block.type == "locals":
                self.locals.update(block.body.attributes)
            elif block.type == "output" and block.labels:
                attribute = block.body.attributes.get("value")
                if attribute is not None:
                    self.outputs[block.labels[0]] = attribute
            elif block.type == "module" and block.labels:
                self.calls[block.labels[0]] = block
                self.call_files[block.labels[0]] = hcl.path

    def _child(self, name: str, block: Block, chain: tuple[str, ...]) -> "Module | None":
        source = block.body.attributes.get("source")
        value = self.evaluator.eval(source.expr) if source is not None else Unknown("no source")
        if not (isinstance(value, Known) and isinstance(value.value, str)):
            return None
        if not value.value.startswith(("./", "../")):
            return None  # registry, git or URL: opaque
        directory = os.path.normpath(os.path.join(self.directory, value.value))
        refused = problem(directory, self.unit.root)
        if refused is not None:  # the author of the call chose the source: nothing is read there
            self.unit.errors.append(LoadError(
                self.call_files.get(name) or _file_of(self, block), block.line,
                f"module {name}: not read: {directory} is {refused} (the unit is not linted)"
            ))
            self.unit.incomplete = True
            return None
        real = os.path.realpath(directory)
        if real in chain or len(chain) > MAX_MODULE_DEPTH:
            self.unit.errors.append(LoadError(
                _file_of(self, block), block.line, f"module {name} includes itself (source {value.value})"
            ))
            return None
        if not os.path.isdir(directory):
            # one call's error: its outputs are unknown, as a module not loaded, and the
            # rest of the unit is linted
            self.unit.errors.append(LoadError(
                self.call_files.get(name) or _file_of(self, block), block.line,
                f"module {name}: no directory {value.value} (its outputs are unknown; the rest is linted)"
            ))
            self.unit.unread_calls.append((self, block))
            return None
        # Every instance is read and evaluated: a module calling another K times, and that
        # one another K times, ... would make K^D of them without a cap on the total.
        self.unit.budget.module(self.call_files.get(name, self.directory), block.line)
        files = _read_dir(self.unit, directory, root=False)
        inputs = {
            key: (attribute.expr, self)
            for key, attribute in block.body.attributes.items()
            if key not in ("source", "version", "count", "for_each", "providers", "depends_on")
        }
        attributes = block.body.attributes
        count = self.evaluator.resolved(self.evaluator.eval(attributes["count"].expr)) if "count" in attributes else None
        for_each = self.evaluator.eval(attributes["for_each"].expr) if "for_each" in attributes else None
        return Module(self.unit, directory, f"{self.prefix}module.{name}.", files, inputs, {}, chain + (real,),
                      self.multi_instance or several(count, for_each))

    # -- Scope ---------------------------------------------------------------
    def lookup(self, root: str, steps: tuple) -> Value:
        if root == "var":
            name, rest = _first_attr(steps)
            return access(self.variable(name), rest) if name else Unknown("var")
        if root == "local":
            name, rest = _first_attr(steps)
            return access(self.local(name), rest) if name else Unknown("local")
        if root == "module":
            return self._module_output(steps)
        if root == "data":
            return self._data(steps)
        if root == "path":
            return Known(self.directory)
        if root in ("count", "each", "self", "terraform"):
            return Unknown(f"{root} is not known here")
        return self._resource_ref(root, steps)

    def configured(self, ref: Ref) -> Value:
        resource = self.unit.resources.get(ref.address)
        if resource is None or not ref.attribute:
            return Unknown("known after apply")
        attribute = resource.block.body.attributes.get(ref.attribute)
        if attribute is None:
            return Unknown(f"{ref.address}.{ref.attribute} is known after apply")
        key = (ref.address, ref.attribute)
        if key in self.unit.configured:
            return self.unit.configured[key]
        if key in self.unit.resolving:
            return Unknown("reference cycle")
        self.unit.resolving.add(key)
        budget = self.unit.budget
        budget.enter()
        try:
            scope = instance_scope(resource)
            value = scope.evaluator.resolved(scope.evaluator.eval(attribute.expr))
        finally:
            budget.leave()
            self.unit.resolving.discard(key)
        self.unit.configured[key] = value
        return value

    def variable(self, name: str) -> Value:
        return self._memo("var", name, lambda: self._variable(name))

    def _variable(self, name: str) -> Value:
        block = self.variables.get(name)
        if block is None:
            return Unknown(f"variable {name} is not declared")
        detail = name if not self.prefix else f"{self.prefix}{name}"
        if name in self.tfvars:
            value = self.tfvars[name]
        elif name in self.inputs:
            expr, parent = self.inputs[name]
            value = parent.evaluator.eval(expr)
        elif "default" in block.body.attributes:
            value = _as_variable(self._constant(block.body.attributes["default"].expr), detail)
        else:
            return Unknown(f"variable {name} has no value")
        if _is_null(value) and "default" in block.body.attributes and _not_nullable(block, self.unit.budget):
            # `nullable = false`: a null from the caller or tfvars means the default.
            value = _as_variable(self._constant(block.body.attributes["default"].expr), detail)
        type_attr = block.body.attributes.get("type")
        if type_attr is not None:
            value = _typed(value, type_attr.expr, self.unit.budget)
        return value

    def _constant(self, expr: Expr) -> Value:
        """A value that may not refer to anything (a variable default)."""
        return Evaluator(_NoScope(), self.unit.budget).eval(expr)

    def local(self, name: str) -> Value:
        attribute = self.locals.get(name)
        if attribute is None:
            return Unknown(f"local {name} is not declared")
        return self._memo("local", name, lambda: self.evaluator.eval(attribute.expr))

    def output(self, name: str) -> Value:
        attribute = self.outputs.get(name)
        if attribute is None:
            return Unknown(f"output {name} is not declared")
        return self._memo("output", name, lambda: self.evaluator.eval(attribute.expr))

    def _memo(self, kind: str, name: str, compute) -> Value:
        key = (kind, name)
        if key in self._values:
            return self._values[key]
        if key in self._busy:
            return Unknown(f"{kind} {name} refers to itself")
        self._busy.add(key)
        budget = self.unit.budget
        budget.enter()
        try:
            value = compute()
        finally:
            budget.leave()
            self._busy.discard(key)
        self._values[key] = value
        return value

    def _module_output(self, steps: tuple) -> Value:
        name, rest = _first_attr(steps)
        if name not in self.calls:
            return Unknown(f"module {name} is not declared")
        rest = _skip_indexes(rest)
        child = self.children.get(name)
        output, rest = _first_attr(rest)
        if child is None:
            return Unknown(f"module.{name}.{output} is an output of a module we do not load")
        if not output:
            return Unknown(f"module.{name}")
        return access(child.output(output), rest)

    def _data(self, steps: tuple) -> Value:
        kind, rest = _first_attr(steps)
        name, rest = _first_attr(rest)
        resource = self.data.get(f"{kind}.{name}")
        if resource is None:
            return Unknown(f"data.{kind}.{name} is not declared")
        attribute, rest = _first_attr(_skip_indexes(rest))
        if kind == "aws_iam_policy_document" and attribute in ("json", "minified_json"):
            # Once per document: documents may name other documents' JSON, many times.
            return self._memo("data", f"{kind}.{name}", lambda: self._document_json(resource))
        return Unknown(f"data.{kind}.{name}.{attribute} is read at plan time")

    def _document_json(self, resource: Resource) -> Value:
        document = policy_document(resource)
        if not isinstance(document, Known):
            return document
        try:
            return Known(encode_json(document.value, self.unit.budget))
        except (EvalError, TooLarge) as exc:
            return Unknown(str(exc))

    def _resource_ref(self, root: str, steps: tuple) -> Value:
        name, rest = _first_attr(steps)
        resource = self.resources.get(f"{root}.{name}")
        if resource is None:
            return Unknown(f"{root}.{name} is not declared in this configuration")
        attribute, rest = _first_attr(_skip_indexes(rest))
        if rest:
            return Unknown(f"{resource.address}.{attribute}... is known after apply")
        return Known(Ref(resource.address, attribute or ""))


class Instance:
    """The scope of one resource block: ``count.index`` and ``each`` are known there."""

    def __init__(self, module: Module, count: Value | None, for_each: Value | None):
        self.module = module
        self.count = count
        self.for_each = for_each
        self.evaluator = Evaluator(self, module.unit.budget)

    def lookup(self, root: str, steps: tuple) -> Value:
        if root == "count" and self.count is not None:
            name, rest = _first_attr(steps)
            number = self.count.value if isinstance(self.count, Known) else None
            if name == "index" and isinstance(number, int) and 0 < number <= 16:
                return choice([Known(i) for i in range(number)])
            return Unknown("count.index")
        if root == "each" and self.for_each is not None:
            name, rest = _first_attr(steps)
            items = _instances(self.for_each)
            if items is None or name not in ("key", "value"):
                return Unknown("each")
            picked = [Known(k if name == "key" else v) for k, v in items]
            return access(choice(picked), rest)
        return self.module.lookup(root, steps)

    def configured(self, ref: Ref) -> Value:
        return self.module.configured(ref)


def instance_scope(resource: Resource) -> Instance:
    attributes = resource.block.body.attributes
    count = resource.module.evaluator.resolved(resource.module.evaluator.eval(attributes["count"].expr)) if "count" in attributes else None
    for_each = resource.module.evaluator.eval(attributes["for_each"].expr) if "for_each" in attributes else None
    return Instance(resource.module, count, for_each)


def several(count: Value | None, for_each: Value | None) -> bool:
    """``count`` / ``for_each`` may make more than one instance."""
    if count is not None:
        return not (isinstance(count, Known) and count.value in (0, 1))
    if for_each is not None:
        items = for_each.value if isinstance(for_each, Known) else None
        return not (isinstance(items, (dict, list)) and len(items) <= 1)
    return False


def exists(resource: Resource) -> bool:
    """False when ``count`` is provably 0 or ``for_each`` provably empty."""
    scope = instance_scope(resource)
    if isinstance(scope.count, Known) and scope.count.value == 0:
        return False
    return not (isinstance(scope.for_each, Known) and scope.for_each.value in ([], {}))


def _instances(for_each: Value) -> list | None:
    if not isinstance(for_each, Known):
        return None
    value = for_each.value
    if isinstance(value, dict):
        items = list(value.items())
    elif isinstance(value, list) and all(isinstance(v, (str, Ref)) for v in value):
        items = [(v, v) for v in value]  # a set: each.key is each.value
    else:
        return None
    if not items or len(items) > 16 or any(isinstance(v, Hole) for _, v in items):
        return None
    return items


def _is_null(value: Value) -> bool:
    options = candidates(value)
    return options is not None and all(o.value is None for o in options)


def _not_nullable(block: Block, budget: Budget) -> bool:
    attribute = block.body.attributes.get("nullable")
    if attribute is None:
        return False
    value = Evaluator(_NoScope(), budget).eval(attribute.expr)
    return isinstance(value, Known) and value.value is False


def _first_attr(steps: tuple) -> tuple[str | None, tuple]:
    if steps and steps[0][0] == "attr":
        return steps[0][1], steps[1:]
    return None, steps


def _skip_indexes(steps: tuple) -> tuple:
    while steps and steps[0][0] == "index":
        steps = steps[1:]
    return steps


def _file_of(module: Module, block: Block) -> str:
    for resource in module.resources.values():
        if resource.block is block:
            return resource.file
    return module.directory


# -- variable types --------------------------------------------------------------

def _typed(value: Value, type_expr: Expr, budget: Budget) -> Value:
    """Apply ``optional()`` defaults of an object type; a missing optional without default is unknown."""
    options = candidates(value)
    if options is None:
        return value
    return choice([Known(_apply_type(o.value, type_expr, 0, budget), o.origin, o.detail) for o in options])


def _apply_type(payload, type_expr: Expr, depth: int, budget: Budget):
    if depth > 32 or not isinstance(type_expr, Call) or payload is None:
        return payload
    budget.step()
    if type_expr.name == "optional" and type_expr.args:
        return _apply_type(payload, type_expr.args[0], depth + 1, budget)
    if type_expr.name == "object" and type_expr.args and isinstance(type_expr.args[0], ObjectExpr):
        if not isinstance(payload, dict):
            return payload
        out = dict(payload)
        for key_expr, attr_type in type_expr.args[0].items:
            key = getattr(key_expr, "value", None)
            if not isinstance(key, str):
                continue
            if key in out:
                out[key] = _apply_type(out[key], attr_type, depth + 1, budget)
            elif isinstance(attr_type, Call) and attr_type.name == "optional" and len(attr_type.args) >= 2:
                out[key] = embed(Evaluator(_NoScope(), budget).eval(attr_type.args[1]))
            else:
                out[key] = Hole(f"attribute {key} is optional without a default")
        return out
    if type_expr.name in ("list", "set") and type_expr.args and isinstance(payload, list):
        return [_apply_type(item, type_expr.args[0], depth + 1, budget) for item in payload]
    if type_expr.name == "map" and type_expr.args and isinstance(payload, dict):
        return {k: _apply_type(v, type_expr.args[0], depth + 1, budget) for k, v in payload.items()}
    return payload


# -- aws_iam_policy_document -------------------------------------------------------

_MERGED_DOCUMENTS = ("source_policy_documents", "override_policy_documents", "source_json", "override_json")


def policy_document(resource: Resource) -> Value:
    """The policy an ``aws_iam_policy_document`` renders, with references kept as atoms."""
    body = resource.block.body
    if any(name in body.attributes for name in _MERGED_DOCUMENTS) or body.blocks_of("dynamic"):
        return Unknown("policy document merges other documents or uses dynamic blocks")
    evaluator = instance_scope(resource).evaluator

    def attr(block: Block, name: str):
        attribute = block.body.attributes.get(name)
        return embed(evaluator.eval(attribute.expr)) if attribute is not None else None

    statements = []
    for block in body.blocks_of("statement"):
        if block.body.blocks_of("dynamic"):
            return Unknown("statement with dynamic blocks")
        statement: dict = {}
        sid = attr(block, "sid")
        if sid is not None:
            statement["Sid"] = sid
        effect = attr(block, "effect")
        statement["Effect"] = effect if effect is not None else "Allow"
        for name, key in (("actions", "Action"), ("not_actions", "NotAction"),
                          ("resources", "Resource"), ("not_resources", "NotResource")):
            value = attr(block, name)
            if value is not None:
                statement[key] = value
        for name, key in (("principals", "Principal"), ("not_principals", "NotPrincipal")):
            principals = _principals(block.body.blocks_of(name), attr)
            if principals is not None:
                statement[key] = principals
        conditions: dict = {}
        for condition in block.body.blocks_of("condition"):
            test, variable = attr(condition, "test"), attr(condition, "variable")
            if not isinstance(test, str) or not isinstance(variable, str):
                return Unknown("condition with unknown test or variable")
            conditions.setdefault(test, {})[variable] = attr(condition, "values")
        if conditions:
            statement["Condition"] = conditions
        statements.append(statement)
    version = attr(resource.block, "version")
    return Known({"Version": version if version is not None else "2012-10-17", "Statement": statements})


def _principals(blocks: list[Block], attr):
    if not blocks:
        return None
    out: dict = {}
    for block in blocks:
        kind, identifiers = attr(block, "type"), attr(block, "identifiers")
        if kind == "*":
            return "*"
        if not isinstance(kind, str):
            return Hole("principal type is not known")
        if isinstance(identifiers, list):
            out.setdefault(kind, []).extend(identifiers)
        else:
            out[kind] = identifiers if identifiers is not None else []
    return out
