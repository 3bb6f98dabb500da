"""The policy stage: inline suppressions and the baseline decide which findings are reported.

An inline suppression sits on a resource (CloudFormation ``Metadata: fanout-lint``, a
Terraform ``# fanout-lint: ignore=...`` comment) and hides the findings whose primary
resource is that resource. It must give a reason, and may give an expiry date after which
it stops hiding anything. Problems with suppressions themselves (no reason, an unknown
rule, a bad or past date) become notices: warnings printed beside the report that never
change the exit code, because the finding they failed to hide is reported anyway.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field

from fanout_lint.findings import Finding, Notice, Suppressed
from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import Suppression
from fanout_lint.rule import Rule


@dataclass
class Applied:
    """Findings after inline suppressions: those kept, those hidden, and notices."""

    kept: list[Finding] = field(default_factory=list)
    suppressed: list[Suppressed] = field(default_factory=list)
    notices: list[Notice] = field(default_factory=list)


def apply_inline(graph: Graph, findings: list[Finding], rules: tuple[Rule, ...],
                 today: datetime.date | None = None) -> Applied:
    """Split ``findings`` into kept and suppressed, and report every faulty suppression of ``graph``."""
    today = today or datetime.date.today()
    applied = Applied()
    seen: set[Notice] = set()
    for node in graph.nodes():
        for suppression in node.suppressions:
            problem = suppression_problem(suppression, rules, today)
            if problem:
                notice = Notice(suppression.loc or node.loc, problem)
                if notice not in seen:  # SAM copies a resource's metadata onto what it generates
                    seen.add(notice)
                    applied.notices.append(notice)
    for finding in findings:
        match = next(
            (s for s in finding.suppressions
             if _names(s.rule, finding) and not suppression_problem(s, rules, today)),
            None,
        )
        if match is None:
            applied.kept.append(finding)
        else:
            applied.suppressed.append(Suppressed(finding, match))
    return applied


def suppression_problem(suppression: Suppression, rules: tuple[Rule, ...], today: datetime.date) -> str:
    """Why this suppression does not apply, or "" when it does."""
    key = suppression.rule.strip()
    if not any(key == r.name or key.upper() == r.id for r in rules):
        return f"suppression names unknown rule {key!r} (see `fanout-lint rules`); it suppresses nothing"
    comment = suppression.syntax == "comment"  # a Terraform comment, not CloudFormation Metadata
    if not suppression.reason.strip():
        hint = f"`# fanout-lint: ignore={key} -- <reason>`" if comment else "`reason: ...`"
        return f"suppression of {key} has no reason; it is not applied (add {hint})"
    if suppression.until:
        try:
            until = datetime.date.fromisoformat(str(suppression.until).strip())
        except ValueError:
            written = f"until={suppression.until}" if comment else f"until: {suppression.until!r}"
            return (f"suppression of {key} has {written}, not a date "
                    "(YYYY-MM-DD); it is not applied")
        if today > until:
            return f"suppression of {key} expired on {until.isoformat()}; it no longer suppresses"
    return ""


def _names(key: str, finding: Finding) -> bool:
    key = key.strip()
    return key == finding.name or key.upper() == finding.rule
