"""Terraform expressions evaluated as far as the configuration proves them.

Values are the model's ``Known`` / ``OneOf`` / ``Unknown``. Inside a known value (an
object, a list, a JSON string) two kinds of atoms may stand where plan-time knowledge
ends:

- ``Ref``: an attribute of a resource of the unit (``aws_sqs_queue.dlq.arn``). Its value
  exists only after apply, but it says which resource it names, which is what edges need.
- ``Hole``: a part we cannot know (a variable without value, a function we do not
  evaluate). An object with a hole is still known in its other members.

A string built from text and atoms is ``Interpolated``. ``jsonencode`` and heredocs keep
atoms as placeholders, and ``decode_json`` puts them back, so a redrive policy written
either way names its dead-letter queue.

The evaluator asks a ``Scope`` for names (``var``, ``local``, ``module``, resources); the
Terraform loader provides it. It charges the unit's ``Budget`` one step per expression
and for every value it walks or builds; a string, number or collection past the budget's
size limits is unknown.
"""

from __future__ import annotations

import json
import operator
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from fanout_lint.loaders.parsing.budget import Budget, TooLarge
from fanout_lint.loaders.terraform.hcl.tree import (
    Binary,
    Call,
    Conditional,
    Expr,
    GetAttr,
    Index,
    Literal,
    Name,
    ObjectExpr,
    Opaque,
    Template,
    TupleExpr,
    Unary,
)
from fanout_lint.model.record import ValueRecord
from fanout_lint.model.values import LITERAL, Known, OneOf, Unknown, Value, candidates, choice, combine

if TYPE_CHECKING:
    from typing import Any, Callable

MAX_DEPTH = 64
MAX_ITEMS = 16  # count / for_each instances tracked as a choice
MAX_LABEL = 200  # characters of an ARN template kept in an external node's label
MAX_NESTING = 256  # of a value walked (encoded, compared, restored): deeper is unknown


@dataclass(eq=False, repr=False)
class Ref(ValueRecord):
    """A reference to a resource of the unit, or to one of its attributes."""

    address: str  # resource address without instance key: aws_sqs_queue.q, module.m.aws_sqs_queue.q
    attribute: str  # arn, id, url, name, function_name, ...; "" for the whole resource


@dataclass(eq=False, repr=False)
class Hole(ValueRecord):
    """A part of a value the configuration does not give (a variable without default, ...)."""

    reason: str


@dataclass(eq=False, repr=False)
class Interpolated(ValueRecord):
    """A string made of text and atoms; its text is known only in part."""

    parts: tuple  # of str | Ref | Hole


ATOMS = (Ref, Hole, Interpolated)


class Scope(Protocol):
    def lookup(self, root: str, steps: tuple) -> Value:
        """The value of ``root`` followed by steps: ``("attr", name)`` or ``("index", Value)``."""

    def configured(self, ref: Ref) -> Value:
        """The value a resource's argument was given (``aws_lambda_function.f.timeout``)."""


class EvalError(Exception):
    """A function applied to values it does not accept: the result is unknown."""


