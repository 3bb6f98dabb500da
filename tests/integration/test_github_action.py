"""action.yml: its shape, and its steps replayed in order as the runner runs them.

The shell steps run for real under bash with the runner's files (``GITHUB_OUTPUT``,
``GITHUB_STEP_SUMMARY``, ``RUNNER_TEMP``) and the inputs as the runner passes them (through
``env``); the install step builds the action's own virtual environment from a copy of
this checkout. The ``uses:`` steps (setup-python, the SARIF upload) are GitHub's: their
inputs and conditions are checked, and setup-python's output is the Python running this.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
import yaml

from repo_paths import ROOT

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
    assert {"paths", "config", "fail-on", "version", "baseline", "args", "soft-fail", "category",
            "annotations", "sarif-file", "upload-sarif", "job-summary"} <= set(action["inputs"])
    names = [s["name"] for s in action["runs"]["steps"]]
    assert names.index("Run fanout-lint") < names.index("Upload SARIF to code scanning") < names.index("Gate on the result")
    setup = _step(action, "Set up Python")
    assert setup["with"]["update-environment"] is False  # the job's Python is not the action's
    upload = _step(action, "Upload SARIF")
    assert upload["uses"].startswith("github/codeql-action/upload-sarif@")
    assert upload["if"].startswith("always()")  # uploaded even when the lint step found something
    assert upload["continue-on-error"] is True  # a failed upload (a fork) never fails the job by itself
    assert upload["with"]["category"] == "${{ steps.lint.outputs.category }}"
    assert _step(action, "Gate")["if"] == "always()"
    for step in action["runs"]["steps"]:
        if "run" in step:  # inputs reach scripts through env only, never spliced into the script
            assert "${{" not in step["run"], step["name"]


def _bash(script: str, env: dict, cwd: str) -> subprocess.CompletedProcess:
    if shutil.which("bash") is None:
        pytest.skip("bash is not installed")
    return subprocess.run(["bash", "-e", "-c", script], env=env, cwd=cwd, capture_output=True, text=True, timeout=600)


class Runner:
    """The runner's side of one job: its files, and the inputs of one use of the action."""

    def __init__(self, action, tmp_path, installed: str):
        self.action, self.tmp, self.bin = action, tmp_path, installed
        self.temp = tmp_path / "runner-temp"
        self.temp.mkdir(exist_ok=True)
        self.output = tmp_path / "github_output"
        self.summary = tmp_path / "step_summary.md"
        self.summary.write_text("earlier step\n", encoding="utf-8")

    def env(self, step: dict, inputs: dict, outputs: dict) -> dict:
        env = {k: v for k, v in os.environ.items() if not k.startswith("FANOUT")}
        env.update(GITHUB_OUTPUT=str(self.output), GITHUB_STEP_SUMMARY=str(self.summary),
                   RUNNER_TEMP=str(self.temp), GITHUB_ACTION_PATH=ROOT)
        for name, value in step.get("env", {}).items():
            env[name] = _expression(str(value), inputs, outputs, self.action)
        return env

    def outputs(self) -> dict:
        if not self.output.exists():
            return {}
        return dict(line.split("=", 1) for line in self.output.read_text(encoding="utf-8").splitlines())

    def run(self, name: str, cwd, inputs: dict, outputs: dict | None = None) -> subprocess.CompletedProcess:
        step = _step(self.action, name)
        outputs = dict(outputs or {})
        outputs.setdefault("install.bin", self.bin)
        self.output.write_text("", encoding="utf-8")
        return _bash(step["run"], self.env(step, inputs, outputs), str(cwd))


def _expression(value: str, inputs: dict, outputs: dict, action) -> str:
    """``${{ inputs.x }}`` and ``${{ steps.s.outputs.o }}`` as the runner fills them in."""
    out = value
    while "${{" in out:
        start = out.index("${{")
        end = out.index("}}", start)
        name = out[start + 3:end].strip()
        if name.startswith("inputs."):
            key = name[len("inputs."):]
            filled = inputs.get(key, action["inputs"][key].get("default", ""))
        elif name.startswith("steps."):
            step, _, output = name[len("steps."):].partition(".outputs.")
            filled = outputs.get(f"{step}.{output}", "")
        else:
            raise AssertionError(f"unexpected expression {name}")
        out = out[:start] + str(filled) + out[end + 2:]
    return out


