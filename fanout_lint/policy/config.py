"""The configuration file: ``[tool.fanout-lint]`` in pyproject.toml, or ``.fanout-lint.toml``.

The file is found from each linted path upward, up to the repository root and never
above it (``.fanout-lint.toml`` first in each directory, then a ``pyproject.toml`` that
has a ``[tool.fanout-lint]`` table); ``--config`` names one explicitly, ``--isolated``
reads none. Each unit is linted under its own nearest file (``hierarchy.py``). What the
file lowers of the gate is said aloud (``gate.py``). Everything in it is validated against the registered rules and their
declared options, so a typo is an error (exit 2), never a silently ignored setting.
Command-line flags win over the file.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from fanout_lint.files.regular_files import CONFIG_BYTES, read_bounded
from fanout_lint.files.repository import top_level
from fanout_lint.model.record import Record
from fanout_lint.policy.file_ignores import FileIgnore
from fanout_lint.policy.gate import lowered
from fanout_lint.policy.settings import (
    Settings,
    find_rule,
    match_rules,
    parse_fail_on,
    renamed,
    rule_suggestion,
    suggestion,
)
from fanout_lint.results.records import Severity
from fanout_lint.rule import Option, Rule, value_kind

if TYPE_CHECKING:
    from typing import Any

DEDICATED = ".fanout-lint.toml"
PYPROJECT = "pyproject.toml"
KEYS = ("select", "ignore", "exclude", "fail-on", "severity", "options", "docs-url",
        "extend-select", "extend-ignore", "per-file-ignores", "var-files", "baseline")
# tomllib keeps, until the next table header, every prefix of every dotted key it has
# read: a line with d dots costs about d*d/2 tuple slots (10,000 dots take 400 MB). The
# sum of the squares of the dots per line bounds that cost; real files stay far below.
MAX_DOTTED_KEY_COST = 2_000_000


class ConfigError(Exception):
    """A configuration problem, already phrased as ``file[:line]: message``."""


@dataclass(eq=False, repr=False)
class FileConfig(Record):
    """What one configuration file sets (None or empty where it says nothing)."""

    path: str
    select: tuple[str, ...] | None = None  # rule IDs; None when the file does not say
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    fail_on: str | None = None  # as written ("none" included); None when the file does not say
    docs_url: str | None = None
    severity: dict[str, Severity] = field(default_factory=dict)
    options: dict[str, dict[str, Any]] = field(default_factory=dict)
    notices: tuple[str, ...] = ()  # rules named by a former name, with the file (and line)
    extend_select: tuple[str, ...] = ()  # rule IDs added to ``select`` (ruff's extend-select)
    extend_ignore: tuple[str, ...] = ()  # rule IDs added to ``ignore``
    per_file_ignores: tuple[FileIgnore, ...] = ()  # globs relative to the file's directory
    var_files: tuple[str, ...] = ()  # as written: relative to the file's directory
    baseline: str | None = None  # as written: relative to the file's directory


def find_config(start: str, near_misses: list[str] | None = None) -> str | None:
    """The nearest configuration file at or above ``start`` (a directory, or a file: its
    directory), up to the repository root (the git top level) and never above it: a file
    above the checkout is not the repository's to govern its gate. Outside a repository
    the search goes up to the file system's root.

    ``near_misses``: filled with a warning for each file on the way that is almost a
    configuration (``[tool.fanout_lint]`` in a pyproject.toml)."""
    directory = os.path.abspath(start)
    if not os.path.isdir(directory) and os.path.lexists(directory):
        directory = os.path.dirname(directory)
    top = top_level(directory)
    while True:
        dedicated = os.path.join(directory, DEDICATED)
        if os.path.isfile(dedicated):
            return dedicated
        pyproject = os.path.join(directory, PYPROJECT)
        if os.path.isfile(pyproject):
            if _has_our_table(pyproject):
                return pyproject
            if near_misses is not None:
                near_misses.extend(_near_miss(pyproject))
        parent = os.path.dirname(directory)
        if parent == directory or directory == top:
            return None
        directory = parent


def _above_repository(config: str | None, directory: str) -> bool:
    """``config`` is in a directory above the repository of ``directory``: the current
    directory's file is no file of that repository (a checkout inside a workspace)."""
    top = top_level(directory)
    if config is None or top is None:
        return False
    home = os.path.dirname(os.path.abspath(config))
    return top != home and top.startswith(home.rstrip(os.sep) + os.sep)


