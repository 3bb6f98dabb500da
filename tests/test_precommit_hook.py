"""The pre-commit hook, run by the real pre-commit against this checkout in a throwaway repository."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
import yaml

from fanout_lint.discover import discover

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "shared-queue")

WORKFLOW = """\
name: ci
on: [push]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - run: echo Resources
"""


def test_hook_manifest_matches_templates_and_terraform():
    with open(os.path.join(ROOT, ".pre-commit-hooks.yaml"), encoding="utf-8") as handle:
        (hook,) = yaml.safe_load(handle)
    assert hook["id"] == "fanout-lint" and hook["entry"] == "fanout-lint" and hook["language"] == "python"
    assert hook["require_serial"] is True
    import re

    files = re.compile(hook["files"])
    for name in ("a.yaml", "b/c.yml", "cdk.out/S.template.json", "t.template", "infra/main.tf"):
        assert files.search(name), name
    for name in ("README.md", "main.py", "terraform.tfstate", "x.tfvars"):
        assert not files.search(name), name


def test_terraform_files_of_one_directory_are_one_unit(tmp_path):
    unit = tmp_path / "infra"
    unit.mkdir()
    for name in ("main.tf", "queues.tf"):
        (unit / name).write_text("", encoding="utf-8")
    paths = [str(unit / "main.tf"), str(unit / "queues.tf"), str(unit) + os.sep, str(unit)]
    candidates, missing = discover(paths)
    assert [(c.kind, os.path.abspath(c.path)) for c in candidates] == [("terraform", str(unit))] and not missing


@pytest.fixture(scope="module")
def hook_runner(tmp_path_factory):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    if not os.path.exists(os.path.join(ROOT, ".git")):  # a directory, or a file in a worktree
        pytest.skip("this checkout is not a git repository")
    pytest.importorskip("pre_commit")
    home = tmp_path_factory.mktemp("pre-commit-home")
    env = dict(os.environ, PRE_COMMIT_HOME=str(home), GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com", PRE_COMMIT_COLOR="never")
    env.pop("PRE_COMMIT", None)

    def run(repo, *files) -> subprocess.CompletedProcess:
        subprocess.run(["git", "add", "--all"], cwd=repo, env=env, check=True, capture_output=True)
        # try-repo installs the hook from this checkout (uncommitted changes included) with pip
        return subprocess.run(
            [sys.executable, "-m", "pre_commit", "try-repo", ROOT, "fanout-lint", "--files", *files],
            cwd=repo, env=env, capture_output=True, text=True, timeout=600,
        )

    return run, env


def _repo(path, env) -> str:
    path.mkdir()
    subprocess.run(["git", "init", "-q", str(path)], env=env, check=True, capture_output=True)
    return str(path)


def test_real_pre_commit_fails_on_a_broken_template_and_passes_a_clean_one(tmp_path, hook_runner):
    run, env = hook_runner
    repo = _repo(tmp_path / "repo", env)
    shutil.copy(os.path.join(FIXTURES, "cfn_fires.yaml"), os.path.join(repo, "broken.yaml"))
    shutil.copy(os.path.join(FIXTURES, "cfn_silent.yaml"), os.path.join(repo, "clean.yaml"))
    os.makedirs(os.path.join(repo, ".github", "workflows"))
    with open(os.path.join(repo, ".github", "workflows", "ci.yml"), "w", encoding="utf-8") as handle:
        handle.write(WORKFLOW)

    broken = run(repo, "broken.yaml", "clean.yaml")
    output = broken.stdout + broken.stderr
    assert broken.returncode == 1, output
    assert "fanout-lint" in output and "Failed" in output
    assert "broken.yaml:5:3: FL201 [error]" in output and "clean.yaml" not in output.split("Failed", 1)[1]

    clean = run(repo, "clean.yaml", ".github/workflows/ci.yml")
    output = clean.stdout + clean.stderr
    assert clean.returncode == 0, output
    assert "Passed" in output


def test_real_pre_commit_lints_each_terraform_directory_once(tmp_path, hook_runner):
    run, env = hook_runner
    repo = _repo(tmp_path / "repo", env)
    shutil.copytree(os.path.join(FIXTURES, "tf_fires"), os.path.join(repo, "infra"))
    with open(os.path.join(repo, "infra", "variables.tf"), "w", encoding="utf-8") as handle:
        handle.write('variable "unused" {\n  default = 1\n}\n')

    done = run(repo, "infra/main.tf", "infra/variables.tf")
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    # two changed files of one directory: the unit is linted once, so the finding appears once
    assert output.count("FL201 [error]") == 1 and "1 unit checked" in output, output
    assert "infra/main.tf:4:1: FL201 [error]" in output