class Evaluator:
    def __init__(self, scope: Scope, budget: Budget | None = None):
        self.scope = scope
        self.budget = budget if budget is not None else Budget()

    def eval(self, expr: Expr, depth: int = 0) -> Value:
        if depth > MAX_DEPTH:
            return Unknown("expression nested too deeply")
        self.budget.step()
        if isinstance(expr, Literal):
            return Known(expr.value)
        if isinstance(expr, Template):
            return self._template(expr, depth)
        if isinstance(expr, (Name, GetAttr, Index)):
            return self._traversal(expr, depth)
        if isinstance(expr, Conditional):
            return self._conditional(expr, depth)
        if isinstance(expr, Binary):
            return self._binary(expr, depth)
        if isinstance(expr, Unary):
            return self._unary(expr, depth)
        if isinstance(expr, TupleExpr):
            values = [self.eval(item, depth + 1) for item in expr.items]
            return Known([embed(v) for v in values], *_origin_of(values))
        if isinstance(expr, ObjectExpr):
            return self._object(expr, depth)
        if isinstance(expr, Call):
            return self._call(expr, depth)
        if isinstance(expr, Opaque):
            return Unknown(expr.reason)
        return Unknown("expression is not evaluated")

    # -- parts -------------------------------------------------------------
    def _template(self, expr: Template, depth: int) -> Value:
        if len(expr.parts) == 1 and not isinstance(expr.parts[0], str):
            # "${x}" alone is x itself, not its text (HCL keeps the type).
            return self.eval(expr.parts[0], depth + 1)
        values: list[Value] = []
        for part in expr.parts:
            if isinstance(part, str):
                values.append(Known(part))
            else:
                value = self.eval(part, depth + 1)
                values.append(value if candidates(value) is not None else Known(Hole(_reason(value))))
        return _safe(lambda: combine(values, lambda parts: concat_text(parts, self.budget)))

    def _traversal(self, expr: Expr, depth: int) -> Value:
        steps: list = []
        node = expr
        while isinstance(node, (GetAttr, Index)):
            if isinstance(node, GetAttr):
                steps.append(("attr", node.name))
            else:
                steps.append(("index", self.eval(node.key, depth + 1)))
            node = node.obj
        if not isinstance(node, Name):
            base = self.eval(node, depth + 1)
            return access(base, tuple(reversed(steps)))
        return self.scope.lookup(node.name, tuple(reversed(steps)))

    def _conditional(self, expr: Conditional, depth: int) -> Value:
        condition = self.resolved(self.eval(expr.condition, depth + 1))
        # A known condition decides, as any known value does; when it rests on a variable
        # (`count = var.create ? 1 : 0`), the chosen value says so in messages.
        if isinstance(condition, Known) and isinstance(condition.value, bool):
            chosen = self.eval(expr.then if condition.value else expr.otherwise, depth + 1)
            if condition.origin != LITERAL and isinstance(chosen, Known) and chosen.origin == LITERAL:
                return Known(chosen.value, condition.origin, condition.detail)
            return chosen
        return choice([self.eval(expr.then, depth + 1), self.eval(expr.otherwise, depth + 1)])

    def _binary(self, expr: Binary, depth: int) -> Value:
        left = self.resolved(self.eval(expr.left, depth + 1))
        right = self.resolved(self.eval(expr.right, depth + 1))
        operation = _OPERATORS.get(expr.op)
        if operation is None:
            return Unknown(f"operator {expr.op}")
        budget = self.budget
        return _safe(lambda: combine([left, right], lambda pair: budget.number(operation(budget, *pair))))

    def _unary(self, expr: Unary, depth: int) -> Value:
        operand = self.resolved(self.eval(expr.operand, depth + 1))
        if expr.op == "-":
            return _safe(lambda: combine([operand], lambda one: -_number(self.budget, one[0])))
        return _safe(lambda: combine([operand], lambda one: not _boolean(one[0])))

    def _object(self, expr: ObjectExpr, depth: int) -> Value:
        out: dict = {}
        values = []
        for key_expr, value_expr in expr.items:
            key = self.eval(key_expr, depth + 1)
            if not isinstance(key, Known) or isinstance(key.value, (ATOMS, dict, list)):
                return Unknown("object key is not known")
            value = self.eval(value_expr, depth + 1)
            values.append(value)
            out[_text(key.value)] = embed(value)
        return Known(out, *_origin_of(values))

    def _call(self, expr: Call, depth: int) -> Value:
        function = _FUNCTIONS.get(expr.name)
        if function is None:
            return Unknown(f"function {expr.name} is not evaluated")
        args = [self.eval(arg, depth + 1) for arg in expr.args]
        if expr.name not in _KEEP_ATOMS:
            args = [self.resolved(a) for a in args]
        if expr.expand and args:
            last = args[-1]
            if not isinstance(last, Known) or not isinstance(last.value, list):
                return Unknown("expanded argument is not a known list")
            try:
                self.budget.items(len(last.value))
            except TooLarge as exc:
                return Unknown(str(exc))
            args = args[:-1] + [lift(item, last) for item in last.value]
        budget = self.budget
        return _safe(lambda: combine(args, lambda values: budget.number(function(budget, *values))))

    def resolved(self, value: Value) -> Value:
        """A reference to a resource argument replaced by the argument's configured value."""
        if isinstance(value, Known) and isinstance(value.value, Ref):
            return self.scope.configured(value.value)
        if isinstance(value, Known) and isinstance(value.value, Hole):
            return Unknown(value.value.reason)
        return value


