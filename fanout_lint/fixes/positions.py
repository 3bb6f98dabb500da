"""Lines and columns of a source text, counted as the parser that located it counts them.

Locations are 1-based lines and columns in characters. Where a line breaks depends on
the parser: libyaml (YAML, and JSON through the same line table) breaks at CR LF, CR,
LF, NEL, LS and PS; Lark (HCL) counts LF alone, so a CR before it is the end of the
line's text and a lone CR breaks nothing. Planning an edit and applying it both go
through ``Lines``, so an edit lands where it was planned.
"""

from __future__ import annotations

import bisect
import re
from itertools import accumulate

_YAML_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")
_HCL_BREAK = re.compile("\r?\n")
_OTHER_YAML_BREAKS = ("\x85", "\u2028", "\u2029")  # libyaml's, besides CR and LF
_ONE_MORE = (1).__add__  # a line's length and its break, added in C (a generator costs a call a line)


# The files Lark parses as HCL (``loaders/terraform/files.py``): Terraform's and OpenTofu's native
# syntax and tfvars. ``.tf.json`` and ``.tofu.json`` are JSON, located by the JSON parser.
_HCL_SUFFIXES = (".tf", ".tofu", ".tfvars")


def is_hcl(file: str) -> bool:
    """Whether ``file`` is native HCL, whose lines Lark counts; every other source is a
    template (YAML or JSON), whose lines libyaml counts."""
    return file.endswith(_HCL_SUFFIXES)


class Lines:
    """A text with the offset where each line starts and the break that ends it."""

    __slots__ = ("text", "starts", "breaks")

    def __init__(self, text: str, hcl: bool):
        self.text = text
        if "\r" not in text and (hcl or not any(other in text for other in _OTHER_YAML_BREAKS)):
            # Every break is LF (the common case): the line starts from the lengths of the
            # lines, in C, not from one regular-expression match a line.
            starts = [0, *accumulate(map(_ONE_MORE, map(len, text.split("\n"))))]
            starts.pop()  # the offset after the last line, which has no break
            breaks = ["\n"] * (len(starts) - 1)
        else:
            starts = [0]
            breaks = []
            for match in (_HCL_BREAK if hcl else _YAML_BREAK).finditer(text):
                breaks.append(match.group())
                starts.append(match.end())
        breaks.append("")  # the last line ends the text
        self.starts = starts
        self.breaks = breaks

    @classmethod
    def of(cls, text: str, file: str) -> "Lines":
        return cls(text, is_hcl(file))

    @property
    def count(self) -> int:
        return len(self.starts)

    def offset(self, line: int, column: int) -> int | None:
        """The offset of (line, column), or None when the text has no such place."""
        if not 1 <= line <= len(self.starts) or column < 1:
            return None
        start = self.starts[line - 1]
        if start + column - 1 > self.end(line):
            return None
        return start + column - 1

    def position(self, offset: int) -> tuple[int, int]:
        """(line, column) of an offset."""
        index = bisect.bisect_right(self.starts, offset) - 1  # the last line starting at or before it
        return index + 1, offset - self.starts[index] + 1

    def line_of(self, offset: int) -> int:
        return self.position(offset)[0]

    def end(self, line: int) -> int:
        """The offset where the line's text ends, before its break."""
        return self.starts[line - 1] + len(self.line_text(line))

    def line_text(self, line: int) -> str:
        start = self.starts[line - 1]
        stop = self.starts[line] - len(self.breaks[line - 1]) if line < len(self.starts) else len(self.text)
        return self.text[start:stop]

    def indent(self, line: int) -> str:
        """The blanks that start the line."""
        text = self.line_text(line)
        return text[:len(text) - len(text.lstrip(" \t"))]

    def newline(self, line: int) -> str:
        """The break a new line after ``line`` takes: that line's, else the file's first, else LF."""
        if self.breaks[line - 1]:
            return self.breaks[line - 1]
        return next((b for b in self.breaks if b), "\n")
