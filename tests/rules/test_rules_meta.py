"""Every rule follows the conventions: IDs, names, summaries, docs, registry, fixtures."""

from __future__ import annotations

import os
import re

import pytest

from fanout_lint.rules import ALL_RULES, SUPPORT_MODULES
from repo_paths import ROOT

RULES_DIR = os.path.join(ROOT, "rules")
FIXTURES = os.path.join(ROOT, "tests", "fixtures")
SECTIONS = ("What it does", "Why is this bad?", "How to fix", "References")
IDS = [r.id for r in ALL_RULES]


def test_ids_are_unique_and_well_formed():
    assert len(set(IDS)) == len(IDS)
    assert all(re.fullmatch(r"FL\d{3}", i) for i in IDS), IDS


def test_rules_are_registered_in_id_order():
    assert IDS == sorted(IDS)


def test_names_are_unique_kebab_case():
    names = [r.name for r in ALL_RULES]
    assert len(set(names)) == len(names)
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", n) for n in names), names


@pytest.mark.parametrize("rule", ALL_RULES, ids=IDS)
def test_summary_is_one_short_line_without_period(rule):
    assert rule.summary and len(rule.summary) <= 80 and "\n" not in rule.summary
    assert not rule.summary.endswith(".")


@pytest.mark.parametrize("rule", ALL_RULES, ids=IDS)
def test_documentation_has_the_required_sections(rule):
    for title in SECTIONS:
        assert rule.section(title), f"{rule.name}: no '## {title}' section"
    assert rule.references and all(u.startswith("https://") for u in rule.references)
    for option in rule.options:
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", option.name) and option.description


def test_every_rule_module_is_registered():
    modules = {n[:-3] for n in os.listdir(RULES_DIR) if n.endswith(".py") and n != "__init__.py"}
    registered = {r.check.__module__.rsplit(".", 1)[-1] for r in ALL_RULES}
    assert modules - set(SUPPORT_MODULES) == registered


@pytest.mark.parametrize("rule", ALL_RULES, ids=IDS)
def test_every_rule_has_fires_and_silent_fixtures_in_each_format(rule):
    folder = os.path.join(FIXTURES, rule.name)
    wanted = ["cfn_fires.yaml", "cfn_silent.yaml", "cdk_fires.json", "cdk_silent.json",
              "cdk_fires.expected.yaml", "cdk_silent.expected.yaml", "tf_fires", "tf_silent"]
    missing = [w for w in wanted if not os.path.exists(os.path.join(folder, w))]
    assert not missing, f"{rule.name}: missing fixtures {missing}"


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.name)
def test_every_fix_is_shown_in_both_formats(rule):
    fix = rule.section("How to fix")
    assert "CloudFormation" in fix or "```yaml" in fix, rule.name
    assert "Terraform" in fix or "```hcl" in fix, rule.name
