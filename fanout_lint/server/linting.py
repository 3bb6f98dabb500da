"""One lint of a workspace folder: its open buffers over the files on disk, as the
command line lints the files it is named (``fanout-lint check FILE...``): each unit under
its own nearest configuration file, and the findings a configured baseline lists left out."""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field

from fanout_lint.files import confine
from fanout_lint.files.regular_files import overlaid
from fanout_lint.files.repository import top_level
from fanout_lint.loaders.parsing.parse_cache import ParseCache
from fanout_lint.policy import baseline
from fanout_lint.policy.config import ConfigError, Flags
from fanout_lint.policy.hierarchy import Hierarchy
from fanout_lint.policy.settings import Settings
from fanout_lint.results.records import Finding, Result
from fanout_lint.rule import Rule
from fanout_lint.run.engine import lint_paths
from fanout_lint.server.memo import FactsMemo
from fanout_lint.server.workspace import Buffer, overlay


@dataclass(eq=False)
class Outcome:
    """What a lint found, and the texts it was made on (path -> text; version when open)."""

    result: Result
    texts: dict[str, str] = field(default_factory=dict)
    versions: dict[str, int | None] = field(default_factory=dict)
    docs_url: str | None = None
    root: str = "."  # the repository: fingerprints are relative to it
    problems: list[str] = field(default_factory=list)  # one line each: the configuration, a refused file
    # fingerprint -> (the configured baseline of the finding's own configuration, its entry):
    # what "add to baseline" writes
    baselinable: dict[str, tuple[str, dict[str, str]]] = field(default_factory=dict)


def repository_of(folder: str) -> str:
    """Where a folder's paths are held and its templates linked: its git top level, else itself."""
    return top_level(folder) or folder


def lint_folder(folder: str, buffers: list[Buffer], rules: tuple[Rule, ...], cache: ParseCache | None,
                memo: FactsMemo | None = None) -> Outcome:
    """Lint the open ``buffers`` of ``folder`` with the configuration nearest them, each
    linked with its repository; a buffer outside the repository (confine.py) is refused."""
    root = repository_of(folder)
    outcome = Outcome(Result(), root=root)
    named: list[Buffer] = []
    for buffer in buffers:
        if not os.path.isfile(buffer.path):
            continue  # never saved: it has no place in the repository yet, and nothing links with it
        reason = confine.problem(buffer.path, root)
        if reason is not None:
            outcome.problems.append(f"{buffer.path} is not linted: it is {reason}")
            continue
        named.append(buffer)
    if not named:
        return outcome
    paths = [b.path for b in named]
    try:
        # read afresh on every lint: an edited configuration applies without a restart
        hierarchy = Hierarchy(Flags(paths=tuple(paths)), rules, folder, confine.Roots(root))
        settings, _ = hierarchy.primary(paths)
        # serial: the overlay is this thread's, and worker processes would read the disk
        settings = dataclasses.replace(settings, repo_root=root, repo_root_given=False, jobs=1, cache=cache,
                                       configuration=hierarchy)
        outcome.docs_url = settings.docs_url
        with overlaid(overlay(named)):
            outcome.result = lint_paths(paths, rules, settings, root=root, link_memo=memo)
    except ConfigError as exc:
        outcome.problems.append(f"configuration: {exc}")
        return outcome
    outcome.texts = {b.path: b.text for b in named}
    outcome.versions = {b.path: b.version for b in named}
    _apply_baselines(outcome, hierarchy, root)
    return outcome


def _apply_baselines(outcome: Outcome, hierarchy: Hierarchy, root: str) -> None:
    """Leave out the findings each one's configured baseline lists, as ``check`` does, and
    keep the entry "add to baseline" would write for the others."""
    known: dict[str, frozenset[str] | None] = {}  # baseline -> its fingerprints (None: unusable)
    kept: list[Finding] = []
    for finding in outcome.result.findings:
        path = _baseline_of(hierarchy.scope_of_path(finding.loc.file, record=False).settings, root, outcome)
        if path is None:
            kept.append(finding)
            continue
        if path not in known:
            known[path] = _fingerprints(path, outcome)
        record = baseline.entry(finding, root)
        if known[path] is not None and record["fingerprint"] in known[path]:
            continue
        kept.append(finding)
        if known[path] is not None:
            outcome.baselinable[record["fingerprint"]] = (path, record)
    outcome.result.findings = kept


def _baseline_of(settings: Settings, root: str, outcome: Outcome) -> str | None:
    if not settings.baseline:
        return None
    refused = baseline.config_problem(settings.baseline, root, settings.per_file_base)
    if refused:
        if refused not in outcome.problems:
            outcome.problems.append(refused)
        return None
    return settings.baseline


def _fingerprints(path: str, outcome: Outcome) -> frozenset[str] | None:
    """The baseline's fingerprints; none yet when it does not exist (the first "add to
    baseline" creates it); None, with a problem said, when it cannot be read."""
    if not os.path.lexists(path):
        return frozenset()
    try:
        return baseline.load(path)
    except baseline.BaselineError as exc:
        outcome.problems.append(str(exc))
        return None
