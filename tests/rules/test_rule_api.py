"""The rule API's own words: a fix's applicability and title, a rule's ``fixable``, and
typed options, from the rule modules through configuration to every output that shows them."""

from __future__ import annotations

import ast
import json
import os
import re

import pytest

from fanout_lint.cli.explain import render
from fanout_lint.cli.main import main
from fanout_lint.fixes.select import select
from fanout_lint.loaders import load_candidate
from fanout_lint.model.nodes import Loc
from fanout_lint.policy.config import ConfigError, load_config
from fanout_lint.reports.text import summary
from fanout_lint.results.records import Edit, Finding, FindingFix, Result, Severity
from fanout_lint.rule import Applicability, Fix, Fixable, Option, Options, OptionType, Rule
from fanout_lint.rules import ALL_RULES
from fanout_lint.run.discover import discover

from repo_paths import ROOT
RULES_DIR = os.path.join(ROOT, "rules")
# every template the tests hold that fires: the fixtures, the fix cases and the examples
CORPUS = [os.path.join(ROOT, "tests", "fixtures"), os.path.join(ROOT, "tests", "fix_cases"),
          os.path.join(ROOT, "examples")]


@pytest.fixture(scope="module")
def violations() -> dict[str, list]:
    """Rule ID -> every violation it reports on the corpus, with the default options."""
    candidates, missing = discover(CORPUS, ())
    assert candidates and not missing
    found: dict[str, list] = {rule.id: [] for rule in ALL_RULES}
    for candidate in candidates:
        graphs, _ = load_candidate(candidate)  # a fixture may be a load error on purpose
        for graph in graphs:
            for rule in ALL_RULES:
                found[rule.id].extend(rule.check(graph, rule.options_of({})))
    return found


# -- fixable -----------------------------------------------------------------


def test_a_rule_that_offers_a_fix_declares_it(violations):
    offering = {rule_id for rule_id, found in violations.items() if any(v.fix is not None for v in found)}
    assert len(offering) >= 9  # the corpus reaches the fixes (else the test holds of nothing)
    declared = {rule.id for rule in ALL_RULES if rule.fixable is not Fixable.NONE}
    assert offering == declared


def test_an_always_fixable_rule_has_a_fix_on_every_violation(violations):
    always = [rule for rule in ALL_RULES if rule.fixable is Fixable.ALWAYS]
    assert always
    for rule in always:
        assert violations[rule.id], rule.id
        assert all(v.fix is not None for v in violations[rule.id]), rule.id


def test_the_readme_lists_exactly_the_fixable_rules():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as handle:
        text = handle.read()
    match = re.search(r"^Rules with fixes: ([^.]*)\.", text, re.M)
    assert match, "README.md has no 'Rules with fixes:' line"
    listed = re.findall(r"FL\d{3}", match.group(1))
    assert listed == sorted(listed)
    assert set(listed) == {rule.id for rule in ALL_RULES if rule.fixable is not Fixable.NONE}


def test_rule_pages_and_the_rules_listing_show_fixable_and_option_types(capsys):
    for rule in ALL_RULES:
        page = render(rule)
        assert f"\nFixable: {rule.fixable.value}\n" in page
        for option in rule.options:
            assert f"`{option.name}` ({option.type.value}, default `{option.default}`" in page
    assert main(["rules", "--format", "json", "--isolated"]) == 0
    rows = {row["id"]: row for row in json.loads(capsys.readouterr().out)}
    assert rows["FL203"]["fixable"] == "sometimes" and rows["FL203"]["option_types"] == {"factor": "int"}
    assert rows["FL204"]["fixable"] == "always" and rows["FL204"]["option_types"] == {}
    assert rows["FL201"]["fixable"] == "none"
    assert rows["FL104"]["option_types"] == {"min": "int", "max": "int", "within-advice": "severity"}
    assert rows["FL402"]["option_types"] == {"schedules": "severity"}


# -- applicability and title ---------------------------------------------------


def _finding(applicability: Applicability, line: int = 1) -> Finding:
    fix = FindingFix("VisibilityTimeout: 360", "Set VisibilityTimeout to 360", applicability,
                     (Edit("t.yaml", line, 1, line, 3, "360"),))
    return Finding("FL202", "x", Severity.ERROR, "m", "Q", Loc("t.yaml", line, 1), fix=fix)


