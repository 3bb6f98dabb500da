"""What a run produces: findings about resources, and errors about files.

These records are what every renderer reads, so they are where untrusted text is made
safe: each cleans its text fields when it is constructed (``fanout_lint.results.untrusted``).
Fields that identify rather than show (``Finding.unit``, ``involved``, ``node_ids``,
``suppressions``) keep the raw names the model matches on and are never printed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from fanout_lint.model.nodes import Loc, Suppression
from fanout_lint.model.record import ValueRecord
from fanout_lint.results.untrusted import clean, clean_loc, clean_optional, clean_path
from fanout_lint.rule import Applicability
from fanout_lint.severity import Severity  # re-exported: the records and renderers name it here

if TYPE_CHECKING:  # a run's graphs, kept for the views that draw them
    from fanout_lint.model.graph import Graph


@dataclass(eq=False, repr=False)
class Related(ValueRecord):
    """Another resource a finding involves, and its part in it."""

    resource: str
    loc: Loc
    role: str = ""  # e.g. "consumer", "source queue", "subscription"

    def __post_init__(self) -> None:
        object.__setattr__(self, "resource", clean(self.resource))
        object.__setattr__(self, "loc", clean_loc(self.loc))

    def as_dict(self) -> dict:
        return {
            "resource": self.resource,
            "file": self.loc.file,
            "line": self.loc.line,
            "column": self.loc.column,
            "role": self.role,
        }


@dataclass(eq=False, repr=False)
class Edit(ValueRecord):
    """Replace the text from (line, column) to (end_line, end_column) of ``file`` with
    ``text``; an empty range inserts. Lines and columns are 1-based, columns count
    characters and the end is exclusive, as in ``Loc``."""

    file: str
    line: int
    column: int
    end_line: int
    end_column: int
    text: str

    def as_dict(self) -> dict:
        # the raw path stays on the edit (--fix opens it); what is shown is cleaned
        return {"file": clean_path(self.file), "line": self.line, "column": self.column,
                "end_line": self.end_line, "end_column": self.end_column, "content": self.text}


@dataclass(eq=False, repr=False)
class FindingFix(ValueRecord):
    """A finding's fix as text edits, all in the files of its unit."""

    description: str  # what it sets: "VisibilityTimeout: 360"
    title: str  # what an editor or the command line offers: "Set VisibilityTimeout to 360"
    applicability: Applicability  # safe: --fix; unsafe: --unsafe-fixes too; display-only: neither
    edits: tuple[Edit, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "title", clean(self.title))  # a rule's own title may name a resource

    def applies(self, unsafe: bool) -> bool:
        """``--fix`` applies it (``unsafe``: with ``--unsafe-fixes``)."""
        return self.applicability.applies(unsafe)

    def as_dict(self) -> dict:
        return {"description": self.description, "title": self.title,
                "applicability": self.applicability.value, "edits": [e.as_dict() for e in self.edits]}


@dataclass(eq=False, repr=False)
class Finding(ValueRecord):
    """One rule's verdict on one resource, with where it is written and how to fix it."""

    rule: str  # the rule ID
    name: str  # the rule name
    severity: Severity
    message: str
    resource: str  # logical ID or Terraform address
    loc: Loc
    related: tuple[Related, ...] = ()
    cdk_path: str | None = None
    unit: str = ""
    # resources involved, for fingerprints that survive moved lines (CDK path when known)
    involved: tuple[str, ...] = field(default=(), compare=False)
    # the inline suppressions written on the primary resource (the policy stage applies them)
    suppressions: tuple[Suppression, ...] = field(default=(), compare=False, repr=False)
    # graph node ids of the primary and related resources, so the topology view can place
    # the finding exactly (inline subscriptions share their topic's resource name)
    node_ids: tuple[str, ...] = field(default=(), compare=False)
    fix: FindingFix | None = field(default=None, compare=False)
    # the fail level of the settings that produced it (its unit's configuration file:
    # hierarchy.py): "error", "warning", "info" or "none"; "" for the run's own level
    fail_on: str = field(default="", compare=False, repr=False)

    def __post_init__(self) -> None:
        # ``related`` holds Related records, which clean themselves
        object.__setattr__(self, "message", clean(self.message))
        object.__setattr__(self, "resource", clean(self.resource))
        object.__setattr__(self, "cdk_path", clean_optional(self.cdk_path))
        object.__setattr__(self, "loc", clean_loc(self.loc))

    def sort_key(self) -> tuple:
        return (self.loc.file, self.loc.line, self.loc.column, self.rule, self.resource, self.message)

    def as_dict(self) -> dict:
        data = {
            "rule": self.rule,
            "name": self.name,
            "severity": self.severity.value,
            "file": self.loc.file,
            "line": self.loc.line,
            "column": self.loc.column,
            "end_line": self.loc.end_line or self.loc.line,
            "end_column": self.loc.end_column or self.loc.column,
            "resource": self.resource,
            "message": self.message,
            "related": [r.as_dict() for r in self.related],
        }
        if self.cdk_path:
            data["cdk_path"] = self.cdk_path
        if self.fix is not None:
            data["fix"] = self.fix.as_dict()
        return data