# -- values with atoms ----------------------------------------------------------

def embed(value: Value) -> Any:
    """A value as a member of an object or list: known payload, or a hole."""
    if isinstance(value, Known):
        return value.value
    if isinstance(value, OneOf):
        return Hole("a member chosen by a condition")
    return Hole(value.reason)


def lift(payload: Any, parent: Value) -> Value:
    """A member of a known value as a value of its own, with the parent's origin."""
    if isinstance(payload, Hole):
        return Unknown(payload.reason)
    if isinstance(parent, Known):
        return Known(payload, parent.origin, parent.detail)
    return Known(payload)


def _origin_of(values: list) -> tuple[str, str]:
    """A collection built from a variable's value rests on that variable."""
    for value in values:
        if isinstance(value, Known) and value.origin != LITERAL:
            return value.origin, value.detail
    return LITERAL, ""


def _reason(value: Value) -> str:
    return value.reason if isinstance(value, Unknown) else "unknown"


def access(value: Value, steps: tuple) -> Value:
    """Follow attribute and index steps into a known value."""
    for kind, key in steps:
        options = candidates(value)
        if options is None:
            return value
        if kind == "index":
            if not isinstance(key, Known):
                return Unknown("index is not known")
            key = key.value
            if isinstance(key, (dict, list, ATOMS)):
                return Unknown("index is not a string or number")
        results = []
        for option in options:
            member = _member(option.value, key)
            if member is _MISSING:
                return Unknown(f"no attribute {key}")
            results.append(lift(member, option))
        value = choice(results)
    return value


_MISSING = object()


def _member(payload: Any, key: Any) -> Any:
    if isinstance(payload, Hole):
        return payload
    if isinstance(payload, Ref) and not payload.attribute and isinstance(key, str):
        # a whole resource (a module's output `value = aws_lambda_function.f`): its attribute
        return Ref(payload.address, key)
    if isinstance(payload, dict):
        return payload.get(str(key), _MISSING)
    if isinstance(payload, list):
        try:
            return payload[int(key)]
        except (ValueError, TypeError, IndexError):
            return _MISSING
    return Hole("not an object or list")


def concat_text(parts: list, budget: Budget) -> Any:
    """Join template parts; atoms make the result ``Interpolated``.

    TooLarge when the result would pass the string limit (an atom counts as one
    character) or hold more atoms than the budget's ``max_string_parts``, checked as the
    parts are read so a too-long result is never made; each atom is charged a step.
    """
    pieces: list = []
    size = atoms = 0
    for part in parts:
        if isinstance(part, Interpolated):
            pieces.extend(part.parts)
            held = sum(1 for p in part.parts if not isinstance(p, str))
            atoms += held
            size += sum(len(p) for p in part.parts if isinstance(p, str)) + held
        elif isinstance(part, (Ref, Hole)):
            pieces.append(part)
            size += 1
            atoms += 1
        elif isinstance(part, (dict, list)):
            raise EvalError("cannot interpolate a collection")
        else:
            text = _text(part)
            pieces.append(text)
            size += len(text)
        if size > budget.max_string:
            raise TooLarge(f"string longer than {budget.max_string:,} characters")
        if atoms > budget.max_string_parts:
            budget.parts(atoms)  # too many: TooLarge
    budget.text(size)
    if atoms:
        budget.parts(atoms)
    merged: list = []
    run: list[str] = []  # adjacent text, joined once (repeated += would copy it each time)
    for piece in pieces:
        if isinstance(piece, str):
            run.append(piece)
            continue
        if run:
            text = "".join(run)
            run = []
            if text:
                merged.append(text)
        merged.append(piece)
    if run:
        text = "".join(run)
        if text:
            merged.append(text)
    if all(isinstance(p, str) for p in merged):
        return "".join(merged)
    if len(merged) == 1:
        return merged[0]  # a string that is exactly one reference is that reference
    return Interpolated(tuple(merged))


