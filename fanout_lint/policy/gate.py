"""The configuration is part of the gate: what a configuration file lowers is said aloud.

On a pull request the author can add or edit the configuration file as easily as a
template: ``fail-on = "none"``, ``exclude = ["*"]``, ``ignore = ["FL"]`` or every severity
set to ``info`` would pass the job with nothing said. So a run whose configuration file
lowers the gate below what the defaults and the command line ask says so, in one line
naming the file: on standard error, in the markdown summary, and as a notice in JSON,
SARIF and GitHub output. A workflow pins the gate with ``--config FILE`` (one taken from
the base branch) or ``--isolated`` (no configuration file at all).

What counts as lowering: a fail level below the default (``error`` or ``none``), any
excluded path, any ignored rule (``ignore``, ``extend-ignore``, ``per-file-ignores``), a ``select`` that leaves rules out, and a severity below
a rule's default, and a rule option set on the side of its default that makes the rule
report less (``Option.lowers``: a smaller ``factor``, a wider accepted range). Only what the file decides counts: a setting the command line overrides
(``--fail-on``, ``--select``) no longer comes from the file.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from fanout_lint.model.nodes import Loc
from fanout_lint.results.records import Notice, Severity
from fanout_lint.rule import Rule

DEFAULT_FAIL_ON = Severity.WARNING
# How many patterns or rules a notice names before it counts the rest.
MAX_NAMED = 3
MAX_SHOWN = 60  # characters of a pattern shown
PIN_HINT = "pin the gate in CI with --config FILE or --isolated"

if TYPE_CHECKING:
    from typing import Any


def lowered(path: str, rules: tuple[Rule, ...], *, fail_on: str | None, select: tuple[str, ...] | None,
            ignore: tuple[str, ...], exclude: tuple[str, ...], severity: dict[str, Severity],
            per_file: tuple[str, ...] = (), options: dict[str, dict[str, Any]] | None = None) -> Notice | None:
    """The notice for a configuration file at ``path`` that sets these (each as it applies
    to the run, after the command line), or None when it lowers nothing."""
    parts = []
    if fail_on is not None and _below_default(fail_on):
        parts.append("fail-on = none (findings never fail the run)" if fail_on == "none"
                     else f"fail-on = {fail_on} (findings below {fail_on} do not fail the run)")
    if exclude:
        parts.append(f"excludes {_named(exclude, 'path pattern')}")
    if ignore:
        parts.append(f"ignores {_named(ignore, 'rule')}")
    if per_file:
        parts.append(f"ignores rules in the files of {_named(per_file, 'pattern')} (per-file-ignores)")
    if select is not None:
        left_out = [rule.id for rule in rules if rule.id not in select]
        if left_out:
            parts.append(f"selects {len(rules) - len(left_out)} of {len(rules)} rules (leaves out {_named(tuple(left_out), 'rule')})")
    by_id = {rule.id: rule for rule in rules}
    lower = [f"{rule_id} {by_id[rule_id].severity.value} -> {level.value}" for rule_id, level in severity.items()
             if rule_id in by_id and level.rank < by_id[rule_id].severity.rank]
    if lower:
        parts.append(f"lowers the severity of {_listed(lower)}")
    loosened = _loosened(by_id, options or {})
    if loosened:
        parts.append(f"sets rule options that report less: {_listed(loosened)}")
    if not parts:
        return None
    return Notice(Loc(_shown(path), 1), f"this configuration lowers the gate: {'; '.join(parts)} ({PIN_HINT})")


def _loosened(by_id: dict[str, Rule], options: dict[str, dict[str, Any]]) -> list[str]:
    """``FL203 factor 6 -> 1`` for each option set past its default on its lowering side."""
    shown = []
    for rule_id, values in options.items():
        rule = by_id.get(rule_id)
        for option in rule.options if rule is not None else ():
            value = values.get(option.name)
            if not option.lowers or not _number(value) or not _number(option.default):
                continue
            if (value < option.default) if option.lowers == "below" else (value > option.default):
                shown.append(f"{rule_id} {option.name} {option.default} -> {value}")
    return shown


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _shown(path: str) -> str:
    """``path`` relative to the current directory when it is below it (as the reports
    show the templates), else as it is."""
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive
        return path
    return path if relative.startswith("..") else relative


def _below_default(fail_on: str) -> bool:
    if fail_on == "none":
        return True
    return Severity.parse(fail_on).rank > DEFAULT_FAIL_ON.rank


def _named(values: tuple[str, ...], what: str) -> str:
    count = f"{len(values)} {what}{'s' if len(values) != 1 else ''}"
    return f"{count}: {_listed(list(values))}"


def _listed(values: list[str]) -> str:
    shown = ", ".join(_short(v) for v in values[:MAX_NAMED])
    return shown if len(values) <= MAX_NAMED else f"{shown} and {len(values) - MAX_NAMED} more"


def _short(value: str) -> str:
    # a pattern is the file's text: a long one would make the notice a page long
    return value if len(value) <= MAX_SHOWN else value[:MAX_SHOWN] + "..."


def summary_lines(notices: tuple[Notice, ...], code) -> list[str]:
    """The markdown summary's lines for ``notices``: the file in a code span (``code``),
    the rest fanout-lint's own words (the patterns it quotes in code spans too)."""
    lines = []
    for notice in notices:
        lines.append(f"> **Warning:** {code(notice.loc.file)}: {code(notice.message)}")
        lines.append("")
    return lines
