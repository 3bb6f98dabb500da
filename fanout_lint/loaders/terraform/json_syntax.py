"""Terraform's JSON syntax (``*.tf.json``, ``*.tofu.json``) into the syntax tree the
Terraform loader evaluates, so a JSON file and a ``.tf`` file mean the same.

The mapping follows HCL's JSON specification, as Terraform uses it:

- the file is one object whose properties are top-level blocks; ``resource`` and
  ``data`` take two label levels, ``module``, ``variable``, ``output``, ``provider`` and
  ``check`` one; each label level is an object (or an array of objects) whose property
  names are the labels, and the body is an object, or an array of objects for several
  blocks of the same labels;
- ``locals`` bodies hold attributes only;
- inside a block, which properties are nested blocks depends on the provider's schema,
  which a linter does not have: a property whose value is an object (or an array of
  objects) is read both as an attribute and as nested blocks of that name (``dynamic``
  and ``provisioner`` with one label), and the loader asks for the one its schema
  field means (``dead_letter_config`` is a block, ``tags`` a map);
- a string is a template: ``${...}`` interpolations are native expressions, ``$${`` is
  a literal ``${``, and a string that is one interpolation is its value, typed;
  numbers, booleans, null, arrays and objects are what they are; a variable's ``type`` is
  a type expression written as a string;
- ``"//"`` in a body is a comment: its text is read for suppressions like a ``#``
  comment (``"//": "fanout-lint: ignore=missing-dlq -- reason"``).

Positions come from the JSON (``located`` containers): a block is located at its last
label's key, an attribute spans its property, so findings point at the right line.

The specification also lets one object name a property twice (two blocks of one type);
``json`` would keep only the last, so such a file is refused with a one-line error
rather than read without one of its blocks.
"""

from __future__ import annotations

import json
from dataclasses import replace

from fanout_lint.loaders.parsing.located import Map, Seq
from fanout_lint.loaders.parsing.yaml_source import parse_json
from fanout_lint.loaders.terraform.hcl.tree import (
    MAX_DEPTH,
    Attribute,
    Binary,
    Block,
    Body,
    Call,
    Comment,
    Conditional,
    Expr,
    GetAttr,
    HclError,
    HclFile,
    Index,
    Literal,
    ObjectExpr,
    Opaque,
    Template,
    TupleExpr,
    Unary,
)
from fanout_lint.model.nodes import Loc

# Label levels of Terraform's top-level blocks; any other top-level block has none.
TOP_LEVEL_LABELS = {"resource": 2, "data": 2, "module": 1, "variable": 1, "output": 1, "provider": 1, "check": 1}
ATTRIBUTES_ONLY = {"locals"}
# Nested blocks with a label, in every resource type.
NESTED_LABELS = {"dynamic": 1, "provisioner": 1}
COMMENT_KEY = "//"


def parse_tf_json(text: str, path: str) -> HclFile:
    """One JSON configuration file; ``ParseError`` or ``HclError`` with a line when it is
    not valid JSON or not Terraform's JSON syntax."""
    _refuse_duplicates(text)
    data = parse_json(text, path)
    if not isinstance(data, dict):
        raise HclError("invalid Terraform JSON: the file must hold one JSON object", 1)
    return _Converter(path).file(data)


class _Duplicate(Exception):
    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def _pairs(pairs: list) -> dict:
    found = dict(pairs)
    if len(found) != len(pairs):
        seen: set = set()
        for key, _ in pairs:
            if key in seen:
                raise _Duplicate(key)
            seen.add(key)
    return found


def _refuse_duplicates(text: str) -> None:
    try:
        json.loads(text, object_pairs_hook=_pairs)
    except _Duplicate as exc:
        shown = exc.key if len(exc.key) <= 40 else exc.key[:40] + "..."
        raise HclError(
            f'invalid Terraform JSON for fanout-lint: the key "{shown}" appears twice in one object; '
            "Terraform reads both, fanout-lint does not (write the blocks as a JSON array)"
        ) from None
    except (ValueError, RecursionError):
        return  # parse_json reports it, with its line


