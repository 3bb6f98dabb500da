"""``graph --format markdown``: a summary to post as a pull-request comment or job summary.

Counts by rule and severity, a table of the findings with links to the rule pages, and
the Mermaid diagram (GitHub renders ```mermaid blocks).

Text from the templates (names, file names, messages, which quote names and values)
appears only inside code spans, where markdown renders nothing: no link, image, autolink,
HTML, emphasis or @mention. Everything outside them is fanout-lint's own text.
"""

from __future__ import annotations

import re
from collections import Counter

from fanout_lint.policy.gate import summary_lines
from fanout_lint.reports import mermaid
from fanout_lint.reports.topology import Topology
from fanout_lint.results.doc_links import RULE_DOCS_URL
from fanout_lint.results.records import Finding, Severity

# Mermaid (and so GitHub) refuses a diagram with 500 edges or 50,000 characters or more.
MAX_DIAGRAM_EDGES = 499
MAX_DIAGRAM_CHARS = 49_000
# GitHub refuses a job summary over 1 MiB (and then shows none); the tables are cut to
# stay below it with room to spare, and say how much they left out.
MAX_SUMMARY_BYTES = 1_000_000
_ORDER = (Severity.ERROR, Severity.WARNING, Severity.INFO)


_BACKTICKS = re.compile("`+")


def code(text: str) -> str:
    """``text`` as a code span that nothing in it can close.

    The fence is one backtick longer than the longest run of backticks in the text; a space
    pads text that starts or ends with a backtick (it would join the fence) or with spaces
    at both ends (the span would strip one of each). Entities are not decoded inside a span,
    so nothing else is escaped. The text is one line already (``fanout_lint.results.untrusted``).
    """
    if not text:
        return ""
    fence = "`" * (max((len(run) for run in _BACKTICKS.findall(text)), default=0) + 1)
    padded = text.startswith("`") or text.endswith("`") or (text.startswith(" ") and text.endswith(" "))
    pad = " " if padded else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def cell(text: str) -> str:
    """``text`` as a code span inside one table cell.

    GitHub splits a row at every ``|`` before it looks for code spans, so ``|`` is written
    ``\\|``, which the table removes again before the span is read.
    """
    return code(text).replace("|", "\\|")


def rule_link(rule: str, name: str, docs: str) -> str:
    return f"[{rule} {name}]({link_target(docs)}{name}.md)"


# A link destination ends at an unbalanced ")" and at a space; "<", ">", "\\" and
# backticks are refused in a docs-url already, the parentheses are written as escapes.
_TARGET_ESCAPES = str.maketrans({"(": "%28", ")": "%29", " ": "%20", "<": "%3C", ">": "%3E", "\\": "%5C",
                                 "`": "%60", "\n": "", "\r": ""})


def link_target(url: str) -> str:
    """``url`` as a markdown link destination: nothing in it ends the link early."""
    return url.translate(_TARGET_ESCAPES)


def render(topology: Topology, docs: str = RULE_DOCS_URL, limit: int = MAX_SUMMARY_BYTES,
           gate: tuple = ()) -> str:
    """The summary, at most ``limit`` bytes of UTF-8: the findings table and the list of
    files that could not be read are cut first, each with a line saying what was left out.
    ``gate``: the notices of a configuration file that lowers the gate (``gate.py``), said
    first."""
    findings = topology.findings
    units = len(topology.clusters)
    head = [f"## fanout-lint: {_headline(findings)} in {units} unit{'s' if units != 1 else ''}", ""]
    if gate:
        head += summary_lines(gate, code)
    counts = _counts(findings, docs) + [""] if findings else []
    diagram = _diagram(topology)
    budget = limit - _size(head + counts + diagram) - 2_000  # the cut lines and table frames
    errors: list[str] = []
    if topology.errors:
        items = _fit([f"- {code(str(e))}" for e in topology.errors], budget // 4 if findings else budget,
                     "files that could not be read")
        errors = ["**Files that could not be read:**", "", *items, ""]
        budget -= _size(errors)
    table = _table(findings, docs, budget) + [""] if findings else []
    out = "\n".join(head + errors + counts + table + diagram) + "\n"
    if len(out.encode("utf-8")) > limit:  # the parts that are never cut are too large themselves
        return "\n".join(head + [TOO_LARGE]) + "\n"
    return out


TOO_LARGE = ("_The summary is too large for GitHub's 1 MiB limit and is left out: see the job log or the "
             "SARIF report._")


def _size(lines: list[str]) -> int:
    return sum(len(line.encode("utf-8")) + 1 for line in lines)


def _fit(lines: list[str], budget: int, what: str) -> list[str]:
    """The first of ``lines`` that fit ``budget`` bytes, and a line counting the rest."""
    kept, used = [], 0
    for line in lines:
        used += len(line.encode("utf-8")) + 1
        if used > budget:
            left = len(lines) - len(kept)
            return kept + [f"- _... and {left:,} more {what}, left out to keep the summary under GitHub's "
                           "1 MiB limit: see the job log or the SARIF report._"]
        kept.append(line)
    return kept


def _headline(findings: tuple[Finding, ...]) -> str:
    if not findings:
        return "no findings"
    counts = Counter(f.severity for f in findings)
    detail = ", ".join(f"{counts[s]} {s.value}" for s in _ORDER if counts[s])
    return f"{len(findings)} finding{'s' if len(findings) != 1 else ''} ({detail})"


def _counts(findings: tuple[Finding, ...], docs: str) -> list[str]:
    by_rule: dict[tuple[str, str, Severity], int] = Counter((f.rule, f.name, f.severity) for f in findings)
    rows = sorted(by_rule.items(), key=lambda item: (-item[0][2].rank, item[0][0]))
    lines = ["| Rule | Severity | Findings |", "| --- | --- | ---: |"]
    for (rule, name, severity), count in rows:
        lines.append(f"| {rule_link(rule, name, docs)} | {severity.value} | {count} |")
    return lines


def _table(findings: tuple[Finding, ...], docs: str, budget: int = MAX_SUMMARY_BYTES) -> list[str]:
    lines = [
        "<details open><summary>Findings</summary>",
        "",
        "| Severity | Rule | Resource | Location | Message |",
        "| --- | --- | --- | --- | --- |",
    ]
    used = _size(lines)
    for shown, f in enumerate(findings):
        where = cell(f"{f.loc.file}:{f.loc.line}")
        row = f"| {f.severity.value} | {rule_link(f.rule, f.name, docs)} | {cell(f.resource)} | {where} | {cell(f.message)} |"
        used += len(row.encode("utf-8")) + 1
        if used > budget:
            left = len(findings) - shown
            lines += ["", f"_... and {left:,} more finding{'s' if left != 1 else ''} not shown, left out to keep "
                          "the summary under GitHub's 1 MiB limit: the counts above include them; see the job "
                          "log or the SARIF report._"]
            break
        lines.append(row)
    lines += ["", "</details>"]
    return lines


def _diagram(topology: Topology) -> list[str]:
    if not topology.nodes:
        return ["_Nothing to draw: no topics, queues or consumers found._"]
    diagram = mermaid.render(topology) if len(topology.edges) <= MAX_DIAGRAM_EDGES else ""
    if not diagram or len(diagram) > MAX_DIAGRAM_CHARS:
        return [
            f"_The topology ({len(topology.nodes)} resources, {len(topology.edges)} connections) is too "
            "large for a Mermaid diagram here: run `fanout-lint graph --focus RESOURCE` to see one part._"
        ]
    return ["<details open><summary>Topology</summary>", "", "```mermaid", diagram.rstrip("\n"), "```", "",
            "</details>"]
