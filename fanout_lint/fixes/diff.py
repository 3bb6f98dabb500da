"""``--diff``: what the fixes would change, as a unified diff.

The lines shown come from the linted files, so they are untrusted text: each line's
content is shown as ``untrusted.clean`` shows any text (a control character as a visible
escape), and its line break as a newline. For the usual file, printable text with LF
line ends, the diff is exact and applies with ``patch -p0`` or ``git apply``.

A context line is the file's text behind one space, and the GitHub runner reads a line
that starts with ``::`` after leading whitespace as a workflow command: a block scalar or
heredoc line ``::error ...`` shown as context would be obeyed. Such a line is shown as
removed and added again (``-`` then ``+``), which changes nothing the diff does (the old
and the new text are the same) and starts the line with a sign, never with ``::``.
"""

from __future__ import annotations

import difflib

from fanout_lint.fixes.apply import FileChange
from fanout_lint.fixes.positions import is_hcl
from fanout_lint.results.untrusted import clean

NO_NEWLINE = "\\ No newline at end of file\n"


def render(changes: list[FileChange]) -> str:
    out: list[str] = []
    for change in sorted(changes, key=lambda c: c.path):
        before = _lines(change.source.text, change.path)
        after = _lines(change.text, change.path)
        name = clean(change.path)
        for line in difflib.unified_diff(before, after, fromfile=name, tofile=name):
            if line.startswith(("---", "+++", "@@")):
                out.append(line if line.endswith("\n") else line + "\n")
                continue
            content = line.rstrip("\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")
            shown = clean(content)
            last = content == line  # the file's last line, without a break
            if shown.startswith(" ") and shown.lstrip(" ").startswith("::"):
                out += ["-" + shown[1:] + "\n", *([NO_NEWLINE] if last else []), "+" + shown[1:] + "\n"]
            else:
                out.append(shown + "\n")
            if last:
                out.append(NO_NEWLINE)
    return "".join(out)


def _lines(text: str, path: str) -> list[str]:
    """The text's lines as its parser counts them (``positions.py``): in HCL a line ends at
    LF alone, so a comment holding another break is shown as the one line it is."""
    if not is_hcl(path):
        return text.splitlines(keepends=True)
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    return lines if lines[-1] else lines[:-1]
