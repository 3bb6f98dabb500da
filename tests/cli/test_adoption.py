"""Issue 13: what a platform team trips on the first day, each through the real command line.

Soft-fail and JUnit levels, one run writing several reports, GitLab Code Quality, SARIF
for code scanning, suppression hygiene, and the feedback of a run (what it skipped,
statistics, quiet, settings, suggestions, prefixes, the repository root, colour, paths).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from fanout_lint.cli.main import main
from repo_paths import ROOT

FIXTURES = os.path.join(ROOT, "tests", "fixtures")
SHARED_QUEUE = os.path.join(FIXTURES, "shared-queue", "cfn_fires.yaml")
RAW_DELIVERY = os.path.join(FIXTURES, "raw-delivery-off", "cfn_fires.yaml")  # warnings only
SCHEMA = os.path.join(ROOT, "tests", "schemas", "sarif-schema-2.1.0.json")  # the OASIS schema, as published
# GitLab's Code Quality report: the fields a merge request reads, and the severities it knows
GITLAB_SEVERITIES = {"info", "minor", "major", "critical", "blocker"}


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copy(SHARED_QUEUE, tmp_path / "stack.yaml")
    shutil.copy(RAW_DELIVERY, tmp_path / "topics.yaml")
    return tmp_path


# -- soft-fail --------------------------------------------------------------------

def test_fail_on_none_and_exit_zero_report_findings_without_failing(work, capsys):
    assert run(capsys, "stack.yaml")[0] == 1
    for flags in (["--fail-on", "none"], ["--exit-zero"]):
        code, out, _ = run(capsys, "stack.yaml", *flags)
        assert code == 0 and "FL201 [error]" in out
    (work / "bad.yaml").write_text("Resources:\n  Q: [\n", encoding="utf-8")
    assert run(capsys, "stack.yaml", "bad.yaml", "--exit-zero")[0] == 2  # a file not linted still fails
    (work / ".fanout-lint.toml").write_text('fail-on = "none"\n', encoding="utf-8")
    assert run(capsys, "stack.yaml")[0] == 0
    assert run(capsys, "stack.yaml", "--fail-on", "error")[0] == 1  # the flag wins


def test_junit_fails_only_the_findings_at_or_above_the_fail_level(work, capsys):
    code, out, _ = run(capsys, "stack.yaml", "topics.yaml", "--format", "junit", "--fail-on", "error")
    assert code == 1
    suites = ET.fromstring(out)
    cases = list(suites.iter("testcase"))
    failed = [c for c in cases if c.find("failure") is not None]
    passed_with_finding = [c for c in cases if c.find("system-out") is not None]
    assert failed and all(c.find("failure").get("type") == "error" for c in failed)
    assert passed_with_finding and all("[warning]" in c.find("system-out").text for c in passed_with_finding)
    assert suites.get("failures") == str(len(failed))
    _, out, _ = run(capsys, "stack.yaml", "--format", "junit", "--exit-zero")
    assert ET.fromstring(out).get("failures") == "0"


# -- one run, several reports ---------------------------------------------------------

def test_one_run_prints_text_and_writes_sarif_junit_and_gitlab(work, capsys):
    code, out, err = run(capsys, ".", "--report", "sarif=out/fanout-lint.sarif", "--report", "junit=out/junit.xml",
                         "--report", "gitlab=gl-code-quality-report.json")
    assert code == 1
    assert "stack.yaml:5:3: FL201 [error]" in out and out.splitlines()[-1].startswith("4 findings")
    assert "reports written to out/fanout-lint.sarif, out/junit.xml, gl-code-quality-report.json" in err
    sarif = json.loads((work / "out" / "fanout-lint.sarif").read_text(encoding="utf-8"))
    junit = ET.fromstring((work / "out" / "junit.xml").read_text(encoding="utf-8").split("\n", 1)[1])
    gitlab = json.loads((work / "gl-code-quality-report.json").read_text(encoding="utf-8"))
    assert len(sarif["runs"][0]["results"]) == len(gitlab) == 4 == len(list(junit.iter("failure")))


@pytest.mark.parametrize("flags, message", [
    (["--report", "sarif"], "FORMAT=FILE"),
    (["--report", "sarf=x.sarif"], "unknown format 'sarf' (did you mean sarif?)"),
    (["-o", "r.json", "--format", "json", "--report", "sarif=r.json"], "two reports name the same file"),
    (["--write-baseline", "b.json", "--report", "sarif=x.sarif"], "--write-baseline"),
    (["--statistics", "--format", "sarif"], "--statistics is for"),
])
def test_reports_that_cannot_be_written_together_are_usage_errors(work, capsys, flags, message):
    code, out, err = run(capsys, "stack.yaml", *flags)
    assert code == 2 and message in err and out == ""


def test_reports_compose_with_fix_and_diff(work, capsys):
    shutil.copy(os.path.join(ROOT, "tests", "fix_cases", "yaml-block", "input.yaml"), work / "fixable.yaml")
    code, out, err = run(capsys, "fixable.yaml", "--diff", "--report", "sarif=before.sarif")
    assert code == 1 and out.startswith("---")
    before = json.loads((work / "before.sarif").read_text(encoding="utf-8"))["runs"][0]["results"]
    assert any("fixes" in r for r in before)  # the findings as they are, with the fixes the diff shows
    code, out, err = run(capsys, "fixable.yaml", "--fix", "--report", "sarif=after.sarif", "--exit-zero")
    after = json.loads((work / "after.sarif").read_text(encoding="utf-8"))["runs"][0]["results"]
    assert code == 0 and "fixed" in err and len(after) < len(before)


# -- GitLab Code Quality ----------------------------------------------------------------

def test_gitlab_code_quality_has_the_fields_gitlab_reads(work, capsys):
    shutil.copytree(os.path.join(FIXTURES, "shared-queue", "tf_fires"), work / "infra")
    (work / "broken.yaml").write_text("Resources:\n  Q: [\n", encoding="utf-8")
    code, out, _ = run(capsys, ".", "--format", "gitlab")
    assert code == 2
    issues = json.loads(out)
    assert isinstance(issues, list) and len(issues) >= 6
    for issue in issues:
        assert set(issue) >= {"description", "check_name", "fingerprint", "severity", "location"}
        assert isinstance(issue["description"], str) and issue["description"]
        assert isinstance(issue["check_name"], str) and issue["check_name"]
        assert isinstance(issue["fingerprint"], str) and len(issue["fingerprint"]) == 32
        assert issue["severity"] in GITLAB_SEVERITIES
        path, begin = issue["location"]["path"], issue["location"]["lines"]["begin"]
        assert not path.startswith(("/", "./")) and os.path.exists(work / path)
        assert isinstance(begin, int) and begin >= 1
    assert len({i["fingerprint"] for i in issues}) == len(issues)  # GitLab keeps one issue per fingerprint
    by_path = {i["location"]["path"]: i for i in issues}
    assert by_path["broken.yaml"]["check_name"] == "fanout-lint/cannot-lint"
    assert by_path["infra/main.tf"]["check_name"] == "FL201/shared-queue"
    assert by_path["infra/main.tf"]["severity"] == "major"
    # the fingerprint is the baseline's: a line moved keeps it
    first = {i["check_name"]: i["fingerprint"] for i in issues}
    text = (work / "stack.yaml").read_text(encoding="utf-8")
    (work / "stack.yaml").write_text("# moved\n\n" + text, encoding="utf-8")
    _, out, _ = run(capsys, ".", "--format", "gitlab")
    assert {i["check_name"]: i["fingerprint"] for i in json.loads(out)} == first


# -- SARIF for code scanning ------------------------------------------------------------

def _rules_of(document) -> dict:
    return {r["id"]: r for r in document["runs"][0]["tool"]["driver"]["rules"]}


def test_sarif_ranks_the_security_rules_and_links_help_to_pages_that_exist(work, capsys):
    from fanout_lint.results.doc_links import PROJECT_URL

    _, out, _ = run(capsys, "stack.yaml", "--format", "sarif")
    rules = _rules_of(json.loads(out))
    for rule_id in ("FL301", "FL302", "FL303"):
        assert "security" in rules[rule_id]["properties"]["tags"]
        assert 7.0 <= float(rules[rule_id]["properties"]["security-severity"]) < 9.0
    assert "security-severity" not in rules["FL201"]["properties"]
    # no release is tagged yet: the default branch's pages, each a file of this repository
    prefix = f"{PROJECT_URL}/blob/main/"
    for rule in rules.values():
        assert rule["helpUri"].startswith(prefix), rule["helpUri"]
        assert os.path.isfile(os.path.join(ROOT, rule["helpUri"][len(prefix):])), rule["helpUri"]
    _, out, _ = run(capsys, "stack.yaml", "--format", "sarif", "--docs-url", "https://docs.example/rules/")
    assert _rules_of(json.loads(out))["FL201"]["helpUri"] == "https://docs.example/rules/shared-queue.md"
    (work / ".fanout-lint.toml").write_text('docs-url = "https://mirror.example/r/"\n', encoding="utf-8")
    _, out, _ = run(capsys, "stack.yaml", "--format", "sarif")
    assert _rules_of(json.loads(out))["FL201"]["helpUri"] == "https://mirror.example/r/shared-queue.md"
    (work / ".fanout-lint.toml").write_text('docs-url = "docs/"\n', encoding="utf-8")
    assert run(capsys, "stack.yaml")[0] == 2  # not a URL


def test_sarif_carries_baselined_results_with_their_baseline_state(work, capsys):
    assert run(capsys, "stack.yaml", "--write-baseline", "baseline.json")[0] == 0
    shutil.copy(RAW_DELIVERY, work / "new.yaml")
    code, out, _ = run(capsys, "stack.yaml", "new.yaml", "--baseline", "baseline.json", "--format", "sarif")
    results = json.loads(out)["runs"][0]["results"]
    states = {(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], r["baselineState"]) for r in results}
    assert ("stack.yaml", "unchanged") in states and ("new.yaml", "new") in states
    unchanged = [r for r in results if r["baselineState"] == "unchanged"]
    assert all(r["suppressions"] == [{"kind": "external", "justification": "recorded in the baseline"}]
               for r in unchanged)
    assert code == 1  # the new ones still gate
    import jsonschema

    with open(SCHEMA, encoding="utf-8") as handle:
        schema = json.load(handle)
    errors = list(jsonschema.validators.validator_for(schema)(schema).iter_errors(json.loads(out)))
    assert not errors, [e.message for e in errors[:5]]


# -- suppression hygiene ------------------------------------------------------------------

def _with_metadata(text: str, metadata: str) -> str:
    marker = "  OrdersQueue:\n    Type: AWS::SQS::Queue\n"
    assert marker in text
    return text.replace(marker, marker + metadata)


def test_a_suppression_that_suppresses_nothing_is_a_notice(work, capsys):
    text = (work / "stack.yaml").read_text(encoding="utf-8")
    (work / "stack.yaml").write_text(_with_metadata(
        text, "    Metadata:\n      fanout-lint:\n        ignore: [missing-dlq]\n        reason: not needed\n"))
    code, out, err = run(capsys, "stack.yaml", "--select", "FL1,FL2")
    assert code == 1
    assert "warning: suppression of missing-dlq suppresses nothing: no FL101 (missing-dlq) finding on this resource" in err
    # a rule that did not run is not called unused
    code, out, err = run(capsys, "stack.yaml", "--select", "FL2")
    assert "suppresses nothing" not in err


def test_ignore_all_and_file_level_suppressions(work, capsys):
    text = (work / "stack.yaml").read_text(encoding="utf-8")
    (work / "stack.yaml").write_text(_with_metadata(
        text, "    Metadata:\n      fanout-lint:\n        ignore: [all]\n        reason: legacy stack\n"))
    code, out, err = run(capsys, "stack.yaml", "--show-suppressed")
    assert code == 0 and "FL201 [suppressed]" in out and "-- legacy stack" in out

    (work / "stack.yaml").write_text("# fanout-lint: ignore-file=shared-queue -- one reader at a time\n" + text)
    code, out, err = run(capsys, "stack.yaml", "--select", "shared-queue")
    assert code == 0 and "1 suppressed inline" in out and err == ""
    (work / "stack.yaml").write_text("# fanout-lint: ignore-file=missing-dlq -- none here\n" + text)
    code, out, err = run(capsys, "stack.yaml", "--select", "shared-queue,missing-dlq")
    assert code == 1 and "stack.yaml:1:1: warning: file-level suppression of missing-dlq suppresses nothing" in err

    infra = work / "infra"
    shutil.copytree(os.path.join(FIXTURES, "shared-queue", "tf_fires"), infra)
    main_tf = (infra / "main.tf").read_text(encoding="utf-8")
    (infra / "main.tf").write_text("# fanout-lint: ignore-file=FL201 until=2999-01-01 -- migrating\n" + main_tf)
    code, out, err = run(capsys, "infra", "--select", "FL201")
    assert code == 0 and "1 suppressed inline" in out
    (infra / "main.tf").write_text("# fanout-lint: ignore-file=FL201\n" + main_tf)
    code, out, err = run(capsys, "infra", "--select", "FL201")
    assert code == 1 and "add `# fanout-lint: ignore-file=FL201 -- <reason>`" in err  # HCL syntax in the hint


def test_hints_for_terraform_suppressions_are_written_in_hcl(work, capsys):
    infra = work / "infra"
    shutil.copytree(os.path.join(FIXTURES, "shared-queue", "tf_fires"), infra)
    main_tf = (infra / "main.tf").read_text(encoding="utf-8")
    marker = 'resource "aws_sqs_queue" "orders" {'
    assert marker in main_tf
    (infra / "main.tf").write_text(main_tf.replace(
        marker, "# fanout-lint: ignore=shared-queue until=tomorrow\n" + marker), encoding="utf-8")
    _, _, err = run(capsys, "infra", "--select", "shared-queue")
    assert "add `# fanout-lint: ignore=shared-queue -- <reason>`" in err and "reason: ..." not in err
    (infra / "main.tf").write_text(main_tf.replace(
        marker, "# fanout-lint: ignore=shared-queue until=2027-13-01 -- soon\n" + marker), encoding="utf-8")
    _, _, err = run(capsys, "infra", "--select", "shared-queue")
    assert "has until=2027-13-01, not a date" in err and "until: " not in err


def test_a_terraform_suppression_above_a_module_block_is_a_notice(work, capsys):
    infra = work / "infra"
    (infra / "modules" / "q").mkdir(parents=True)
    shutil.copy(os.path.join(FIXTURES, "shared-queue", "tf_fires", "main.tf"), infra / "modules" / "q" / "main.tf")
    (infra / "main.tf").write_text(
        '# fanout-lint: ignore=shared-queue -- two readers by design\nmodule "q" {\n  source = "./modules/q"\n}\n\n'
        '# fanout-lint: ignore=FL101 -- a blank line below\n\nresource "aws_sqs_queue" "other" {}\n',
        encoding="utf-8")
    code, out, err = run(capsys, "infra", "--select", "shared-queue,missing-dlq")
    assert code == 1 and "FL201 [error]" in out  # not suppressed
    assert "infra/main.tf:1:1: warning: suppression of shared-queue is above a module block" in err
    assert "the resource inside the module's files (`# fanout-lint: ignore=...`" in err
    assert "infra/main.tf:6:1: warning: suppression of FL101 is on no resource block" in err


_SERVICE = """service: orders
provider:
  name: aws
