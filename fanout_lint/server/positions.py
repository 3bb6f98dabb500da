"""Lines and columns as the protocol counts them.

fanout-lint counts 1-based lines and columns in characters (code points); the protocol
counts 0-based lines and columns in the code units of the position encoding the client
and server agreed on (UTF-16 unless the client offers another)."""

from __future__ import annotations

from lsprotocol import types

from fanout_lint.model.nodes import Loc


def units(text: str, encoding: str) -> int:
    """The length of ``text`` in code units of ``encoding`` ("utf-8", "utf-16", "utf-32")."""
    if encoding == "utf-32":
        return len(text)
    if encoding == "utf-8":
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)


def position(lines: list[str], line: int, column: int, encoding: str) -> types.Position:
    """The protocol's position of 1-based ``line`` and character ``column``, held to the text."""
    row = max(line - 1, 0)
    text = lines[row] if row < len(lines) else ""
    return types.Position(line=row, character=units(text[:max(column - 1, 0)], encoding))


def span(lines: list[str], loc: Loc, encoding: str) -> types.Range:
    """The range of ``loc``: its own end when it has one, else to the end of its token
    (the line's text up to the next space or the line's end)."""
    start = position(lines, loc.line, loc.column, encoding)
    if loc.end_line and (loc.end_line, loc.end_column) > (loc.line, loc.column):
        return types.Range(start=start, end=position(lines, loc.end_line, loc.end_column, encoding))
    row = max(loc.line - 1, 0)
    text = lines[row] if row < len(lines) else ""
    begin = max(loc.column - 1, 0)
    end = begin
    while end < len(text) and not text[end].isspace():
        end += 1
    if end == begin:
        end = len(text.rstrip())
    return types.Range(start=start, end=position(lines, loc.line, end + 1, encoding))


def split_lines(text: str) -> list[str]:
    """The lines of ``text`` without their ends, as the parsers count them."""
    return text.splitlines()
