"""The default human format: one line per finding, then a summary."""

from __future__ import annotations

from fanout_lint.engine import Result
from fanout_lint.findings import Severity

_COLOURS = {Severity.ERROR: "\033[31m", Severity.WARNING: "\033[33m", Severity.INFO: "\033[36m"}
_RESET = "\033[0m"
_DIM = "\033[2m"


def render(result: Result, colour: bool = False) -> str:
    lines = [str(error) for error in result.errors]
    for f in result.findings:
        severity = f"[{f.severity.value}]"
        where = f"{f.loc.file}:{f.loc.line}:{f.loc.column}"
        resource = f.resource if not f.cdk_path else f"{f.resource}, {f.cdk_path}"
        if colour:
            severity = f"{_COLOURS[f.severity]}{severity}{_RESET}"
            where = f"\033[1m{where}{_RESET}"
            resource = f"{_DIM}{resource}{_RESET}"
        lines.append(f"{where}: {f.rule} {severity} {f.message} ({resource})")
    lines.append(summary(result))
    return "\n".join(lines) + "\n"


def summary(result: Result) -> str:
    counts = {s: 0 for s in Severity}
    for f in result.findings:
        counts[f.severity] += 1
    total = len(result.findings)
    parts = [f"{total} finding{'s' if total != 1 else ''}"]
    if total:
        detail = ", ".join(f"{counts[s]} {s.value}" for s in (Severity.ERROR, Severity.WARNING, Severity.INFO) if counts[s])
        parts[0] += f" ({detail})"
    parts.append(f"{result.units} unit{'s' if result.units != 1 else ''} checked")
    if result.errors:
        parts.append(f"{len(result.errors)} error{'s' if len(result.errors) != 1 else ''}")
    if result.suppressed:
        parts.append(f"{len(result.suppressed)} suppressed inline")
    if result.baselined:
        parts.append(f"{result.baselined} in baseline")
    return "; ".join(parts)
