"""Every fixture's findings, under all rules, are exactly the ones written inside it."""

from __future__ import annotations

import os

import pytest

from expectations import expected_for, fixture_paths
from fanout_lint.run.engine import lint_paths
from fanout_lint.rules import ALL_RULES
from fanout_lint.policy.settings import Settings
from repo_paths import TESTS

FIXTURES = os.path.join(TESTS, "fixtures")
PATHS = fixture_paths(FIXTURES)


@pytest.mark.parametrize("path", PATHS, ids=[os.path.relpath(p, FIXTURES) for p in PATHS])
def test_fixture_findings_are_exactly_the_expected_ones(path):
    expected = expected_for(path)
    result = lint_paths([path], ALL_RULES, Settings())
    actual = {(f.loc.file, f.loc.line, f.name) for f in result.findings}
    missing = sorted(expected.findings - actual)
    unexpected = sorted(
        (f.loc.file, f.loc.line, f.name, f.message)
        for f in result.findings
        if (f.loc.file, f.loc.line, f.name) not in expected.findings
    )
    assert not missing and not unexpected, (
        f"\nmissing findings: {missing}\nunexpected findings: {unexpected}"
    )
    levels = {(f.loc.file, f.loc.line, f.name): f.severity.value for f in result.findings}
    wrong = [(where, wanted, levels[where]) for where, wanted in expected.severities if levels[where] != wanted]
    assert not wrong, f"findings at another level than expected (where, expected, got): {wrong}"
    errors = [e.message for e in result.errors]
    assert len(errors) == len(expected.errors), f"errors: {errors}, expected: {expected.errors}"
    for wanted, got in zip(sorted(expected.errors), sorted(errors)):
        assert wanted in got


def test_fixtures_exist():
    assert len(PATHS) > 0
