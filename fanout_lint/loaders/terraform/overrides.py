"""Override files (``override.tf``, ``*_override.tf``, their JSON and OpenTofu forms)
merged into the blocks of a module's other files, as Terraform merges them.

Terraform's rules (its documentation, "Override Files"):

- each top-level block of an override file merges into the block of a primary file with
  the same header (type and labels); override files are applied in lexical order, and
  blocks in the order they are written, so a later one wins;
- an attribute of the override block replaces the attribute of that name;
- nested blocks of a type the override block has replace *all* nested blocks of that
  type; types it does not have stay; nested blocks are not merged, except a resource's
  ``lifecycle``, merged attribute by attribute;
- ``locals`` merge value by value, whichever ``locals`` block holds the value;
- a block that overrides nothing (no primary block with its header, no local of its
  name) is an error of the configuration.

``provider`` and ``terraform`` blocks change nothing the rules read and are not merged.
An attribute taken from an override file keeps its file (``PlacedAttribute``), so a
finding points into the override file where the value is written.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from fanout_lint.loaders.terraform.hcl.tree import Attribute, Block, Body, HclFile
from fanout_lint.model.record import ValueRecord

MERGED = ("resource", "data", "variable", "output", "module")
MAX_DEPTH = 200  # as the parsers: deeper nesting is refused before this


@dataclass(eq=False, repr=False)
class PlacedAttribute(Attribute):
    """An attribute written in another file than the block that holds it."""

    file: str = ""


def attribute_file(attribute: Attribute, default: str) -> str:
    """The file an attribute is written in: its own when an override placed it."""
    return attribute.file if isinstance(attribute, PlacedAttribute) and attribute.file else default


@dataclass(eq=False, repr=False)
class OverrideError(ValueRecord):
    """An override block that overrides nothing, where it is written."""

    file: str
    line: int
    message: str


def merge_overrides(primary: list[HclFile], overrides: list[HclFile]) -> tuple[list[HclFile], list[OverrideError]]:
    """The primary files with every override applied, and the blocks that override nothing."""
    blocks = [list(hcl.body.blocks) for hcl in primary]
    headers: dict[tuple, tuple[int, int]] = {}
    local_homes: dict[str, tuple[int, int]] = {}
    for file_index, hcl in enumerate(primary):
        for block_index, block in enumerate(hcl.body.blocks):
            if block.type == "locals":
                for name in block.body.attributes:
                    local_homes.setdefault(name, (file_index, block_index))
            elif block.type in MERGED:
                headers.setdefault((block.type, block.labels), (file_index, block_index))
    errors: list[OverrideError] = []
    for override in overrides:
        for block in override.body.blocks:
            if block.type == "locals":
                for name, attribute in block.body.attributes.items():
                    home = local_homes.get(name)
                    if home is None:
                        errors.append(OverrideError(override.path, attribute.line,
                                                    f"local.{name} overrides no local value of the module"))
                        continue
                    base = blocks[home[0]][home[1]]
                    merged = dict(base.body.attributes)
                    merged[name] = _placed(attribute, override.path)
                    blocks[home[0]][home[1]] = replace(base, body=replace(base.body, attributes=merged))
            elif block.type in MERGED:
                home = headers.get((block.type, block.labels))
                if home is None:
                    errors.append(OverrideError(override.path, block.line,
                                                f"{_address(block)} overrides no block of the module's other files"))
                    continue
                base = blocks[home[0]][home[1]]
                blocks[home[0]][home[1]] = _merged(base, block, override.path)
    merged_files = [
        hcl if all(a is b for a, b in zip(hcl.body.blocks, kept)) else replace(
            hcl, body=replace(hcl.body, blocks=tuple(kept)))
        for hcl, kept in zip(primary, blocks)
    ]
    return merged_files, errors


def _address(block: Block) -> str:
    prefix = {"resource": (), "data": ("data",), "variable": ("var",)}.get(block.type, (block.type,))
    return ".".join((*prefix, *block.labels))


def _merged(base: Block, override: Block, file: str) -> Block:
    attributes = dict(base.body.attributes)
    for name, attribute in override.body.attributes.items():
        attributes[name] = _placed(attribute, file)
    replaced = {child.type for child in override.body.blocks}
    nested = [child for child in base.body.blocks if child.type not in replaced]
    for child in override.body.blocks:
        if base.type in ("resource", "data") and child.type == "lifecycle":
            continue
        nested.append(_placed_block(child, file, 0))
    if base.type in ("resource", "data") and "lifecycle" in replaced:
        nested.append(_merged_lifecycle(base, override, file))
    return replace(base, body=Body(attributes, tuple(nested)))


def _merged_lifecycle(base: Block, override: Block, file: str) -> Block:
    old = base.body.blocks_of("lifecycle")
    new = override.body.blocks_of("lifecycle")
    merged = _placed_block(new[-1], file, 0) if not old else old[0]
    for block in new:
        merged = replace(merged, body=replace(merged.body, attributes={
            **merged.body.attributes,
            **{name: _placed(attribute, file) for name, attribute in block.body.attributes.items()},
        }))
    return merged


def _placed(attribute: Attribute, file: str) -> PlacedAttribute:
    if isinstance(attribute, PlacedAttribute):
        return attribute
    return PlacedAttribute(attribute.name, attribute.expr, attribute.line, attribute.column,
                           attribute.value_pos, file)


def _placed_block(block: Block, file: str, depth: int) -> Block:
    """A nested block of an override file, every attribute in it placed in that file."""
    if depth > MAX_DEPTH:
        return block
    attributes = {name: _placed(attribute, file) for name, attribute in block.body.attributes.items()}
    children = tuple(_placed_block(child, file, depth + 1) for child in block.body.blocks)
    return replace(block, body=Body(attributes, children))