def _text(raw: Any) -> str:
    if raw is None:
        raise EvalError("null in a string")
    if isinstance(raw, bool):
        return "true" if raw else "false"
    if isinstance(raw, float) and raw.is_integer():
        return str(int(raw))
    return str(raw)


def refs_in(payload: Any, budget: Budget, depth: int = 0) -> list[Ref]:
    """Every resource reference inside a payload."""
    if depth > MAX_DEPTH:
        return []
    budget.step()
    if isinstance(payload, Ref):
        return [payload]
    if isinstance(payload, Interpolated):
        return [p for p in payload.parts if isinstance(p, Ref)]
    if isinstance(payload, dict):
        return [r for v in payload.values() for r in refs_in(v, budget, depth + 1)]
    if isinstance(payload, list):
        return [r for v in payload for r in refs_in(v, budget, depth + 1)]
    return []


def has_atoms(payload: Any, budget: Budget, depth: int = 0) -> bool:
    if depth > MAX_DEPTH:
        return True
    budget.step()
    if isinstance(payload, ATOMS):
        return True
    if isinstance(payload, dict):
        return any(has_atoms(v, budget, depth + 1) for v in payload.values())
    if isinstance(payload, list):
        return any(has_atoms(v, budget, depth + 1) for v in payload)
    return False


# -- JSON with atoms -------------------------------------------------------------

_MARK = "@@fanout-lint-atom-%d@@"
# Linear: a fixed prefix, then one run of digits that the fixed suffix cannot overlap.
_MARK_RE = re.compile(r"@@fanout-lint-atom-(\d+)@@")
_QUOTE_OR_BACKSLASH = re.compile(r'["\\]')


def encode_json(payload: Any, budget: Budget | None = None) -> Any:
    """``jsonencode``: a JSON string, or ``Interpolated`` when atoms are inside.

    TooLarge when the text would pass the string limit: the payload is measured while it
    is copied (one step a member), before ``json.dumps`` writes it.
    """
    budget = budget if budget is not None else Budget()
    atoms: list = []
    size = 0

    def grow(count: int) -> None:
        nonlocal size
        size += count
        if size > budget.max_string:
            raise TooLarge(f"JSON longer than {budget.max_string:,} characters")

    def mark(value: Any, depth: int) -> Any:
        if depth > MAX_NESTING:
            raise EvalError("value nested too deeply to encode")
        budget.step()
        if isinstance(value, (Ref, Hole)):
            atoms.append(value)
            grow(32)
            return _MARK % (len(atoms) - 1)
        if isinstance(value, Interpolated):
            grow(2 + sum(len(p) for p in value.parts if isinstance(p, str)))
            return "".join(p if isinstance(p, str) else mark(p, depth + 1) for p in value.parts)
        if isinstance(value, dict):
            grow(2 + sum(len(k) + 4 for k in value))
            return {k: mark(v, depth + 1) for k, v in value.items()}
        if isinstance(value, list):
            grow(2 + len(value))
            return [mark(v, depth + 1) for v in value]
        if isinstance(value, str):
            grow(len(value) + 2)
        else:
            grow(8)
        if isinstance(value, float) and value.is_integer():
            return int(value)
        return value

    text = json.dumps(mark(payload, 0), separators=(",", ":"))
    budget.text(len(text))  # escapes may make it longer than measured
    if not atoms:
        return text
    return concat_text(_split_marks(text, atoms), budget)


