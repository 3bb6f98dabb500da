"""What a run is asked to do: which rules, at which severity, with which options.

A rule answers to its ID (any case), its name and, after a rename, its former names
(``Rule.former``). ``select`` and ``ignore`` also take ID prefixes (``FL2``: every
FL2xx rule). A key that names nothing gets the nearest names as a suggestion.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from fanout_lint.loaders.parsing.parse_cache import ParseCache
from fanout_lint.model.record import Record
from fanout_lint.policy.file_ignores import FileIgnore
from fanout_lint.results.records import Notice, Severity
from fanout_lint.rule import Rule

if TYPE_CHECKING:
    import datetime
    from typing import Any

    from fanout_lint.policy.hierarchy import Hierarchy

# An ID prefix: "FL", "FL2", "FL20"; a whole ID is matched as the rule itself.
_PREFIX = re.compile(r"FL[0-9]{0,2}")


@dataclass(eq=False, repr=False)
class Settings(Record):
    """What a run is asked to do (from the configuration and the flags)."""

    select: tuple[str, ...] = ()  # IDs, names or ID prefixes; empty means all rules
    ignore: tuple[str, ...] = ()
    severity: dict[str, Severity] = field(default_factory=dict)  # rule ID -> severity
    options: dict[str, dict[str, Any]] = field(default_factory=dict)  # rule ID -> options
    exclude: tuple[str, ...] = ()
    fail_on: Severity | None = Severity.WARNING  # None: findings never fail the run
    jobs: int | None = None
    today: datetime.date | None = None  # when inline suppressions expire; None means the real today
    notices: tuple[str, ...] = ()  # about the configuration itself (a rule named by a former name)
    docs_url: str | None = None  # where rule pages are (SARIF helpUri); None: the release's pages
    cache: ParseCache | None = None  # parsed files kept between runs; None: parse everything
    # Link templates into applications (imports, nested stacks); off, every template is a
    # unit of its own, as the cfn-lint plugin sees it.
    link: bool = True
    # A named template file links with the rest of its repository (the git top level
    # above it, else ``repo_root``); off, only with the templates the run names.
    link_repository: bool = True
    repo_root: str = "."
    repo_root_given: bool = False  # --repo-root was given: outside git, it is the repository to link with
    # ``per-file-ignores``: rules not reported in the files a glob matches, the globs
    # relative to ``per_file_base`` (the configuration file's directory)
    per_file_ignores: tuple[FileIgnore, ...] = ()
    per_file_base: str = "."
    # tfvars files every Terraform root unit of the run reads after its own
    # terraform.tfvars and *.auto.tfvars, in this order (as -var-file); the first
    # ``config_var_files`` come from the configuration file
    var_files: tuple[str, ...] = ()
    config_var_files: int = 0
    # ``baseline``: the configuration file's baseline (joined to its directory), used
    # when --baseline is not given; read only as files/confine.py allows, as --baseline is
    baseline: str | None = None
    # What the configuration file lowers (gate.py): Notices said on stderr, in the
    # markdown summary, and in JSON, SARIF and GitHub output
    gate: tuple[Notice, ...] = ()
    # The settings of each directory, from its nearest configuration file (hierarchy.py):
    # given, each unit is linted under its own directory's, these settings deciding only
    # what the whole run decides (jobs, cache, links, repository); None: these settings
    # apply to every unit, as a caller of ``engine.lint_paths`` that builds one gets.
    configuration: Hierarchy | None = None


def rule_names(rule: Rule) -> tuple[str, ...]:
    """The names ``rule`` answers to: its name, then any it had before a rename."""
    return (rule.name, *rule.former)


def find_rule(rules: tuple[Rule, ...], key: str) -> Rule | None:
    """A rule by ID (any case), name, or former name."""
    key = key.strip()
    for rule in rules:
        if rule.is_named(key):
            return rule
    return None


def renamed(rules: tuple[Rule, ...], key: str) -> str | None:
    """What to tell a user who names a rule by a former name; None for a current name."""
    rule = find_rule(rules, key)
    if rule is None or key.strip() not in rule.former:
        return None
    return f"rule {key!r} is now named {rule.name!r} ({rule.id}); the old name still works, but use the new one"


def is_prefix(key: str) -> bool:
    return _PREFIX.fullmatch(key.strip().upper()) is not None


def match_rules(rules: tuple[Rule, ...], key: str) -> tuple[Rule, ...]:
    """The rules ``key`` selects: the one it names, or every rule whose ID starts with it."""
    rule = find_rule(rules, key)
    if rule is not None:
        return (rule,)
    if is_prefix(key):
        prefix = key.strip().upper()
        return tuple(r for r in rules if r.id.startswith(prefix))
    return ()


def suggestion(choices, key: str) -> str:
    """`` (did you mean X?)`` for the nearest of ``choices``, or ""."""
    by_lower = {c.lower(): c for c in choices}
    near = difflib.get_close_matches(key.strip().lower(), list(by_lower), n=1, cutoff=0.6)
    return f" (did you mean {by_lower[near[0]]}?)" if near else ""


def rule_suggestion(rules: tuple[Rule, ...], key: str) -> str:
    return suggestion([name for r in rules for name in (r.id, *rule_names(r))], key)


def enabled_rules(rules: tuple[Rule, ...], settings: Settings) -> tuple[Rule, ...]:
    selected = [r for r in rules if not settings.select or _named(r, settings.select)]
    return tuple(r for r in selected if not _named(r, settings.ignore))


def _named(rule: Rule, keys: tuple[str, ...]) -> bool:
    for key in keys:
        upper = key.strip().upper()
        if rule.is_named(key.strip()):
            return True
        if _PREFIX.fullmatch(upper) and rule.id.startswith(upper):
            return True
    return False


def options_for(rule: Rule, settings: Settings) -> dict[str, Any]:
    options = rule.option_defaults()
    options.update(settings.options.get(rule.id, {}))
    return options


def severity_for(rule: Rule, settings: Settings) -> Severity:
    return settings.severity.get(rule.id, rule.severity)


def parse_fail_on(text: str) -> Severity | None:
    """``error``, ``warning``, ``info``, or ``none`` (findings never fail the run)."""
    if text.strip().lower() == "none":
        return None
    try:
        return Severity.parse(text)
    except ValueError:
        raise ValueError(f"unknown level {text!r} (use error, warning, info or none)") from None