functions:
  # fanout-lint: ignore=batch-item-failures-off -- the handler reports failures itself
  worker:
    handler: h.main
    events:
      - sqs:
          arn: !GetAtt Jobs.Arn
resources:
  Resources:
    # fanout-lint: ignore=missing-dlq -- not read here
    Jobs:
      Type: AWS::SQS::Queue
"""


def test_a_comment_suppression_where_comments_are_not_read_is_a_notice(work, capsys):
    text = (work / "stack.yaml").read_text(encoding="utf-8")
    marker = "  OrdersQueue:\n"
    assert marker in text
    (work / "stack.yaml").write_text(text.replace(marker, "  # fanout-lint: ignore=shared-queue -- by design\n" + marker),
                                     encoding="utf-8")
    (work / "svc").mkdir()
    (work / "svc" / "serverless.yml").write_text(_SERVICE, encoding="utf-8")
    code, out, err = run(capsys, "stack.yaml", "svc", "--select", "shared-queue,missing-dlq,batch-item-failures-off")
    assert code == 1 and "FL201 [error]" in out and "FL101 [error]" in out  # neither is suppressed
    line = 1 + text[:text.index(marker)].count("\n")
    assert (f"stack.yaml:{line}:1: warning: suppression of shared-queue is a comment, which CloudFormation "
            "templates do not read, so it suppresses nothing: write it in the resource's Metadata") in err
    assert ("svc/serverless.yml:13:1: warning: suppression of missing-dlq is on no function or event, so it "
            "suppresses nothing") in err and "resources.Resources takes CloudFormation's Metadata form" in err
    assert "serverless.yml:5:1" not in err  # above a function: read, and it suppressed FL204
    assert "FL204" not in out


def test_unknown_rules_get_suggestions_everywhere(work, capsys):
    code, _, err = run(capsys, "stack.yaml", "--select", "shared-queu")
    assert code == 2 and "unknown rule 'shared-queu' (did you mean shared-queue?)" in err
    (work / ".fanout-lint.toml").write_text('ignore = ["FL2O1"]\n', encoding="utf-8")
    code, _, err = run(capsys, "stack.yaml")
    assert code == 2 and ".fanout-lint.toml:1: unknown rule 'FL2O1' in 'ignore' (did you mean FL201?)" in err
    (work / ".fanout-lint.toml").write_text('selct = ["FL201"]\n', encoding="utf-8")
    assert "unknown key 'selct' in .fanout-lint.toml (did you mean select?)" in run(capsys, "stack.yaml")[2]
    os.remove(work / ".fanout-lint.toml")
    assert "did you mean missing-dlq?" in run(capsys, "explain", "mising-dlq")[2]
    code, _, err = run(capsys, "chek", ".")
    assert code == 2 and "unknown command 'chek' (did you mean check?)" in err
    code, _, err = run(capsys, "graph", "stack.yaml", "--focus", "OrderQueue")
    assert code == 2 and "(did you mean OrdersQueue?)" in err
    text = (work / "stack.yaml").read_text(encoding="utf-8")
    (work / "stack.yaml").write_text(_with_metadata(
        text, "    Metadata:\n      fanout-lint:\n        ignore: [shared-queu]\n        reason: typo\n"))
    assert "unknown rule 'shared-queu' (did you mean shared-queue?)" in run(capsys, "stack.yaml")[2]


def test_rule_prefixes_select_and_ignore_families(work, capsys):
    _, out, _ = run(capsys, ".", "--select", "FL2", "--format", "json")
    assert {f["rule"][:3] for f in json.loads(out)["findings"]} == {"FL2"}
    _, out, _ = run(capsys, ".", "--ignore", "FL2", "--format", "json")
    assert "FL2" not in {f["rule"][:3] for f in json.loads(out)["findings"]}
    (work / ".fanout-lint.toml").write_text('select = ["FL0"]\n', encoding="utf-8")
    _, out, _ = run(capsys, ".", "--format", "json")
    assert {f["rule"] for f in json.loads(out)["findings"]} == {"FL002"}
    assert run(capsys, ".", "--select", "FL9")[0] == 2  # a prefix of no rule


# -- feedback ------------------------------------------------------------------------

def test_a_run_that_lints_nothing_says_what_it_skipped_and_why(work, capsys):
    app = work / "app"
    (app / "infra").mkdir(parents=True)
    (app / "serverless.ts").write_text("export default {service: 'orders'}\n", encoding="utf-8")
    (app / "functions.yml").write_text("service: orders\nprovider:\n  name: azure\n", encoding="utf-8")
    (app / "ci.yml").write_text("on: [push]\njobs: {}\n", encoding="utf-8")
    (app / "infra" / "prod.tfvars").write_text("x = 1\n", encoding="utf-8")
    (app / "infra" / "terraform.tfvars").write_text("x = 1\n", encoding="utf-8")
    code, out, err = run(capsys, "app", "app/infra/prod.tfvars", "app/infra/terraform.tfvars")
    assert code == 0 and "0 units checked" in out
    lines = err.splitlines()
    assert lines[0] == "fanout-lint: nothing linted; 5 files skipped:"
    assert "  app/serverless.ts: Serverless Framework configuration in TypeScript or JavaScript: not read" in lines
    assert "  app/functions.yml: Serverless Framework service for another provider than aws" in lines  # by content
    assert "  app/ci.yml: not a CloudFormation template, Serverless Framework service or Terraform plan" in lines
    assert any(line.startswith("  app/infra/prod.tfvars: Terraform reads this .tfvars only with -var-file")
               for line in lines)
    assert "  app/infra/terraform.tfvars: variables for a directory without .tf or .tofu files" in lines
    assert run(capsys, "app", "-q")[2] == ""


def test_statistics_and_quiet(work, capsys):
    code, out, _ = run(capsys, ".", "--statistics")
    lines = out.splitlines()
    assert code == 1 and lines[-1].startswith("4 findings")
    assert any(line.split()[:3] == ["1", "FL201", "shared-queue"] for line in lines), lines
    _, out, _ = run(capsys, ".", "--statistics", "--format", "json")
    rows = json.loads(out)
    assert sum(r["count"] for r in rows) == 4 and {"rule", "name", "severity", "count", "fixable"} <= set(rows[0])
    code, out, err = run(capsys, ".", "-q", "--report", "sarif=x.sarif")
    assert code == 1 and err == "" and len(out.splitlines()) == 4  # the findings, no summary


def test_show_settings_and_rules_reflect_the_configuration(work, capsys):
    (work / "pyproject.toml").write_text(
        '[tool.fanout-lint]\nignore = ["FL0"]\nfail-on = "error"\n[tool.fanout-lint.severity]\nFL201 = "info"\n'
        '[tool.fanout-lint.options.max-receive-count-out-of-range]\nmax = 10\n', encoding="utf-8")
    code, out, _ = run(capsys, "--show-settings")
    assert code == 0 and f"configuration: {work / 'pyproject.toml'}" in out
    assert "fail-on: error" in out and "ignore: FL001, FL002, FL003, FL004" in out
    assert "  FL201  shared-queue  info  on" in out and "  FL001  sns-to-lambda-direct  warning  off" in out
    assert "max=10" in out
    _, out, _ = run(capsys, "rules")
    assert "FL201  shared-queue" in out and " info     on " in out.split("FL201")[1].splitlines()[0]
    _, out, _ = run(capsys, "rules", "--format", "json")
    rows = {r["id"]: r for r in json.loads(out)}
    assert rows["FL001"]["enabled"] is False and rows["FL201"]["severity"] == "info"
    assert rows["FL201"]["default_severity"] == "error" and rows["FL104"]["options"]["max"] == 10


def test_a_dedicated_file_takes_a_tool_table_copied_from_pyproject(work, capsys):
    (work / ".fanout-lint.toml").write_text('[tool.fanout-lint]\nselect = ["shared-queue"]\n', encoding="utf-8")
    _, out, _ = run(capsys, ".", "--format", "json")
    assert {f["rule"] for f in json.loads(out)["findings"]} == {"FL201"}
    (work / ".fanout-lint.toml").write_text('ignore = ["FL002"]\n[tool.fanout-lint]\nselect = ["FL201"]\n')
    code, _, err = run(capsys, ".")
    assert code == 2 and "put them all in one place" in err


def test_repo_root_defaults_to_the_git_top_level(work, capsys, monkeypatch):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    subprocess.run(["git", "init", "-q", str(work)], check=True, capture_output=True)
    (work / "infra").mkdir()
    shutil.move(str(work / "stack.yaml"), work / "infra" / "stack.yaml")
    monkeypatch.chdir(work / "infra")
    _, out, _ = run(capsys, "stack.yaml", "--format", "sarif")
    uri = json.loads(out)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == "infra/stack.yaml"
    _, out, _ = run(capsys, "stack.yaml", "--format", "sarif", "--repo-root", ".")
    uri = json.loads(out)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == "stack.yaml"


def test_a_plan_beside_its_terraform_is_not_linted_twice(work, capsys):
    infra = work / "infra"
    shutil.copytree(os.path.join(FIXTURES, "shared-queue", "tf_fires"), infra)
    shutil.copy(os.path.join(FIXTURES, "shared-queue", "plan_fires.json"), infra / "plan.json")
    code, out, err = run(capsys, "infra", "infra/plan.json", "--select", "shared-queue")
    assert code == 1 and out.count("FL201") == 1 and "1 unit checked" in out
    code, out, _ = run(capsys, "infra/plan.json", "--select", "shared-queue")
    assert code == 1 and "infra/plan.json:" in out  # named alone, the plan is linted


def test_no_colour_on_a_dumb_terminal_and_no_leading_dot_slash(work, capsys, monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    assert "\x1b[" in run(capsys, "stack.yaml")[1]
    monkeypatch.setenv("TERM", "dumb")
    assert "\x1b[" not in run(capsys, "stack.yaml")[1]
    for argv in (["."], ["./stack.yaml"]):
        out = run(capsys, *argv)[1]
        assert out.startswith("stack.yaml:5:3: FL201") and "./" not in out


def test_progress_on_a_terminal_for_long_runs_only():
    from fanout_lint.cli.progress import Progress, wanted

    class Terminal:
        def __init__(self):
            self.text = ""

        def write(self, text):
            self.text += text

        def flush(self):
            pass

        def isatty(self):
            return True

    clock = iter([0.0, 1.0, 3.5, 3.6, 4.0, 9.0]).__next__
    stream = Terminal()
    progress = Progress(stream, clock=clock)
    progress(1, 100)  # 1 s: too early
    assert stream.text == ""
    progress(40, 100)  # 3.5 s
    progress(41, 100)  # 3.6 s: too soon after the last
    progress(90, 100)  # 4.0 s
    assert stream.text == "\rfanout-lint: 40/100 units\rfanout-lint: 90/100 units"
    progress.close()
    assert stream.text.endswith("\r" + " " * len("fanout-lint: 90/100 units") + "\r")
    assert wanted(stream, quiet=False, environ={}) and not wanted(stream, quiet=True, environ={})
    assert not wanted(stream, quiet=False, environ={"TERM": "dumb"})
    done = subprocess.run([sys.executable, "-m", "fanout_lint", SHARED_QUEUE], capture_output=True, text=True)
    assert "units\r" not in done.stderr and "\r" not in done.stderr  # not a terminal: no progress


def test_the_command_line_shows_progress_on_a_terminal_and_erases_it(work, capsys, monkeypatch):
    import fanout_lint.cli.progress

    for number in range(4):
        shutil.copy(SHARED_QUEUE, work / f"s{number}.yaml")
    monkeypatch.setattr(fanout_lint.cli.progress, "AFTER_SECONDS", 0.0)  # as if the run were long
    monkeypatch.setattr("sys.stderr.isatty", lambda: True)
    monkeypatch.delenv("TERM", raising=False)
    code, out, err = run(capsys, ".")
    assert code == 1 and "\r" not in out
    assert err.startswith("\rfanout-lint: 1/6 units") and err.endswith("\r")
    assert run(capsys, ".", "-q")[2] == ""
    monkeypatch.setenv("TERM", "dumb")
    assert run(capsys, ".")[2] == ""


def test_hostile_names_of_skipped_files_are_shown_safely(tmp_path, capsys, monkeypatch):
    from test_untrusted_output import assert_safe

    monkeypatch.chdir(tmp_path)
    (tmp_path / "x\n::error::forged.ts").write_text("{}", encoding="utf-8")
    (tmp_path / "x\n::error::serverless.ts").write_text("{}", encoding="utf-8")
    code, out, err = run(capsys, ".", "x\n::error::forged.ts")
    assert code == 0
    assert_safe(out)
    assert_safe(err)
    assert "x\\x0a::error::forged.ts: not a template, Terraform or OpenTofu file (by its name)" in err


def test_former_names_compose_with_lookup_prefixes_suggestions_and_suppressions():
    """A rule that carries ``former_names`` (after a rename) answers to them everywhere."""
    import dataclasses
    import datetime

    from fanout_lint.model.nodes import Suppression
    from fanout_lint.policy.suppressions import suppression_problem, _names
    from fanout_lint.rules import ALL_RULES
    from fanout_lint.policy.settings import find_rule, match_rules, rule_suggestion

    renamed = dataclasses.replace(find_rule(ALL_RULES, "FL303"), name="delivery-to-kms-managed-key")
    object.__setattr__(renamed, "former_names", ("sns-to-kms-managed-key",))
    rules = tuple(renamed if r.id == "FL303" else r for r in ALL_RULES)
    assert find_rule(rules, "sns-to-kms-managed-key") is renamed
    assert match_rules(rules, "FL30") == tuple(r for r in rules if r.id.startswith("FL30"))
    assert rule_suggestion(rules, "sns-to-kms-managed-keys") == " (did you mean sns-to-kms-managed-key?)"
    old = Suppression(rule="sns-to-kms-managed-key", reason="r")
    assert suppression_problem(old, rules, datetime.date.today()) == ""
    finding = type("F", (), {"name": "delivery-to-kms-managed-key", "rule": "FL303"})()
    assert _names(old.rule, finding, rules)