@pytest.fixture(scope="module")
def installed(action, tmp_path_factory):
    """The install step, run for real: a virtual environment of the action's own, from a
    copy of this checkout (a build writes into its source tree). The module's tests run
    on one worker (--dist loadfile), which builds it once."""
    tmp = tmp_path_factory.mktemp("action")
    source = tmp / "action"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache", ".hypothesis", "bench"))
    runner = Runner(action, tmp, "")
    step = _step(action, "Install fanout-lint")
    env = runner.env(step, {}, {"python.python-path": sys.executable})
    env["GITHUB_ACTION_PATH"] = str(source)
    done = _bash(step["run"], env, str(tmp))
    assert done.returncode == 0, done.stderr[-3000:]
    bin_dir = runner.outputs()["bin"]
    assert bin_dir.startswith(str(runner.temp)) and os.path.exists(os.path.join(bin_dir, "fanout-lint"))
    # this job's pip installed it from outside (--python): the environment has no pip of its own
    assert not os.path.exists(os.path.join(bin_dir, "pip"))
    return bin_dir


def _one_module_wheel(directory, version: str) -> None:
    """A wheel named fanout-lint holding one module, ``fanout_lint_probe``: something for
    pip to install in a moment, from a directory, with no build."""
    import zipfile

    info = f"fanout_lint-{version}.dist-info"
    files = {
        "fanout_lint_probe.py": f"VERSION = {version!r}\n",
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: fanout-lint\nVersion: {version}\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    files[f"{info}/RECORD"] = "".join(f"{name},,\n" for name in [*files, f"{info}/RECORD"])
    with zipfile.ZipFile(directory / f"fanout_lint-{version}-py3-none-any.whl", "w") as wheel:
        for name, text in files.items():
            wheel.writestr(name, text)


@pytest.mark.slow
@pytest.mark.integration
def test_without_a_pip_that_installs_from_outside_the_environment_gets_its_own(action, tmp_path):
    """A job's Python whose pip has no ``--python`` (before 22.3; here, one with no pip at
    all): the install step makes the environment with a pip of its own and installs with it."""
    bare = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True, capture_output=True)
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    _one_module_wheel(wheels, "0.0.1")
    runner = Runner(action, tmp_path, "")
    step = _step(action, "Install fanout-lint")
    env = runner.env(step, {"version": "0.0.1"}, {"python.python-path": str(bare / "bin" / "python")})
    env.update(PIP_NO_INDEX="1", PIP_FIND_LINKS=str(wheels))
    done = _bash(step["run"], env, str(tmp_path))
    assert done.returncode == 0, done.stderr[-3000:]
    bin_dir = runner.outputs()["bin"]
    assert os.path.exists(os.path.join(bin_dir, "pip"))
    probe = subprocess.run([os.path.join(bin_dir, "python"), "-c", "import fanout_lint_probe as p; print(p.VERSION)"],
                           capture_output=True, text=True)
    assert probe.stdout.strip() == "0.0.1", probe.stderr


@pytest.fixture
def runner(action, tmp_path, installed):
    return Runner(action, tmp_path, installed)


def _repo(tmp_path):
    work = tmp_path / "repo"
    (work / "my infra").mkdir(parents=True)
    shutil.copy(os.path.join(FIXTURES, "cfn_fires.yaml"), work / "my infra" / "broken.yaml")
    shutil.copy(os.path.join(FIXTURES, "cfn_silent.yaml"), work / "clean.yaml")
    (work / "fanout.toml").write_text('select = ["shared-queue"]\n', encoding="utf-8")
    return work


