"""Runs the pipeline for a set of paths: discover, load and check each unit, collect.

Linting one unit is ``unit.py``; here the units are found, handed out (serially, or to
worker processes by ``parallel.py``) and their results merged in candidate order.
"""

from __future__ import annotations

from fanout_lint.discover import Candidate, find_units
from fanout_lint.findings import LoadError, Result
from fanout_lint.rule import Rule
from fanout_lint.settings import Settings
from fanout_lint.unit import lint_or_error

def lint_paths(paths: list[str], rules: tuple[Rule, ...], settings: Settings, keep_graphs: bool = False,
               root: str | None = None, progress=None) -> Result:
    """``root``: the repository, where the callers of a named module file are looked for;
    ``progress``: called with (units done, units) as units finish."""
    found = find_units(paths, settings.exclude, root)
    candidates = found.candidates
    result = Result(errors=[LoadError(m.path, None, m.message) for m in found.missing], skipped=list(found.skipped))
    from fanout_lint.hcl_install import parser_problem

    candidates, unusable = parser_problem(candidates)  # a shadowed HCL parser: one error, not one per unit
    result.errors.extend(unusable)
    for done, unit in enumerate(_lint_all(candidates, rules, settings, keep_graphs), start=1):
        if progress is not None:
            progress(done, len(candidates))
        result.skipped.extend(unit.skipped)
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
