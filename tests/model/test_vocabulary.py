"""Findings speak the user's format: Terraform findings name Terraform arguments and
resource types, CloudFormation findings CloudFormation properties and types.

Checked on every finding of every fixture and example, against the names the schema
itself knows, so a new rule or field is covered without listing it here.
"""

from __future__ import annotations

import os
import re

import pytest

from expectations import fixture_paths
from fanout_lint.model.format import Format
from fanout_lint.run.engine import lint_paths
from fanout_lint.model import vocabulary
from fanout_lint.model.nodes import Queue, Subscription, Written
from fanout_lint.model.schema import KINDS
from fanout_lint.rules import ALL_RULES
from fanout_lint.policy.settings import Settings
from fanout_lint.server.memo import FactsMemo
from repo_paths import ROOT



def _names(format_: Format) -> set[str]:
    found = set()
    for kind in KINDS:
        for field in kind.fields:
            for part in re.split(r"[./]", field.path(format_)):
                if part:
                    found.add(part)
        found.update(kind.cfn_types if format_ is Format.CLOUDFORMATION else kind.tf_types)
    return found


# Names written the same way in both (JSON keys of documents) are no one's own.
SHARED = _names(Format.CLOUDFORMATION) & _names(Format.TERRAFORM)
# (less the properties that are also the words messages start with: "Queue q has ...", and
# an S3 notification's Topic, Function and Event: "Event source mapping ...")
CFN_ONLY = {n for n in _names(Format.CLOUDFORMATION) - SHARED if n[0].isupper()} - {
    "Queue", "Queues", "Topic", "Function", "Event"}
TF_ONLY = {n for n in _names(Format.TERRAFORM) - SHARED if "_" in n}  # visibility_timeout_seconds, aws_...


def _all_findings():
    paths = fixture_paths(os.path.join(ROOT, "tests", "fixtures")) + [os.path.join(ROOT, "examples")]
    # Each template named alone is linked with the repository's templates, whose link facts
    # every lint would read again; the memo the language server keeps between lints holds
    # them by path, bytes and place, so the findings are those of separate runs.
    memo = FactsMemo()
    for path in paths:
        result = lint_paths([path], ALL_RULES, Settings(jobs=1), keep_graphs=True, link_memo=memo)
        formats = {unit.path: unit.format for graph in result.graphs for unit in graph.members}
        for finding in result.findings:
            yield formats[finding.unit], finding


@pytest.fixture(scope="module")
def findings() -> list:
    """(format, finding) of every fixture and example, linted once for this module's
    tests when the first runs: at import, every worker would lint them to collect."""
    return list(_all_findings())


def _words(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z][A-Za-z0-9_:]*", text))


def test_the_corpus_has_findings_in_both_vocabularies(findings):
    formats = {fmt for fmt, _ in findings}
    assert {"cloudformation", "serverless", "terraform", "terraform-plan"} <= formats
    assert len(CFN_ONLY) > 20 and len(TF_ONLY) > 20


@pytest.mark.parametrize("fmt", ["terraform", "terraform-plan"])
def test_terraform_findings_name_no_cloudformation_property(findings, fmt):
    for unit_format, finding in findings:
        if unit_format == fmt:
            wrong = _words(finding.message) & CFN_ONLY
            assert not wrong, f"{finding.rule} on {finding.resource}: {sorted(wrong)} in {finding.message!r}"
            assert "AWS::" not in finding.message, finding.message


def test_cloudformation_findings_name_no_terraform_argument(findings):
    for unit_format, finding in findings:
        if unit_format in ("cloudformation", "serverless"):
            wrong = _words(finding.message) & TF_ONLY
            assert not wrong, f"{finding.rule} on {finding.resource}: {sorted(wrong)} in {finding.message!r}"


def test_settings_are_written_in_the_nodes_format():
    loc_free = {"id": "q", "loc": None}
    cfn = Queue(**loc_free)
    tf = Queue(**loc_free, written=Written(Format.TERRAFORM))
    assert vocabulary.setting(cfn, "visibility_timeout", 360) == "VisibilityTimeout: 360"
    assert vocabulary.setting(tf, "visibility_timeout", 360) == "visibility_timeout_seconds = 360"
    assert vocabulary.setting(cfn, "max_receive_count", 5) == "maxReceiveCount: 5 in RedrivePolicy"
    assert vocabulary.setting(tf, "max_receive_count", 5) == "maxReceiveCount = 5 in redrive_policy"
    sub = Subscription(**loc_free, written=Written(Format.TERRAFORM))
    assert vocabulary.how_to_set(sub, "raw_message_delivery", True) == "set raw_message_delivery = true"
    assert vocabulary.resource_type(sub, "queue_policy") == "aws_sqs_queue_policy"


def test_a_construct_names_and_refuses_settings_its_own_way():
    construct = Written(Format.CLOUDFORMATION, "SAM SQS event", names=(("source", "Queue"),),
                        fixed=(("response_types", "declare the queue yourself"),))
    from fanout_lint.model.nodes import EventSourceMapping

    mapping = EventSourceMapping(id="m", loc=None, written=construct)
    assert vocabulary.term(mapping, "source") == "Queue"
    assert vocabulary.term(mapping, "batch_size") == "BatchSize"
    assert not vocabulary.can_set(mapping, "response_types")
    assert vocabulary.how_to_set(mapping, "response_types", ["x"]) == "declare the queue yourself"


def test_suppression_hints_use_the_syntax_they_are_written_in(tmp_path, capsys):
    from fanout_lint.cli.main import main

    (tmp_path / "tf").mkdir()
    (tmp_path / "tf" / "main.tf").write_text(
        '# fanout-lint: ignore=missing-dlq\nresource "aws_sqs_queue" "q" {}\n')
    (tmp_path / "t.yaml").write_text(
        "Resources:\n  Q:\n    Type: AWS::SQS::Queue\n    Metadata:\n      fanout-lint: {ignore: [missing-dlq]}\n")
    main([str(tmp_path)])
    err = capsys.readouterr().err
    assert "(add `# fanout-lint: ignore=missing-dlq -- <reason>`)" in err
    assert "(add `reason: ...`)" in err
