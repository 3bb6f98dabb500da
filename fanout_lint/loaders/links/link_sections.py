"""The part of a YAML template that can hold its links, cut from the text before parsing.

Planning the links of a run (``fanout_lint/run/link_plan.py``) needs, of each template
that may link, only the names it exports and imports and the templates it nests: its
``Parameters`` and ``Mappings`` (names are evaluated with their defaults), the
``Outputs`` entries that export, and the ``Resources`` entries that import or nest. The
rest of the template, most of it, is parsed only once, when the template is loaded.

So for a template written the usual way (block style, top-level keys at column 0, one
resource or output per entry), ``cut`` keeps the whole of every other top-level section,
and of ``Resources`` and ``Outputs`` only the entries whose text holds one of the words
(``applications.marks``), plus the first resource where it is what makes the text a
template. Each
YAML block entry means the same alone as among its siblings, with two exceptions, both
caught: an alias whose anchor was cut away does not parse (the caller then parses the
whole text), and a key written twice would change which one wins (the text is then not
cut). Anything unusual (directives, several documents, flow style at the top level, a
top-level key quoted or not followed by a colon, tabs for indentation) is not cut either:
``cut`` returns None and the caller parses the whole text.

Patterns that start with a line break (found by a fast literal search) and match at most
one line: linear in the text.
"""

from __future__ import annotations

import re

_CUT = ("Resources", "Outputs")
# On the text with a line break put in front, so that every line starts after one.
_TOP_LINE = re.compile(r"\n[^ \r\n#][^\n]*")  # a line that starts at column 0
_FIRST_CONTENT = re.compile(r"\n( *)[^ \r\n#]")
_TAB_INDENT = re.compile(r"\n *\t")


def cut(text: str, words: tuple[str, ...]) -> str | None:
    """``text`` with only the entries of ``Resources`` and ``Outputs`` that contain one of
    ``words`` (and the first resource, when no ``AWSTemplateFormatVersion`` says that the
    text is a template), or None when it cannot be cut safely."""
    t = "\n" + text
    heads = []  # (key, start of the header line, its end)
    for match in _TOP_LINE.finditer(t):
        line = match.group()[1:]
        if not heads and line.rstrip() == "---":
            continue  # the start of the one document
        key, colon, rest = line.partition(":")
        if not colon or not key.isidentifier() or key.startswith("_") or rest[:1] not in (" ", "\r", ""):
            return None  # ---, ..., %YAML, "Quoted":, {flow}, - item, a tab
        heads.append((key, match.start() + 1, match.end()))
    if not heads or len({key for key, _, _ in heads}) != len(heads):
        return None
    if _FIRST_CONTENT.search(t, 0, heads[0][1]):
        return None  # indented content before the first top-level key
    out: list[str] = [t[1:heads[0][1]]]
    # the first resource makes the text a template, unless the version key says so
    first_resource = not any(key == "AWSTemplateFormatVersion" for key, _, _ in heads)
    for index, (key, start, end) in enumerate(heads):
        stop = heads[index + 1][1] if index + 1 < len(heads) else len(t)
        if key not in _CUT or _after_colon(t[start:end]):
            out.append(t[start:stop])
            continue
        entries = _entries(t, end, stop)
        if entries is None:
            return None
        out.append(t[start:end] + "\n")
        for number, (a, b) in enumerate(entries):
            chunk = t[a:b]
            if (key == "Resources" and number == 0 and first_resource) or any(word in chunk for word in words):
                out.append(chunk)
        if out[-1][-1:] not in ("\n", "\r"):
            out.append("\n")
    return "".join(out)


def _after_colon(line: str) -> bool:
    """Whether the header holds its value on its own line (flow style, a tag, a scalar)."""
    rest = line.partition(":")[2].strip()
    return bool(rest) and not rest.startswith("#")


def _entries(t: str, start: int, stop: int) -> list[tuple[int, int]] | None:
    """The spans of the block mapping's entries between ``start`` (the line break that
    ends its header) and ``stop`` (comments and blank lines go with the entry above), or
    None when that is not one plain block mapping."""
    first = _FIRST_CONTENT.search(t, start, stop)
    if first is None or _TAB_INDENT.search(t, start, stop):
        return None
    indent = len(first.group(1))
    if indent == 0:
        return None
    if indent > 1 and re.compile(r"\n {1,%d}[^ \r\n#]" % (indent - 1)).search(t, start, stop):
        return None  # a line less indented than the entries
    starts = [m.start() + 1 for m in re.compile(r"\n {%d}[^ \r\n#]" % indent).finditer(t, first.start(), stop)]
    keys: set[str] = set()
    for at in starts:
        line_end = t.find("\n", at, stop)
        key, colon, rest = t[at + indent:line_end if line_end >= 0 else stop].partition(":")
        if not colon or not key or key[0] in "\"'-?&*!{[|>" or rest[:1] not in (" ", "\r", ""):
            return None
        if key in keys:
            return None  # the last one wins: which one is kept must not change
        keys.add(key)
    bounds = starts + [stop]
    return [(bounds[i], bounds[i + 1]) for i in range(len(starts))]
