"""SARIF (validated against the official 2.1.0 schema), GitHub workflow commands, JUnit XML, --output."""

from __future__ import annotations

import json
import os
import shutil
import xml.etree.ElementTree as ET

import pytest

from fanout_lint.cli.main import main
from fanout_lint.results.doc_links import rule_url
from fanout_lint.reports.github import command, escape_data, escape_property
from repo_paths import ROOT

FIXTURES = os.path.join(ROOT, "tests", "fixtures")
SHARED_QUEUE = os.path.join(FIXTURES, "shared-queue", "cfn_fires.yaml")
SCHEMA = os.path.join(ROOT, "tests", "schemas", "sarif-schema-2.1.0.json")  # the OASIS schema, as published


def _run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _sarif(capsys, *argv) -> tuple[int, dict]:
    code, out, _ = _run(capsys, *argv, "--format", "sarif")
    return code, json.loads(out)


def test_sarif_of_every_fixture_validates_against_the_schema(capsys, monkeypatch):
    import jsonschema

    with open(SCHEMA, encoding="utf-8") as handle:
        schema = json.load(handle)
    monkeypatch.chdir(ROOT)
    code, document = _sarif(capsys, "tests/fixtures", "--show-suppressed")
    assert code in (1, 2)  # the fixtures fire (and some expect load errors)
    validator = jsonschema.validators.validator_for(schema)(schema)
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:10])
    assert len(document["runs"][0]["results"]) >= 10


def test_sarif_fixes_validate_and_carry_the_edits_of_the_json_output(tmp_path, capsys, monkeypatch):
    import jsonschema

    cases = os.path.join(ROOT, "tests", "fix_cases")
    (tmp_path / "unit").mkdir()
    shutil.copyfile(os.path.join(cases, "yaml-block", "input.yaml"), tmp_path / "stack.yaml")
    shutil.copyfile(os.path.join(cases, "json-indented", "input.json"), tmp_path / "stack.json")
    shutil.copyfile(os.path.join(cases, "hcl-blocks", "input.tf"), tmp_path / "unit" / "main.tf")
    monkeypatch.chdir(tmp_path)
    with open(SCHEMA, encoding="utf-8") as handle:
        schema = json.load(handle)
    _, document = _sarif(capsys, ".")
    errors = list(jsonschema.validators.validator_for(schema)(schema).iter_errors(document))
    assert not errors, [e.message for e in errors[:5]]
    _, out, _ = _run(capsys, ".", "--format", "json")
    findings = json.loads(out)["findings"]
    results = document["runs"][0]["results"]
    assert len(results) == len(findings)
    fixed = [(r, f) for r, f in zip(results, findings) if "fix" in f]
    assert len(fixed) >= 10 and all(("fixes" in r) == ("fix" in f) for r, f in zip(results, findings))
    assert {f["fix"]["applicability"] for _, f in fixed} == {"safe", "unsafe"}
    for result, finding in fixed:
        (fix,) = result["fixes"]
        assert fix["description"]["text"] == finding["fix"]["title"]
        assert fix["properties"]["applicability"] == finding["fix"]["applicability"]
        (change,) = fix["artifactChanges"]
        assert change["artifactLocation"] == result["locations"][0]["physicalLocation"]["artifactLocation"]
        (edit,) = finding["fix"]["edits"]
        (replacement,) = change["replacements"]
        assert replacement == {
            "deletedRegion": {"startLine": edit["line"], "startColumn": edit["column"],
                              "endLine": edit["end_line"], "endColumn": edit["end_column"]},
            "insertedContent": {"text": edit["content"]},
        }


