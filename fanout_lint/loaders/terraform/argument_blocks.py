"""Nested blocks of a resource, including Terraform 0.11's argument form of a block.

Terraform 0.11 (HCL 1) let a nested block be written as an argument holding an object,
``dead_letter_config = { target_arn = "..." }``, or a list of objects, and meant the
block. HCL 2 parses that text as an object argument, and Terraform 0.12 and later refuse
it where the provider's schema has a block, so such text only occurs in configuration
written for 0.11, where it is the block. Reading it as one keeps a 0.11 module's
settings from looking absent (a function's dead-letter target, a mapping's
destination).

Only objects whose keys are all literal names are read as blocks; any other value
written under a block's name (a reference, a variable, a conditional) is reported by
``written_otherwise`` so that nothing proves the block absent.
"""

from __future__ import annotations

from fanout_lint.loaders.terraform.hcl.tree import Attribute, Block, Body, Literal, ObjectExpr, TupleExpr
from fanout_lint.loaders.terraform.overrides import PlacedAttribute


def nested_blocks(block: Block, name: str) -> list[Block]:
    """The nested blocks ``name`` of ``block``: the written blocks, or, when there are
    none, the objects of an argument ``name = {...}`` / ``name = [{...}, ...]``."""
    written = block.body.blocks_of(name)
    if written:
        return written
    attribute = block.body.attributes.get(name)
    if attribute is None:
        return []
    return [b for b in (_as_block(attribute, obj) for obj in _objects(attribute)) if b is not None]


def written_otherwise(block: Block, name: str) -> bool:
    """An argument ``name`` is written that may stand for the block but is not read as
    one (a reference, a variable, an object with computed keys): its content is unknown."""
    if block.body.blocks_of(name):
        return False
    attribute = block.body.attributes.get(name)
    if attribute is None or (isinstance(attribute.expr, Literal) and attribute.expr.value is None):
        return False
    objects = _objects(attribute)
    return not objects or any(_as_block(attribute, obj) is None for obj in objects)


def _objects(attribute: Attribute) -> list[ObjectExpr]:
    expr = attribute.expr
    if isinstance(expr, ObjectExpr):
        return [expr]
    if isinstance(expr, TupleExpr) and expr.items and all(isinstance(i, ObjectExpr) for i in expr.items):
        return list(expr.items)
    return []


def _as_block(attribute: Attribute, obj: ObjectExpr) -> Block | None:
    arguments: dict[str, Attribute] = {}
    positions = obj.item_pos if len(obj.item_pos) == len(obj.items) else ((None, None),) * len(obj.items)
    for (key, value), (key_pos, value_pos) in zip(obj.items, positions):
        if not (isinstance(key, Literal) and isinstance(key.value, str)):
            return None
        line, column = (key_pos[0], key_pos[1]) if key_pos else (attribute.line, attribute.column)
        if isinstance(attribute, PlacedAttribute):  # from an override file: findings point there
            arguments[key.value] = PlacedAttribute(key.value, value, line, column, value_pos, attribute.file)
        else:
            arguments[key.value] = Attribute(key.value, value, line, column, value_pos)
    start = obj.pos or attribute.pos
    return Block(
        type=attribute.name,
        labels=(),
        body=Body(arguments, ()),
        line=attribute.line,
        end_line=start[2],
        column=attribute.column,
        end_column=start[3],
        header_end=(attribute.line, attribute.column + len(attribute.name)),
    )