def _near_miss(pyproject: str) -> list[str]:
    text = _read(pyproject)
    if "lint" not in text.lower():
        return []
    match = _NEAR_TABLE.search(text)
    if match is None:
        return []
    line = text.count("\n", 0, match.start()) + 1
    return [f"{pyproject}:{line}: warning: [tool.{match.group(1)}] is not read: the table of fanout-lint "
            "is [tool.fanout-lint]"]


def _has_our_table(path: str) -> bool:
    # a cheap look before parsing: most pyproject.toml files are not ours to read
    text = _read(path)
    if "fanout-lint" not in text:
        return False
    # a header with a typo (`[tool.fanout-lint` unclosed) still counts: the parser then
    # reports it, where passing the file over would silently drop the configuration
    return _OUR_TABLE.search(text) is not None


# Only spaces and tabs where the file may have whitespace, never \s: a pattern that
# could match newlines after a line anchor retries each run of blank lines from every
# line in it, quadratic in the blank lines (300,000 of them took minutes).
_OUR_TABLE = re.compile(r"^[ \t]*\[[ \t]*tool[ \t]*\.[ \t]*[\"']?fanout-lint(?![\w-])", re.M)
# A table that is almost ours: another separator or case (`fanout_lint`, `FanoutLint`),
# a header our own pattern did not match. Linear: one anchored attempt per line.
_NEAR_TABLE = re.compile(r"^[ \t]*\[[ \t]*tool[ \t]*\.[ \t]*[\"']?(fanout[-_. ]?lint)(?![\w-])", re.M | re.I)


def _read(path: str) -> str:
    try:
        raw = read_bounded(path, CONFIG_BYTES, follow=False)  # a link is refused before (hierarchy.py)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read configuration: {exc.strerror or exc}") from None
    return raw.decode("utf-8", errors="replace")


def load_config(path: str, rules: tuple[Rule, ...]) -> FileConfig:
    text = _read(path)
    _check_dotted_keys(path, text)
    # parsed only when there is a file: most runs have none, and start-up counts in a hook
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # Python 3.10
        import tomli as tomllib
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(_toml_error(path, str(exc))) from None
    except RecursionError:
        raise ConfigError(f"{path}: invalid TOML: arrays or tables nested too deep") from None
    except ValueError as exc:  # an integer of more digits than Python converts, say
        raise ConfigError(f"{path}: invalid TOML: {str(exc).splitlines()[0] if str(exc) else exc!r}") from None
    if os.path.basename(path) == PYPROJECT:
        tool = data.get("tool", {})
        table = tool.get("fanout-lint") if isinstance(tool, dict) else None
        if table is None:
            raise ConfigError(f"{path}: no [tool.fanout-lint] table")
        where = "[tool.fanout-lint]"
    else:
        table, where = _dedicated_table(path, data)
    return _parse(table, _Reader(path, text, where), rules)


def _dedicated_table(path: str, data: dict) -> tuple[Any, str]:
    """The keys of a ``.fanout-lint.toml``: at its top level, or under ``[tool.fanout-lint]``
    as in a pyproject.toml (a table copied from one works as it is)."""
    tool = data.get("tool")
    if isinstance(tool, dict) and "fanout-lint" in tool:
        others = [key for key in data if key != "tool"]
        if others or len(tool) > 1:
            raise ConfigError(f"{path}: keys both at the top level and outside [tool.fanout-lint]; "
                              "put them all in one place")
        return tool["fanout-lint"], "[tool.fanout-lint]"
    return data, DEDICATED