def test_sarif_describes_rules_and_results_as_code_scanning_needs(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    code, document = _sarif(capsys, "tests/fixtures/shared-queue/cfn_fires.yaml", "--select", "shared-queue")
    assert code == 1
    run = document["runs"][0]
    assert document["version"] == "2.1.0"
    (rule,) = run["tool"]["driver"]["rules"]
    assert rule["id"] == "FL201" and rule["name"] == "shared-queue"
    assert rule["helpUri"] == rule_url("shared-queue") and rule["helpUri"].endswith("docs/rules/shared-queue.md")
    assert rule["shortDescription"]["text"] and rule["fullDescription"]["text"]
    assert "## How to fix" in rule["help"]["markdown"] and rule["help"]["text"]
    assert rule["defaultConfiguration"]["level"] == "error"
    (result,) = run["results"]
    assert result["ruleId"] == "FL201" and result["ruleIndex"] == 0 and result["level"] == "error"
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "tests/fixtures/shared-queue/cfn_fires.yaml", "uriBaseId": "%SRCROOT%"}
    assert location["region"] == {"startLine": 5, "startColumn": 3, "endLine": 5, "endColumn": 14}  # the logical ID
    related = {r["message"]["text"] for r in result["relatedLocations"]}
    assert related == {"consumer: EmailFunction", "consumer: StockFunction",
                       "event source mapping: EmailMapping", "event source mapping: StockMapping"}
    assert all(r["physicalLocation"]["region"]["startLine"] > 0 for r in result["relatedLocations"])
    assert list(result["partialFingerprints"]) == ["fanoutLint/v1"]


