"""The pre-commit hook, run by the real pre-commit against this checkout in a throwaway repository."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
import yaml

from fanout_lint.model.format import Format
from fanout_lint.run.discover import discover
from repo_paths import ROOT

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
    assert hook["id"] == "fanout-lint" and hook["entry"] == "fanout-lint check --pre-commit"
    assert hook["language"] == "python"
    # pre-commit appends the file names after the args: `--` ends the options before them
    assert hook["args"] == ["--"]
    assert hook["require_serial"] is True
    import re

    files = re.compile(hook["files"])
    for name in ("a.yaml", "b/c.yml", "cdk.out/S.template.json", "t.template", "infra/main.tf",
                 "infra/main.tf.json", "infra/override.tf", "infra/main.tofu", "infra/main.tofu.json",
                 "svc/serverless.yml",
                 "infra/terraform.tfvars", "infra/prod.auto.tfvars", "infra/x.auto.tfvars.json"):
        assert files.search(name), name
    for name in ("README.md", "main.py", "terraform.tfstate"):
        assert not files.search(name), name


def test_terraform_files_of_one_directory_are_one_unit(tmp_path):
    unit = tmp_path / "infra"
    unit.mkdir()
    for name in ("main.tf", "queues.tf"):
        (unit / name).write_text("", encoding="utf-8")
    paths = [str(unit / "main.tf"), str(unit / "queues.tf"), str(unit) + os.sep, str(unit)]
    candidates, missing = discover(paths)
    assert [(c.format, os.path.abspath(c.path)) for c in candidates] == [(Format.TERRAFORM, str(unit))] and not missing


@pytest.fixture(scope="module")
def hook_env(tmp_path_factory) -> dict:
    """The environment of every git and pre-commit command here: pre-commit's cache of
    hook environments in a directory of this module's, shared by its tests."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    if not os.path.exists(os.path.join(ROOT, ".git")):  # a directory, or a file in a worktree
        pytest.skip("this checkout is not a git repository")
    pytest.importorskip("pre_commit")
    home = tmp_path_factory.mktemp("pre-commit-home")
    env = dict(os.environ, PRE_COMMIT_HOME=str(home), GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com", PRE_COMMIT_COLOR="never")
    env.pop("PRE_COMMIT", None)
    return env


@pytest.fixture(scope="module")
def hook_source(tmp_path_factory, hook_env):
    """This checkout (uncommitted changes included) as a committed repository, for a
    .pre-commit-config.yaml to name with a rev: pre-commit installs the hook from it
    once, and every test here runs that one installation (the module's tests run on
    one worker: --dist loadfile)."""
    source = tmp_path_factory.mktemp("hook-source") / "fanout-lint"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache", ".hypothesis"))
    for command in (["git", "init", "-q"], ["git", "add", "--all"], ["git", "commit", "-q", "-m", "hook"]):
        subprocess.run(command, cwd=source, env=hook_env, check=True, capture_output=True)
    rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=source, env=hook_env, check=True, capture_output=True,
                         text=True).stdout.strip()
    return str(source), rev


@pytest.fixture
def hook_runner(hook_env, hook_source, _private_cache_dir):
    # the test's own cache directory (conftest.py), never the user's: the module's
    # environment is made before any test's
    env = dict(hook_env, XDG_CACHE_HOME=os.environ["XDG_CACHE_HOME"])
    source, rev = hook_source

    def run(repo, *files) -> subprocess.CompletedProcess:
        config = os.path.join(repo, ".pre-commit-config.yaml")
        if not os.path.exists(config):  # the hook as the README's recipe names it, with its own args
            with open(config, "w", encoding="utf-8") as handle:
                handle.write(f"repos:\n  - repo: {source}\n    rev: {rev}\n    hooks:\n      - id: fanout-lint\n")
        subprocess.run(["git", "add", "--all"], cwd=repo, env=env, check=True, capture_output=True)
        chosen = ["--all-files"] if not files else ["--files", *files]
        return subprocess.run(
            [sys.executable, "-m", "pre_commit", "run", *chosen],
            cwd=repo, env=env, capture_output=True, text=True, timeout=600,
        )

    return run, env


def _repo(path, env) -> str:
    path.mkdir()
    subprocess.run(["git", "init", "-q", str(path)], env=env, check=True, capture_output=True)
    return str(path)


@pytest.mark.slow
@pytest.mark.integration
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


@pytest.mark.slow
@pytest.mark.integration
def test_real_pre_commit_passes_a_file_named_like_an_option_as_a_path(tmp_path, hook_runner):
    run, env = hook_runner
    repo = _repo(tmp_path / "repo", env)
    shutil.copy(os.path.join(FIXTURES, "cfn_fires.yaml"), os.path.join(repo, "broken.yaml"))
    with open(os.path.join(repo, "package.json"), "w", encoding="utf-8") as handle:
        handle.write('{"name": "victim"}\n')
    for name in ("--write-baseline=b.json", "--output=package.json"):
        with open(os.path.join(repo, name), "w", encoding="utf-8") as handle:
            handle.write("{}\n")
    done = run(repo)  # every file: pre-commit's own --files would read these names as its options
    output = done.stdout + done.stderr
    assert done.returncode == 1, output  # the broken template still fails the hook
    assert "broken.yaml:5:3: FL201 [error]" in output
    assert not os.path.exists(os.path.join(repo, "b.json"))
    with open(os.path.join(repo, "package.json"), encoding="utf-8") as handle:
        assert handle.read() == '{"name": "victim"}\n'


