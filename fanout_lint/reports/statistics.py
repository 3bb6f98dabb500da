"""``--statistics``: how many findings each rule has, instead of the findings themselves.

Text: one line per rule with findings, most first (``count  ID  [*] name  severity``,
``[*]`` when ``--fix`` would fix some of them), then the coverage line (messaging resources
modelled of those seen) and the summary line; JSON: a list of
``{"rule", "name", "severity", "count", "fixable"}``. Nothing here comes from a template
but counts and the rules' own names.
"""

from __future__ import annotations

import json
from collections import Counter

from fanout_lint.reports.text import _fixable, summary
from fanout_lint.results.records import Result


def counts(result: Result, unsafe_fixes: bool) -> list[dict]:
    by_rule: Counter = Counter((f.rule, f.name, f.severity.value) for f in result.findings)
    fixable: Counter = Counter(f.rule for f in result.findings if _fixable(f, unsafe_fixes))
    rows = [{"rule": rule, "name": name, "severity": severity, "count": count, "fixable": fixable[rule]}
            for (rule, name, severity), count in by_rule.items()]
    return sorted(rows, key=lambda row: (-row["count"], row["rule"]))


def render(result: Result, fmt: str, unsafe_fixes: bool = False, quiet: bool = False) -> str:
    rows = counts(result, unsafe_fixes)
    if fmt == "json":
        return json.dumps(rows, indent=2) + "\n"
    lines = [str(error) for error in result.errors]
    width = max((len(str(row["count"])) for row in rows), default=1)
    name_width = max((len(row["name"]) for row in rows), default=0)
    for row in rows:
        mark = "[*] " if row["fixable"] else "    "
        lines.append(f"{row['count']:>{width}}  {row['rule']}  {mark}{row['name']:<{name_width}}  {row['severity']}")
    if not quiet:
        lines.append(coverage(result))
        lines.append(summary(result, unsafe_fixes))
    return "".join(line + "\n" for line in lines)


def coverage(result: Result) -> str:
    """How many of the messaging resources seen the graphs model (``not_modelled.py``)."""
    seen = result.modelled + result.not_modelled
    line = f"coverage: {result.modelled} of {seen} messaging resource{'s' if seen != 1 else ''} modelled"
    if result.not_modelled:
        line += f" ({result.not_modelled} not modelled: see the notes)"
    return line
