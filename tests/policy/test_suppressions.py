"""Inline suppressions in CloudFormation Metadata: reasons, expiry, unknown rules, --show-suppressed."""

from __future__ import annotations

import datetime
import json
import os

from fanout_lint.cli.main import main
from fanout_lint.run.engine import lint_paths
from fanout_lint.rules import ALL_RULES
from fanout_lint.policy.settings import Settings
from repo_paths import TESTS

FIXTURE = os.path.join(TESTS, "fixtures", "shared-queue", "cfn_fires.yaml")


def _template(tmp_path, metadata: str) -> str:
    """The shared-queue fixture with ``metadata`` (YAML lines) on its OrdersQueue."""
    with open(FIXTURE, encoding="utf-8") as handle:
        text = handle.read()
    indented = "".join(f"    {line}\n" for line in metadata.strip("\n").splitlines())
    text = text.replace("    Type: AWS::SQS::Queue\n", "    Type: AWS::SQS::Queue\n" + indented, 1)
    path = tmp_path / "template.yaml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def _lint(path: str, today=datetime.date(2026, 6, 1)):
    return lint_paths([path], ALL_RULES, Settings(select=("shared-queue",), today=today))


def test_a_suppression_with_a_reason_hides_the_finding(tmp_path):
    path = _template(tmp_path, """
Metadata:
  fanout-lint:
    ignore:
      - rule: shared-queue
        reason: the two consumers are blue/green copies of one service
""")
    result = _lint(path)
    assert result.findings == []
    assert [s.finding.rule for s in result.suppressed] == ["FL201"]
    assert result.suppressed[0].suppression.reason.startswith("the two consumers")
    assert result.notices == []


def test_plain_ids_take_the_section_reason_and_ids_match_case_insensitively(tmp_path):
    path = _template(tmp_path, """
Metadata:
  fanout-lint:
    ignore: [fl201]
    reason: migration in progress
""")
    result = _lint(path)
    assert result.findings == [] and len(result.suppressed) == 1


def test_a_suppression_without_reason_is_not_applied_and_says_so(tmp_path):
    path = _template(tmp_path, """
Metadata:
  fanout-lint:
    ignore: [shared-queue]
""")
    result = _lint(path)
    assert [f.rule for f in result.findings] == ["FL201"]
    assert len(result.notices) == 1
    assert "no reason" in result.notices[0].message
    assert result.notices[0].loc.line == 9  # the `ignore:` entry itself


def test_an_expired_suppression_stops_suppressing_and_is_reported(tmp_path):
    path = _template(tmp_path, """
Metadata:
  fanout-lint:
    ignore:
      - {rule: FL201, reason: temporary, until: 2026-03-31}
""")
    before = _lint(path, today=datetime.date(2026, 3, 31))  # the until day itself still suppresses
    assert before.findings == [] and before.notices == []
    after = _lint(path, today=datetime.date(2026, 4, 1))
    assert [f.rule for f in after.findings] == ["FL201"]
    assert after.suppressed == []
    assert ["expired on 2026-03-31" in n.message for n in after.notices] == [True]


def test_a_bad_until_date_is_reported_and_not_applied(tmp_path):
    path = _template(tmp_path, """
Metadata:
  fanout-lint:
    ignore:
      - {rule: FL201, reason: temporary, until: next spring}
""")
    result = _lint(path)
    assert len(result.findings) == 1
    assert "not a date" in result.notices[0].message


def test_a_suppression_naming_an_unknown_rule_is_reported(tmp_path):
    path = _template(tmp_path, """
Metadata:
  fanout-lint:
    ignore:
      - {rule: shared-queues, reason: typo}
""")
    result = _lint(path)
    assert len(result.findings) == 1
    assert "unknown rule 'shared-queues'" in result.notices[0].message


def test_a_suppression_of_another_rule_does_not_hide_this_one(tmp_path):
    path = _template(tmp_path, """
Metadata:
  fanout-lint:
    ignore:
      - {rule: missing-dlq, reason: not this one}
""")
    result = _lint(path)
    assert [f.rule for f in result.findings] == ["FL201"] and result.notices == []


def test_cli_show_suppressed_lists_reasons_and_notices_go_to_stderr(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = _template(tmp_path, """
Metadata:
  fanout-lint:
    ignore:
      - {rule: shared-queue, reason: blue/green}
      - {rule: no-such-rule, reason: typo}
""")
    assert main([path, "--select", "shared-queue"]) == 0
    out, err = capsys.readouterr()
    assert "[suppressed]" not in out and "1 suppressed inline" in out
    assert "warning: suppression names unknown rule 'no-such-rule'" in err

    assert main([path, "--select", "shared-queue", "--show-suppressed"]) == 0
    out, _ = capsys.readouterr()
    assert "FL201 [suppressed]" in out and "-- blue/green" in out
    assert out.splitlines()[-1].startswith("0 findings; ")  # the summary stays the last line

    assert main([path, "--select", "shared-queue", "--show-suppressed", "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["findings"] == []
    assert document["suppressed"][0]["suppression"]["reason"] == "blue/green"
    assert "no-such-rule" in document["notices"][0]["message"]



def _shared_queue_unit(tmp_path, comments: str) -> str:
    """The shared-queue Terraform fixture with ``comments`` above the shared queue."""
    source = os.path.join(TESTS, "fixtures", "shared-queue", "tf_fires", "main.tf")
    with open(source, encoding="utf-8") as handle:
        text = handle.read()
    unit = tmp_path / "infra"
    unit.mkdir()
    marker = 'resource "aws_sqs_queue" "orders" {\n'
    (unit / "main.tf").write_text(text.replace(marker, comments + marker, 1), encoding="utf-8")
    return str(unit)


def test_terraform_comment_suppressions_go_through_the_same_policy(tmp_path):
    unit = _shared_queue_unit(tmp_path, "# fanout-lint: ignore=FL201 until=2026-03-31 -- blue/green pair\n")
    before = _lint(unit, today=datetime.date(2026, 3, 1))
    assert before.findings == [] and [s.suppression.reason for s in before.suppressed] == ["blue/green pair"]
    after = _lint(unit, today=datetime.date(2026, 4, 1))
    assert [f.resource for f in after.findings] == ["aws_sqs_queue.orders"]
    assert "expired on 2026-03-31" in after.notices[0].message


def test_terraform_comments_are_read_only_from_a_file_that_holds_a_suppression():
    from fanout_lint.loaders.terraform.hcl.syntax import parse_hcl

    plain = '# a queue\nresource "aws_sqs_queue" "q" {\n  name = "q" # its name\n}\n'
    assert parse_hcl(plain, "main.tf").comments == ()
    marked = "# fanout-lint: ignore=FL201 -- why\n" + plain
    assert [(c.line, c.text) for c in parse_hcl(marked, "main.tf").comments] == [
        (1, "fanout-lint: ignore=FL201 -- why"), (2, "a queue"), (4, "its name")]


def test_a_terraform_suppression_above_a_run_of_plain_comments_applies(tmp_path):
    unit = _shared_queue_unit(
        tmp_path, "# fanout-lint: ignore=FL201 -- blue/green pair\n# the orders queue\n// shared on purpose\n")
    result = _lint(unit, today=datetime.date(2026, 3, 1))
    assert result.findings == [] and [s.suppression.reason for s in result.suppressed] == ["blue/green pair"]