@pytest.mark.slow
@pytest.mark.integration
def test_the_steps_in_order_print_upload_summarise_and_gate(runner, tmp_path):
    work = _repo(tmp_path)
    inputs = {"paths": "my infra\n clean.yaml\n", "config": "fanout.toml", "sarif-file": "out/fanout-lint.sarif"}
    lint = runner.run("Run fanout-lint", work, inputs)
    assert lint.returncode == 0, lint.stderr  # the lint step never fails; the gate does
    outputs = {f"lint.{k}": v for k, v in runner.outputs().items()}
    assert outputs["lint.exit-code"] == "1"
    # the findings are in the job log, as text
    assert "my infra/broken.yaml:5:3: FL201" in lint.stdout.replace("\x1b[1m", "").replace("\x1b[0m", "")
    sarif = json.loads((work / "out" / "fanout-lint.sarif").read_text(encoding="utf-8"))
    results = sarif["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["FL201"]
    assert results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "my%20infra/broken.yaml"

    summary = runner.run("job summary", work, inputs, outputs)
    assert summary.returncode == 0, summary.stderr
    text = runner.summary.read_text(encoding="utf-8")
    assert text.startswith("earlier step\n## fanout-lint: 1 finding (1 error)") and "```mermaid" in text

    failed = runner.run("Gate", work, inputs, outputs)
    assert failed.returncode == 1 and "::error title=fanout-lint::" in failed.stdout
    soft = runner.run("Gate", work, {**inputs, "soft-fail": "true"}, outputs)
    assert soft.returncode == 0 and "soft-fail" in soft.stdout
    broken = runner.run("Gate", work, {**inputs, "soft-fail": "true"}, {"lint.exit-code": "2"})
    assert broken.returncode == 2  # soft-fail does not hide a file that could not be linted


@pytest.mark.slow
@pytest.mark.integration
def test_two_uses_in_one_repository_upload_under_different_categories(runner, tmp_path):
    work = _repo(tmp_path)
    categories = []
    for paths in ("my infra", "clean.yaml"):
        assert runner.run("Run fanout-lint", work, {"paths": paths}).returncode == 0
        categories.append(runner.outputs()["category"])
    assert categories[0] != categories[1] and all(c.startswith("fanout-lint/") for c in categories)
    runner.run("Run fanout-lint", work, {"paths": "clean.yaml", "category": "fanout-lint-cdk"})
    assert runner.outputs()["category"] == "fanout-lint-cdk"


@pytest.mark.slow
@pytest.mark.integration
def test_annotations_baseline_and_extra_arguments(runner, tmp_path):
    work = _repo(tmp_path)
    lint = runner.run("Run fanout-lint", work, {"paths": "my infra", "annotations": "true",
                                                 "args": "--select 'shared-queue' --fail-on error"})
    assert runner.outputs()["exit-code"] == "1"
    commands = [line for line in lint.stdout.splitlines() if line.startswith("::")]
    assert len(commands) == 1 and commands[0].startswith("::error file=my infra/broken.yaml,line=5")

    baseline = work / "baseline.json"
    bin_dir = runner.bin
    subprocess.run([os.path.join(bin_dir, "fanout-lint"), "my infra", "--select", "shared-queue",
                    "--write-baseline", str(baseline)], cwd=work, check=True, capture_output=True)
    runner.run("Run fanout-lint", work, {"paths": "my infra", "baseline": "baseline.json",
                                         "args": "--select shared-queue"})
    assert runner.outputs()["exit-code"] == "0"  # the recorded finding no longer fails
    sarif = json.loads((work / "fanout-lint.sarif").read_text(encoding="utf-8"))
    (result,) = sarif["runs"][0]["results"]
    assert result["baselineState"] == "unchanged" and result["suppressions"][0]["kind"] == "external"


@pytest.mark.slow
@pytest.mark.integration
def test_a_clean_tree_with_fail_on_error(runner, tmp_path):
    work = tmp_path / "repo"
    work.mkdir()
    shutil.copy(os.path.join(FIXTURES, "cfn_silent.yaml"), work / "clean.yaml")
    done = runner.run("Run fanout-lint", work, {"paths": ".", "fail-on": "error"})
    assert done.returncode == 0, done.stderr
    assert runner.outputs()["exit-code"] == "0"
    assert json.loads((work / "fanout-lint.sarif").read_text(encoding="utf-8"))["runs"][0]["results"] == []


@pytest.mark.slow
def test_the_job_summary_of_a_large_repository_stays_under_githubs_limit(tmp_path, capsys, monkeypatch):
    from fanout_lint.cli.main import main

    # the broken example has 13 findings of about 450 bytes a row: 400 copies make a table
    # of about 2.4 MB, over twice the limit (the cut is asserted below, so a smaller table
    # fails the test rather than passing it), with a quarter of the work of 1,600 copies
    text = open(os.path.join(ROOT, "examples", "broken", "orders-fanout.yaml"), encoding="utf-8").read()
    for number in range(400):
        directory = tmp_path / f"service-{number:04d}"
        directory.mkdir()
        (directory / "stack.yaml").write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["graph", ".", "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    size = len(out.encode("utf-8"))
    assert size < 1024 * 1024, size
    assert "more findings not shown" in out and "1 MiB" in out
    assert out.startswith("## fanout-lint: ") and " in 400 units" in out.splitlines()[0]
    assert out.count("| error |") + out.count("| warning |") + out.count("| info |") > 1000


@pytest.mark.slow
@pytest.mark.integration
def test_the_job_summary_reads_the_gates_baseline_and_arguments(runner, tmp_path):
    work = _repo(tmp_path)
    (work / "other.yaml").write_text((work / "my infra" / "broken.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    baseline = work / "baseline.json"
    subprocess.run([os.path.join(runner.bin, "fanout-lint"), "my infra", "--write-baseline", str(baseline)],
                   cwd=work, check=True, capture_output=True)
    inputs = {"paths": "my infra\nother.yaml\n", "baseline": "baseline.json",
              "args": "--select shared-queue --fail-on error --exclude 'nothing/*'"}
    runner.run("Run fanout-lint", work, inputs)
    outputs = {f"lint.{k}": v for k, v in runner.outputs().items()}
    assert outputs["lint.exit-code"] == "1"  # other.yaml's finding is new; broken.yaml's is recorded
    summary = runner.run("job summary", work, inputs, outputs)
    assert summary.returncode == 0 and summary.stderr == "", summary.stderr
    text = runner.summary.read_text(encoding="utf-8")
    assert text.startswith("earlier step\n## fanout-lint: 1 finding (1 error)"), text[:300]
    assert "other.yaml:5" in text and "broken.yaml:5" not in text, text[:1500]


@pytest.mark.slow
@pytest.mark.integration
def test_the_environment_is_keyed_on_the_actions_content_and_python(runner, tmp_path, action):
    step = _step(action, "Key fanout-lint")
    env = runner.env(step, {}, {"python.python-version": "3.12.7"})
    done = _bash(step["run"], env, str(tmp_path))
    assert done.returncode == 0, done.stderr
    key = runner.outputs()["key"]
    assert key.startswith(f"fanout-lint-{os.environ.get('RUNNER_OS', '')}-py3.12.7-") and len(key.rsplit("-", 1)[1]) == 16
    pinned = _bash(step["run"], runner.env(step, {"version": "0.1.0"}, {"python.python-version": "3.12.7"}), str(tmp_path))
    assert pinned.returncode == 0 and runner.outputs()["key"].endswith("-py3.12.7-0.1.0")
    for name in ("Restore", "Save"):
        cached = _step(action, f"{name} fanout-lint's environment")
        assert cached["with"]["key"] == "${{ steps.key.outputs.key }}"
        assert "fanout-lint-venv" in cached["with"]["path"] and "lark-cache" in cached["with"]["path"]


@pytest.mark.slow
@pytest.mark.integration
def test_a_path_with_spaces_is_one_path_and_never_an_option(runner, tmp_path):
    work = _repo(tmp_path)
    hostile = work / "x --fail-on none"
    hostile.mkdir()
    shutil.copy(os.path.join(FIXTURES, "cfn_fires.yaml"), hostile / "broken.yaml")
    lint = runner.run("Run fanout-lint", work, {"paths": "x --fail-on none"})
    assert lint.returncode == 0, lint.stderr
    assert runner.outputs()["exit-code"] == "1"  # the finding fails the job: no flag came from the path
    assert "x --fail-on none/broken.yaml:5:3: FL201" in lint.stdout.replace("\x1b[1m", "").replace("\x1b[0m", "")
    summary = runner.run("job summary", work, {"paths": "x --fail-on none"}, {"lint.exit-code": "1"})
    assert summary.returncode == 0, summary.stderr
    # the summary step reads the paths the lint step wrote, each one argument after `--`
    assert "## fanout-lint: 1 finding (1 error) in 1 unit" in runner.summary.read_text(encoding="utf-8")

    outside = tmp_path / "outside.txt"
    lint = runner.run("Run fanout-lint", work, {"paths": f"my infra --output {outside}\nclean.yaml"})
    assert runner.outputs()["exit-code"] == "2"  # a path that does not exist, not an --output
    assert f"my infra --output {outside}: error: no such file or directory" in lint.stdout
    assert not outside.exists()


@pytest.mark.slow
@pytest.mark.integration
def test_the_args_input_cannot_end_the_options(runner, tmp_path):
    work = _repo(tmp_path)
    lint = runner.run("Run fanout-lint", work, {"paths": "my infra", "args": "--select FL2 -- clean.yaml"})
    assert lint.returncode == 0
    assert runner.outputs()["exit-code"] == "2"
    assert "::error title=fanout-lint::the args input cannot hold --" in lint.stdout


@pytest.mark.slow
@pytest.mark.integration
def test_isolated_pins_the_gate_against_the_checkouts_configuration(runner, tmp_path):
    work = _repo(tmp_path)
    (work / ".fanout-lint.toml").write_text('fail-on = "none"\n', encoding="utf-8")
    lint = runner.run("Run fanout-lint", work, {"paths": "my infra"})
    assert runner.outputs()["exit-code"] == "0"  # the pull request's file turned the gate off ...
    assert "this configuration lowers the gate: fail-on = none" in lint.stderr  # ... and the log says so
    runner.run("Run fanout-lint", work, {"paths": "my infra", "isolated": "true"})
    assert runner.outputs()["exit-code"] == "1"
    summary = runner.run("job summary", work, {"paths": "my infra"}, {"lint.exit-code": "0"})
    assert summary.returncode == 0
    assert "> **Warning:** `.fanout-lint.toml`: `this configuration lowers the gate" in \
        runner.summary.read_text(encoding="utf-8")
