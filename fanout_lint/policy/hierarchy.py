"""Settings per directory: each unit is linted under its nearest configuration file.

As ruff discovers its configuration, the file that governs a unit is the nearest
``.fanout-lint.toml`` (or ``pyproject.toml`` with a ``[tool.fanout-lint]`` table) at or
above the unit's directory, up to the repository root (the git top level) and never above
it; outside a repository, up to the file system's root. The nearest file applies alone:
files above it are not merged in. So a run from a parent directory lints each directory
as a run inside it would, and one run over two sibling directories applies each its own.

*The unit's directory*: a CloudFormation or Serverless file's directory, a Terraform
directory itself (its local modules are linted as the root calls them, under the root's
file). An application of linked templates is linted under the file of its first
template (``Application.path``): its rules run once, on one graph, with one set of
options. A finding fails the run when it is at or above the fail level of the settings
that produced it (``Finding.fail_on``).

*Exclusion*: a path is excluded by ``--exclude`` (matched as the command line spells the
path, as before) or by the ``exclude`` of the file that governs the directory holding it,
a pattern matched against the path relative to that file's directory (or the name alone).

The command line overrides every file (``config.settings_from``); ``--config FILE`` and
``--isolated`` make one settings for the whole run, as in ruff. Each directory is looked
up once (its nearest file kept), so discovery stays linear in the directories walked.

A file found automatically is read only as the confinement rule allows (``confine.py``):
one that is a symbolic link, or lies below a symbolic link inside the repository, is
refused with an error naming it, and never read.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace

from fanout_lint.files.confine import Roots, is_link, lexists
from fanout_lint.files.repository import top_level
from fanout_lint.model.format import Format
from fanout_lint.model.record import Record
from fanout_lint.policy.config import (
    DEDICATED,
    PYPROJECT,
    ConfigError,
    FileConfig,
    Flags,
    _above_repository,
    _has_our_table,
    _near_miss,
    load_config,
    settings_from,
)
from fanout_lint.policy.settings import Settings
from fanout_lint.policy.var_files import problem as var_files_problem
from fanout_lint.results.records import Notice
from fanout_lint.rule import Rule
from fanout_lint.run.discover import matches_exclude

# What the run decides, whatever file governs a unit (``engine.lint_paths`` takes them
# from the settings it is given).
RUN_FIELDS = ("jobs", "today", "cache", "link", "link_repository", "repo_root", "repo_root_given")


@dataclass(eq=False, repr=False)
class Scope(Record):
    """One configuration file's settings (after the command line) and where they apply."""

    path: str | None  # the file; None: the defaults and the flags
    settings: Settings
    base: str  # the file's directory (the current directory for none): its patterns start there
    exclude: tuple[str, ...] = ()  # the file's own exclude patterns


