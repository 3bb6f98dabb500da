"""The wheel ships every rule module as fanout_lint.rules, and no top-level ``rules``."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile

import pytest

from repo_paths import ROOT


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> str:
    """The wheel, built once for this module's tests (on one worker: --dist loadfile).
    Built from a copy: an in-tree build writes build/ into the checkout, which concurrent
    runs would share."""
    tmp_path = tmp_path_factory.mktemp("wheel")
    source = tmp_path / "src"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache", ".hypothesis"))
    # by the build frontend, in an isolated environment as pip's would be: it asks the
    # backend for the wheel alone, where `pip wheel` first has it prepare the metadata in a
    # run of its own (a second of setuptools), and the wheel is the same file for file
    subprocess.run([sys.executable, "-m", "build", "--wheel", "--outdir", str(tmp_path / "wheel"), str(source)],
                   check=True, capture_output=True, timeout=300)
    return str(next((tmp_path / "wheel").glob("fanout_lint-*.whl")))


@pytest.mark.slow
@pytest.mark.integration
def test_wheel_contains_every_rule_module(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    rule_modules = sorted(f for f in os.listdir(os.path.join(ROOT, "rules")) if f.endswith(".py"))
    assert rule_modules
    for module in rule_modules:
        assert f"fanout_lint/rules/{module}" in names
    assert not any(n.startswith("rules/") for n in names)
    packages = {os.path.dirname(n) for n in names if n.endswith("__init__.py")}
    for dirpath, _, filenames in os.walk(os.path.join(ROOT, "fanout_lint")):
        if "__init__.py" in filenames:
            assert os.path.relpath(dirpath, ROOT) in packages, f"{dirpath} is not in the wheel"


def _metadata(wheel: str) -> tuple[list[tuple[str, str]], str]:
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        text = archive.read(name).decode("utf-8")
    head, _, body = text.partition("\n\n")
    fields = [tuple(line.split(": ", 1)) for line in head.splitlines() if ": " in line]
    return fields, body


@pytest.mark.slow
@pytest.mark.integration
def test_the_metadata_pypi_shows(wheel):
    from fanout_lint.results.doc_links import PROJECT_URL

    fields, body = _metadata(wheel)
    values = {}
    for key, value in fields:
        values.setdefault(key, []).append(value)
    assert values["License-Expression"] == ["MIT"] and "License" not in values  # no deprecated table form
    assert values["License-File"] == ["LICENSE"]
    assert "dist-info/licenses/LICENSE" in " ".join(zipfile.ZipFile(wheel).namelist())
    classifiers = values["Classifier"]
    assert "Topic :: Software Development :: Quality Assurance" in classifiers
    assert not any(c.startswith("License ::") for c in classifiers)  # the expression says it
    urls = dict(v.split(", ", 1) for v in values["Project-URL"])
    assert {"Homepage", "Documentation", "Repository", "Issues"} <= set(urls)
    assert all(url.startswith(PROJECT_URL) for url in urls.values())
    assert values["Description-Content-Type"] == ["text/markdown"] and body.startswith("# fanout-lint")


@pytest.mark.slow
@pytest.mark.integration
def test_the_first_commands_of_the_pypi_description_work_from_the_wheel(wheel, tmp_path):
    """The description's first block, run as written against the wheel installed in an
    environment of its own (the install line is the only one replaced)."""
    _, body = _metadata(wheel)
    block = body.split("```sh\n", 1)[1].split("```", 1)[0]
    commands = [line.split("#", 1)[0].strip() for line in block.splitlines() if line.strip()]
    # not on PyPI yet: the description installs from the repository, a command that works today
    assert commands[0] == "pipx install git+https://github.com/fanout-lint/fanout-lint"
    venv = tmp_path / "venv"
    # without a pip of its own (its bundled wheel takes seconds to install): this pip
    # installs into it (--python, pip 22.3 on); without the bytecode of the few hundred
    # modules it installs, of which the two commands below import some
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, capture_output=True)
    subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "-q",
                    "--no-compile", wheel], check=True, capture_output=True, timeout=600)
    work = tmp_path / "work"
    (work / "infra").mkdir(parents=True)
    shutil.copy(os.path.join(ROOT, "tests", "fixtures", "shared-queue", "cfn_fires.yaml"), work / "infra" / "stack.yaml")
    env = dict(os.environ, PATH=str(venv / "bin") + os.pathsep + os.environ.get("PATH", ""))
    for command in commands[1:]:
        done = subprocess.run(command.split(), cwd=work, env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode in (0, 1) and "Traceback" not in done.stderr, (command, done.stderr)
        assert done.stdout.strip(), command
        if command.startswith("fanout-lint infra"):
            assert "infra/stack.yaml:5:3: FL201" in done.stdout