class _Converter:
    def __init__(self, path: str):
        self.path = path
        self.comments: list[Comment] = []

    def file(self, data: dict) -> HclFile:
        blocks: list[Block] = []
        for key, value in data.items():
            if key == COMMENT_KEY:
                self.comment(data, key, value)
                continue
            labels = TOP_LEVEL_LABELS.get(key, 0)
            blocks.extend(self.blocks(key, value, labels, (), data, key, 1, key in ATTRIBUTES_ONLY, strict=True))
        return HclFile(self.path, Body({}, tuple(blocks)), tuple(sorted(self.comments, key=lambda c: c.line)))

    # -- structure ---------------------------------------------------------------
    def blocks(self, kind: str, value, labels_left: int, labels: tuple, container, key, depth: int,
               attributes_only: bool, strict: bool) -> list[Block]:
        """The blocks ``container[key]`` defines, ``labels_left`` label levels still to read."""
        if depth > MAX_DEPTH:
            raise HclError("invalid Terraform JSON: blocks nested too deeply", self.line(container, key))
        if labels_left:
            out: list[Block] = []
            for holder, label, inner in self.properties(value, container, key, strict):
                out.extend(self.blocks(kind, inner, labels_left - 1, labels + (label,), holder, label, depth + 1,
                                       attributes_only, strict))
            return out
        bodies = value if isinstance(value, list) else [value]
        out = []
        for index, body in enumerate(bodies):
            if not isinstance(body, dict):
                if strict:
                    raise HclError(f"invalid Terraform JSON: the body of a {kind} block must be an object",
                                   self.line(container, key))
                continue
            out.append(self.block(kind, labels, body, container, key, index if body is not value else None,
                                  depth, attributes_only))
        return out

    def properties(self, value, container, key, strict: bool):
        """(container, name, value) of each property of a label level: an object, or the
        objects of an array, in order."""
        holders = value if isinstance(value, list) else [value]
        for holder in holders:
            if not isinstance(holder, dict):
                if strict:
                    raise HclError("invalid Terraform JSON: a block label level must be an object",
                                   self.line(container, key))
                continue
            for name, inner in holder.items():
                if name != COMMENT_KEY:
                    yield holder, name, inner

    def block(self, kind: str, labels: tuple, body: dict, container, key, index, depth: int,
              attributes_only: bool) -> Block:
        start = self.key_loc(container, key) if index is None else self.start(body, container, key)
        end = _end_of(body.body() if isinstance(body, Map) else None, start)
        header_end = (start.end_line, start.end_column) if start.has_end else (start.line, start.column + 1)
        return Block(
            type=kind, labels=labels, body=self.body(body, depth + 1, attributes_only, kind),
            line=start.line, end_line=end[0], column=start.column, end_column=end[1], header_end=header_end,
        )

    def body(self, data: dict, depth: int, attributes_only: bool, kind: str) -> Body:
        attributes: dict[str, Attribute] = {}
        blocks: list[Block] = []
        for key, value in data.items():
            if key == COMMENT_KEY:
                self.comment(data, key, value)
                continue
            attributes[key] = self.attribute(data, key, value, depth, kind)
            if not attributes_only and _block_like(value):
                blocks.extend(self.blocks(key, value, NESTED_LABELS.get(key, 0), (), data, key, depth + 1,
                                          False, strict=False))
        return Body(attributes, tuple(blocks))

    def attribute(self, container: dict, key: str, value, depth: int, kind: str) -> Attribute:
        where = self.key_loc(container, key)
        span = container.value_span(key) if isinstance(container, Map) else None
        value_pos = (span.line, span.column, span.end_line, span.end_column) if span is not None and span.has_end else None
        if kind == "variable" and key == "type" and isinstance(value, str):
            expr = _type_expression(value)
        else:
            expr = _expr(value, depth)
        return Attribute(key, expr, where.line, where.column, value_pos)

    def comment(self, container, key, value) -> None:
        if isinstance(value, str) and "\n" not in value:
            self.comments.append(Comment(self.line(container, key), value.strip()))

    # -- positions ---------------------------------------------------------------
    def key_loc(self, container, key) -> Loc:
        if isinstance(container, Map):
            return container.loc_of(key)
        return Loc(self.path, 1, 1)

    def start(self, body, container, key) -> Loc:
        if isinstance(body, Map):
            return body.loc
        return self.key_loc(container, key)

    def line(self, container, key) -> int:
        return self.key_loc(container, key).line


