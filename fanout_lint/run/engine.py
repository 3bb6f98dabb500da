"""Runs the pipeline for a set of paths, in phases:

1. **discover** (``discover.py``): the units under the paths (and, for a named file of a
   local module, the roots that call it); a shadowed HCL parser is one error here;
2. **plan the links** (``run/link_plan.py``): which templates link with others (imports
   of exported names, nested stacks, CDK assemblies) and so form applications; every
   other unit stays a unit of its own. A run that names template files links them with
   the rest of their repository;
3. **load, link and check** (``unit.py``): each unit, or each application as one graph
   (``loaders/application.py`` loads its templates, links them, and builds the graph),
   is checked by the rules, and its inline suppressions applied; serially, or in worker
   processes (``run/pool.py``), one unit or application per task;
4. **collect**: the results are merged in the order of the work and sorted; the
   baseline and the report follow in the command (``cli/check.py``).
"""

from __future__ import annotations

import gc
import os

from fanout_lint.fixes.sources import merge
from fanout_lint.loaders.candidate import Candidate
from fanout_lint.loaders.terraform.hcl_install import parser_problem
from fanout_lint.policy.settings import Settings
from fanout_lint.results.records import LoadError, Result
from fanout_lint.rule import Rule
from fanout_lint.run.discover import find_units
from fanout_lint.run.jobs import choose_jobs
from fanout_lint.run.link_plan import plan
from fanout_lint.run.unit import lint_or_error


def lint_paths(paths: list[str], rules: tuple[Rule, ...], settings: Settings, keep_graphs: bool = False,
               root: str | None = None, progress=None, link_memo=None) -> Result:
    """``root``: the repository, where the callers of a named module file and the templates
    a named template links with are looked for (default ``settings.repo_root``);
    ``progress``: called with (units done, units) as units finish; ``link_memo``: the link
    facts a long-lived process keeps between runs (``run/link_plan.plan``).

    ``settings`` apply to every unit, unless ``settings.configuration`` (a
    ``hierarchy.Hierarchy``) is given: then each unit is linted under the settings of its
    own nearest configuration file, and ``settings`` decide only what the run does as a
    whole (``hierarchy.RUN_FIELDS``: jobs, cache, links, repository, today). Raises
    ``config.ConfigError`` for a configuration file found under the paths that is
    invalid or may not be read; nothing is linted then."""
    root = root if root is not None else settings.repo_root
    configuration = settings.configuration
    exclude = settings.exclude if configuration is None else configuration.excluder()
    # the repository is searched for callers and linked templates beyond the paths: the
    # files met there govern no unit of the run until one is linked or called
    elsewhere = exclude if configuration is None else configuration.excluder(record=False)
    found = find_units(paths, exclude, root, settings.repo_root_given, elsewhere)  # 1
    result = Result(errors=[LoadError(m.path, None, m.message) for m in found.missing], skipped=list(found.skipped),
                    notices=list(found.notices))

    candidates, unusable = parser_problem(found.candidates)  # a shadowed HCL parser: one error, not one per unit
    result.errors.extend(unusable)
    work = _link_plan(candidates, paths, settings, root, elsewhere, link_memo)  # 2
    if configuration is None:
        each: Settings | list[Settings] = settings
    else:  # looked up here, before any unit is linted: a worker gets its units' settings
        each = [configuration.unit_settings(item.path, item.format, settings) for item in work]
    _collect(result, work, rules, each, keep_graphs, progress)
    result.sort()
    return result


def _collect(result: Result, work: list, rules: tuple[Rule, ...], settings: Settings | list[Settings],
             keep_graphs: bool, progress) -> None:
    for done, unit in enumerate(_lint_all(work, rules, settings, keep_graphs), start=1):  # 3
        if progress is not None:
            progress(done, len(work))
        result.skipped.extend(unit.skipped)  # 4
        result.findings.extend(unit.findings)
        result.errors.extend(unit.errors)
        result.suppressed.extend(unit.suppressed)
        result.notices.extend(unit.notices)
        result.units += unit.units
        result.linted.extend(unit.linted)
        result.modelled += unit.modelled
        result.not_modelled += unit.not_modelled
        result.graphs.extend(unit.graphs)
        if unit.fix_sources:
            merge(result.fix_sources, unit.fix_sources)


def _link_plan(candidates: list[Candidate], paths: list[str], settings: Settings, root: str, exclude,
          memo=None) -> list:
    if not settings.link:
        return list(candidates)

    named = [p for p in paths if not os.path.isdir(p)] if settings.link_repository else []
    # the plan parses parts of the templates that may link: acyclic trees, as every
    # parse's, which the cyclic collector would only rescan
    collecting = gc.isenabled()
    gc.disable()
    try:
        return plan(candidates, named, exclude, root, settings.repo_root_given, memo)
    finally:
        if collecting:
            gc.enable()


def _lint_all(work: list, rules: tuple[Rule, ...], settings: Settings | list[Settings], keep_graphs: bool):
    """Each unit's or application's result in the order of ``work``: in worker processes
    when there are many. ``settings``: for every unit, or a list, each unit's own."""
    each = settings if isinstance(settings, list) else [settings] * len(work)
    run = each[0] if each else Settings()
    jobs = 1 if keep_graphs else choose_jobs(run.jobs, len(work))  # graphs stay in this process
    if jobs > 1:
        from fanout_lint.run.pool import lint_in_parallel  # the process machinery only for many units

        return lint_in_parallel(work, rules, each, jobs)
    # as in a worker, a unit that raises is an error of its own, and the others are linted
    return (lint_or_error(item, rules, own, keep_graphs) for item, own in zip(work, each))