@dataclass(eq=False, repr=False)
class LoadError(ValueRecord):
    """A file that could not be read or parsed, or a rule that crashed on a unit."""

    file: str
    line: int | None
    message: str
    column: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "file", clean_path(self.file))
        object.__setattr__(self, "message", clean(self.message))

    def sort_key(self) -> tuple:
        return (self.file, self.line or 0, self.message)

    def as_dict(self) -> dict:
        # the raw path stays on the edit (--fix opens it); what is shown is cleaned
        return {"file": self.file, "line": self.line, "column": self.column, "message": self.message}

    def __str__(self) -> str:
        return f"{where(self.file, self.line, self.column)}: error: {self.message}"


_COLON_BEFORE_DIGIT = re.compile(r":(?=[0-9])")


def where(file: str, line: int | None = None, column: int | None = None) -> str:
    """``file:line:column`` as a line of text output (report or stderr) begins with it.

    The file name is the author's, so it must not pass for another place: a ``:`` followed
    by a digit inside it is written ``%3A`` (a file named ``x.yaml:9:1: FL101 ...`` cannot
    claim line 9 of ``x.yaml``), and a name that starts with ``:`` or a space gets ``./`` in
    front (a line beginning ``::`` is a workflow command to the GitHub runner, which
    ignores leading whitespace). Only the shown text changes; the name is still readable.
    """
    shown = _COLON_BEFORE_DIGIT.sub("%3A", file)
    if shown[:1] in (":", " "):
        shown = "./" + shown
    if line is None:
        return shown
    return f"{shown}:{line}" if column is None else f"{shown}:{line}:{column}"


@dataclass(eq=False, repr=False)
class Notice(ValueRecord):
    """A warning about the run itself, not about the topology; it never gates."""

    loc: Loc
    message: str
    # "" for a warning about a suppression; "not-modelled" for the constructs of a unit the
    # graph does not model (not_modelled.py): a note, which ``-q`` hides
    kind: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "loc", clean_loc(self.loc))
        object.__setattr__(self, "message", clean(self.message))

    @property
    def level(self) -> str:
        return "note" if self.kind else "warning"

    def sort_key(self) -> tuple:
        return (self.loc.file, self.loc.line, self.loc.column, self.message)

    def as_dict(self) -> dict:
        data = {"file": self.loc.file, "line": self.loc.line, "column": self.loc.column, "message": self.message}
        if self.kind:
            data["kind"] = self.kind
        return data

    def __str__(self) -> str:
        return f"{where(self.loc.file, self.loc.line, self.loc.column)}: {self.level}: {self.message}"


@dataclass(eq=False, repr=False)
class Skipped(ValueRecord):
    """A file the run did not lint, and why (Serverless Framework, not a template, ...)."""

    path: str
    reason: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "path", clean_path(self.path))
        object.__setattr__(self, "reason", clean(self.reason))

    def __str__(self) -> str:
        return f"{where(self.path)}: {self.reason}"


@dataclass(eq=False, repr=False)
class Suppressed(ValueRecord):
    """A finding hidden by an inline suppression, shown with ``--show-suppressed``."""

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


@dataclass(eq=False, repr=False)
class Result:
    """What linting some units produced: findings, errors, notices, suppressed findings."""

    findings: list[Finding] = field(default_factory=list)
    errors: list[LoadError] = field(default_factory=list)
    units: int = 0
    linted: list[str] = field(default_factory=list)  # the units' paths (a report lists the clean ones)
    graphs: list["Graph"] = field(default_factory=list)
    suppressed: list[Suppressed] = field(default_factory=list)  # hidden by inline suppressions
    notices: list[Notice] = field(default_factory=list)  # about suppressions, what is not modelled; never gate
    baselined: int = 0  # findings hidden because the baseline lists them
    in_baseline: list[Finding] = field(default_factory=list)  # those findings, for SARIF's baselineState
    skipped: list[Skipped] = field(default_factory=list)  # files not linted, with the reason
    # messaging resources the graphs model, and constructs seen and not modelled (not_modelled.py)
    modelled: int = 0
    not_modelled: int = 0
    # file -> check value of the text the findings' fixes were planned on: --fix writes a
    # file only while it still holds that text
    fix_sources: dict[str, str] = field(default_factory=dict)

    def sort(self) -> None:
        self.findings.sort(key=Finding.sort_key)
        self.errors.sort(key=LoadError.sort_key)
        self.suppressed.sort(key=lambda s: s.finding.sort_key())
        self.notices.sort(key=Notice.sort_key)
        self.skipped.sort(key=lambda s: s.path)
