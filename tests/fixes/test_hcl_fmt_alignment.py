"""Terraform fixes keep a ``terraform fmt``-clean file clean: ``=`` and trailing comments
aligned as hclwrite aligns them. Neither terraform nor tofu can be installed here, so the
files are checked against fmt's rules, written out below apart from the code under test:
consecutive lines that each hold a whole single-line argument align their ``=`` one
space after the longest name; a blank line, a comment-only line, a block header or brace,
or a line that opens a multi-line value ends the run."""

from __future__ import annotations

import os
import re

import pytest

from fanout_lint.fixes.hcl_align import align_rows, aligned_insertion, row
from fanout_lint.fixes.positions import Lines
from repo_paths import ROOT

CASE = os.path.join(ROOT, "tests", "fix_cases", "hcl-fmt-clean")
# a whole argument on one line: a name, `=`, and a value whose brackets all close
_ARGUMENT = re.compile(r'^(\s*)([\w-]+|"[^"]*")( +)=(?![=>]) (.*)$')


def _balanced(value: str) -> bool:
    value = re.sub(r'"(?:[^"\\]|\\.)*"', '""', value).split("#", 1)[0].split("//", 1)[0]
    return sum(value.count(c) for c in "([{") == sum(value.count(c) for c in ")]}") and "<<" not in value


def _misaligned(text: str) -> list[str]:
    """The runs of arguments whose `=` are not where fmt puts them."""
    problems, run = [], []
    for line in text.splitlines() + [""]:
        match = _ARGUMENT.match(line)
        if match and _balanced(match.group(4)):
            run.append(match)
            continue
        if run:
            names = [len(m.group(1) + m.group(2)) for m in run]
            columns = {len(m.group(1) + m.group(2) + m.group(3)) for m in run}
            if columns != {max(names) + 1}:
                problems.append(" / ".join(m.group(0).strip() for m in run))
        run = []
    return problems


def _read(name: str) -> str:
    with open(os.path.join(CASE, name), encoding="utf-8") as handle:
        return handle.read()


def test_the_case_was_fmt_clean_and_stays_fmt_clean():
    before, after = _read("input.tf"), _read("expected.tf")
    assert not _misaligned(before)
    assert not _misaligned(after)
    assert len(after.splitlines()) > len(before.splitlines())  # arguments were added
    # the trailing comments of the realigned lines line up again
    columns = {line.index("#") for line in after.splitlines() if re.search(r"= .*# ", line)}
    assert len(columns) == 1


def test_the_checker_catches_what_fmt_would_change():
    assert _misaligned('a {\n  name = "x"\n  visibility_timeout_seconds = 30\n}\n')
    assert not _misaligned('a {\n  name = "x"\n\n  visibility_timeout_seconds = 30\n}\n')


@pytest.mark.parametrize("text, argument", [
    ('  name = "x"', True),
    ('  name = "x" # why', True),
    ('  "key" = 1,', True),
    ("  tags = {", False),  # opens a multi-line value
    ("  # name = 1", False),
    ("  }", False),
    ("  scaling_config {", False),
    ('  x = a == b ? 1 : 2', True),
    ("  policy = <<EOF", False),
    ('  x = "a = b"', True),
    ("  x = [for k, v in m : k => v]", True),
])
def test_what_counts_as_a_single_line_argument(text, argument):
    assert (row(text).lead is not None) is argument


def _insert(text: str, after: int, new: str) -> str:
    lines = Lines(text, True)
    aligned = aligned_insertion(lines, after, new)
    if aligned is None:
        return text
    first, rows = aligned
    start, end = lines.starts[first - 1], lines.starts[after]
    return text[:start] + rows + "\n" + text[end:]


def test_a_longer_name_moves_the_run_and_its_comments():
    text = 'r {\n  # above\n  a  = 1 # one\n  bb = 2 # two\n}\n'
    assert _insert(text, 4, "  cccc = 3") == 'r {\n  # above\n  a    = 1 # one\n  bb   = 2 # two\n  cccc = 3\n}\n'


def test_a_shorter_name_is_padded_and_nothing_else_moves():
    text = 'r {\n  long_name = 1\n}\n'
    assert _insert(text, 2, "  x = 2") == 'r {\n  long_name = 1\n  x         = 2\n}\n'


def test_a_blank_or_comment_line_above_ends_the_run():
    assert aligned_insertion(Lines('r {\n  long_name = 1\n\n}\n', True), 3, "  x = 2") is None
    assert aligned_insertion(Lines('r {\n  long_name = 1\n  # c\n}\n', True), 3, "  x = 2") is None


def test_rows_of_an_opened_block_align():
    assert align_rows(['  name = "a"', "  visibility_timeout_seconds = 1"]) == [
        '  name                       = "a"', "  visibility_timeout_seconds = 1"]
