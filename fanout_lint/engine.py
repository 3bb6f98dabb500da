"""Runs the pipeline for a set of paths, in phases:

1. **discover** (``discover.py``): the units under the paths;
2. **plan the links** (``applications.py``): which templates link with others (imports
   of exported names, nested stacks, CDK assemblies) and so form applications; every
   other unit stays a unit of its own. A run that names template files links them with
   the rest of their repository;
3. **load, link and check** (``unit.py``): each unit, or each application as one graph
   (``loaders/application.py`` loads its templates, links them, and builds the graph),
   is checked by the rules, and its inline suppressions applied; serially, or in worker
   processes (``parallel.py``), one unit or application per task;
4. **collect**: the results are merged in the order of the work and sorted; the
   baseline and the report follow in the command (``check_command.py``).
"""

from __future__ import annotations

import os

from fanout_lint.discover import Candidate, discover
from fanout_lint.findings import LoadError, Result
from fanout_lint.rule import Rule
from fanout_lint.settings import Settings
from fanout_lint.unit import lint_or_error


def lint_paths(paths: list[str], rules: tuple[Rule, ...], settings: Settings, keep_graphs: bool = False) -> Result:
    candidates, missing = discover(paths, settings.exclude)  # 1
    work = _plan(candidates, paths, settings)  # 2
    result = Result(errors=[LoadError(m.path, None, m.message) for m in missing])
    for unit in _lint_all(work, rules, settings, keep_graphs):  # 3
        result.findings.extend(unit.findings)  # 4
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


def _plan(candidates: list[Candidate], paths: list[str], settings: Settings) -> list:
    if not settings.link:
        return list(candidates)
    from fanout_lint.applications import plan

    named = [p for p in paths if not os.path.isdir(p)] if settings.link_repository else []
    return plan(candidates, named, settings.exclude, settings.repo_root)


def _lint_all(work: list, rules: tuple[Rule, ...], settings: Settings, keep_graphs: bool):
    """Each unit's or application's result in the order of ``work``: in worker processes
    when there are many."""
    from fanout_lint.parallel import choose_jobs, lint_in_parallel

    jobs = 1 if keep_graphs else choose_jobs(settings.jobs, len(work))  # graphs stay in this process
    if jobs > 1:
        return lint_in_parallel(work, rules, settings, jobs)
    # as in a worker, a unit that raises is an error of its own, and the others are linted
    return (lint_or_error(item, rules, settings, keep_graphs) for item in work)