def _toml_error(path: str, message: str) -> str:
    # the parser says where as "(at line L, column C)"; put it where every error has it
    head, found, tail = message.rpartition(" (at line ")
    line, _, column = tail.rstrip(")").partition(", column ")
    if found and tail.endswith(")") and line.isdigit() and column.isdigit():
        return f"{path}:{line}:{column}: invalid TOML: {head}"
    return f"{path}: invalid TOML: {message}"


def _check_dotted_keys(path: str, text: str) -> None:
    if text.count(".") ** 2 <= MAX_DOTTED_KEY_COST:
        return  # the sum of squares is at most the square of the sum
    cost = 0
    for number, line in enumerate(text.splitlines(), start=1):
        cost += line.count(".") ** 2
        if cost > MAX_DOTTED_KEY_COST:
            raise ConfigError(f"{path}:{number}: too many dotted keys to read safely "
                              "(lines with hundreds of dots)")


class _Reader:
    """Error messages with the file and, when it can be found, the line of a key."""

    def __init__(self, path: str, text: str, where: str):
        self.path, self.lines, self.where = path, text.splitlines(), where
        # in pyproject.toml only the lines under our own tables, so that a key or rule
        # name in another tool's table (ruff's `select`, say) is never the line reported
        self.ours = [True] * len(self.lines)
        if os.path.basename(path) == PYPROJECT:
            inside = False
            for number, line in enumerate(self.lines):
                if _is_header(line):
                    inside = _OUR_HEADER.match(line) is not None
                self.ours[number] = inside

    def error(self, key: str, message: str, quoted: bool = False) -> ConfigError:
        """``key`` is a key or table name, or with ``quoted`` a string value."""
        found = _quoted_value if quoted else _names_key
        for number, line in enumerate(self.lines, start=1):
            if self.ours[number - 1] and key in line and found(line, key):
                return ConfigError(f"{self.path}:{number}: {message}")
        return ConfigError(f"{self.path}: {message}")


# The key, the rule name and the line all come from the file: they are matched with str
# methods, linear in the line, where a pattern built from the key could backtrack.
_QUOTES = ("'", '"')


def _quoted_value(line: str, key: str) -> bool:
    """``key`` in quotes somewhere in ``line``."""
    at = line.find(key)
    while at >= 0:
        if at > 0 and line[at - 1] in _QUOTES and line.startswith(_QUOTES, at + len(key)):
            return True
        at = line.find(key, at + 1)
    return False


def _names_key(line: str, key: str) -> bool:
    """``line`` sets ``key`` (``key =``, ``"key" =``, ``key.x =``) or names it in a table
    header before the header's ``]`` (``[tool.fanout-lint.key]``)."""
    body = line.lstrip()
    if not body.startswith("["):
        return _key_at(body, 1 if body.startswith(_QUOTES) else 0, key)
    end = body.find("]")
    end = len(body) if end < 0 else end
    at = body.find(key, 1)
    while 0 <= at <= end:
        if _key_at(body, at, key):
            return True
        at = body.find(key, at + 1)
    return False


def _key_at(text: str, at: int, key: str) -> bool:
    """``key`` at ``at``, maybe quoted, then spaces and ``=``, ``]`` or ``.``."""
    if not text.startswith(key, at):
        return False
    at += len(key)
    if text.startswith(_QUOTES, at):
        at += 1
    while at < len(text) and text[at] in " \t":
        at += 1
    return text.startswith(("=", "]", "."), at)


def _is_header(line: str) -> bool:
    return line.lstrip(" \t").startswith("[")


_OUR_HEADER = re.compile(r"[ \t]*\[\[?[ \t]*tool[ \t]*\.[ \t]*[\"']?fanout-lint[\"']?[ \t]*[\].]")


