"""How many worker processes a run starts: chosen from the machine and the work.

Apart from ``pool.py``, which imports the process machinery (``multiprocessing``,
``concurrent.futures``: tens of milliseconds of start-up), so that a run of a few units,
linted in this process, never imports it.
"""

from __future__ import annotations

import os

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
