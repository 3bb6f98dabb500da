"""What a run is asked to do: which rules, at which severity, with which options."""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from typing import Any

from fanout_lint.findings import Severity
from fanout_lint.rule import Rule


@dataclass(frozen=True)
class Settings:
    select: tuple[str, ...] = ()  # IDs or names; empty means all rules
    ignore: tuple[str, ...] = ()
    severity: dict[str, Severity] = field(default_factory=dict)  # rule ID -> severity
    options: dict[str, dict[str, Any]] = field(default_factory=dict)  # rule ID -> options
    exclude: tuple[str, ...] = ()
    fail_on: Severity = Severity.WARNING
    jobs: int | None = None
    today: datetime.date | None = None  # when inline suppressions expire; None means the real today
    notices: tuple[str, ...] = ()  # about the configuration itself (a rule named by a former name)
    # Link templates into applications (imports, nested stacks); off, every template is a
    # unit of its own, as the cfn-lint plugin sees it.
    link: bool = True
    # A named template file links with the rest of its repository (the git top level
    # above it, else ``repo_root``); off, only with the templates the run names.
    link_repository: bool = True
    repo_root: str = "."


def find_rule(rules: tuple[Rule, ...], key: str) -> Rule | None:
    """A rule by ID (any case), name, or former name."""
    for rule in rules:
        if rule.is_named(key):
            return rule
    return None


def renamed(rules: tuple[Rule, ...], key: str) -> str | None:
    """What to tell a user who names a rule by a former name; None for a current name."""
    rule = find_rule(rules, key)
    if rule is None or key not in rule.former:
        return None
    return f"rule {key!r} is now named {rule.name!r} ({rule.id}); the old name still works, but use the new one"


def enabled_rules(rules: tuple[Rule, ...], settings: Settings) -> tuple[Rule, ...]:
    selected = [r for r in rules if not settings.select or _named(r, settings.select)]
    return tuple(r for r in selected if not _named(r, settings.ignore))


def _named(rule: Rule, keys: tuple[str, ...]) -> bool:
    return any(rule.is_named(k) for k in keys)


def options_for(rule: Rule, settings: Settings) -> dict[str, Any]:
    options = rule.option_defaults()
    options.update(settings.options.get(rule.id, {}))
    return options


def severity_for(rule: Rule, settings: Settings) -> Severity:
    return settings.severity.get(rule.id, rule.severity)
