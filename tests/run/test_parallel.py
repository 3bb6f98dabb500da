"""``-j/--jobs``: units linted in worker processes give exactly the serial output."""

from __future__ import annotations

import json
import sys

import pytest

from fanout_lint.cli.main import main
from fanout_lint.run.jobs import UNITS_PER_WORKER, choose_jobs
from repo_paths import ROOT

sys.path.insert(0, ROOT)
from bench.generate import generate_repo  # noqa: E402


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    root = tmp_path_factory.mktemp("repo")
    generate_repo(str(root), units=24, resources=(10, 40), formats=("yaml", "json", "sam"), seed=7, flaw_rate=0.5)
    (root / "broken.yaml").write_text("AWSTemplateFormatVersion: '2010-09-09'\nResources: [\n")
    return root


def _run(capsys, *args) -> tuple[int, str]:
    code = main(["check", "--format", "json", *args])
    return code, capsys.readouterr().out


def test_parallel_output_is_identical_to_serial(repo, capsys):
    serial_code, serial = _run(capsys, "-j", "1", str(repo))
    parallel_code, parallel = _run(capsys, "--jobs", "3", str(repo))
    assert parallel == serial
    assert parallel_code == serial_code == 2  # the broken file is an error in both
    report = json.loads(serial)
    assert len(report["findings"]) > 20 and len(report["errors"]) == 1


def test_auto_jobs_is_one_for_few_units_and_never_more_than_units():
    assert choose_jobs(None, 1) == 1
    assert choose_jobs(None, UNITS_PER_WORKER - 1) == 1
    assert choose_jobs(4, 2) == 2
    assert choose_jobs(3, 100) == 3


def test_jobs_must_be_a_positive_number(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["check", "-j", "0", "."])
    assert exit_info.value.code == 2
    assert "at least 1" in capsys.readouterr().err


def test_a_pool_that_breaks_between_two_submissions_loses_no_unit(monkeypatch):
    # a worker may die after the last wait and before the next submit: the submit raises
    from concurrent.futures import Future
    from concurrent.futures.process import BrokenProcessPool
    from contextlib import contextmanager

    from fanout_lint.policy.settings import Settings
    from fanout_lint.results.records import Result
    from fanout_lint.run import pool

    submitted: list[list[int]] = []

    class Breaking:  # the second submission finds the pool broken
        def submit(self, fn, batch):
            units = [int(candidate.split("-")[1]) for _, candidate in batch]
            submitted.append(units)
            if len(submitted) == 2:
                raise BrokenProcessPool("a worker died")
            done: Future = Future()
            done.set_result([Result(units=unit) for unit in units])
            return done

    @contextmanager
    def workers(jobs, rules, table):
        yield Breaking()

    monkeypatch.setattr(pool, "_workers", workers)
    monkeypatch.setattr(pool, "_alone", lambda item, rules, table: Result(units=-1))
    results = list(pool.lint_in_parallel([f"unit-{i}" for i in range(40)], (), Settings(), 2))
    assert [r.units for r in results] == list(range(40))  # each unit once, in order, none lost
    refused = submitted[1]
    assert submitted.count(refused) == 2  # the refused batch ran whole in the next pool