def _split_marks(text: str, atoms: list) -> list:
    parts: list = []
    position = 0
    for match in _MARK_RE.finditer(text):
        digits = match.group(1)
        if len(digits) > 9 or int(digits) >= len(atoms):
            raise EvalError("text that looks like a placeholder")
        parts.append(text[position:match.start()])
        parts.append(atoms[int(digits)])
        position = match.end()
    parts.append(text[position:])
    return parts


def decode_json(payload: Any, budget: Budget | None = None) -> Any:
    """``jsondecode`` of a string that may hold atoms; raises EvalError when not JSON."""
    budget = budget if budget is not None else Budget()
    if isinstance(payload, str):
        budget.built(len(payload))
        return _loads(payload)
    if not isinstance(payload, Interpolated):
        raise EvalError("not a JSON string")
    atoms: list = []
    pieces: list[str] = []
    inside = escaped = False  # where the text so far ends: in a JSON string, after a backslash
    for part in payload.parts:
        if isinstance(part, str):
            pieces.append(part)
            inside, escaped = _string_state(part, inside, escaped)
            continue
        atoms.append(part)
        marker = _MARK % (len(atoms) - 1)
        # An atom outside a JSON string (a number written as ${var.x}) becomes a string
        # placeholder, so the rest of the document still parses. Neither form changes
        # whether the text ends inside a string; a pending escape takes its first character.
        pieces.append(marker if inside else json.dumps(marker))
        escaped = False
    text = "".join(pieces)
    budget.text(len(text))
    return _restore(_loads(text), atoms, budget, 0)


def _string_state(text: str, inside: bool, escaped: bool) -> tuple[bool, bool]:
    """Whether JSON text that ends ``inside`` a string (``escaped``: just after a
    backslash there) still does after ``text``. Only quotes and backslashes matter, so
    only they are visited."""
    skip = 0 if escaped else -1  # the offset of a character a backslash escapes
    for match in _QUOTE_OR_BACKSLASH.finditer(text):
        at = match.start()
        if at == skip:
            continue
        if not inside:
            inside = text[at] == '"'
        elif text[at] == "\\":
            skip = at + 1
        else:
            inside = False
    return inside, skip == len(text)


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise EvalError("not valid JSON") from None