def _end_of(span: Loc | None, start: Loc) -> tuple[int, int]:
    if span is not None and span.has_end:
        return span.end_line, span.end_column
    return start.line, start.column


def _block_like(value) -> bool:
    if isinstance(value, dict):
        return True
    return isinstance(value, list) and bool(value) and all(isinstance(item, dict) for item in value)


# -- expressions -------------------------------------------------------------------

def _expr(value, depth: int) -> Expr:
    if depth > MAX_DEPTH:
        raise HclError("invalid Terraform JSON: expression nested too deeply")
    if isinstance(value, str):
        return _string(value)
    if value is None or isinstance(value, (bool, float)):
        return Literal(value)
    if isinstance(value, int):
        # past any number the rules read, as the HCL parser says of long literals
        return Opaque("number literal too long") if abs(value) >= 10 ** 40 else Literal(value)
    if isinstance(value, (list, Seq)):
        return TupleExpr(tuple(_expr(item, depth + 1) for item in value))
    if isinstance(value, dict):
        return ObjectExpr(tuple((_string(key), _expr(item, depth + 1)) for key, item in value.items()))
    return Opaque("not a JSON value")


def _string(text: str) -> Expr:
    if "${" not in text and "%{" not in text:
        return Literal(text)  # most strings: no template to parse
    from fanout_lint.loaders.terraform.hcl.syntax import parse_template  # Lark: only for a template

    return _unplaced(parse_template(text), 0)


def _type_expression(text: str) -> Expr:
    from lark.exceptions import LarkError

    from fanout_lint.loaders.terraform.hcl.syntax import parse_expression

    try:
        return _unplaced(parse_expression(text), 0)
    except (LarkError, HclError, StopIteration, IndexError, RecursionError):
        return Opaque("type expression we cannot parse")


def _unplaced(expr: Expr, depth: int) -> Expr:
    """The expression without the positions its parse gave: they count from the start
    of the interpolation, not of the file, and would point findings at the wrong line."""
    if depth > MAX_DEPTH:
        return Opaque("expression nested too deeply")
    down = depth + 1
    if isinstance(expr, ObjectExpr):
        return ObjectExpr(tuple((_unplaced(k, down), _unplaced(v, down)) for k, v in expr.items))
    if isinstance(expr, Template):
        return Template(tuple(p if isinstance(p, str) else _unplaced(p, down) for p in expr.parts))
    if isinstance(expr, TupleExpr):
        return TupleExpr(tuple(_unplaced(item, down) for item in expr.items))
    if isinstance(expr, Call):
        return replace(expr, args=tuple(_unplaced(arg, down) for arg in expr.args))
    if isinstance(expr, Binary):
        return Binary(expr.op, _unplaced(expr.left, down), _unplaced(expr.right, down))
    if isinstance(expr, Unary):
        return Unary(expr.op, _unplaced(expr.operand, down))
    if isinstance(expr, Conditional):
        return Conditional(_unplaced(expr.condition, down), _unplaced(expr.then, down),
                           _unplaced(expr.otherwise, down))
    if isinstance(expr, GetAttr):
        return GetAttr(_unplaced(expr.obj, down), expr.name)
    if isinstance(expr, Index):
        return Index(_unplaced(expr.obj, down), _unplaced(expr.key, down))
    return expr
