"""What a run produces: findings about resources, and errors about files."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from fanout_lint.model.nodes import Loc, Suppression


class Severity(enum.Enum):
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"

    @property
    def rank(self) -> int:
        return {"info": 0, "warning": 1, "error": 2}[self.value]

    @classmethod
    def parse(cls, text: str) -> "Severity":
        try:
            return cls(text.strip().lower())
        except ValueError:
            raise ValueError(f"unknown severity {text!r} (use error, warning or info)") from None


@dataclass(frozen=True)
class Related:
    resource: str
    loc: Loc
    role: str = ""  # e.g. "consumer", "source queue", "subscription"

    def as_dict(self) -> dict:
        return {
            "resource": self.resource,
            "file": self.loc.file,
            "line": self.loc.line,
            "column": self.loc.column,
            "role": self.role,
        }


@dataclass(frozen=True)
class Finding:
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
            "resource": self.resource,
            "message": self.message,
            "related": [r.as_dict() for r in self.related],
        }
        if self.cdk_path:
            data["cdk_path"] = self.cdk_path
        return data


@dataclass(frozen=True)
class LoadError:
    """A file that could not be read or parsed, or a rule that crashed on a unit."""

    file: str
    line: int | None
    message: str
    column: int | None = None

    def sort_key(self) -> tuple:
        return (self.file, self.line or 0, self.message)

    def as_dict(self) -> dict:
        return {"file": self.file, "line": self.line, "column": self.column, "message": self.message}

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        if self.line is not None and self.column is not None:
            where += f":{self.column}"
        return f"{where}: error: {self.message}"
