"""The committed rule pages are exactly what the rules generate."""

from __future__ import annotations

import os

from fanout_lint.docs import INDEX, page_name, pages, stale
from fanout_lint.cli.explain import render
from fanout_lint.rules import ALL_RULES
from repo_paths import ROOT

DOCS = os.path.join(ROOT, "docs", "rules")


def test_committed_rule_pages_are_current():
    problems = stale(DOCS, pages(ALL_RULES))
    assert not problems, "rule pages are stale; run `python -m fanout_lint.docs`:\n" + "\n".join(problems)


def test_a_changed_docstring_makes_the_pages_stale(tmp_path):
    from fanout_lint.docs import write

    wanted = pages(ALL_RULES)
    write(str(tmp_path), wanted)
    assert stale(str(tmp_path), wanted) == []
    first = ALL_RULES[0]
    (tmp_path / page_name(first)).write_text(wanted[page_name(first)] + "edited\n")
    (tmp_path / "retired-rule.md").write_text("# gone\n")
    problems = stale(str(tmp_path), wanted)
    assert any(page_name(first) in p and "out of date" in p for p in problems)
    assert any("retired-rule.md" in p and "no such rule" in p for p in problems)


def test_each_page_is_the_explain_text_and_the_index_links_every_page():
    generated = pages(ALL_RULES)
    for rule in ALL_RULES:
        page = generated[page_name(rule)]
        assert page.endswith(render(rule))
        assert f"({rule.id})" in page and f"Default severity: {rule.severity.value}" in page
        for url in rule.references:
            assert url in page
        for option in rule.options:
            assert f"`{option.name}` ({option.type.value}, default `{option.default}`" in page
        assert f"Fixable: {rule.fixable.value}" in page
        assert f"[{rule.name}]({page_name(rule)})" in generated[INDEX]
