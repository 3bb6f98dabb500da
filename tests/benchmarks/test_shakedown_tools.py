"""bench/export_snapshot.py and bench/severity_diff.py: the shakedown's export and comparison."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from repo_paths import ROOT

sys.path.insert(0, ROOT)
from bench import export_snapshot, severity_diff  # noqa: E402


def _git(*args: str, cwd) -> str:
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com")
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True).stdout.strip()


def _repository(tmp_path):
    work = tmp_path / "work"
    (work / "stacks").mkdir(parents=True)
    (work / "stacks" / "queue.yaml").write_text("Resources: {}\n")
    (work / "main.tf").write_text('resource "aws_sqs_queue" "q" {}\n')
    (work / "big.zip").write_bytes(b"PK" * 10)
    _git("init", "-q", cwd=work)
    _git("add", ".", cwd=work)
    _git("commit", "-qm", "one", cwd=work)
    return work / ".git", _git("rev-parse", "HEAD", cwd=work)


def test_export_writes_the_matching_files_of_the_commit(tmp_path):
    git_dir, commit = _repository(tmp_path)
    dest = tmp_path / "out"

    result = export_snapshot.export(str(git_dir), commit, str(dest), ["*.yaml", "*.tf"])

    assert result == export_snapshot.Exported(written=2, missing=0)
    assert (dest / "stacks" / "queue.yaml").read_text() == "Resources: {}\n"
    assert (dest / "main.tf").exists() and not (dest / "big.zip").exists()


def test_export_skips_a_blob_the_clone_lacks(tmp_path):
    git_dir, commit = _repository(tmp_path)
    sha = _git("rev-parse", f"{commit}:big.zip", cwd=git_dir.parent)
    os.remove(git_dir / "objects" / sha[:2] / sha[2:])  # a partial snapshot, as fetched ones are

    result = export_snapshot.export(str(git_dir), commit, str(tmp_path / "out"), [])

    assert result == export_snapshot.Exported(written=2, missing=1)


def _finding(rule, severity, resource, message="m", file="r/t.yaml"):
    return {"rule": rule, "severity": severity, "resource": resource, "message": message, "file": file}


def test_diff_counts_per_rule_and_level_and_lists_each_change(tmp_path):
    before = [_finding("FL401", "error", "Cron"), _finding("FL401", "error", "Pattern"),
              _finding("FL101", "error", "Gone"), _finding("FL204", "warning", "Map", "old")]
    after = [_finding("FL401", "info", "Cron"), _finding("FL401", "error", "Pattern"),
             _finding("FL402", "warning", "Fn"), _finding("FL204", "warning", "Map", "new")]
    for name, findings in (("before", before), ("after", after)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "repo.json").write_text(json.dumps({"findings": findings}))

    text = severity_diff.render(
        severity_diff.load(str(tmp_path / "before")), severity_diff.load(str(tmp_path / "after"))
    )

    assert "| FL401 | 2/0/0 | 1/0/1 |" in text
    assert "| FL101 | 1/0/0 | 0/0/0 |" in text
    assert "error -> info: r/t.yaml FL401 Cron" in text
    assert "appeared warning: r/t.yaml FL402 Fn" in text
    assert "disappeared error: r/t.yaml FL101 Gone" in text
    assert "message: r/t.yaml FL204 Map" in text
    assert "Pattern" not in text
