"""CloudFormation intrinsic functions, evaluated as far as the template proves them.

Two questions are asked of a property:

- ``value(x)``: what is it? A literal, a parameter default, a mapping entry, a joined
  string of known parts, or a conditional choice is known; ``Fn::ImportValue``, a
  parameter without default, a ``GetAtt`` of a runtime attribute are unknown.
- ``target(x)``: which resource does it point at? ``Ref`` and ``Fn::GetAtt`` of a
  resource, a ``Fn::Sub``/``Fn::Join`` that names one resource, or a literal ARN, URL or
  name that matches a resource of the template. Anything else is an external node.

When units are linked (``loaders/application.py``) the same two questions cross files:
``Fn::ImportValue`` of a name another unit of the run exports resolves to the exported
resource, a nested stack's parameters are the values and references its parent passes
(``bound``), and ``!GetAtt Child.Outputs.X`` in the parent is what the child's output
``X`` names (``nested``). Node ids are the unit's logical IDs behind its ``namespace``
(empty for a unit linted alone), so two linked stacks that both have ``Queue`` stay apart.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from fanout_lint.loaders.links.linker import Linker
from fanout_lint.loaders.names import named_resource
from fanout_lint.loaders.parsing.budget import Budget, TooLarge
from fanout_lint.model.nodes import Loc
from fanout_lint.model.values import (
    PARAMETER,
    PASSED,
    Known,
    OneOf,
    Unknown,
    Value,
    choice,
    combine,
)

if TYPE_CHECKING:
    from typing import Any, Iterable

NO_VALUE = "AWS::NoValue"

# Intrinsics whose value is remembered per node: they combine other values, so a template
# whose YAML aliases share one node many times would otherwise evaluate it many times.
_MEMOISED = frozenset({"Fn::If", "Fn::Sub", "Fn::Join", "Fn::FindInMap", "Fn::Select"})


def sub_references(text: str, literal_too: bool = False) -> list[tuple[int, int, str]]:
    """The ``${name}`` spans of a ``Fn::Sub`` string, left to right: (start, end, name).

    ``${!Literal}`` and ``${}`` are not references (``literal_too`` keeps the first). The
    same spans as the pattern ``\\$\\{([^}!][^}]*)\\}``, in one pass: a regex would scan
    from every ``${`` to the end of a string that has no ``}``, quadratic in its length.
    The next ``}`` is remembered, so text between two ``${`` is read once.
    """
    spans: list[tuple[int, int, str]] = []
    find = text.find
    position = 0
    close = -1
    while True:
        start = find("${", position)
        if start < 0:
            return spans
        if close < start + 2:
            close = find("}", start + 2)
            if close < 0:
                return spans  # no later ${ can close either
        if close == start + 2 or (text[start + 2] == "!" and not literal_too):
            position = start + 1
            continue
        spans.append((start, close + 1, text[start + 2:close]))
        position = close + 1


class _NotText(Exception):
    """A structured value (list, mapping) where a string part is expected."""


def _piece(value: Any) -> str:
    if isinstance(value, (dict, list)):
        raise _NotText
    return str(value)


class _Absent:
    """The value of ``!Ref AWS::NoValue``: the property is not set."""


ABSENT = _Absent()


class _Node(str):
    """A node id that ``_target`` resolved (a resource of this unit or of a linked one),
    as opposed to the label of something outside."""

    __slots__ = ()


@dataclass(eq=False, repr=False)
class Bound:
    """A nested stack's parameter as its parent passes it: the parent's expression,
    evaluated by the parent (a ``!GetAtt Queue.Arn`` passed in names the parent's queue)."""

    name: str  # the child's parameter
    raw: Any  # what the parent's ``Parameters`` writes for it
    parent: "Intrinsics"
    known: bool = True  # False: the parent hides its Parameters (an intrinsic in their place)

    def value(self, depth: int):
        if not self.known:
            return Unknown(f"the parent stack's Parameters hide parameter {self.name}")
        value = self.parent._value(self.raw, depth)
        if value is ABSENT or isinstance(value, Unknown):
            return value
        if isinstance(value, tuple):  # a condition may pass AWS::NoValue
            return Unknown(f"the parent stack may leave parameter {self.name} out")
        # The child's setting is written where the child reads the parameter; the value
        # rests on the parent's parameter default when it is one, else on the parent.
        options = [o if o.origin == PARAMETER else Known(o.value, PASSED, self.name)
                   for o in (value.options if isinstance(value, OneOf) else (value,))]
        return options[0] if len(options) == 1 else OneOf(tuple(options))

    def target(self, kind: str, depth: int):
        return self.parent.resolve(self.raw, kind, depth) if self.known else None


@dataclass(eq=False, repr=False)
class ChildStack:
    """A nested stack's template as its parent sees it: what each output names."""

    intrinsics: "Intrinsics"
    outputs: dict

    def output(self, name: str | None, kind: str, depth: int) -> "_Node | None":
        entry = self.outputs.get(name) if name else None
        if not isinstance(entry, dict) or "Value" not in entry:
            return None
        found = self.intrinsics.resolve_node(entry["Value"], kind, depth)
        return _Node(found) if found is not None else None


# Pseudo parameters that name things the same way in every stack of one account and
# Region (exports and imports only work within one): stand-ins, for matching names of
# exports and imports against each other only, never a value a rule sees.
NAMING_PSEUDO = {
    "AWS::Partition": "aws",
    "AWS::Region": "<region>",
    "AWS::AccountId": "<account>",
    "AWS::URLSuffix": "amazonaws.com",
}


@dataclass(eq=False, repr=False)
class Intrinsics:
    """The evaluator of one template's intrinsic functions, with its memos."""

    file: str
    parameters: dict[str, Any]  # name -> parameter declaration (a mapping)
    mappings: dict[str, Any]
    resource_types: dict[str, str]  # logical id -> Type
    # literal names, aliases and external nodes, as for every format
    linker: Linker = field(default_factory=lambda: Linker({}))
    budget: Budget = field(default_factory=Budget)
    # (id(node), depth) -> (node, value); the node is kept so its id cannot be reused
    _memo: dict = field(default_factory=dict)
    _naming: Any = field(default=None, repr=False)  # the evaluator of ``link_name``, made once
    # Prefix of the unit's node ids when it is linked with others ("" alone).
    namespace: str = ""
    # Parameters a parent stack passes to this nested stack: name -> Bound.
    bound: dict = field(default_factory=dict)
    # Logical id of an AWS::CloudFormation::Stack -> the loaded child (``ChildStack``).
    nested: dict = field(default_factory=dict)
    # The exports of the application (``exports.Exports``), when the unit is linked.
    exports: Any = None
    # Pseudo parameters known as text, only for the names of exports and imports.
    pseudo: dict = field(default_factory=dict)
    # The Condition of the nested stack resource that creates this stack, as its parent
    # names it: every resource here exists only when it holds.
    stack_condition: str | None = None

    def condition_of(self, name: str | None) -> str | None:
        """A resource's Condition as the graph names it. Linked stacks may each have an
        ``IsProd`` of their own, so their names are namespaced: rules compare them by name."""
        own = self.namespace + name if name and self.namespace else name
        if self.stack_condition is None:
            return own
        return self.stack_condition if own is None else f"{self.stack_condition} & {own}"

    def node_id(self, logical_id: str) -> str:
        """The node a resource of this unit is (its function, for a Lambda alias)."""
        return self.linker.internal(self.namespace + logical_id if self.namespace else logical_id)

    # -- values ------------------------------------------------------------
    def value(self, node: Any, default: Value | None = None) -> Value:
        """The value of a property; ``default`` when it is absent or AWS::NoValue."""
        if node is None or node is ABSENT:
            return default if default is not None else Known(None)
        if not isinstance(node, dict):  # a literal (most properties): _value would say the same
            return Known(node)
        result = self._value(node, 0)
        if result is ABSENT:
            return default if default is not None else Known(None)
        if isinstance(result, tuple):  # a conditional with an AWS::NoValue branch
            options: list[Value] = []
            for option in result:
                if option is ABSENT:
                    options.append(default if default is not None else Known(None))
                else:
                    options.append(option)
            return choice(options)
        return result

    def _value(self, node: Any, depth: int):
        if depth > 50:
            return Unknown("expression nested too deeply")
        if isinstance(node, dict):
            if len(node) != 1:
                return Known(node)
            (key, arg), = node.items()
            if key == "Ref":
                return self._ref_value(arg, depth)
            if key in _MEMOISED:
                memo_key = (id(node), depth)
                hit = self._memo.get(memo_key)
                if hit is not None:
                    return hit[1]
                self.budget.step()
                result = self._combined(key, arg, depth)
                self._memo[memo_key] = (node, result)
                return result
            if key.startswith("Fn::") or key == "Condition":
                return Unknown(f"{key} is not evaluated")
            return Known(node)
        if isinstance(node, list):
            return Known(node)
        return Known(node)

    def _combined(self, key: str, arg: Any, depth: int):
        if key == "Fn::If":
            if not isinstance(arg, list) or len(arg) != 3:
                return Unknown("malformed Fn::If")
            branches = [self._value(arg[1], depth + 1), self._value(arg[2], depth + 1)]
            if any(b is ABSENT for b in branches):
                return tuple(branches)
            return choice([b if not isinstance(b, tuple) else Unknown("nested") for b in branches])
        if key == "Fn::Sub":
            return self._sub_value(arg, depth)
        if key == "Fn::Join":
            return self._join_value(arg, depth)
        if key == "Fn::FindInMap":
            return self._find_in_map(arg, depth)
        return self._select(arg, depth)

    def _ref_value(self, name: Any, depth: int = 0):
        if not isinstance(name, str):
            return Unknown("malformed Ref")
        if name == NO_VALUE:
            return ABSENT
        if name in self.pseudo:
            return Known(self.pseudo[name])
        if name in self.bound:
            passed = self.bound[name].value(depth + 1)
            if passed is not ABSENT:
                return passed
            # AWS::NoValue passed: CloudFormation leaves the parameter out, so its default holds
        if name in self.parameters:
            declaration = self.parameters[name]
            if isinstance(declaration, dict) and "Default" in declaration:
                default = declaration["Default"]
                if isinstance(default, (dict, list)):
                    return Unknown(f"parameter {name} has a structured default")
                return Known(default, PARAMETER, name)
            return Unknown(f"parameter {name} has no default")
        if name in self.resource_types:
            return Unknown(f"Ref {name} is known only at deploy time")
        return Unknown(f"Ref {name}")

    def _sub_value(self, arg: Any, depth: int) -> Value:
        if isinstance(arg, list) and len(arg) == 2 and isinstance(arg[1], dict):
            text, variables = arg[0], arg[1]
        else:
            text, variables = arg, {}
        if not isinstance(text, str):
            return Unknown("malformed Fn::Sub")
        parts: list[Value] = []
        last = 0
        for start, end, raw_name in sub_references(text):
            parts.append(Known(text[last:start]))
            name = raw_name.strip()
            if name in variables:
                part = self._value(variables[name], depth + 1)
            elif "." in name:
                part = Unknown(f"${{{name}}} is known only at deploy time")
            else:
                part = self._ref_value(name, depth + 1)
            if part is ABSENT or isinstance(part, tuple):
                return Unknown("conditional part in Fn::Sub")
            parts.append(part)
            last = end
        parts.append(Known(text[last:].replace("${!", "${")))
        return self._joined(parts, "", "Fn::Sub")

    def _join_value(self, arg: Any, depth: int) -> Value:
        if not (isinstance(arg, list) and len(arg) == 2 and isinstance(arg[0], str)):
            return Unknown("malformed Fn::Join")
        items = arg[1]
        if isinstance(items, dict):
            items_value = self._value(items, depth + 1)
            if not isinstance(items_value, Known) or not isinstance(items_value.value, list):
                return Unknown("Fn::Join of an unknown list")
            items = items_value.value
        if not isinstance(items, list):
            return Unknown("malformed Fn::Join")
        parts = []
        for item in items:
            part = self._value(item, depth + 1)
            if part is ABSENT or isinstance(part, tuple):
                return Unknown("conditional part in Fn::Join")
            parts.append(part)
        return self._joined(parts, arg[0], "Fn::Join")

    def _joined(self, parts: list[Value], separator: str, function: str) -> Value:
        """The parts' text joined; unknown past the string limit or for a structured part."""
        try:
            return combine(parts, lambda values: self.budget.join(separator, map(_piece, values)))
        except TooLarge as exc:
            return Unknown(f"{function}: {exc}")
        except _NotText:
            return Unknown(f"{function} of a list or mapping")

    def _find_in_map(self, arg: Any, depth: int) -> Value:
        if not isinstance(arg, list) or len(arg) < 3:
            return Unknown("malformed Fn::FindInMap")
        keys = []
        for item in arg[:3]:
            part = self._value(item, depth + 1)
            if not isinstance(part, Known) or isinstance(part.value, (dict, list)):
                return Unknown("Fn::FindInMap with an unknown key")
            keys.append(part)
        table = self.mappings.get(keys[0].value) if isinstance(self.mappings, dict) else None
        row = table.get(keys[1].value) if isinstance(table, dict) else None
        if not isinstance(row, dict) or keys[2].value not in row:
            return Unknown("Fn::FindInMap entry not found")
        found = row[keys[2].value]
        origin = next((k for k in keys if k.origin == PARAMETER), None)
        if origin is not None:
            return Known(found, PARAMETER, origin.detail)
        return Known(found)

    def _select(self, arg: Any, depth: int) -> Value:
        if not isinstance(arg, list) or len(arg) != 2:
            return Unknown("malformed Fn::Select")
        index = self._value(arg[0], depth + 1)
        items = arg[1]
        if isinstance(items, dict):
            items_value = self._value(items, depth + 1)
            items = items_value.value if isinstance(items_value, Known) else None
        if not isinstance(index, Known) or not isinstance(items, list):
            return Unknown("Fn::Select of unknown values")
        try:
            return self._value(items[int(index.value)], depth + 1)
        except (ValueError, TypeError, IndexError):
            return Unknown("Fn::Select out of range")

    # -- references ----------------------------------------------------------
    def target(self, node: Any, kind: str, loc: Loc) -> str | None:
        """The node id ``node`` points at, an External node id, or None when absent.

        ``kind`` (queue, topic, function, any) says how a literal name is read.
        """
        if node is None:
            return None
        found = self._target(node, kind, 0)
        if found is ABSENT:
            return None
        if isinstance(found, _Node):
            return str(found)
        if isinstance(found, str) and found in self.resource_types:  # a bare logical ID
            return self.node_id(found)
        return self.linker.external(found or _describe(node), loc)

    def internal_target(self, node: Any, kind: str) -> str | None:
        """The node id ``node`` points at when that is a resource of the unit (or of a
        linked unit), else None.

        Unlike ``target``, needs no location: most references are internal, and a location
        costs a lookup (and, for JSON, a line count) that only an External node uses.
        """
        if node is None:
            return None
        found = self._target(node, kind, 0)
        if isinstance(found, _Node):
            return str(found)
        if isinstance(found, str) and found in self.resource_types:
            return self.node_id(found)
        return None

    def _target(self, node: Any, kind: str, depth: int):
        """A node id (``_Node``), ABSENT, or None/label text when the target is outside."""
        if depth > 50:
            return None
        self.budget.step()
        if isinstance(node, dict) and len(node) == 1:
            (key, arg), = node.items()
            if key == "Ref":
                if arg == NO_VALUE:
                    return ABSENT
                if isinstance(arg, str) and arg in self.resource_types:
                    return _Node(self.node_id(arg))
                if isinstance(arg, str) and arg in self.bound:
                    passed = self.bound[arg].target(kind, depth + 1)
                    if passed is not ABSENT and passed is not None:
                        return passed
                if isinstance(arg, str) and arg in self.parameters:
                    value = self._ref_value(arg, depth)
                    if isinstance(value, Known) and isinstance(value.value, str):
                        return self._literal(value.value, kind) or f"parameter {arg}"
                    return f"parameter {arg}"
                return None
            if key == "Fn::GetAtt":
                resource = _getatt_resource(arg)
                if resource in self.nested:
                    output = self.nested[resource].output(_getatt_output(arg), kind, depth + 1)
                    if output is not None:
                        return output
                if resource in self.resource_types:
                    return _Node(self.node_id(resource))
                return None
            if key in ("Fn::Sub", "Fn::Join"):
                named = self._resources_named_in(node)
                if len(named) == 1:
                    return _Node(self.node_id(named.pop()))
                value = self._value(node, depth + 1)
                if isinstance(value, Known) and isinstance(value.value, str):
                    return self._literal(value.value, kind)
                text = pseudo_text(node)
                return self._literal(text, kind) if text is not None else None
            if key == "Fn::If" and isinstance(arg, list) and len(arg) == 3:
                branches = {self._target(arg[1], kind, depth + 1), self._target(arg[2], kind, depth + 1)}
                if len(branches) == 1:
                    return branches.pop()
                return "conditional reference"
            if key == "Fn::ImportValue":
                if self.exports is not None:
                    found = self.exports.target(self, self.link_name(arg), kind, depth + 1)
                    if found is not None:
                        return _Node(found)
                name = self._value(arg, depth + 1)
                if isinstance(name, Known):
                    return f"import {name.value}"
                return "import"
            value = self._value(node, depth + 1)
            if isinstance(value, Known) and isinstance(value.value, str):
                return self._literal(value.value, kind)
            return None
        if isinstance(node, str):
            return self._literal(node, kind) or node
        return None

    def resolve(self, node: Any, kind: str, depth: int):
        """What ``node`` names, as ``_target`` says it (a node id, a label, ABSENT or None),
        for a nested stack reading a parameter its parent passes."""
        return self._target(node, kind, depth)

    def resolve_node(self, node: Any, kind: str, depth: int) -> str | None:
        """The node ``node`` names, when it is a resource of a linked unit, else None: for
        an importer reading an export, a parent reading a nested stack's output."""
        found = self._target(node, kind, depth)
        return str(found) if isinstance(found, _Node) else None

    # -- names of exports and imports ------------------------------------------
    def link_name(self, node: Any) -> str | None:
        """The export or import name ``node`` evaluates to, with pseudo parameters as
        stand-ins (see ``NAMING_PSEUDO``; ``AWS::StackName`` when the stack's name is
        known), or None when the template does not prove one name."""
        naming = self._naming
        if naming is None:
            naming = self._naming = replace(self, pseudo={**NAMING_PSEUDO, **self.pseudo}, _memo={})
        value = naming.value(node)
        if isinstance(value, Known) and isinstance(value.value, str) and value.value:
            return value.value
        return None

    def _literal(self, text: str, kind: str) -> str | None:
        """A literal ARN, queue URL or name that names a resource of the template."""
        found = named_resource(text, kind, self.linker.names)
        return _Node(self.linker.internal(found)) if found is not None else None

    def _resources_named_in(self, node: Any) -> set[str]:
        """Resources a Fn::Sub or Fn::Join refers to (pseudo parameters aside)."""
        found: set[str] = set()
        stack = [(node, 0)]
        while stack:
            item, depth = stack.pop()
            self.budget.step()
            if depth > 20:
                continue
            if isinstance(item, dict):
                if len(item) == 1:
                    (key, arg), = item.items()
                    if key == "Ref" and isinstance(arg, str) and arg in self.resource_types:
                        found.add(arg)
                        continue
                    if key == "Fn::GetAtt":
                        resource = _getatt_resource(arg)
                        if resource in self.resource_types:
                            found.add(resource)
                        continue
                    if key == "Fn::Sub":
                        text = arg[0] if isinstance(arg, list) and arg else arg
                        if isinstance(text, str):
                            for _, _, var in sub_references(text):
                                name = var.split(".")[0].strip()
                                if name in self.resource_types:
                                    found.add(name)
                        if isinstance(arg, list) and len(arg) == 2:
                            stack.append((arg[1], depth + 1))
                        continue
                stack.extend((v, depth + 1) for v in item.values())
            elif isinstance(item, list):
                stack.extend((v, depth + 1) for v in item)
        return found


# Pseudo parameters have one value per stack: an ARN, URL or name written with them names
# the resource whose name is written the same way. Tokens without colons or slashes keep
# ARNs and URLs parseable; "<" cannot occur in a real name.
_PSEUDO_TOKENS = {
    "AWS::Partition": "aws",
    "AWS::Region": "region",
    "AWS::AccountId": "account",
    "AWS::URLSuffix": "amazonaws.com",
    "AWS::StackName": "<stack-name>",
}


def pseudo_text(node: Any) -> str | None:
    """A ``!Sub`` string whose only variables are pseudo parameters, with stand-ins for them.

    Only for matching names and ARNs against each other, never a value a rule sees.
    """
    if not isinstance(node, dict) or len(node) != 1 or not isinstance(node.get("Fn::Sub"), str):
        return None
    text = node["Fn::Sub"]
    spans = sub_references(text)
    if any(name.strip() not in _PSEUDO_TOKENS for _, _, name in spans):
        return None
    pieces = []
    last = 0
    for start, end, name in spans:
        pieces.append(text[last:start])
        pieces.append(_PSEUDO_TOKENS[name.strip()])
        last = end
    pieces.append(text[last:])
    return "".join(pieces).replace("${!", "${")


def _getatt_output(arg: Any) -> str | None:
    """``X`` of ``!GetAtt Stack.Outputs.X`` (either form), else None."""
    if isinstance(arg, list) and len(arg) == 2 and isinstance(arg[1], str):
        attribute = arg[1]
    elif isinstance(arg, str) and "." in arg:
        attribute = arg.split(".", 1)[1]
    else:
        return None
    return attribute[len("Outputs."):] if attribute.startswith("Outputs.") and len(attribute) > 8 else None


def _getatt_resource(arg: Any) -> str | None:
    if isinstance(arg, list) and arg and isinstance(arg[0], str):
        return arg[0]
    if isinstance(arg, str):
        return arg.split(".")[0]
    return None


def _describe(node: Any) -> str:
    if isinstance(node, dict) and len(node) == 1:
        (key, arg), = node.items()
        return f"{key.replace('Fn::', '')} {arg if isinstance(arg, str) else '...'}"
    return short_text(node, 80)


def short_text(node: Any, limit: int) -> str:
    """``str(node)[:limit]``, made without rendering the rest of a large value.

    A label needs the first few characters; ``str`` of a mapping whose YAML aliases share
    large strings many times would be gigabytes. Strings longer than the limit inside a
    container are shown by their beginning.
    """
    if not isinstance(node, (dict, list)):
        return (node if isinstance(node, str) else _scalar_text(node))[:limit]
    out: list[str] = []
    size = 0
    stack: list[Iterable] = [_pieces(node, limit)]
    while stack and size < limit:
        piece = next(stack[-1], None)
        if piece is None:
            stack.pop()
        elif isinstance(piece, str):
            out.append(piece)
            size += len(piece)
        else:
            stack.append(piece)
    return "".join(out)[:limit]


def _pieces(node: Any, limit: int):
    """The text of a container in pieces: strings, and iterators for nested containers."""
    opening, closing = ("{", "}") if isinstance(node, dict) else ("[", "]")
    yield opening
    items = node.items() if isinstance(node, dict) else ((None, item) for item in node)
    for index, (key, item) in enumerate(items):
        if index:
            yield ", "
        if isinstance(node, dict):
            yield _scalar_text(key, limit, quoted=True)
            yield ": "
        if isinstance(item, (dict, list)):
            yield iter(_pieces(item, limit))
        else:
            yield _scalar_text(item, limit, quoted=True)
    yield closing


def _scalar_text(value: Any, limit: int = 80, quoted: bool = False) -> str:
    if isinstance(value, str):
        return repr(value if len(value) <= limit else value[:limit]) if quoted else value
    try:
        return repr(value)
    except ValueError:  # an integer too long to print
        return "<number>"