@pytest.mark.slow
@pytest.mark.integration
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


@pytest.mark.slow
@pytest.mark.integration
def test_real_pre_commit_lints_the_directory_of_a_changed_tfvars_file(tmp_path, hook_runner):
    run, env = hook_runner
    repo = _repo(tmp_path / "repo", env)
    # the function's timeout is a variable: its default is fine, the tfvars make it exceed
    # the queue's visibility timeout (FL202)
    os.makedirs(os.path.join(repo, "infra"))
    with open(os.path.join(repo, "infra", "main.tf"), "w", encoding="utf-8") as handle:
        handle.write(TIMEOUT_MODULE.replace("QUEUE", "orders"))
    with open(os.path.join(repo, "infra", "terraform.tfvars"), "w", encoding="utf-8") as handle:
        handle.write("timeout = 60\n")
    done = run(repo, "infra/terraform.tfvars")
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    assert "infra/main.tf:" in output and "FL202 [*] [error]" in output and "1 unit checked" in output


TIMEOUT_MODULE = """\
variable "timeout" {
  default = 3
}
resource "aws_sqs_queue" "QUEUE" {
  visibility_timeout_seconds = 30
}
resource "aws_lambda_function" "f" {
  function_name = "f"
  timeout       = var.timeout
}
resource "aws_lambda_event_source_mapping" "m" {
  event_source_arn        = aws_sqs_queue.QUEUE.arn
  function_name           = aws_lambda_function.f.arn
  function_response_types = ["ReportBatchItemFailures"]
}
"""


@pytest.mark.slow
@pytest.mark.integration
def test_real_pre_commit_lints_a_changed_module_in_the_roots_that_call_it(tmp_path, hook_runner):
    run, env = hook_runner
    repo = _repo(tmp_path / "repo", env)
    module = os.path.join(repo, "modules", "worker")
    os.makedirs(module)
    with open(os.path.join(module, "main.tf"), "w", encoding="utf-8") as handle:
        handle.write(TIMEOUT_MODULE.replace("QUEUE", "this"))
    for root in ("prod", "staging"):
        os.makedirs(os.path.join(repo, root))
        with open(os.path.join(repo, root, "main.tf"), "w", encoding="utf-8") as handle:
            handle.write('module "worker" {\n  source  = "../modules/worker"\n  timeout = 60\n}\n')
    done = run(repo, "modules/worker/main.tf")
    output = done.stdout + done.stderr
    # alone, the module would be linted with timeout 3 and be clean; in its roots it fails
    assert done.returncode == 1, output
    assert output.count("FL202 [*] [error]") == 2 and "module.worker.aws_sqs_queue.this" in output, output
    assert "2 units checked" in output


@pytest.mark.slow
@pytest.mark.integration
def test_a_comment_only_commit_in_a_baselined_module_passes(tmp_path, hook_runner, hook_source):
    _, env = hook_runner
    source, rev = hook_source
    repo = _repo(tmp_path / "repo", env)
    module = os.path.join(repo, "modules", "worker")
    os.makedirs(module)
    with open(os.path.join(module, "main.tf"), "w", encoding="utf-8") as handle:
        # alone, with its default, the module fires too, but as aws_sqs_queue.this of
        # modules/worker: a finding the baseline does not know
        handle.write(TIMEOUT_MODULE.replace("QUEUE", "this").replace("default = 3", "default = 60"))
    os.makedirs(os.path.join(repo, "prod"))
    with open(os.path.join(repo, "prod", "main.tf"), "w", encoding="utf-8") as handle:
        handle.write('module "worker" {\n  source  = "../modules/worker"\n  timeout = 60\n}\n')
    # the finding as the root sees it (module.worker...), recorded in the baseline
    subprocess.run([sys.executable, "-m", "fanout_lint", ".", "--write-baseline", "baseline.json"],
                   cwd=repo, env=env, check=True, capture_output=True)
    with open(os.path.join(repo, ".pre-commit-config.yaml"), "w", encoding="utf-8") as handle:
        handle.write(f"repos:\n  - repo: {source}\n    rev: {rev}\n    hooks:\n      - id: fanout-lint\n"
                     "        args: [--baseline, baseline.json, --]\n")
    with open(os.path.join(module, "main.tf"), "a", encoding="utf-8") as handle:
        handle.write("# a comment-only change\n")
    subprocess.run(["git", "add", "--all"], cwd=repo, env=env, check=True, capture_output=True)
    done = subprocess.run([sys.executable, "-m", "pre_commit", "run", "--files", "modules/worker/main.tf"],
                          cwd=repo, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Passed" in done.stdout
    alone = subprocess.run([sys.executable, "-m", "fanout_lint", "modules/worker", "--baseline", "baseline.json"],
                           cwd=repo, env=env, capture_output=True, text=True)
    assert alone.returncode == 1 and "aws_sqs_queue.this" in alone.stdout  # what the hook used to do
