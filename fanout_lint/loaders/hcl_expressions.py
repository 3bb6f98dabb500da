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
Terraform loader provides it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Callable, Protocol

from fanout_lint.loaders.hcl_syntax import (
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
from fanout_lint.model.values import LITERAL, Known, OneOf, Unknown, Value, candidates, choice, combine

MAX_DEPTH = 64
MAX_ITEMS = 16  # count / for_each instances tracked as a choice


@dataclass(frozen=True)
class Ref:
    address: str  # resource address without instance key: aws_sqs_queue.q, module.m.aws_sqs_queue.q
    attribute: str  # arn, id, url, name, function_name, ...; "" for the whole resource


@dataclass(frozen=True)
class Hole:
    reason: str


@dataclass(frozen=True)
class Interpolated:
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
    def __init__(self, scope: Scope):
        self.scope = scope

    def eval(self, expr: Expr, depth: int = 0) -> Value:
        if depth > MAX_DEPTH:
            return Unknown("expression nested too deeply")
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
        return _safe(lambda: combine(values, lambda parts: concat_text(parts)))

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
        return _safe(lambda: combine([left, right], lambda pair: operation(*pair)))

    def _unary(self, expr: Unary, depth: int) -> Value:
        operand = self.resolved(self.eval(expr.operand, depth + 1))
        if expr.op == "-":
            return _safe(lambda: combine([operand], lambda one: -_number(one[0])))
        return _safe(lambda: combine([operand], lambda one: not _boolean(one[0])))

    def _object(self, expr: ObjectExpr, depth: int) -> Value:
        out: dict = {}
        values = []
        for key_expr, value_expr in expr.items:
            key = self.eval(key_expr, depth + 1)
            if not isinstance(key, Known) or isinstance(key.value, ATOMS) or isinstance(key.value, (dict, list)):
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
            args = args[:-1] + [lift(item, last) for item in last.value]
        return _safe(lambda: combine(args, lambda values: function(*values)))

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
    if isinstance(payload, dict):
        return payload.get(str(key), _MISSING)
    if isinstance(payload, list):
        try:
            return payload[int(key)]
        except (ValueError, TypeError, IndexError):
            return _MISSING
    return Hole("not an object or list")


def concat_text(parts: list) -> Any:
    """Join template parts; atoms make the result ``Interpolated``."""
    pieces: list = []
    for part in parts:
        if isinstance(part, Interpolated):
            pieces.extend(part.parts)
        elif isinstance(part, (Ref, Hole)):
            pieces.append(part)
        elif isinstance(part, (dict, list)):
            raise EvalError("cannot interpolate a collection")
        else:
            pieces.append(_text(part))
    merged: list = []
    for piece in pieces:
        if isinstance(piece, str) and merged and isinstance(merged[-1], str):
            merged[-1] += piece
        elif piece != "":
            merged.append(piece)
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


def refs_in(payload: Any, depth: int = 0) -> list[Ref]:
    """Every resource reference inside a payload."""
    if depth > MAX_DEPTH:
        return []
    if isinstance(payload, Ref):
        return [payload]
    if isinstance(payload, Interpolated):
        return [p for p in payload.parts if isinstance(p, Ref)]
    if isinstance(payload, dict):
        return [r for v in payload.values() for r in refs_in(v, depth + 1)]
    if isinstance(payload, list):
        return [r for v in payload for r in refs_in(v, depth + 1)]
    return []


def has_atoms(payload: Any, depth: int = 0) -> bool:
    if depth > MAX_DEPTH:
        return True
    if isinstance(payload, ATOMS):
        return True
    if isinstance(payload, dict):
        return any(has_atoms(v, depth + 1) for v in payload.values())
    if isinstance(payload, list):
        return any(has_atoms(v, depth + 1) for v in payload)
    return False


# -- JSON with atoms -------------------------------------------------------------

_MARK = "@@fanout-lint-atom-%d@@"
_MARK_RE = re.compile(r"@@fanout-lint-atom-(\d+)@@")


def encode_json(payload: Any) -> Any:
    """``jsonencode``: a JSON string, or ``Interpolated`` when atoms are inside."""
    atoms: list = []

    def mark(value: Any) -> Any:
        if isinstance(value, (Ref, Hole)):
            atoms.append(value)
            return _MARK % (len(atoms) - 1)
        if isinstance(value, Interpolated):
            return "".join(p if isinstance(p, str) else mark(p) for p in value.parts)
        if isinstance(value, dict):
            return {k: mark(v) for k, v in value.items()}
        if isinstance(value, list):
            return [mark(v) for v in value]
        if isinstance(value, float) and value.is_integer():
            return int(value)
        return value

    text = json.dumps(mark(payload), separators=(",", ":"))
    if not atoms:
        return text
    return concat_text(_split_marks(text, atoms))


def _split_marks(text: str, atoms: list) -> list:
    parts: list = []
    position = 0
    for match in _MARK_RE.finditer(text):
        parts.append(text[position:match.start()])
        parts.append(atoms[int(match.group(1))])
        position = match.end()
    parts.append(text[position:])
    return parts


def decode_json(payload: Any) -> Any:
    """``jsondecode`` of a string that may hold atoms; raises EvalError when not JSON."""
    if isinstance(payload, str):
        return _loads(payload)
    if not isinstance(payload, Interpolated):
        raise EvalError("not a JSON string")
    atoms: list = []
    text = ""
    for part in payload.parts:
        if isinstance(part, str):
            text += part
            continue
        atoms.append(part)
        marker = _MARK % (len(atoms) - 1)
        # An atom outside a JSON string (a number written as ${var.x}) becomes a string
        # placeholder, so the rest of the document still parses.
        text += marker if _inside_json_string(text) else json.dumps(marker)
    return _restore(_loads(text), atoms)


def _inside_json_string(text: str) -> bool:
    inside = False
    escaped = False
    for char in text:
        if escaped:
            escaped = False
        elif char == "\\" and inside:
            escaped = True
        elif char == '"':
            inside = not inside
    return inside


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise EvalError("not valid JSON") from None


def _restore(value: Any, atoms: list) -> Any:
    if isinstance(value, dict):
        return {k: _restore(v, atoms) for k, v in value.items()}
    if isinstance(value, list):
        return [_restore(v, atoms) for v in value]
    if isinstance(value, str) and "@@fanout-lint-atom-" in value:
        return concat_text(_split_marks(value, atoms))
    return value


# -- operators and functions -------------------------------------------------------

def _safe(compute: Callable[[], Value]) -> Value:
    try:
        return compute()
    except (EvalError, TypeError, ValueError, KeyError, IndexError, ZeroDivisionError, OverflowError) as exc:
        return Unknown(str(exc) or type(exc).__name__)


def _number(raw: Any) -> int | float:
    if isinstance(raw, bool) or isinstance(raw, ATOMS) or raw is None:
        raise EvalError("not a number")
    if isinstance(raw, (int, float)):
        return raw
    if isinstance(raw, str):
        try:
            return int(raw)
        except ValueError:
            try:
                return float(raw)
            except ValueError:
                raise EvalError(f"{raw!r} is not a number") from None
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


def _comparable(raw: Any) -> Any:
    if isinstance(raw, ATOMS) or has_atoms(raw):
        raise EvalError("compares a value known only after apply")
    return raw


def _equal(a: Any, b: Any) -> bool:
    a, b = _comparable(a), _comparable(b)
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return a == b


_OPERATORS: dict[str, Callable[[Any, Any], Any]] = {
    "+": lambda a, b: _tidy(_number(a) + _number(b)),
    "-": lambda a, b: _tidy(_number(a) - _number(b)),
    "*": lambda a, b: _tidy(_number(a) * _number(b)),
    "/": lambda a, b: _tidy(_number(a) / _number(b)),
    "%": lambda a, b: _tidy(_number(a) % _number(b)),
    "<": lambda a, b: _number(a) < _number(b),
    ">": lambda a, b: _number(a) > _number(b),
    "<=": lambda a, b: _number(a) <= _number(b),
    ">=": lambda a, b: _number(a) >= _number(b),
    "==": _equal,
    "!=": lambda a, b: not _equal(a, b),
    "&&": lambda a, b: _boolean(a) and _boolean(b),
    "||": lambda a, b: _boolean(a) or _boolean(b),
}


def _list(raw: Any) -> list:
    if not isinstance(raw, list):
        raise EvalError("not a list")
    return raw


def _map(raw: Any) -> dict:
    if not isinstance(raw, dict):
        raise EvalError("not a map")
    return raw


def _lookup(mapping: Any, key: Any, *fallback: Any) -> Any:
    mapping = _map(mapping)
    if str(key) in mapping:
        return mapping[str(key)]
    if fallback:
        return fallback[0]
    raise EvalError(f"no key {key}")


def _coalesce(*values: Any) -> Any:
    for value in values:
        if isinstance(value, ATOMS):
            raise EvalError("coalesce over a value known only after apply")
        if value is not None and value != "":
            return value
    raise EvalError("no non-null argument")


def _to_string(raw: Any) -> Any:
    if isinstance(raw, (dict, list)):
        raise EvalError("not a primitive")
    if isinstance(raw, ATOMS):
        return raw
    return _text(raw)


def _to_set(raw: Any) -> list:
    out: list = []
    for item in _list(raw):
        if item not in out:
            out.append(item)
    return out


def _min_max(pick: Callable) -> Callable:
    def apply(*values: Any) -> Any:
        if not values:
            raise EvalError("no arguments")
        return _tidy(pick(_number(v) for v in values))

    return apply


def _length(raw: Any) -> int:
    if isinstance(raw, ATOMS):
        raise EvalError("length of a value known only after apply")
    if isinstance(raw, (list, dict, str)):
        return len(raw)
    raise EvalError("no length")


def _string_fn(transform: Callable[[str], str]) -> Callable:
    def apply(raw: Any) -> str:
        if not isinstance(raw, str):
            raise EvalError("not a string")
        return transform(raw)

    return apply


def _merge(*maps: Any) -> dict:
    out: dict = {}
    for mapping in maps:
        if mapping is None:
            continue
        out.update(_map(mapping))
    return out


def _concat(*lists: Any) -> list:
    out: list = []
    for items in lists:
        out.extend(_list(items))
    return out


def _element(items: Any, index: Any) -> Any:
    items = _list(items)
    if not items:
        raise EvalError("element of an empty list")
    return items[int(_number(index)) % len(items)]


_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "jsonencode": encode_json,
    "jsondecode": decode_json,
    "tonumber": lambda raw: None if raw is None else _tidy(_number(raw)),
    "tostring": _to_string,
    "tobool": lambda raw: None if raw is None else _boolean(raw),
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
    if isinstance(expr, Literal):
        return str(expr.value)
    if isinstance(expr, Call):
        return f"{expr.name}(...)"
    return "expression"
