"""Runs the pipeline for a set of paths: discover, load and check each unit, collect.

Linting one unit is ``unit.py``; here the units are found, handed out (serially, or to
worker processes by ``parallel.py``) and their results merged in candidate order.
"""

from __future__ import annotations

from fanout_lint.discover import Candidate, discover
from fanout_lint.findings import LoadError, Result
from fanout_lint.rule import Rule
from fanout_lint.settings import Settings
from fanout_lint.unit import lint_or_error

def lint_paths(paths: list[str], rules: tuple[Rule, ...], settings: Settings, keep_graphs: bool = False) -> Result:
    candidates, missing = discover(paths, settings.exclude)
    result = Result(errors=[LoadError(m.path, None, m.message) for m in missing])
    for unit in _lint_all(candidates, rules, settings, keep_graphs):
        result.findings.extend(unit.findings)
        result.errors.extend(unit.errors)
        result.suppressed.extend(unit.suppressed)
        result.notices.extend(unit.notices)
        result.units += unit.units
        result.graphs.extend(unit.graphs)
        if unit.fix_sources:
            from fanout_lint.fixes.sources import merge

            merge(result.fix_sources, unit.fix_sources)
    result.sort()
    return result


def _lint_all(candidates: list[Candidate], rules: tuple[Rule, ...], settings: Settings, keep_graphs: bool):
    """Each candidate's result in candidate order: in worker processes when there are many."""
    from fanout_lint.parallel import choose_jobs, lint_in_parallel

    jobs = 1 if keep_graphs else choose_jobs(settings.jobs, len(candidates))  # graphs stay in this process
    if jobs > 1:
        return lint_in_parallel(candidates, rules, settings, jobs)
    # as in a worker, a unit that raises is an error of its own, and the others are linted
    return (lint_or_error(candidate, rules, settings, keep_graphs) for candidate in candidates)
