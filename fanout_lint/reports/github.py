"""``--format github``: workflow commands, so findings show inline on the pull request.

One ``::error|warning|notice file=...,line=...,endLine=...,col=...,endColumn=...,title=...::message``
line per finding, spanning the attribute at fault (or the resource's name). Values are
escaped as the runner expects: ``%``, CR and LF everywhere, and also ``:`` and ``,``
inside properties. The records' text holds no line break to begin with
(``fanout_lint.results.untrusted``), so every line is one of these commands or the summary: a
name or path can end up only inside a command's message or property, never start one.
"""

from __future__ import annotations

from fanout_lint.policy.fingerprint import relative_path
from fanout_lint.reports.text import summary
from fanout_lint.results.records import Result, Severity

COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(kind: str, message: str, file: str | None = None, line: int | None = None,
            col: int | None = None, title: str | None = None, root: str = ".",
            end_line: int | None = None, end_col: int | None = None) -> str:
    """One workflow command. ``end_col`` is exclusive, as in ``Loc``; GitHub's ``endColumn``
    is the last column, and GitHub reads columns only on a one-line annotation."""
    props = []
    if file:
        props.append(f"file={escape_property(relative_path(file, root))}")
    if line:
        props.append(f"line={line}")
    if line and end_line and end_line > line:
        props.append(f"endLine={end_line}")
    elif line and col:
        props.append(f"col={col}")
        if end_line == line and end_col and end_col - 1 > col:
            props.append(f"endColumn={end_col - 1}")
    if title:
        props.append(f"title={escape_property(title)}")
    head = f"::{kind} {','.join(props)}" if props else f"::{kind}"
    return f"{head}::{escape_data(message)}"


def render(result: Result, root: str = ".") -> str:
    lines = [command("error", e.message, e.file, e.line, e.column, "fanout-lint: cannot lint", root)
             for e in result.errors]
    lines += [command("warning", n.message, n.loc.file, n.loc.line, n.loc.column, "fanout-lint suppression", root)
              for n in result.notices if not n.kind]
    lines += [command("notice", n.message, n.loc.file, n.loc.line, n.loc.column, "not modelled by fanout-lint", root)
              for n in result.notices if n.kind]
    for f in result.findings:
        resource = f.cdk_path or f.resource
        lines.append(command(
            COMMANDS[f.severity], f"{f.message} ({resource})", f.loc.file, f.loc.line, f.loc.column,
            f"{f.rule} {f.name}", root, f.loc.end_line, f.loc.end_column,
        ))
    lines.append(summary(result))
    return "\n".join(lines) + "\n"
