"""The CDK twins (``cdk_*.json``) are what ``tests/tools/cdk_twin.py`` makes of their
CloudFormation sources today: a fixture changed without its twin fails here."""

from __future__ import annotations

import glob
import os
import sys

import pytest

from repo_paths import ROOT

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


def _findings(path):
    from fanout_lint.policy.settings import Settings
    from fanout_lint.rules import ALL_RULES
    from fanout_lint.run.engine import lint_paths

    return lint_paths([path], ALL_RULES, Settings()).findings


def test_a_finding_on_cdk_output_names_the_construct_and_its_property():
    fixture = os.path.join(ROOT, "tests", "fixtures", "visibility-timeout-below-function-timeout", "cdk_fires.json")
    messages = sorted(f.message for f in _findings(fixture) if f.rule == "FL202")
    assert messages and all(m.endswith(("; in the CDK app: visibilityTimeout of Stack/ReportsQueue",
                                        "; in the CDK app: visibilityTimeout of Stack/ExportQueue"))
                            for m in messages), messages
    fixture = os.path.join(ROOT, "tests", "fixtures", "batch-item-failures-off", "cdk_fires.json")
    assert any(f.message.endswith("; in the CDK app: reportBatchItemFailures of Stack/WorkerMapping")
               for f in _findings(fixture))


def test_the_cdk_hint_without_a_known_property_names_the_construct_only():
    fixture = os.path.join(ROOT, "tests", "fixtures", "raw-delivery-off", "cdk_fires.json")
    messages = [f.message for f in _findings(fixture)]
    # an inline subscription is no construct of its own: no property is named for it
    assert any(m.endswith("; in the CDK app: Stack/OrdersTopic") for m in messages), messages
    assert any(m.endswith("; in the CDK app: rawMessageDelivery of Stack/EmailSubscription") for m in messages)


def test_plain_cloudformation_messages_carry_no_cdk_hint():
    fixture = os.path.join(ROOT, "tests", "fixtures", "visibility-timeout-below-function-timeout", "cfn_fires.yaml")
    assert all("CDK app" not in f.message for f in _findings(fixture))


def test_the_hint_table():
    from fanout_lint.results.cdk_hints import CDK_PROPERTIES, construct_of

    assert construct_of("Stack/Jobs/Resource") == "Stack/Jobs" and construct_of("Stack/Jobs") == "Stack/Jobs"
    assert construct_of("/Resource") == "/Resource"
    for cfn in ("VisibilityTimeout", "FunctionResponseTypes", "RedrivePolicy", "RawMessageDelivery",
                "MessageRetentionPeriod", "Timeout", "ReservedConcurrentExecutions",
                "MaximumBatchingWindowInSeconds", "BatchSize"):
        assert CDK_PROPERTIES[cfn][0].islower()