class Hierarchy:
    """The settings of each directory of a run, from its nearest configuration file."""

    def __init__(self, flags: Flags, rules: tuple[Rule, ...], cwd: str, roots: Roots | None = None):
        if flags.isolated and flags.config is not None:
            raise ConfigError("--isolated reads no configuration file: give it or --config, not both")
        self.flags, self.rules, self.cwd = flags, rules, os.path.abspath(cwd)
        self.roots = roots if roots is not None else Roots(top_level(cwd) or cwd)
        self._nearest: dict[str, str | None] = {}  # directory -> its nearest file (None: none)
        self._scopes: dict[str | None, Scope] = {}
        self._used: dict[str | None, None] = {}  # files that governed part of the run, in order
        self._governing: dict[str, str | None] = {}  # directory -> the file that governs it
        self._near_misses: list[str] = []
        self._fallback: list[str | None] = []
        self._run: dict[tuple[int, int], tuple[Settings, Settings]] = {}  # (scope, run) -> (run, unit settings)
        self.fixed: Scope | None = None  # --config or --isolated: one settings for all
        if flags.config is not None:
            reason = self.roots.read_problem(flags.config)
            if reason is not None:
                raise ConfigError(f"{flags.config}: not read: {reason}")
            self.fixed = self._scope(flags.config)
        elif flags.isolated:
            self.fixed = self._scope(None)

    # -- which file governs a directory ---------------------------------------------
    def nearest(self, directory: str) -> str | None:
        """The configuration file nearest ``directory`` (absolute), up to its repository's
        root; every directory on the way is remembered, so each is looked at once."""
        passed = []
        current = directory
        while True:
            if current in self._nearest:
                found = self._nearest[current]
                break
            passed.append(current)
            found = self._file_in(current)
            if found is not None:
                break
            parent = os.path.dirname(current)
            if parent == current or lexists(os.path.join(current, ".git")):
                break  # the repository's root: nothing above it governs it
            current = parent
        for seen in passed:
            self._nearest[seen] = found
        return found

    def _file_in(self, directory: str) -> str | None:
        dedicated = os.path.join(directory, DEDICATED)
        if _present(dedicated):
            self._confined(dedicated)
            return dedicated
        pyproject = os.path.join(directory, PYPROJECT)
        if _present(pyproject):
            self._confined(pyproject)  # before a byte of it is read
            if _has_our_table(pyproject):
                return pyproject
            self._near_misses.extend(_near_miss(pyproject))
        return None

    def _confined(self, path: str) -> None:
        reason = self.roots.read_problem(path)
        if reason is not None:
            raise ConfigError(f"{path}: configuration not read: {reason}")

    def file_of(self, directory: str) -> str | None:
        """The file that governs ``directory``: its nearest, or, when its repository has
        none above it, the current directory's (unless that lies above the repository)."""
        directory = os.path.abspath(directory)
        if directory in self._governing:
            return self._governing[directory]
        found = self.nearest(directory)
        if found is None:
            if not self._fallback:
                self._fallback.append(self.nearest(self.cwd))
            if not _above_repository(self._fallback[0], directory):
                found = self._fallback[0]
        self._governing[directory] = found
        return found

    # -- the settings of a file ----------------------------------------------------
    def _scope(self, path: str | None) -> Scope:
        scope = self._scopes.get(path)
        if scope is None:
            config = load_config(path, self.rules) if path else FileConfig(path="")
            settings = settings_from(config, path, self.flags, self.rules, self.cwd)
            if settings.var_files:  # the file's own var-files keep to the repository (var_files.py)
                unreadable = var_files_problem(settings.var_files, settings.config_var_files, self.roots.root,
                                               settings.per_file_base)
                if unreadable:
                    raise ConfigError(unreadable)
            base = os.path.dirname(path) if path else self.cwd
            scope = self._scopes[path] = Scope(path, settings, base, config.exclude)
        return scope

    def scope_of(self, directory: str, record: bool = True) -> Scope:
        """The scope that governs ``directory``; ``record``: it governs part of the run
        (its gate notice is said)."""
        scope = self.fixed if self.fixed is not None else self._scope(self.file_of(directory))
        if record:
            self._used.setdefault(scope.path)
        return scope

    def scope_of_path(self, path: str, record: bool = True) -> Scope:
        """The scope of a named path: a directory's own, a file's directory's."""
        absolute = os.path.abspath(path)
        directory = absolute if os.path.isdir(absolute) or not lexists(absolute) else os.path.dirname(absolute)
        return self.scope_of(directory, record)

    def primary(self, paths: tuple[str, ...] | list[str] = ()) -> tuple[Settings, str | None]:
        """The settings of the paths' common directory (the current directory without
        paths), and their file: what ``--show-settings``, ``rules`` and the reports'
        run-wide parts (docs-url) use."""
        scope = self.primary_scope(paths)
        return scope.settings, scope.path

    def primary_scope(self, paths: tuple[str, ...] | list[str] = ()) -> Scope:
        if self.fixed is not None:
            return self.fixed
        absolute = [os.path.abspath(os.path.join(self.cwd, p)) for p in paths if p != "-"]
        if not absolute:
            return self.scope_of(self.cwd, record=False)
        if len(absolute) == 1:
            return self.scope_of_path(absolute[0], record=False)
        return self.scope_of(os.path.commonpath(absolute), record=False)

    # -- what the engine asks ------------------------------------------------------
    def unit_settings(self, path: str, format: Format, run: Settings) -> Settings:
        """The settings a unit at ``path`` is linted under: its scope's, with what the run
        decides (``RUN_FIELDS``) from ``run``. The same object for the same scope, so that
        worker processes get each once."""
        directory = os.path.abspath(path) if format is Format.TERRAFORM else os.path.dirname(os.path.abspath(path))
        scope = self.scope_of(directory)
        key = (id(scope), id(run))
        found = self._run.get(key)
        if found is None:  # ``run`` is kept with them, so that its id is not another's
            found = self._run[key] = (run, replace(scope.settings, **{f: getattr(run, f) for f in RUN_FIELDS},
                                                   configuration=None))
        return found[1]

    def excluder(self, record: bool = True):
        """``excluded(path, named)`` for discovery: ``--exclude`` as the path is spelled,
        or the ``exclude`` of the file that governs the directory holding the path (for a
        directory the run names, the directory's own), relative to that file's directory.
        So a run inside a directory is not excluded by a file above its own.

        ``record`` off: for the search of the repository beyond the paths (callers of a
        named module, templates a named one links with), whose files govern no unit
        yet: they are not said, and one that cannot be read excludes nothing (the
        unit that comes to be linked under it reports it)."""
        flags = self.flags.exclude
        # a walk asks for every entry of a directory in turn: the directory's scope and its
        # path relative to the scope's file are worked out once, by its spelling
        directories: dict[str, tuple[Scope, str]] = {}

        def excluded(path: str, named: bool = False) -> bool:
            if flags and matches_exclude(path, flags):
                return True
            if named and os.path.isdir(path):  # a directory the run names: its own file's
                scope = self.scope_of(os.path.abspath(path), record)
                return bool(scope.exclude) and matches_exclude(_relative(os.path.abspath(path), scope.base),
                                                              scope.exclude)
            head, name = os.path.split(path)
            found = directories.get(head)
            if found is None:
                directory = os.path.abspath(head or ".")
                try:
                    scope = self.scope_of(directory, record)
                except ConfigError:
                    if record:
                        raise
                    scope = self._scope(None)
                found = directories[head] = (scope, _relative(directory, scope.base) if scope.exclude else "")
            scope, prefix = found
            if not scope.exclude:
                return False
            return matches_exclude(name if prefix in ("", ".") else prefix + os.sep + name, scope.exclude)

        return excluded

    def used(self) -> list[Scope]:
        """The scopes that governed part of the run, in the order first met."""
        return [self._scopes[path] for path in self._used]

    def gate(self, scopes: list[Scope] | None = None) -> tuple[Notice, ...]:
        """What each configuration file that governed part of the run (or each of
        ``scopes``) lowers of the gate (gate.py), in the order first met."""
        return tuple(notice for scope in (self.used() if scopes is None else scopes)
                     for notice in scope.settings.gate)

    def notices(self, scopes: list[Scope] | None = None) -> tuple[str, ...]:
        """The configuration's own warnings (near-miss tables met, former rule names), once
        each: of the files that governed part of the run, or of ``scopes``."""
        if scopes is None:
            scopes = self.used() or list(self._scopes.values())[:1]
        found = [*self._near_misses, *(notice for scope in scopes for notice in scope.settings.notices)]
        return tuple(dict.fromkeys(found))


def _present(path: str) -> bool:
    """A file is there (a symbolic link too, which the confinement rule then refuses; a
    directory of that name is not a configuration)."""
    return is_link(path) or os.path.isfile(path)


def _relative(absolute: str, base: str) -> str:
    try:
        return os.path.relpath(absolute, base)
    except ValueError:  # another drive
        return absolute


def resolve(flags: Flags, rules: tuple[Rule, ...], cwd: str = ".") -> tuple[Settings, str | None]:
    """The settings of a run over ``flags.paths`` taken as one (their common directory's
    configuration file, or ``--config``'s, or none with ``--isolated``) and the file they
    came from (None when there is none). A run that lints gives each unit its own
    directory's (``Hierarchy``); this is what ``rules`` and a caller that wants
    one settings get."""
    return Hierarchy(flags, rules, cwd).primary(flags.paths)
