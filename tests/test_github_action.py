"""action.yml: its shape, and its shell steps run for real with the inputs as the runner passes them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "shared-queue")


@pytest.fixture(scope="module")
def action():
    with open(os.path.join(ROOT, "action.yml"), encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def _step(action, name_part: str) -> dict:
    (step,) = [s for s in action["runs"]["steps"] if name_part in s.get("name", "")]
    return step


def test_action_is_composite_with_the_documented_inputs(action):
    assert action["runs"]["using"] == "composite"
    assert {"paths", "config", "fail-on", "version"} <= set(action["inputs"])
    names = [s["name"] for s in action["runs"]["steps"]]
    assert names.index("Run fanout-lint") < names.index("Upload SARIF to code scanning") < names.index("Gate on the result")
    upload = _step(action, "Upload SARIF")
    assert upload["uses"].startswith("github/codeql-action/upload-sarif@")
    assert upload["if"].startswith("always()")  # uploaded even when the lint step found something
    for step in action["runs"]["steps"]:
        if "run" in step:  # inputs reach scripts through env only, never spliced into the script
            assert "${{" not in step["run"], step["name"]


def _bash(script: str, env: dict, cwd: str) -> subprocess.CompletedProcess:
    if shutil.which("bash") is None:
        pytest.skip("bash is not installed")
    return subprocess.run(["bash", "-e", "-c", script], env=env, cwd=cwd, capture_output=True, text=True, timeout=120)


def _env(tmp_path, **inputs) -> dict:
    env = dict(os.environ, GITHUB_OUTPUT=str(tmp_path / "github_output"))
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    env.update(inputs)
    return env


def _outputs(tmp_path) -> dict:
    lines = (tmp_path / "github_output").read_text(encoding="utf-8").splitlines()
    return dict(line.split("=", 1) for line in lines)


def test_lint_step_writes_sarif_and_passes_the_exit_code_on(tmp_path, action):
    work = tmp_path / "repo"
    (work / "infra").mkdir(parents=True)
    shutil.copy(os.path.join(FIXTURES, "cfn_fires.yaml"), work / "infra" / "broken.yaml")
    shutil.copy(os.path.join(FIXTURES, "cfn_silent.yaml"), work / "clean.yaml")
    (work / "fanout.toml").write_text('select = ["shared-queue"]\n', encoding="utf-8")
    script = _step(action, "Run fanout-lint")["run"]

    env = _env(tmp_path, FANOUT_PATHS="infra\n clean.yaml", FANOUT_CONFIG="fanout.toml", FANOUT_FAIL_ON="",
               FANOUT_SARIF="out/fanout-lint.sarif")
    done = _bash(script, env, str(work))
    assert done.returncode == 0, done.stderr  # the lint step never fails; the gate does
    assert _outputs(tmp_path)["exit-code"] == "1"
    sarif = json.loads((work / "out" / "fanout-lint.sarif").read_text(encoding="utf-8"))
    results = sarif["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["FL201"]
    assert results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "infra/broken.yaml"

    gate = _step(action, "Gate")["run"]
    failed = _bash(gate, _env(tmp_path, EXIT_CODE="1"), str(work))
    assert failed.returncode == 1 and "::error title=fanout-lint::" in failed.stdout
    assert _bash(gate, _env(tmp_path, EXIT_CODE="0"), str(work)).returncode == 0


def test_lint_step_with_fail_on_error_and_a_clean_tree(tmp_path, action):
    work = tmp_path / "repo"
    work.mkdir()
    shutil.copy(os.path.join(FIXTURES, "cfn_silent.yaml"), work / "clean.yaml")
    script = _step(action, "Run fanout-lint")["run"]
    env = _env(tmp_path, FANOUT_PATHS=".", FANOUT_CONFIG="", FANOUT_FAIL_ON="error", FANOUT_SARIF="fanout-lint.sarif")
    done = _bash(script, env, str(work))
    assert done.returncode == 0, done.stderr
    assert _outputs(tmp_path)["exit-code"] == "0"
    assert json.loads((work / "fanout-lint.sarif").read_text(encoding="utf-8"))["runs"][0]["results"] == []


def test_summary_step_writes_the_markdown_summary_and_never_fails(tmp_path, action):
    work = tmp_path / "repo"
    (work / "infra").mkdir(parents=True)
    shutil.copy(os.path.join(FIXTURES, "cfn_fires.yaml"), work / "infra" / "broken.yaml")
    (work / "infra" / "bad.yaml").write_text("Resources:\n  Q: [\n", encoding="utf-8")
    (work / "fanout.toml").write_text('select = ["shared-queue"]\n', encoding="utf-8")
    step = _step(action, "job summary")
    assert step["if"].startswith("always()") and action["inputs"]["job-summary"]["default"] == "true"
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    env = _env(tmp_path, FANOUT_PATHS="infra", FANOUT_CONFIG="fanout.toml", GITHUB_STEP_SUMMARY=str(summary))
    done = _bash(step["run"], env, str(work))
    assert done.returncode == 0, done.stderr  # a file that cannot be parsed does not fail the step
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("earlier step\n## fanout-lint: 1 finding (1 error)")
    assert "shared-queue" in text and "```mermaid" in text
