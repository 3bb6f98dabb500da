"""Issue 26: the habits of the ecosystem, each through the real command line.

Stale baseline entries, what -q hides, extend-select / extend-ignore and per-file-ignores
as ruff has them, var files as tflint and checkov take them, standard input as editors
send it, mistyped and misplaced flags, FORCE_COLOR, and graph -o.
"""

from __future__ import annotations

import json
import os
import shutil

import pytest

from fanout_lint.cli import main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "tests", "fixtures")
SHARED_QUEUE = os.path.join(FIXTURES, "shared-queue", "cfn_fires.yaml")  # FL201, an error
RAW_DELIVERY = os.path.join(FIXTURES, "raw-delivery-off", "cfn_fires.yaml")  # warnings only


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


def _rules(out: str) -> set[tuple[str, str]]:
    return {(f["file"], f["rule"]) for f in json.loads(out)["findings"]}


# -- the baseline: stale entries ----------------------------------------------------

def test_stale_baseline_entries_are_counted_with_how_to_drop_them(work, capsys):
    assert run(capsys, ".", "--write-baseline", "baseline.json")[0] == 0
    code, _, err = run(capsys, ".", "--baseline", "baseline.json")
    assert code == 0 and "baseline" not in err.replace("in baseline", "")  # nothing stale yet
    os.remove(work / "topics.yaml")  # its three findings are gone
    code, out, err = run(capsys, ".", "--baseline", "baseline.json")
    assert code == 0 and "1 in baseline" in out
    assert ("fanout-lint: 3 baseline entries match no finding any more (fixed, or the resource is gone); "
            "drop them by rewriting the baseline: --write-baseline baseline.json") in err.splitlines()
    # a run on one file says nothing about the entries of the others
    assert "match no finding" not in run(capsys, "stack.yaml", "--baseline", "baseline.json")[2]
    assert run(capsys, ".", "--baseline", "baseline.json", "-q")[2] == ""
    # rewriting drops them
    run(capsys, ".", "--write-baseline", "baseline.json")
    assert "match no finding" not in run(capsys, ".", "--baseline", "baseline.json")[2]


def test_an_entry_of_a_file_that_could_not_be_linted_is_not_stale(work, capsys):
    run(capsys, ".", "--write-baseline", "baseline.json")
    (work / "topics.yaml").write_text("Resources:\n  Q: [\n", encoding="utf-8")  # now broken
    code, out, err = run(capsys, ".", "--baseline", "baseline.json")
    assert code == 2 and "topics.yaml:" in out and "match no finding" not in err


# -- -q: findings and errors only ---------------------------------------------------

def test_quiet_hides_suppression_notices_and_keeps_errors(work, capsys):
    text = open(SHARED_QUEUE, encoding="utf-8").read()
    (work / "stack.yaml").write_text("# fanout-lint: ignore-file=FL105 -- nothing to hide\n" + text, encoding="utf-8")
    (work / "bad.yaml").write_text("Resources:\n  Q: [\n", encoding="utf-8")
    _, _, err = run(capsys, "stack.yaml", "bad.yaml")
    assert "suppresses nothing" in err
    code, out, err = run(capsys, "stack.yaml", "bad.yaml", "-q")
    assert code == 2 and "suppresses nothing" not in err + out
    assert "bad.yaml:" in out + err and "FL201" in out  # the errors and findings stay
