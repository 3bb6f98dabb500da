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

from fanout_lint.findings import Finding, where
from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import Loc, Suppression
from fanout_lint.rule import Rule
from fanout_lint.untrusted import clean, clean_loc, clean_optional


@dataclass(frozen=True)
class Notice:
    """A warning about the run itself, not about the topology; it never gates."""

    loc: Loc
    message: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "loc", clean_loc(self.loc))
        object.__setattr__(self, "message", clean(self.message))

    def sort_key(self) -> tuple:
        return (self.loc.file, self.loc.line, self.loc.column, self.message)

    def as_dict(self) -> dict:
        return {"file": self.loc.file, "line": self.loc.line, "column": self.loc.column, "message": self.message}

    def __str__(self) -> str:
        return f"{where(self.loc.file, self.loc.line, self.loc.column)}: warning: {self.message}"


@dataclass(frozen=True)
class Suppressed:
    finding: Finding
    suppression: Suppression  # a display copy: the match was made on the raw one

    def __post_init__(self) -> None:
        s = self.suppression
        object.__setattr__(self, "suppression", Suppression(
            rule=clean(s.rule), reason=clean(s.reason), until=clean_optional(s.until),
            loc=None if s.loc is None else clean_loc(s.loc),
        ))

    def as_dict(self) -> dict:
        data = self.finding.as_dict()
        data["suppression"] = {"rule": self.suppression.rule, "reason": self.suppression.reason,
                               "until": self.suppression.until}
        return data


@dataclass
class Applied:
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
    if not suppression.reason.strip():
        return f"suppression of {key} has no reason; it is not applied (add `reason: ...`)"
    if suppression.until:
        try:
            until = datetime.date.fromisoformat(str(suppression.until).strip())
        except ValueError:
            return (f"suppression of {key} has until={suppression.until!r}, not a date "
                    "(YYYY-MM-DD); it is not applied")
        if today > until:
            return f"suppression of {key} expired on {until.isoformat()}; it no longer suppresses"
    return ""


def _names(key: str, finding: Finding) -> bool:
    key = key.strip()
    return key == finding.name or key.upper() == finding.rule