def _parse(table: Any, reader: _Reader, rules: tuple[Rule, ...]) -> FileConfig:
    if not isinstance(table, dict):
        raise ConfigError(f"{reader.path}: {reader.where} must be a table")
    for key in table:
        if key not in KEYS:
            hint = suggestion(KEYS, key) or f" (expected one of: {', '.join(KEYS)})"
            raise reader.error(key, f"unknown key {key!r} in {reader.where}{hint}")
    config = FileConfig(path=reader.path)
    if "select" in table:
        config = replace(config, select=_rule_ids(table["select"], "select", reader, rules))
    if "ignore" in table:
        config = replace(config, ignore=_rule_ids(table["ignore"], "ignore", reader, rules))
    if "exclude" in table:
        config = replace(config, exclude=_strings(table["exclude"], "exclude", reader))
    if "fail-on" in table:
        config = replace(config, fail_on=_fail_on(table["fail-on"], reader))
    if "docs-url" in table:
        config = replace(config, docs_url=_docs_url(table["docs-url"], reader))
    if "extend-select" in table:
        config = replace(config, extend_select=_rule_ids(table["extend-select"], "extend-select", reader, rules))
    if "extend-ignore" in table:
        config = replace(config, extend_ignore=_rule_ids(table["extend-ignore"], "extend-ignore", reader, rules))
    if "per-file-ignores" in table:
        config = replace(config, per_file_ignores=_per_file_ignores(table["per-file-ignores"], reader, rules))
    if "var-files" in table:
        config = replace(config, var_files=_strings(table["var-files"], "var-files", reader))
    if "baseline" in table:
        if not isinstance(table["baseline"], str) or not table["baseline"]:
            raise reader.error("baseline", "baseline must be a file path (a string)")
        config = replace(config, baseline=table["baseline"])
    severity: dict[str, Severity] = {}
    for key, value in _table(table.get("severity", {}), "severity", reader).items():
        rule = _rule(key, "severity", reader, rules)
        severity[rule.id] = _severity(value, key, reader)
    options: dict[str, dict[str, Any]] = {}
    for key, values in _table(table.get("options", {}), "options", reader).items():
        rule = _rule(key, "options", reader, rules)
        options[rule.id] = _options(rule, _table(values, key, reader), reader)
    return replace(config, severity=severity, options=options, notices=tuple(_former_names(table, reader, rules)))


def _former_names(table: dict, reader: _Reader, rules: tuple[Rule, ...]) -> list[str]:
    """A notice, located like an error, for each rule the file names by a former name."""
    found = []
    for section in ("select", "ignore", "extend-select", "extend-ignore"):
        value = table.get(section)
        for name in [value] if isinstance(value, str) else value if isinstance(value, list) else []:
            notice = renamed(rules, name) if isinstance(name, str) else None
            if notice:
                found.append(str(reader.error(name, f"warning: {notice}", quoted=True)))
    for section in ("severity", "options"):
        for key in table.get(section) or {}:
            notice = renamed(rules, key)
            if notice:
                found.append(str(reader.error(key, f"warning: {notice}")))
    return found


def _table(value: Any, key: str, reader: _Reader) -> dict:
    if not isinstance(value, dict):
        raise reader.error(key, f"{key!r} must be a table, not {_kind(value)}")
    return value


def _strings(value: Any, key: str, reader: _Reader) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise reader.error(key, f"{key!r} must be a list of strings, not {_kind(value)}")
    return tuple(value)


def _rule(key: str, section: str, reader: _Reader, rules: tuple[Rule, ...], quoted: bool = False) -> Rule:
    rule = find_rule(rules, key)
    if rule is None:
        raise reader.error(key, unknown_rule(rules, key, f" in {section!r}"), quoted)
    return rule


def unknown_rule(rules: tuple[Rule, ...], key: str, where: str = "") -> str:
    hint = rule_suggestion(rules, key) or " (see `fanout-lint rules`)"
    return f"unknown rule {key!r}{where}{hint}"


def _rule_ids(value: Any, key: str, reader: _Reader, rules: tuple[Rule, ...]) -> tuple[str, ...]:
    """Rule IDs, a prefix (``FL2``) standing for every rule it starts."""
    ids: list[str] = []
    for name in _strings(value, key, reader):
        found = match_rules(rules, name)
        if not found:
            raise reader.error(name, unknown_rule(rules, name, f" in {key!r}"), quoted=True)
        ids.extend(r.id for r in found if r.id not in ids)
    return tuple(ids)


