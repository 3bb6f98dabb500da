"""Linting units in parallel processes, with output identical to a serial run.

Units are independent (one template, one Terraform directory), so each is linted whole
in a worker by ``engine.lint_candidate``; results come back in the order of the
candidates and are merged exactly as the serial loop merges them.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Iterator

if TYPE_CHECKING:
    from fanout_lint.discover import Candidate
    from fanout_lint.engine import Result
    from fanout_lint.rule import Rule
    from fanout_lint.settings import Settings

# Below this many units per worker, starting workers costs more than it saves
# (a small template lints in about a millisecond; a worker starts in tens of them).
UNITS_PER_WORKER = 32
MAX_AUTO_JOBS = 8


def available_cpus() -> int:
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def choose_jobs(requested: int | None, units: int) -> int:
    """The number of worker processes: the request, or one chosen from machine and work."""
    if requested is not None and requested > 0:
        return max(1, min(requested, units))
    return max(1, min(available_cpus(), MAX_AUTO_JOBS, units // UNITS_PER_WORKER))


def lint_in_parallel(
    candidates: list[Candidate], rules: tuple[Rule, ...], settings: Settings, jobs: int
) -> Iterator[Result]:
    """Each candidate's result, in the order of ``candidates``."""
    from concurrent.futures import ProcessPoolExecutor  # only when there is parallel work

    context = _context()
    chunk = max(1, min(64, len(candidates) // (jobs * 8)))
    with ProcessPoolExecutor(
        max_workers=jobs, mp_context=context, initializer=_init_worker, initargs=(rules, settings)
    ) as pool:
        yield from pool.map(_lint_one, candidates, chunksize=chunk)


def _context():
    # fork starts workers in milliseconds and hands them the rules without pickling;
    # where fork is unavailable (Windows, macOS default) spawn re-imports instead.
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


# The worker's rules and settings, set once per worker process by the pool's initializer
# so that they are not sent again with every unit.
_worker: dict = {}


def _init_worker(rules, settings) -> None:
    _worker["rules"] = rules
    _worker["settings"] = settings


def _lint_one(candidate: Candidate) -> Result:
    from fanout_lint.engine import lint_candidate

    return lint_candidate(candidate, _worker["rules"], _worker["settings"])
