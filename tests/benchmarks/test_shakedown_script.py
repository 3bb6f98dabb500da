"""bench/shakedown.py: the real-world shakedown counts units, formats, findings and errors."""

from __future__ import annotations

import json
import os
import shutil
import sys

from repo_paths import ROOT, TESTS

sys.path.insert(0, ROOT)
from bench import shakedown  # noqa: E402

FIXTURES = os.path.join(TESTS, "fixtures")


def test_counts_a_directory_of_repositories(tmp_path, capsys):
    repo = tmp_path / "repos" / "owner+name"
    repo.mkdir(parents=True)
    shutil.copy(os.path.join(FIXTURES, "missing-dlq", "cfn_fires.yaml"), repo / "template.yaml")
    shutil.copy(os.path.join(FIXTURES, "missing-dlq", "sam_fires.yaml"), repo / "sam.yaml")
    shutil.copytree(os.path.join(FIXTURES, "shakedown", "tf_heredoc_marker_trailing_space"), repo / "tf")
    (repo / "broken.yaml").write_text("Resources:\n  Q: [\n")
    (repo / "workflow.yml").write_text("on: push\njobs: {}\n")  # not a template: not counted
    out = tmp_path / "summary.json"

    assert shakedown.main([str(tmp_path / "repos"), "--out", str(out), "--jobs", "1"]) == 0

    total = json.loads(out.read_text())["total"]
    assert total["units"] == 3
    assert total["formats"] == {"cloudformation yaml": 1, "sam": 1, "terraform": 1, "unparsable": 1}
    assert total["findings"]["FL101"] >= 3  # each fixture above has at least one missing DLQ
    assert total["errors"] == {"load error": 1}
    assert total["cli_crashes"] == 0
    assert "| **total** | 3 |" in capsys.readouterr().out


def test_error_kinds():
    assert shakedown.error_kind("internal error while loading: KeyError: 'x'") == "crash (loader)"
    assert shakedown.error_kind("rule FL101 (missing-dlq) failed: TypeError: boom") == "crash (rule)"
    assert shakedown.error_kind("invalid YAML: did not find expected key") == "load error"
