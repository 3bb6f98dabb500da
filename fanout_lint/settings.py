"""What a run is asked to do: which rules, at which severity, with which options."""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from typing import Any

from fanout_lint.findings import Severity
from fanout_lint.parse_cache import ParseCache
from fanout_lint.rule import Rule


@dataclass(frozen=True)
class Settings:
    """What a run is asked to do (from the configuration and the flags)."""

    select: tuple[str, ...] = ()  # IDs or names; empty means all rules
    ignore: tuple[str, ...] = ()
    severity: dict[str, Severity] = field(default_factory=dict)  # rule ID -> severity
    options: dict[str, dict[str, Any]] = field(default_factory=dict)  # rule ID -> options
    exclude: tuple[str, ...] = ()
    fail_on: Severity = Severity.WARNING
    jobs: int | None = None
    today: datetime.date | None = None  # when inline suppressions expire; None means the real today
    cache: ParseCache | None = None  # parsed files kept between runs; None: parse everything


def find_rule(rules: tuple[Rule, ...], key: str) -> Rule | None:
    """A rule by ID or name (case-insensitive for IDs)."""
    for rule in rules:
        if key == rule.name or key.upper() == rule.id:
            return rule
    return None


def enabled_rules(rules: tuple[Rule, ...], settings: Settings) -> tuple[Rule, ...]:
    selected = [r for r in rules if not settings.select or _named(r, settings.select)]
    return tuple(r for r in selected if not _named(r, settings.ignore))


def _named(rule: Rule, keys: tuple[str, ...]) -> bool:
    return any(k == rule.name or k.upper() == rule.id for k in keys)


def options_for(rule: Rule, settings: Settings) -> dict[str, Any]:
    options = rule.option_defaults()
    options.update(settings.options.get(rule.id, {}))
    return options


def severity_for(rule: Rule, settings: Settings) -> Severity:
    return settings.severity.get(rule.id, rule.severity)
