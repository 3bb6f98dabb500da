"""Linting units in parallel processes, with output identical to a serial run.

Units are independent (one template, one Terraform directory, or one application of
linked templates), so each is linted whole in a worker by ``unit.lint_candidate``;
results come back in the order of the work and are merged exactly as the serial loop
merges them.

A unit can still take its worker down (the kernel's OOM killer, a crash in a C
extension). The pool then breaks and every unit in flight fails with it, without saying
which one was the cause. So only a few batches are in flight at a time; those that fail
are split into single units and run again in a fresh pool, and a single unit that fails
like this is run once more alone, in a pool of one worker, so that exactly the unit that
kills its worker is reported ("worker process died while linting this unit"), and every
other unit is linted.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
from collections import deque
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from typing import TYPE_CHECKING

from fanout_lint.results.records import LoadError, Result
from fanout_lint.run.unit import describe, lint_or_error

if TYPE_CHECKING:
    from typing import Iterator

    from fanout_lint.loaders.candidate import Candidate
    from fanout_lint.policy.settings import Settings
    from fanout_lint.results.records import Result
    from fanout_lint.rule import Rule

# Batches in flight per worker: enough to keep every worker busy, few enough that a
# broken pool leaves few suspects to run again.
IN_FLIGHT_PER_WORKER = 2
DIED = "worker process died while linting this unit"
EXIT_TERMINATED = 128 + 15  # as a shell reports a process ended by SIGTERM


def lint_in_parallel(
    candidates: list[Candidate], rules: tuple[Rule, ...], settings: Settings | list[Settings], jobs: int
) -> Iterator[Result]:
    """Each candidate's result, in the order of ``candidates``. ``settings``: for every
    candidate, or a list, each candidate's own (its configuration file's: hierarchy.py).
    Each worker gets every distinct settings once; a unit goes with the number of its own."""
    each = settings if isinstance(settings, list) else [settings] * len(candidates)
    distinct: dict[int, int] = {}
    for own in each:
        distinct.setdefault(id(own), len(distinct))
    table = tuple({id(own): own for own in each}.values())
    numbers = [distinct[id(own)] for own in each]
    items = list(zip(numbers, candidates))

    size = max(1, min(64, len(candidates) // (jobs * 8)))
    queue = deque(tuple(range(start, min(start + size, len(candidates))))
                  for start in range(0, len(candidates), size))
    results: dict[int, Result] = {}
    emitted = 0
    with _sigterm_ends_workers():
        while queue:
            failed: list[tuple[int, ...]] = []
            with _workers(jobs, rules, table) as pool:
                running: dict = {}
                broken = False
                while running or (queue and not broken):
                    while queue and not broken and len(running) < jobs * IN_FLIGHT_PER_WORKER:
                        batch = queue.popleft()
                        try:
                            running[pool.submit(_lint_batch, [items[i] for i in batch])] = batch
                        except BrokenProcessPool:
                            # a worker died since the last wait: this batch never ran, so it
                            # goes back to the queue for the next pool, as it is; in a pool
                            # that ran nothing it counts as failed, so every pool makes progress
                            if running:
                                queue.appendleft(batch)
                            else:
                                failed.append(batch)
                            broken = True
                    if not running:
                        break
                    finished, _ = wait(running, return_when=FIRST_COMPLETED)
                    for future in finished:
                        batch = running.pop(future)
                        try:
                            results.update(zip(batch, future.result()))
                        except BrokenProcessPool:
                            broken = True
                            failed.append(batch)
                        except Exception:  # the results could not be sent back, say
                            failed.append(batch)
                    while emitted in results:
                        yield results.pop(emitted)
                        emitted += 1
            singles = []
            for batch in sorted(failed):
                if len(batch) > 1:
                    singles.extend((i,) for i in batch)  # run again in a fresh pool, one by one
                else:
                    results[batch[0]] = _alone(items[batch[0]], rules, table)
            queue.extendleft(reversed(singles))
            while emitted in results:
                yield results.pop(emitted)
                emitted += 1


def _alone(item: tuple[int, Candidate], rules: tuple[Rule, ...], table: tuple[Settings, ...]) -> Result:
    """The unit linted in a pool of its own, so that a failure can only be its own."""
    candidate = item[1]
    with _workers(1, rules, table) as pool:
        try:
            return pool.submit(_lint_batch, [item]).result()[0]
        except BrokenProcessPool:
            message = DIED
        except Exception as exc:
            message = f"internal error while linting: {describe(exc)}"
    return Result(errors=[LoadError(candidate.path, None, message)])


@contextmanager
def _workers(jobs: int, rules: tuple[Rule, ...], table: tuple[Settings, ...]):
    """A process pool whose workers are killed, not waited for, when the run is cut short
    (an exception, the caller dropping the results)."""
    before = set(multiprocessing.active_children())
    pool = ProcessPoolExecutor(
        max_workers=jobs, mp_context=_context(), initializer=_init_worker, initargs=(rules, table)
    )
    try:
        yield pool
    except BaseException:
        _kill_children_since(before)
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def _kill_children_since(before: set) -> None:
    workers = [p for p in multiprocessing.active_children() if p not in before]
    for process in workers:
        process.kill()
    for process in workers:
        process.join(5)


@contextmanager
def _sigterm_ends_workers():
    """SIGTERM to this process ends the run at once, workers included. The default action
    would kill this process alone and leave its workers waiting for work forever; and
    the exit must not wait for units in flight (the pool's exit hook joins its threads,
    which wait for running work), so the handler kills the workers itself."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers can only be set from the main thread
        return
    owner = os.getpid()
    before = set(multiprocessing.active_children())

    def end(signum, frame):
        if os.getpid() != owner:  # a worker forked before it reset the handler
            os._exit(EXIT_TERMINATED)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM kills at once
        _kill_children_since(before)
        # Ended from outside, with nothing left to finish (reports are written whole or
        # not at all): the interpreter's teardown would only run the pool's exit hook,
        # which wakes the threads of the killed workers and, on Python 3.11, can race
        # their closed pipe into a traceback. What was printed is flushed; then exit.
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(EXIT_TERMINATED)

    previous = signal.signal(signal.SIGTERM, end)
    try:
        yield
    finally:
        if signal.getsignal(signal.SIGTERM) is end:
            signal.signal(signal.SIGTERM, previous)


def _context():
    # fork starts workers in milliseconds and hands them the rules without pickling;
    # where fork is unavailable (Windows, macOS default) spawn re-imports instead.
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


# The worker's rules and the run's distinct settings, set once per worker process by the
# pool's initializer so that they are not sent again with every unit.
_worker: dict = {}


def _init_worker(rules, table) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the parent's handler is for the parent
    _worker["rules"] = rules
    _worker["settings"] = table


def _lint_batch(items: list[tuple[int, Candidate]]) -> list[Result]:
    """Each unit under the settings of its number."""
    return [lint_or_error(candidate, _worker["rules"], _worker["settings"][number]) for number, candidate in items]
