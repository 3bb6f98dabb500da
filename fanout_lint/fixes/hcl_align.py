"""A new HCL argument lined up as ``terraform fmt`` lines it up, so a clean file stays clean.

``terraform fmt`` (hclwrite) aligns the ``=`` of consecutive lines that each hold a whole
single-line argument (or object element): one space after the longest name, the others
padded to it. Anything else ends the run: a blank line, a comment-only line, a nested
block's header or closing brace, a line that opens a multi-line value (``tags = {``).
Trailing comments of consecutive lines are aligned the same way, one space after the
longest code. A line added at the end of a run therefore moves the ``=`` of the lines
above it when its name is the longest, and their trailing comments with them.
"""

from __future__ import annotations

from dataclasses import dataclass

from fanout_lint.fixes.positions import Lines

_OPENERS, _CLOSERS = "([{", ")]}"


@dataclass(frozen=True, eq=False, repr=False)
class Row:
    """One line: its code before ``=`` (None when it is no single-line argument), from
    ``=`` to the code's end, and its trailing comment with the blanks before it."""

    lead: str | None
    assign: str
    code: str
    comment: str


def row(text: str) -> Row:
    code, comment = _split_comment(text)
    equals = _assignment(code)
    if equals is None or not code[:equals].strip():
        return Row(None, "", code, comment)
    return Row(code[:equals], code[equals:].rstrip(), code, comment)


def aligned_insertion(lines: Lines, after: int, new: str) -> tuple[int, str] | None:
    """``new`` (a whole line, without its break) written after line ``after``, aligned with
    the run it ends: (the first line that changes, the text of lines first..after, each
    with its break, then ``new``); None when ``after`` ends no run of arguments."""
    rows = {}
    first = after
    while first >= 1:
        current = row(lines.line_text(first))
        if current.lead is None:
            break
        rows[first] = current
        first -= 1
    first += 1
    if first > after:
        return None
    added = row(new)
    if added.lead is None:
        return None
    width = max(len(r.lead.rstrip()) for r in [*rows.values(), added])
    texts = {number: _with_assign(r, width) for number, r in rows.items()}
    new_text = _with_assign(added, width)
    moved = [n for n in texts if texts[n] != lines.line_text(n)]
    if moved and any(_trailing(row(texts[n])) for n in moved):
        # the trailing comments of the moved lines, and of the lines above aligned with them
        top = min(moved)
        while top > 1 and _trailing(row(lines.line_text(top - 1))):
            top -= 1
        for number in range(top, first):
            texts[number] = lines.line_text(number)
        _align_comments(texts, top, after)
    changed = [n for n in texts if texts[n] != lines.line_text(n)]
    start = min(changed) if changed else after + 1
    body = "".join(texts[n] + lines.newline(n) for n in range(start, after + 1))
    return start, body + new_text


def align_rows(texts: list[str]) -> list[str]:
    """Consecutive lines (of one new block) with their ``=`` aligned, as fmt would."""
    rows = [row(t) for t in texts]
    if any(r.lead is None for r in rows):
        return texts
    width = max(len(r.lead.rstrip()) for r in rows)
    return [_with_assign(r, width) for r in rows]


def _with_assign(line: Row, width: int) -> str:
    lead = line.lead.rstrip()
    return lead + " " * (width - len(lead) + 1) + line.assign + line.comment


def _align_comments(texts: dict[int, str], top: int, bottom: int) -> None:
    """Align the trailing comments of each run of consecutive commented lines."""
    number = top
    while number <= bottom:
        run = []
        while number <= bottom and _trailing(row(texts[number])):
            run.append(number)
            number += 1
        if run:
            width = max(len(row(texts[n]).code.rstrip()) for n in run)
            for n in run:
                current = row(texts[n])
                code = current.code.rstrip()
                texts[n] = code + _respaced(current.comment, width - len(code) + 1)
        number += 1


def _trailing(line: Row) -> bool:
    """A comment after code: a comment-only line is aligned with nothing."""
    return bool(line.comment) and bool(line.code.strip())


def _respaced(comment: str, spaces: int) -> str:
    return " " * spaces + comment.lstrip(" \t")


def _split_comment(text: str) -> tuple[str, str]:
    """(the code, the trailing comment from the blanks before it); a comment-only line is
    all comment and no code, as fmt reads it."""
    quote = False
    index = 0
    while index < len(text):
        char = text[index]
        if quote:
            if char == "\\":
                index += 1
            elif char == '"':
                quote = False
        elif char == '"':
            quote = True
        elif char == "#" or text.startswith("//", index):
            code = text[:index]
            if not code.strip():
                return "", text
            stripped = code.rstrip(" \t")
            return stripped, text[len(stripped):]
        index += 1
    return text, ""


def _assignment(code: str) -> int | None:
    """The offset of the line's first ``=`` (not ``==``, ``!=``, ``<=``, ``>=``, ``=>``)
    when the value after it closes every bracket it opens: a whole argument."""
    quote = False
    equals = None
    depth = 0
    index = 0
    while index < len(code):
        char = code[index]
        if quote:
            if char == "\\":
                index += 1
            elif char == '"':
                quote = False
        elif char == '"':
            quote = True
        elif char == "<" and code.startswith("<<", index) and equals is not None:
            return None  # a heredoc runs over the next lines
        elif char == "=" and equals is None:
            before = code[index - 1] if index else ""
            after = code[index + 1] if index + 1 < len(code) else ""
            if before not in "=!<>" and after not in "=>":
                equals = index
        elif equals is not None and char in _OPENERS:
            depth += 1
        elif equals is not None and char in _CLOSERS:
            depth -= 1
        index += 1
    if quote or equals is None or depth != 0:
        return None
    return equals