def test_applicability_decides_what_fix_and_unsafe_fixes_apply():
    assert [a.applies(False) for a in Applicability] == [True, False, False]
    assert [a.applies(True) for a in Applicability] == [True, True, False]
    findings = [_finding(Applicability.SAFE, 1), _finding(Applicability.UNSAFE, 2),
                _finding(Applicability.DISPLAY_ONLY, 3)]
    assert [f.loc.line for f in select(findings, unsafe=False).chosen] == [1]
    assert [f.loc.line for f in select(findings, unsafe=True).chosen] == [1, 2]


def test_a_display_only_fix_is_shown_but_never_counted_as_fixable():
    result = Result(findings=[_finding(Applicability.DISPLAY_ONLY)], units=1)
    line = summary(result)
    assert "fixable" not in line and "unsafe" not in line
    assert _finding(Applicability.DISPLAY_ONLY).as_dict()["fix"]["applicability"] == "display-only"


def test_the_json_fix_keeps_its_keys_and_adds_the_title():
    fix = _finding(Applicability.UNSAFE).as_dict()["fix"]
    assert list(fix) == ["description", "title", "applicability", "edits"]
    assert fix["title"] == "Set VisibilityTimeout to 360" and fix["applicability"] == "unsafe"


def test_a_title_is_cleaned_like_every_shown_text():
    fix = FindingFix("d", "Set X\n::error::forged", Applicability.SAFE, ())
    assert "\n" not in fix.title


def test_the_planner_titles_a_fix_in_the_units_vocabulary_or_keeps_the_rules(tmp_path):
    from fanout_lint.fixes import Planner
    from fanout_lint.model.nodes import Queue

    template = tmp_path / "t.yaml"
    template.write_text("Resources:\n  Queue:\n    Type: AWS::SQS::Queue\n    Properties:\n"
                        "      VisibilityTimeout: 30\n", encoding="utf-8")
    terraform = tmp_path / "tf"
    terraform.mkdir()
    (terraform / "main.tf").write_text('resource "aws_sqs_queue" "q" {\n  visibility_timeout_seconds = 30\n}\n',
                                       encoding="utf-8")
    titles = []
    for path in (template, terraform):
        (candidate,), _ = discover([str(path)], ())
        (graph,), _ = load_candidate(candidate)
        queue = next(iter(graph.all(Queue)))
        planner = Planner(graph)
        titles.append(planner.plan(queue, Fix("visibility_timeout", 360, Applicability.SAFE)).title)
        own = planner.plan(queue, Fix("visibility_timeout", 360, Applicability.UNSAFE, title="Raise it"))
        assert own.title == "Raise it" and own.applicability is Applicability.UNSAFE
    assert titles == ["Set VisibilityTimeout to 360", "Set visibility_timeout_seconds to 360"]


def test_the_code_action_is_titled_by_the_fix_and_a_display_only_one_is_disabled():
    pytest.importorskip("pygls")
    from lsprotocol import types

    from fanout_lint.server.actions import fix_all, quick_fixes

    def diagnostic(applicability: str) -> types.Diagnostic:
        where = {"line": 0, "character": 0}
        fix = {"title": "Set VisibilityTimeout to 360", "applicability": applicability,
               "changes": [{"uri": "file:///t.yaml", "version": 1, "edits": [
                   {"range": {"start": where, "end": {"line": 0, "character": 2}}, "newText": "360"}]}]}
        return types.Diagnostic(range=types.Range(start=types.Position(line=0, character=0),
                                                  end=types.Position(line=0, character=1)),
                                message="m", data={"name": "visibility-timeout-headroom", "fix": fix})

    [safe] = quick_fixes(diagnostic("safe"))
    assert safe.title == "Set VisibilityTimeout to 360 (visibility-timeout-headroom)" and safe.is_preferred
    [unsafe] = quick_fixes(diagnostic("unsafe"))
    assert unsafe.title.endswith("(unsafe: check the change)") and not unsafe.is_preferred
    [shown] = quick_fixes(diagnostic("display-only"))
    assert shown.edit is None and shown.disabled is not None
    assert fix_all("file:///t.yaml", [diagnostic("display-only"), diagnostic("unsafe")]) == []


# -- typed options ---------------------------------------------------------------


