"""What a configuration makes of the rules: ``fanout-lint rules`` and ``check --show-settings``.

Both read the same resolved ``Settings`` the check would run with, so what they print is
what a run does: which rules are on, at which severity, with which options, and which
file said so.
"""

from __future__ import annotations

import json

from fanout_lint.policy.settings import Settings, enabled_rules, options_for, rule_names, severity_for
from fanout_lint.results.untrusted import clean
from fanout_lint.rule import Rule


def rule_rows(rules: tuple[Rule, ...], settings: Settings) -> list[dict]:
    on = {rule.id for rule in enabled_rules(rules, settings)}
    rows = []
    for rule in rules:
        row = {"id": rule.id, "name": rule.name, "severity": severity_for(rule, settings).value,
               "default_severity": rule.severity.value, "enabled": rule.id in on,
               "options": options_for(rule, settings), "summary": rule.summary,
               "option_types": {o.name: o.type.value for o in rule.options}, "fixable": rule.fixable.value}
        former = rule_names(rule)[1:]
        if former:
            row["former_names"] = list(former)
        rows.append(row)
    return rows


def render_rules(rules: tuple[Rule, ...], settings: Settings, fmt: str) -> str:
    rows = rule_rows(rules, settings)
    if fmt == "json":
        return json.dumps(rows, indent=2, default=_plain) + "\n"
    width = max(len(r["name"]) for r in rows)
    lines = []
    for r in rows:
        state = "on " if r["enabled"] else "off"
        lines.append(f"{r['id']}  {r['name']:<{width}}  {r['severity']:<7}  {state}  {r['summary']}")
    return "\n".join(lines) + "\n"


def render_settings(settings: Settings, rules: tuple[Rule, ...], config_path: str | None, root: str,
                    docs_url: str, paths: list[str] | None = None) -> str:
    """``paths``: the paths these settings govern, when the run's paths have several
    configuration files (each shown in a block of its own)."""
    # Every string here may come from the configuration file, which a pull request can
    # edit, or from a directory's name: each line is cleaned as untrusted text, and each
    # starts with fanout-lint's own label, never with the file's text.
    fail_on = settings.fail_on.value if settings.fail_on is not None else "none"
    lines = [
        f"configuration: {config_path or '(none found; defaults)'}",
        *([f"paths: {_list(tuple(paths))}"] if paths else []),
        f"repo-root: {root}",
        f"fail-on: {fail_on}",
        f"select: {_list(settings.select) or '(all rules)'}",
        f"ignore: {_list(settings.ignore) or '(none)'}",
        f"exclude: {_list(settings.exclude) or '(none)'}",
        f"docs-url: {docs_url}",
        *(f"gate: {notice.message}" for notice in settings.gate),
    ]
    # said only when set, so a run without them shows what it always showed
    for entry in settings.per_file_ignores:
        lines.append(f"per-file-ignores: {entry.pattern} = {_list(entry.rules)}")
    if settings.var_files:
        lines.append(f"var-files: {_list(settings.var_files)}")
    if settings.baseline:
        lines.append(f"baseline: {settings.baseline}")
    lines.append("rules:")
    for row in rule_rows(rules, settings):
        options = " ".join(f"{k}={_plain(v)}" for k, v in row["options"].items())
        state = "on " if row["enabled"] else "off"
        lines.append(f"  {row['id']}  {row['name']}  {row['severity']}  {state}" + (f"  {options}" if options else ""))
    return "\n".join(clean(line) for line in lines) + "\n"


def _list(values: tuple[str, ...]) -> str:
    return ", ".join(values)


def _plain(value):
    if isinstance(value, (set, frozenset, tuple)):
        return sorted(value) if isinstance(value, (set, frozenset)) else list(value)
    return value
