"""The CDK twins (``cdk_*.json``) are what ``tests/tools/cdk_twin.py`` makes of their
CloudFormation sources today: a fixture changed without its twin fails here."""

from __future__ import annotations

import glob
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "tools"))

from cdk_twin import twin  # noqa: E402

SOURCES = sorted(
    path for path in glob.glob(os.path.join(ROOT, "tests", "fixtures", "*", "cfn_*.yaml"))
    if os.path.exists(path[: -len(".yaml")].replace("/cfn_", "/cdk_") + ".json")
)


def test_there_are_twins():
    assert len(SOURCES) >= 30


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: os.path.relpath(p, ROOT))
def test_the_twin_is_current(source):
    text, sidecar = twin(source)
    base = source[: -len(".yaml")].replace("/cfn_", "/cdk_")
    with open(base + ".json", encoding="utf-8") as handle:
        assert handle.read() == text, f"stale: python tests/tools/cdk_twin.py {os.path.relpath(source, ROOT)}"
    with open(base + ".expected.yaml", encoding="utf-8") as handle:
        assert handle.read() == sidecar, f"stale: python tests/tools/cdk_twin.py {os.path.relpath(source, ROOT)}"
