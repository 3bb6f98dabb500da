"""The default human format: one line per finding, then a summary.

A finding ``--fix`` would fix is marked ``[*]`` after its rule ID, as ruff marks them
(an unsafe fix only when the run was given ``--unsafe-fixes``), and the summary counts
them.

Every line starts with a location (``findings.where``: a file name cannot pass for
another location or start a line with ``::``) or is the summary. The records are already
one printable line each, so colour codes are the only control characters written, and
only with ``--color``.
"""

from __future__ import annotations

from fanout_lint.results.records import Result, Severity
from fanout_lint.results.records import where as location

_COLOURS = {Severity.ERROR: "\033[31m", Severity.WARNING: "\033[33m", Severity.INFO: "\033[36m"}
_RESET = "\033[0m"
_DIM = "\033[2m"


def render(result: Result, colour: bool = False, unsafe_fixes: bool = False, quiet: bool = False) -> str:
    """``unsafe_fixes``: the run was given ``--unsafe-fixes``, so their findings are marked too;
    ``quiet``: the findings and errors only, without the summary line."""
    lines = [str(error) for error in result.errors]
    for f in result.findings:
        severity = f"[{f.severity.value}]"
        rule = f"{f.rule} [*]" if _fixable(f, unsafe_fixes) else f.rule
        where = location(f.loc.file, f.loc.line, f.loc.column)
        resource = f.resource if not f.cdk_path else f"{f.resource}, {f.cdk_path}"
        if colour:
            severity = f"{_COLOURS[f.severity]}{severity}{_RESET}"
            where = f"\033[1m{where}{_RESET}"
            resource = f"{_DIM}{resource}{_RESET}"
        lines.append(f"{where}: {rule} {severity} {f.message} ({resource})")
    if not quiet:
        lines.append(summary(result, unsafe_fixes))
    return "".join(line + "\n" for line in lines)


def _fixable(finding, unsafe_fixes: bool) -> bool:
    """``--fix`` would apply the finding's fix (as ruff marks it: ``[*]``)."""
    return finding.fix is not None and finding.fix.applies(unsafe_fixes)


def summary(result: Result, unsafe_fixes: bool = False) -> str:
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
    fixable = sum(1 for f in result.findings if _fixable(f, unsafe_fixes))
    more = sum(1 for f in result.findings if f.fix is not None and f.fix.applies(True)) - fixable
    if fixable:
        parts.append(f"[*] {fixable} fixable with --fix" + (" --unsafe-fixes" if unsafe_fixes else ""))
    if more:
        parts.append(f"{more} more with --fix --unsafe-fixes" if fixable else f"{more} fixable with --fix --unsafe-fixes")
    return "; ".join(parts)