def _restore(value: Any, atoms: list, budget: Budget, depth: int) -> Any:
    if depth > MAX_NESTING:
        raise EvalError("JSON nested too deeply")
    budget.step()
    if isinstance(value, dict):
        return {k: _restore(v, atoms, budget, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_restore(v, atoms, budget, depth + 1) for v in value]
    if isinstance(value, str) and "@@fanout-lint-atom-" in value:
        return concat_text(_split_marks(value, atoms), budget)
    return value


# -- operators and functions -------------------------------------------------------
# Each takes the unit's budget first and charges it for work that grows with its input.

def _safe(compute: Callable[[], Value]) -> Value:
    try:
        return compute()
    except (EvalError, TooLarge, TypeError, ValueError, KeyError, IndexError, ZeroDivisionError, OverflowError) as exc:
        return Unknown(str(exc) or type(exc).__name__)


def _number(budget: Budget, raw: Any) -> int | float:
    if isinstance(raw, (bool, ATOMS)) or raw is None:
        raise EvalError("not a number")
    if isinstance(raw, (int, float)):
        return raw
    if isinstance(raw, str):
        budget.built(len(raw))
        try:
            return int(raw)
        except ValueError:
            try:
                return float(raw)
            except ValueError:
                raise EvalError(f"{raw[:40]!r} is not a number") from None
    raise EvalError("not a number")


def _boolean(raw: Any) -> bool:
    if isinstance(raw, bool):
        return raw
    if raw in ("true", "false"):
        return raw == "true"
    raise EvalError("not a boolean")


def _tidy(number: int | float) -> int | float:
    if isinstance(number, float) and number.is_integer() and abs(number) < 2**53:
        return int(number)
    return number


def _comparable(budget: Budget, raw: Any) -> Any:
    # The walk charges the budget for every member: Python's == on the same values
    # afterwards does no more work than it did.
    if isinstance(raw, ATOMS) or has_atoms(raw, budget):
        raise EvalError("compares a value known only after apply")
    return raw


def _equal(budget: Budget, a: Any, b: Any) -> bool:
    a, b = _comparable(budget, a), _comparable(budget, b)
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return a == b


def _arithmetic(operation: Callable[[Any, Any], Any]) -> Callable[[Budget, Any, Any], Any]:
    return lambda budget, a, b: _tidy(operation(_number(budget, a), _number(budget, b)))


def _comparison(operation: Callable[[Any, Any], bool]) -> Callable[[Budget, Any, Any], bool]:
    return lambda budget, a, b: operation(_number(budget, a), _number(budget, b))


_OPERATORS: dict[str, Callable[[Budget, Any, Any], Any]] = {
    "+": _arithmetic(operator.add),
    "-": _arithmetic(operator.sub),
    "*": _arithmetic(operator.mul),
    "/": _arithmetic(operator.truediv),
    "%": _arithmetic(operator.mod),
    "<": _comparison(operator.lt),
    ">": _comparison(operator.gt),
    "<=": _comparison(operator.le),
    ">=": _comparison(operator.ge),
    "==": _equal,
    "!=": lambda budget, a, b: not _equal(budget, a, b),
    "&&": lambda budget, a, b: _boolean(a) and _boolean(b),
    "||": lambda budget, a, b: _boolean(a) or _boolean(b),
}


def _list(budget: Budget, raw: Any) -> list:
    if not isinstance(raw, list):
        raise EvalError("not a list")
    return raw


def _map(budget: Budget, raw: Any) -> dict:
    if not isinstance(raw, dict):
        raise EvalError("not a map")
    return raw


def _key(raw: Any) -> str:
    if isinstance(raw, (dict, list, ATOMS)):
        raise EvalError("key is not a string or number")
    return str(raw)


def _lookup(budget: Budget, mapping: Any, key: Any, *fallback: Any) -> Any:
    mapping = _map(budget, mapping)
    if _key(key) in mapping:
        return mapping[_key(key)]
    if fallback:
        return fallback[0]
    raise EvalError(f"no key {_key(key)[:40]}")


def _coalesce(budget: Budget, *values: Any) -> Any:
    for value in values:
        if isinstance(value, ATOMS):
            raise EvalError("coalesce over a value known only after apply")
        if value is not None and value != "":
            return value
    raise EvalError("no non-null argument")


def _to_string(budget: Budget, raw: Any) -> Any:
    if isinstance(raw, (dict, list)):
        raise EvalError("not a primitive")
    if isinstance(raw, ATOMS):
        return raw
    return _text(raw)


def _to_set(budget: Budget, raw: Any) -> list:
    """The items without repeats, in first-seen order, as ``==`` tells them apart: each
    item's hashable form goes into a set (list membership would be quadratic)."""
    items = _list(budget, raw)
    budget.items(len(items))
    seen: set = set()
    out: list = []
    for item in items:
        key = _frozen(item, budget, 0)
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out


@dataclass(eq=False, repr=False)
class _Frozen(ValueRecord):
    """A list or map as a hashable value, equal exactly when the originals are ``==``."""

    kind: str
    items: Any


def _frozen(value: Any, budget: Budget, depth: int) -> Any:
    if isinstance(value, list):
        if depth > MAX_NESTING:
            raise EvalError("value nested too deeply")
        budget.step(len(value))
        return _Frozen("list", tuple(_frozen(v, budget, depth + 1) for v in value))
    if isinstance(value, dict):
        if depth > MAX_NESTING:
            raise EvalError("value nested too deeply")
        budget.step(len(value))
        return _Frozen("map", frozenset((k, _frozen(v, budget, depth + 1)) for k, v in value.items()))
    return value  # a string, number, bool, null or atom: hashable, with its own ==


def _min_max(pick: Callable) -> Callable:
    def apply(budget: Budget, *values: Any) -> Any:
        if not values:
            raise EvalError("no arguments")
        return _tidy(pick(_number(budget, v) for v in values))

    return apply


def _length(budget: Budget, raw: Any) -> int:
    if isinstance(raw, ATOMS):
        raise EvalError("length of a value known only after apply")
    if isinstance(raw, (list, dict, str)):
        return len(raw)
    raise EvalError("no length")


def _string_fn(transform: Callable[[str], str]) -> Callable:
    def apply(budget: Budget, raw: Any) -> str:
        if not isinstance(raw, str):
            raise EvalError("not a string")
        budget.text(len(raw))
        return transform(raw)

    return apply


def _merge(budget: Budget, *maps: Any) -> dict:
    present = [_map(budget, mapping) for mapping in maps if mapping is not None]
    budget.items(sum(len(mapping) for mapping in present))
    out: dict = {}
    for mapping in present:
        out.update(mapping)
    return out


def _concat(budget: Budget, *lists: Any) -> list:
    present = [_list(budget, items) for items in lists]
    budget.items(sum(len(items) for items in present))
    out: list = []
    for items in present:
        out.extend(items)
    return out


def _element(budget: Budget, items: Any, index: Any) -> Any:
    items = _list(budget, items)
    if not items:
        raise EvalError("element of an empty list")
    return items[int(_number(budget, index)) % len(items)]


_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "jsonencode": lambda budget, payload: encode_json(payload, budget),
    "jsondecode": lambda budget, payload: decode_json(payload, budget),
    "tonumber": lambda budget, raw: None if raw is None else _tidy(_number(budget, raw)),
    "tostring": _to_string,
    "tobool": lambda budget, raw: None if raw is None else _boolean(raw),
    "tolist": _list,
    "toset": _to_set,
    "tomap": _map,
    "max": _min_max(max),
    "min": _min_max(min),
    "lookup": _lookup,
    "merge": _merge,
    "concat": _concat,
    "coalesce": _coalesce,
    "length": _length,
    "lower": _string_fn(str.lower),
    "upper": _string_fn(str.upper),
    "element": _element,
}