def test_every_option_declares_a_type_its_default_satisfies():
    options = [(rule, option) for rule in ALL_RULES for option in rule.options]
    assert options
    for rule, option in options:
        assert isinstance(option.type, OptionType), (rule.id, option.name)
        assert option.parse(option.default) == option.default, (rule.id, option.name)


def test_checks_read_options_only_through_the_typed_view():
    """No rule module reads ``options`` as a mapping (``options.get``, ``options[...]``)."""
    raw, read = [], 0
    for name in sorted(os.listdir(RULES_DIR)):
        if not name.endswith(".py"):
            continue
        with open(os.path.join(RULES_DIR, name), encoding="utf-8") as handle:
            tree = ast.parse(handle.read())
        taking = [f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)
                  and any(a.arg == "options" for a in f.args.args)]
        for function in taking:
            for node in ast.walk(function):
                target = node.value if isinstance(node, (ast.Attribute, ast.Subscript)) else None
                if not (isinstance(target, ast.Name) and target.id == "options"):
                    continue
                if isinstance(node, ast.Subscript) or node.attr not in ("integer", "number", "flag", "text", "severity"):
                    raw.append(f"{name}:{node.lineno}")
        read += len(taking)
    assert read >= 8 and raw == []


RULE = Rule(id="FL901", name="tuned", severity=Severity.WARNING, summary="s", check=lambda g, o: (),
            doc="## What it does\nx", options=(
                Option("count", OptionType.INT, 3, "an int"),
                Option("ratio", OptionType.FLOAT, 1.5, "a float"),
                Option("strict", OptionType.BOOL, False, "a bool"),
                Option("mode", OptionType.TEXT, "fast", "a choice", ("fast", "slow")),
                Option("level", OptionType.SEVERITY, "info", "a level"),
            ))


def test_the_typed_view_reads_values_over_defaults_and_refuses_a_wrong_read():
    view = RULE.options_of({"count": 5, "level": "warning"})
    assert isinstance(view, Options)
    assert (view.integer("count"), view.number("ratio"), view.flag("strict"), view.text("mode")) == (5, 1.5, False, "fast")
    assert view.severity("level") is Severity.WARNING
    with pytest.raises(TypeError):
        view.text("count")
    with pytest.raises(KeyError):
        view.integer("counts")


@pytest.mark.parametrize("value, problem", [
    ('count = 2.5', "option 'count' of rule tuned must be an integer like its default 3, not a number"),
    ('count = true', "option 'count' of rule tuned must be an integer like its default 3, not a boolean"),
    ('ratio = "2"', "option 'ratio' of rule tuned must be a number like its default 1.5, not a string"),
    ('strict = "yes"', "option 'strict' of rule tuned must be a boolean like its default False, not a string"),
    ('mode = "quick"', "option 'mode' of rule tuned must be one of fast, slow, not 'quick'"),
    ('level = "fatal"', "option 'level' of rule tuned must be one of info, warning, error, not 'fatal'"),
    ('level = 2', "option 'level' of rule tuned must be a severity (error, warning or info) like its default"),
])
def test_a_value_of_the_wrong_type_is_one_line_naming_file_rule_and_option(tmp_path, value, problem):
    path = tmp_path / ".fanout-lint.toml"
    path.write_text(f"[options.tuned]\n{value}\n", encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(str(path), (RULE,))
    message = str(caught.value)
    assert "\n" not in message and message.startswith(f"{path}:2: {problem}")


def test_typed_values_are_kept_as_their_type(tmp_path):
    path = tmp_path / ".fanout-lint.toml"
    path.write_text('[options.tuned]\ncount = 4\nratio = 2\nstrict = true\nmode = "slow"\nlevel = "error"\n',
                    encoding="utf-8")
    values = load_config(str(path), (RULE,)).options["FL901"]
    assert values == {"count": 4, "ratio": 2.0, "strict": True, "mode": "slow", "level": "error"}
    assert type(values["ratio"]) is float


def test_a_real_rules_option_of_the_wrong_type_stops_the_run(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".fanout-lint.toml").write_text('[options.visibility-timeout-headroom]\nfactor = "6"\n',
                                               encoding="utf-8")
    fixture = os.path.join(ROOT, "tests", "fixtures", "visibility-timeout-headroom", "cfn_fires.yaml")
    assert main([fixture]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith(".fanout-lint.toml:2: option 'factor' of rule visibility-timeout-headroom must be an "
                        "integer like its default 6, not a string") and "\n" not in err