def _per_file_ignores(value: Any, reader: _Reader, rules: tuple[Rule, ...]) -> tuple[FileIgnore, ...]:
    """``"legacy/**" = ["FL201"]``: a glob and the rules (IDs, names, prefixes) it ignores."""
    entries = []
    for pattern, names in _table(value, "per-file-ignores", reader).items():
        if not pattern.strip():
            raise reader.error("per-file-ignores", "'per-file-ignores' has an empty pattern")
        entries.append(FileIgnore(pattern, _rule_ids(names, pattern, reader, rules)))
    return tuple(entries)


def _fail_on(value: Any, reader: _Reader) -> str:
    if not isinstance(value, str):
        raise reader.error("fail-on", f"'fail-on' must be error, warning, info or none, not {_kind(value)}")
    try:
        parse_fail_on(value)
    except ValueError as exc:
        raise reader.error("fail-on", f"'fail-on': {exc}") from None
    return value.strip().lower()


def _docs_url(value: Any, reader: _Reader) -> str:
    if not isinstance(value, str):
        raise reader.error("docs-url", f"'docs-url' {DOCS_URL_RULE}, not {_kind(value)}")
    problem = docs_url_problem(value)
    if problem:
        raise reader.error("docs-url", f"'docs-url' {DOCS_URL_RULE}: {problem}")
    return normal_docs_url(value)


def _docs_url_flag(value: str) -> str:
    problem = docs_url_problem(value)
    if problem:
        raise ConfigError(f"--docs-url {DOCS_URL_RULE}: {problem}")
    return normal_docs_url(value)


DOCS_URL_RULE = "must be an absolute http(s) URL; the rule pages are <URL><rule-name>.md"
MAX_DOCS_URL = 1_000
# What a URL may hold (RFC 3986's characters) less what a markdown link destination or
# SARIF's readers could take for something else: no space, quote, angle bracket,
# backslash, backtick, brace or control character.
_URL = re.compile(r"https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?(/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*)?")


def docs_url_problem(value: str) -> str | None:
    """Why ``value`` is not a usable ``docs-url``, or None."""
    if len(value) > MAX_DOCS_URL:
        return f"{len(value):,} characters, more than {MAX_DOCS_URL:,}"
    if _URL.fullmatch(value) is None:
        return f"not one, {value!r}" if len(value) <= 100 else "not one"
    return None


def normal_docs_url(value: str) -> str:
    """``value`` ending with ``/``, so that ``<URL><rule-name>.md`` is a page below it."""
    return value if value.endswith("/") else value + "/"


def _severity(value: Any, key: str, reader: _Reader) -> Severity:
    if not isinstance(value, str):
        raise reader.error(key, f"{key!r} must be error, warning or info, not {_kind(value)}")
    try:
        return Severity.parse(value)
    except ValueError as exc:
        raise reader.error(key, f"{key!r}: {exc}") from None


def _options(rule: Rule, values: dict, reader: _Reader) -> dict[str, Any]:
    declared = {o.name: o for o in rule.options}
    parsed = {}
    for name, value in values.items():
        option = declared.get(name)
        if option is None:
            known = ", ".join(declared) or "none"
            raise reader.error(name, f"rule {rule.name} ({rule.id}) has no option {name!r} (options: {known})")
        parsed[name] = _option_value(option, value, rule, reader)
    return parsed


def _option_value(option: Option, value: Any, rule: Rule, reader: _Reader) -> Any:
    """``value`` checked against the option's declared type (``Option.parse``)."""
    try:
        return option.parse(value)
    except ValueError as exc:
        raise reader.error(option.name, f"option {option.name!r} of rule {rule.name} {exc}") from None


def _kind(value: Any) -> str:
    return value_kind(value)