# Functions that pass resource references through instead of resolving them.
_KEEP_ATOMS = {"jsonencode", "jsondecode", "tostring", "tolist", "toset", "tomap", "lookup", "merge", "concat", "element"}


def render(expr: Expr) -> str:
    """Short text of a reference, for the label of an external node."""
    if isinstance(expr, Name):
        return expr.name
    if isinstance(expr, GetAttr):
        return f"{render(expr.obj)}.{expr.name}"
    if isinstance(expr, Index):
        key = expr.key
        inner = json.dumps(key.value) if isinstance(key, Literal) else "..."
        return f"{render(expr.obj)}[{inner}]"
    if isinstance(expr, Template) and len(expr.parts) == 1 and not isinstance(expr.parts[0], str):
        return render(expr.parts[0])
    if isinstance(expr, Template) and expr.parts and isinstance(expr.parts[0], str) and expr.parts[0].startswith("arn:"):
        # an ARN template names its service (``arn:aws:sqs:${var.region}:...``): rules that
        # must prove a queue read the literal segments (model/arns.py)
        text = "".join(p if isinstance(p, str) else "${" + render(p) + "}" for p in expr.parts)
        return text if len(text) <= MAX_LABEL else text[:MAX_LABEL] + "..."
    if isinstance(expr, Literal):
        return str(expr.value)
    if isinstance(expr, Call):
        return f"{expr.name}(...)"
    return "expression"
