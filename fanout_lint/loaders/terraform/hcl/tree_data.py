"""The syntax tree of ``hcl_tree`` as plain data (lists, strings, numbers, booleans,
None), for the parse cache: ``json`` writes it and reads it back, and nothing in it can
name a class or run code when read.

Each expression is a list whose first item is a one-character tag (below), then its
fields in order; a tuple is a list; a position is a list of four ints or None. Decoding
checks every item's type and count, so a damaged or forged entry raises ``ValueError``
(or ``TypeError``, ``KeyError``) and the cache treats it as a miss: only a tree that
``hcl_syntax`` could have made comes back. The file's path is not stored (the same bytes
may be another file's), nor ``HclFile.configured`` (empty after a parse).
"""

from __future__ import annotations

from fanout_lint.loaders.terraform.hcl.tree import (
    Attribute,
    Binary,
    Block,
    Body,
    Call,
    Comment,
    Conditional,
    GetAttr,
    HclFile,
    Index,
    Literal,
    Name,
    ObjectExpr,
    Opaque,
    Template,
    TupleExpr,
    Unary,
)

_LITERAL_TYPES = (str, int, float, bool, type(None))


# -- encoding ---------------------------------------------------------------------

def file_to_data(hcl: HclFile) -> list:
    return [_body_out(hcl.body), [[c.line, c.text] for c in hcl.comments]]


def _body_out(body: Body) -> list:
    attributes = []
    for name, attribute in body.attributes.items():
        if name != attribute.name:  # a parse keys each attribute by its name
            raise ValueError("attribute stored under another name")
        attributes.append([attribute.name, _expr_out(attribute.expr), attribute.line, attribute.column,
                           attribute.value_pos])
    blocks = [[b.type, b.labels, _body_out(b.body), b.line, b.end_line, b.column, b.end_column, b.header_end]
              for b in body.blocks]
    return [attributes, blocks]


def _expr_out(expr) -> list:
    kind = type(expr)
    if kind is Literal:
        return ["L", expr.value]
    if kind is Template:
        return ["T", [part if type(part) is str else _expr_out(part) for part in expr.parts]]
    if kind is Name:
        return ["N", expr.name]
    if kind is GetAttr:
        return ["G", _expr_out(expr.obj), expr.name]
    if kind is Index:
        return ["I", _expr_out(expr.obj), _expr_out(expr.key)]
    if kind is Call:
        return ["C", expr.name, [_expr_out(a) for a in expr.args], expr.expand]
    if kind is Binary:
        return ["B", expr.op, _expr_out(expr.left), _expr_out(expr.right)]
    if kind is Unary:
        return ["U", expr.op, _expr_out(expr.operand)]
    if kind is Conditional:
        return ["?", _expr_out(expr.condition), _expr_out(expr.then), _expr_out(expr.otherwise)]
    if kind is TupleExpr:
        return ["[", [_expr_out(i) for i in expr.items]]
    if kind is ObjectExpr:
        return ["{", [[_expr_out(k), _expr_out(v)] for k, v in expr.items], expr.pos, expr.item_pos]
    if kind is Opaque:
        return ["O", expr.reason]
    raise ValueError(f"not a syntax node: {kind.__name__}")


# -- decoding ---------------------------------------------------------------------

def file_from_data(data, path: str) -> HclFile:
    body, comments = _list(data)
    return HclFile(path, _body_in(body), tuple(Comment(_int(line), _str(text)) for line, text in _list(comments)))


def _body_in(data) -> Body:
    attributes_data, blocks_data = _list(data)
    attributes = {}
    for name, expr, line, column, value_pos in _list(attributes_data):
        attributes[_str(name)] = Attribute(name, _expr_in(expr), _int(line), _int(column), _pos_or_none(value_pos))
    blocks = tuple(
        Block(_str(kind), tuple(_str(label) for label in _list(labels)), _body_in(body), _int(line), _int(end_line),
              _int(column), _int(end_column), _pair(header_end))
        for kind, labels, body, line, end_line, column, end_column, header_end in _list(blocks_data)
    )
    return Body(attributes, blocks)


def _expr_in(data):
    if type(data) is not list or not data:
        raise ValueError("not an expression")
    return _DECODERS[data[0]](*data[1:])


def _literal(value) -> Literal:
    if type(value) not in _LITERAL_TYPES:
        raise ValueError("not a literal")
    return Literal(value)


def _template(parts) -> Template:
    return Template(tuple(part if type(part) is str else _expr_in(part) for part in _list(parts)))


def _object(items, pos, item_pos) -> ObjectExpr:
    return ObjectExpr(
        tuple((_expr_in(key), _expr_in(value)) for key, value in map(_list, _list(items))),
        _pos_or_none(pos),
        tuple((_pos(key), _pos(value)) for key, value in map(_list, _list(item_pos))),
    )


def _call(name, args, expand) -> Call:
    if type(expand) is not bool:
        raise ValueError("not a flag")
    return Call(_str(name), tuple(_expr_in(a) for a in _list(args)), expand)


_DECODERS = {
    "L": _literal,
    "T": _template,
    "N": lambda name: Name(_str(name)),
    "G": lambda obj, name: GetAttr(_expr_in(obj), _str(name)),
    "I": lambda obj, key: Index(_expr_in(obj), _expr_in(key)),
    "C": _call,
    "B": lambda op, left, right: Binary(_str(op), _expr_in(left), _expr_in(right)),
    "U": lambda op, operand: Unary(_str(op), _expr_in(operand)),
    "?": lambda condition, then, otherwise: Conditional(_expr_in(condition), _expr_in(then), _expr_in(otherwise)),
    "[": lambda items: TupleExpr(tuple(_expr_in(i) for i in _list(items))),
    "{": _object,
    "O": lambda reason: Opaque(_str(reason)),
}


def _str(value) -> str:
    if type(value) is not str:
        raise ValueError("not a string")
    return value


def _int(value) -> int:
    if type(value) is not int:
        raise ValueError("not an int")
    return value


def _list(value) -> list:
    if type(value) is not list:
        raise ValueError("not a list")
    return value


def _pair(value) -> tuple:
    first, second = _list(value)
    return (_int(first), _int(second))


def _pos(value) -> tuple:
    line, column, end_line, end_column = _list(value)
    return (_int(line), _int(column), _int(end_line), _int(end_column))


def _pos_or_none(value):
    return None if value is None else _pos(value)
