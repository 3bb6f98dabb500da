"""Where and how a new setting is written into a body, per syntax, touching nothing else.

A body (``model.nodes.Body``) spans the container holding a node's settings. The new
entry goes after the last one, in the style of its siblings:

- YAML block mapping: a new line after the last entry's line (after a trailing comment,
  before the break, so a file without a final newline keeps having none), indented as
  the sibling keys;
- YAML flow mapping and one-line JSON or HCL object: ``, Key: v`` after the last value
  (``{}`` becomes ``{Key: v}``);
- multi-line JSON object: ``,`` after the last value and a new line indented as the
  first key;
- HCL block: a new line before the closing brace, indented as the sibling arguments;
- multi-line HCL object (``jsonencode({...})``): a new line after the last element.

``path`` lists keys that do not exist yet (``Properties``): the entry is nested in them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from fanout_lint.fixes.hcl_align import align_rows, aligned_insertion
from fanout_lint.fixes.positions import Lines
from fanout_lint.fixes.render import HCL, JSON, YAML, entry, key
from fanout_lint.model.nodes import Loc
from fanout_lint.model.record import ValueRecord


@dataclass(eq=False, repr=False)
class Change(ValueRecord):
    """Replace ``text[start:end]`` with ``new`` (offsets into the source text)."""

    start: int
    end: int
    new: str


@dataclass(eq=False, repr=False)
class Setting(ValueRecord):
    """What to insert: the key, its value as written, and the keys to create around it."""

    name: str
    written: str
    path: tuple[str, ...] = ()


def insertion(lines: Lines, body: Loc, syntax: str, setting: Setting, owner_line: int) -> Change | None:
    """The change that adds ``setting`` to the body, or None when the body is not one
    this module can write into. ``owner_line`` is the line of the key that holds the
    body (a resource's logical ID), whose indentation gives the nesting step."""
    start = lines.offset(body.line, body.column)
    end = lines.offset(body.end_line, body.end_column) if body.has_end else None
    if start is None or end is None or end <= start:
        return None
    text = lines.text
    if _holds_key(lines, body, start, end, syntax, setting.path[0] if setting.path else setting.name):
        return None  # the key is written already (``Properties: {}``, say): adding it would repeat it
    if syntax == YAML:
        if text[start] == "{":
            return _inline(lines, start, end, _yaml_flow(setting), YAML)
        return _yaml_block(lines, body, setting, owner_line)
    if syntax == JSON:
        return _json(lines, start, end, setting, owner_line) if text[start] == "{" else None
    if syntax == HCL and not setting.path:
        if text[start] == "{":
            return _hcl_object(lines, start, end, setting)
        return _hcl_block(lines, start, end, setting)
    return None


def _holds_key(lines: Lines, body: Loc, start: int, end: int, syntax: str, name: str) -> bool:
    """The body may already write ``name``: exactly at the siblings' indentation in a
    YAML block mapping, anywhere in its text otherwise (a nested key of that name only
    costs the fix)."""
    if syntax == YAML and lines.text[start] != "{":
        keys = {name + ":", f'"{name}":', f"'{name}':"}
        for line in range(body.line, body.end_line + 1):
            text = lines.line_text(line)
            if len(text) - len(text.lstrip(" ")) == body.column - 1 or line == body.line:
                word = text[body.column - 1:].split(" ", 1)[0]
                if word in keys:
                    return True
        return False
    quoted = re.escape(name)
    return re.search(rf"(?<![\w-])[\"']?{quoted}[\"']?\s*[:=]", lines.text[start:end]) is not None


# -- YAML ----------------------------------------------------------------------

def _yaml_flow(setting: Setting) -> str:
    written = entry(YAML, setting.name, setting.written)
    for name in reversed(setting.path):
        written = f"{name}: {{{written}}}"
    return written


def _yaml_block(lines: Lines, body: Loc, setting: Setting, owner_line: int) -> Change | None:
    indent = " " * (body.column - 1)
    # The last entry's last line: a block scalar ends at the start of the line after it.
    last = body.end_line if body.end_column > 1 or body.end_line == body.line else body.end_line - 1
    if last < body.line:
        return None
    step = _step(indent, lines.indent(owner_line), "  ") if setting.path else ""
    nl = lines.newline(last)
    rows = [f"{indent}{step * depth}{name}:" for depth, name in enumerate(setting.path)]
    rows.append(f"{indent}{step * len(setting.path)}{entry(YAML, setting.name, setting.written)}")
    at = lines.end(last)
    return Change(at, at, nl + nl.join(rows))


def _step(inner: str, outer: str, fallback: str) -> str:
    """One level of indentation, as the file writes it."""
    if inner.startswith(outer) and len(inner) > len(outer):
        return inner[len(outer):]
    return fallback


# -- JSON ----------------------------------------------------------------------

def _json(lines: Lines, start: int, end: int, setting: Setting, owner_line: int) -> Change | None:
    text = lines.text
    if text[end - 1] != "}":
        return None
    first = _skip_blanks(text, start + 1, end - 1)
    open_line = lines.line_of(start)
    if first >= end - 1 or lines.line_of(first) == open_line:
        return _inline(lines, start, end, _json_inline(setting), JSON)
    indent = lines.indent(lines.line_of(first))
    step = _step(indent, lines.indent(owner_line if setting.path else open_line), "  ")
    nl = lines.newline(open_line)
    written = entry(JSON, setting.name, setting.written)
    for depth in range(len(setting.path), 0, -1):
        outer = indent + step * (depth - 1)
        written = f"{key(JSON, setting.path[depth - 1])}: {{{nl}{outer}{step}{written}{nl}{outer}}}"
    last = _last_code(lines, start, end - 1, JSON)
    return Change(last + 1, last + 1, f",{nl}{indent}{written}")


def _json_inline(setting: Setting) -> str:
    written = entry(JSON, setting.name, setting.written)
    for name in reversed(setting.path):
        written = f"{key(JSON, name)}: {{{written}}}"
    return written


# -- HCL -----------------------------------------------------------------------

def _hcl_block(lines: Lines, start: int, end: int, setting: Setting) -> Change | None:
    text = lines.text
    close = end - 1
    opening = _hcl_opening(text, start, close)
    if text[close] != "}" or opening is None:
        return None
    written = entry(HCL, setting.name, setting.written)
    open_line, close_line = lines.line_of(opening), lines.line_of(close)
    outer = lines.indent(open_line)
    sibling = _first_code_indent(lines, open_line + 1, close_line, HCL)
    indent = sibling if sibling is not None else outer + "  "
    nl = lines.newline(open_line)
    if open_line == close_line:  # a one-line block holds one argument at most: open it up
        inner = text[opening + 1:close].strip()
        rows = align_rows(([indent + inner] if inner else []) + [indent + written])
        return Change(opening + 1, close, nl + nl.join(rows) + nl + outer)
    if not text[lines.starts[close_line - 1]:close].strip():  # the brace alone on its line
        at = lines.starts[close_line - 1]
        aligned = aligned_insertion(lines, close_line - 1, indent + written) if close_line - 1 > open_line else None
        if aligned is not None:  # the arguments above, lined up with it as terraform fmt does
            first, rows = aligned
            return Change(lines.starts[first - 1], at, rows + nl)
        return Change(at, at, indent + written + nl)
    last = _last_code(lines, opening, close, HCL)
    return Change(last + 1, close, nl + indent + written + nl + outer)


def _hcl_object(lines: Lines, start: int, end: int, setting: Setting) -> Change | None:
    text = lines.text
    close = end - 1
    if text[close] != "}":
        return None
    written = entry(HCL, setting.name, setting.written)
    last = _last_code(lines, start, close, HCL)
    last_line, close_line = lines.line_of(last), lines.line_of(close)
    if last == start:  # an empty object
        if last_line == close_line:
            return Change(start + 1, close, f" {written} ")
        at = lines.starts[close_line - 1]
        return Change(at, at, lines.indent(close_line) + "  " + written + lines.newline(close_line - 1))
    if last_line == close_line:
        if text[last] == ",":
            return Change(last + 1, last + 1, f" {written},")
        return Change(last + 1, last + 1, f", {written}")
    indent = _first_code_indent(lines, lines.line_of(start) + 1, close_line, HCL)
    indent = indent if indent is not None else lines.indent(last_line)
    comma = "," if text[last] == "," else ""
    at = lines.end(last_line)
    open_line = lines.line_of(start)
    aligned = aligned_insertion(lines, last_line, indent + written + comma) if last_line > open_line else None
    if aligned is not None:  # the elements above, lined up with it as terraform fmt does
        first, rows = aligned
        if first <= last_line:  # rows: the changed lines with their breaks, then the new one
            return Change(lines.starts[first - 1], at, rows)
        return Change(at, at, lines.newline(last_line) + rows)
    return Change(at, at, lines.newline(last_line) + indent + written + comma)


def _hcl_opening(text: str, start: int, close: int) -> int | None:
    """The block's opening brace: the first outside the quoted labels."""
    index = start
    while index < close:
        char = text[index]
        if char == '"':
            index = _string_end(text, index, close)
        elif char == "{":
            return index
        index += 1
    return None


def _string_end(text: str, index: int, stop: int) -> int:
    """The offset of the quote that closes the string opened at ``index``."""
    index += 1
    while index < stop and text[index] != '"':
        index += 2 if text[index] == "\\" else 1
    return index


# -- shared --------------------------------------------------------------------

def _inline(lines: Lines, start: int, end: int, written: str, syntax: str) -> Change | None:
    """``, Key: v`` after the last value of a one-line container, or into an empty one."""
    text = lines.text
    close = end - 1
    if text[close] != "}":
        return None
    last = _last_code(lines, start, close, syntax)
    if last == start:  # empty: `{}` or `{ }` becomes `{Key: v}`
        if lines.line_of(start) == lines.line_of(close):
            return Change(start + 1, close, written)
        return Change(start + 1, start + 1, written)
    if text[last] == ",":  # a trailing comma stays trailing
        return Change(last + 1, last + 1, f" {written},")
    return Change(last + 1, last + 1, f", {written}")


def _skip_blanks(text: str, index: int, stop: int) -> int:
    while index < stop and text[index] in " \t\r\n\x85\u2028\u2029":
        index += 1
    return index


def _last_code(lines: Lines, start: int, close: int, syntax: str) -> int:
    """The offset of the last character before ``close`` that is neither blank nor inside
    a comment; ``start`` (the opening brace) when there is none."""
    line = lines.line_of(close)
    first_line = lines.line_of(start)
    while line >= first_line:
        line_start = lines.starts[line - 1]
        segment_start = max(line_start, start)
        segment_end = min(lines.end(line), close)
        code = _code(lines.text[segment_start:segment_end], syntax, segment_start == line_start)
        stripped = code.rstrip()
        if stripped:
            return segment_start + len(stripped) - 1
        line -= 1
    return start


def _first_code_indent(lines: Lines, first: int, stop: int, syntax: str) -> str | None:
    """The indentation of the first line in ``first..stop-1`` that holds code."""
    for line in range(first, stop):
        if _code(lines.line_text(line), syntax, True).strip():
            return lines.indent(line)
    return None


def _code(segment: str, syntax: str, at_line_start: bool) -> str:
    """The segment without its trailing comment. Quotes are followed from the segment's
    start, which is enough for the containers written into (their last value is not
    inside a string that spans lines)."""
    if syntax == JSON:
        return segment
    quote = ""
    index = 0
    while index < len(segment):
        char = segment[index]
        if quote:
            if char == "\\" and quote == '"':
                index += 1
            elif char == quote:
                quote = ""
        elif char == '"' and syntax == HCL:
            quote = char
        elif char in "\"'" and syntax == YAML and (index == 0 or segment[index - 1] in " \t{[,:"):
            quote = char  # a YAML quote opens a scalar only where one can start
        elif char == "#" and (syntax == HCL or (at_line_start if index == 0 else segment[index - 1] in " \t")):
            return segment[:index]  # YAML: a comment starts a line or follows a blank
        elif syntax == HCL and segment.startswith("//", index):
            return segment[:index]
        index += 1
    return segment