@dataclass(eq=False, repr=False)
class Flags(Record):
    """What the command line said; empty or None means "not given"."""

    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    fail_on: str | None = None  # error, warning, info or none
    config: str | None = None
    docs_url: str | None = None
    extend_select: tuple[str, ...] = ()
    extend_ignore: tuple[str, ...] = ()
    var_files: tuple[str, ...] = ()  # relative to the current directory
    isolated: bool = False  # --isolated: no configuration file is read
    paths: tuple[str, ...] = ()  # the linted paths: each unit's configuration is the one nearest it


def settings_from(config: FileConfig, path: str | None, flags: Flags, rules: tuple[Rule, ...],
                  cwd: str = ".") -> Settings:
    """The settings of the configuration file ``config`` at ``path`` (an empty one and None
    for none) after the command line's ``flags``.

    ``--select`` replaces the file's ``select`` and takes back what the file ignores;
    ``--ignore`` and ``--exclude`` add to the file's; ``--fail-on`` replaces its ``fail-on``.
    ``extend-select`` adds to the file's ``select``, and ``--extend-select`` to whichever
    is in force (nothing to add when it is empty: every rule runs); ``--select`` replaces
    the file's ``extend-select`` too, as in ruff. ``extend-ignore`` adds to ``ignore``;
    ``--extend-select`` also takes back what the file ignores, as ``--select`` does. The var files are the file's
    ``var-files`` (relative to its directory), then each ``--var-file``, in that order.
    """
    for key in flags.select + flags.ignore + flags.extend_select + flags.extend_ignore:
        if not match_rules(rules, key):
            raise ConfigError(unknown_rule(rules, key))
    cli_select = _ids(rules, flags.select)
    cli_ignore = _ids(rules, flags.ignore) + _ids(rules, flags.extend_ignore)
    cli_extend = _ids(rules, flags.extend_select)
    # as in ruff, --select replaces the file's select and its extend-select
    select = cli_select or config.select or ()
    extended = cli_extend if cli_select else config.extend_select + cli_extend
    if select:
        select += tuple(dict.fromkeys(i for i in extended if i not in select))
    taken_back = cli_select + cli_extend
    ignore = tuple(i for i in config.ignore + config.extend_ignore if i not in taken_back) + cli_ignore
    level = flags.fail_on or config.fail_on
    try:
        fail_on = parse_fail_on(level) if level else Severity.WARNING
    except ValueError as exc:
        raise ConfigError(f"--fail-on: {exc}") from None
    named = flags.select + flags.ignore + flags.extend_select + flags.extend_ignore
    flag_notices = tuple(f"fanout-lint: warning: {n}" for n in (renamed(rules, k) for k in named) if n)
    base = os.path.dirname(path) if path else ""
    docs_url = _docs_url_flag(flags.docs_url) if flags.docs_url else config.docs_url
    gate = lowered(path, rules, fail_on=None if flags.fail_on else config.fail_on,
                   select=None if cli_select else config.select,
                   ignore=tuple(i for i in config.ignore + config.extend_ignore if i not in taken_back),
                   exclude=config.exclude, severity=config.severity,
                   per_file=tuple(entry.pattern for entry in config.per_file_ignores),
                   options=config.options) if path else None
    return Settings(
        select=select,
        ignore=ignore,
        severity=dict(config.severity),
        options={k: dict(v) for k, v in config.options.items()},
        exclude=config.exclude + flags.exclude,
        fail_on=fail_on,
        notices=config.notices + flag_notices,
        docs_url=docs_url,
        gate=(gate,) if gate is not None else (),
        per_file_ignores=config.per_file_ignores,
        per_file_base=base or cwd,
        var_files=tuple(os.path.join(base, v) for v in config.var_files) + flags.var_files,
        config_var_files=len(config.var_files),
        baseline=os.path.join(base or cwd, config.baseline) if config.baseline else None,
    )


def _ids(rules: tuple[Rule, ...], keys: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(r.id for key in keys for r in match_rules(rules, key)))
