"""One lint of a workspace folder: its open buffers over the files on disk, as the
command line lints the files it is named (``fanout-lint check FILE...``)."""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field

from fanout_lint.files import confine
from fanout_lint.files.regular_files import overlaid
from fanout_lint.files.repository import top_level
from fanout_lint.loaders.parsing.parse_cache import ParseCache
from fanout_lint.policy.config import ConfigError, Flags
from fanout_lint.policy.hierarchy import resolve
from fanout_lint.results.records import Result
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
    problems: list[str] = field(default_factory=list)  # one line each: the configuration, a refused file


def repository_of(folder: str) -> str:
    """Where a folder's paths are held and its templates linked: its git top level, else itself."""
    return top_level(folder) or folder


def lint_folder(folder: str, buffers: list[Buffer], rules: tuple[Rule, ...], cache: ParseCache | None,
                memo: FactsMemo | None = None) -> Outcome:
    """Lint the open ``buffers`` of ``folder`` with the configuration nearest them, each
    linked with its repository; a buffer outside the repository (confine.py) is refused."""
    root = repository_of(folder)
    outcome = Outcome(Result())
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
        settings, _ = resolve(Flags(paths=tuple(paths)), rules, folder)
    except ConfigError as exc:
        outcome.problems.append(f"configuration: {exc}")
        return outcome
    # serial: the overlay is this thread's, and worker processes would read the disk
    settings = dataclasses.replace(settings, repo_root=root, repo_root_given=False, jobs=1, cache=cache)
    outcome.docs_url = settings.docs_url
    with overlaid(overlay(named)):
        outcome.result = lint_paths(paths, rules, settings, root=root, link_memo=memo)
    outcome.texts = {b.path: b.text for b in named}
    outcome.versions = {b.path: b.version for b in named}
    return outcome