def test_sarif_uris_are_relative_to_the_repo_root_and_fingerprints_ignore_lines(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "infra").mkdir()
    text = open(SHARED_QUEUE, encoding="utf-8").read()
    (tmp_path / "infra" / "stack.yaml").write_text(text, encoding="utf-8")
    _, first = _sarif(capsys, str(tmp_path / "infra"), "--select", "shared-queue")
    (tmp_path / "infra" / "stack.yaml").write_text("# a comment\n\n" + text, encoding="utf-8")
    _, moved = _sarif(capsys, "infra", "--select", "shared-queue")
    a, b = first["runs"][0]["results"][0], moved["runs"][0]["results"][0]
    assert a["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "infra/stack.yaml"
    assert a["locations"][0]["physicalLocation"]["region"]["startLine"] + 2 == \
        b["locations"][0]["physicalLocation"]["region"]["startLine"]
    assert a["partialFingerprints"] == b["partialFingerprints"]

    monkeypatch.chdir(tmp_path / "infra")
    _, rooted = _sarif(capsys, "stack.yaml", "--select", "shared-queue", "--repo-root", "..")
    result = rooted["runs"][0]["results"][0]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "infra/stack.yaml"
    assert result["partialFingerprints"] == b["partialFingerprints"]


def test_sarif_reports_unreadable_files_as_notifications(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.yaml").write_text("Resources:\n  Q: [unclosed\n", encoding="utf-8")
    code, document = _sarif(capsys, "bad.yaml")
    assert code == 2
    invocation = document["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False
    (note,) = invocation["toolExecutionNotifications"]
    assert note["level"] == "error"
    assert note["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "bad.yaml"


def test_github_escaping_follows_the_runner_rules():
    assert escape_data("50% done\r\nnext") == "50%25 done%0D%0Anext"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    assert command("warning", "x: y, z", "dir/a,b.yaml", 3, 7, "FL001 name") == \
        "::warning file=dir/a%2Cb.yaml,line=3,col=7,title=FL001 name::x: y, z"
    assert command("error", "no location") == "::error::no location"


def test_github_format_writes_one_annotation_per_finding(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    code, out, _ = _run(capsys, "tests/fixtures/shared-queue/cfn_fires.yaml", "--select", "shared-queue",
                        "--format", "github", "--fail-on", "error")
    assert code == 1
    lines = out.splitlines()
    assert lines[0].startswith(
        "::error file=tests/fixtures/shared-queue/cfn_fires.yaml,line=5,col=3,endColumn=13,title=FL201 shared-queue::Queue OrdersQueue")
    assert lines[0].endswith("(OrdersQueue)") and len(lines) == 2  # the annotation and the summary


def test_junit_is_well_formed_and_counts_findings(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    code, out, _ = _run(capsys, "tests/fixtures/shared-queue/cfn_fires.yaml", "tests/fixtures/shared-queue/cfn_silent.yaml",
                        "--select", "shared-queue", "--format", "junit")
    assert code == 1
    suites = ET.fromstring(out)
    assert suites.tag == "testsuites" and suites.get("tests") == "2" and suites.get("failures") == "1"
    by_name = {s.get("name"): s for s in suites}
    fires = by_name["tests/fixtures/shared-queue/cfn_fires.yaml"]
    (case,) = fires
    assert case.get("name") == "FL201 shared-queue: OrdersQueue" and case.get("line") == "5"
    assert case.find("failure").get("type") == "error"
    silent = by_name["tests/fixtures/shared-queue/cfn_silent.yaml"]
    assert silent.get("failures") == "0" and silent[0].find("failure") is None


def test_output_writes_the_report_to_a_file_and_the_exit_code_still_gates(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    target = tmp_path / "reports" / "fanout-lint.sarif"
    code, out, err = _run(capsys, SHARED_QUEUE, "--select", "shared-queue", "--format", "sarif", "--output", str(target))
    assert code == 1 and out == ""
    assert "1 finding" in err and str(target) in err
    assert json.loads(target.read_text(encoding="utf-8"))["runs"][0]["results"][0]["ruleId"] == "FL201"
    code, out, _ = _run(capsys, SHARED_QUEUE, "--select", "shared-queue", "--fail-on", "error", "-o",
                        str(tmp_path / "nested" / "report.txt"))
    assert code == 1 and "FL201" in (tmp_path / "nested" / "report.txt").read_text(encoding="utf-8")


def test_junit_does_not_list_a_terraform_unit_with_findings_as_clean(capsys, monkeypatch):
    # a Terraform unit is a directory while its findings name the .tf file they sit in
    monkeypatch.chdir(ROOT)
    unit = "tests/fixtures/shared-queue/tf_fires"
    code, out, _ = _run(capsys, unit, "--select", "shared-queue", "--format", "junit")
    assert code == 1
    suites = ET.fromstring(out)
    assert suites.get("failures") == suites.get("tests") != "0"
    assert all(case.get("name") != "no findings" for case in suites.iter("testcase"))
    code, out, _ = _run(capsys, "tests/fixtures/shared-queue/tf_silent", "--select", "shared-queue",
                        "--format", "junit")
    assert code == 0
    (suite,) = ET.fromstring(out)
    assert suite.get("name") == "tests/fixtures/shared-queue/tf_silent" and suite[0].get("name") == "no findings"


def test_output_file_has_no_colour_codes_when_run_from_a_terminal(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    code, out, _ = _run(capsys, SHARED_QUEUE, "--select", "shared-queue")
    assert code == 1 and "\x1b[" in out  # a terminal gets colour
    target = tmp_path / "report.txt"
    code, out, _ = _run(capsys, SHARED_QUEUE, "--select", "shared-queue", "-o", str(target))
    report = target.read_text(encoding="utf-8")
    assert code == 1 and "FL201" in report and "\x1b[" not in report  # a file does not
    code, _, _ = _run(capsys, SHARED_QUEUE, "--select", "shared-queue", "--color", "always", "-o", str(target))
    assert "\x1b[" in target.read_text(encoding="utf-8")  # unless asked for


def test_sarif_locations_are_relative_to_the_root_base_even_outside_it(tmp_path, capsys, monkeypatch):
    repo = tmp_path / "repo"
    (repo / "infra").mkdir(parents=True)
    (tmp_path / "shared").mkdir()
    shutil.copyfile(SHARED_QUEUE, repo / "infra" / "stack.yaml")
    shutil.copyfile(SHARED_QUEUE, tmp_path / "shared" / "outside.yaml")
    monkeypatch.chdir(repo)
    _, document = _sarif(capsys, "infra", "../shared/outside.yaml")  # no --repo-root: with one, a path outside it is refused
    locations = [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in document["runs"][0]["results"]]
    assert {loc["uri"] for loc in locations} == {"infra/stack.yaml", "../shared/outside.yaml"}
    assert all(loc["uriBaseId"] == "%SRCROOT%" for loc in locations)
    assert str(tmp_path) not in json.dumps(document["runs"][0]["results"])  # no local path in any result


def test_junit_runs_in_parallel_and_lists_the_same_clean_units(capsys, monkeypatch):
    # the clean units come with the result (Result.linted), not from graphs kept in one
    # process: JUnit forces no serial run
    monkeypatch.chdir(ROOT)
    serial = _run(capsys, "tests/fixtures/shared-queue", "tests/fixtures/missing-dlq", "--format", "junit", "-j", "1")
    parallel = _run(capsys, "tests/fixtures/shared-queue", "tests/fixtures/missing-dlq", "--format", "junit", "-j", "2")
    assert serial[:2] == parallel[:2]
    clean = [s.get("name") for s in ET.fromstring(parallel[1]) if s[0].get("name") == "no findings"]
    assert "tests/fixtures/shared-queue/cfn_silent.yaml" in clean and "tests/fixtures/shared-queue/tf_silent" in clean
