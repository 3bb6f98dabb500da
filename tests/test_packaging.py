"""The wheel ships every rule module as fanout_lint.rules, and no top-level ``rules``."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_wheel_contains_every_rule_module(tmp_path):
    # Build from a copy: an in-tree build writes build/ into the checkout, which
    # concurrent runs would share.
    source = tmp_path / "src"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache", ".hypothesis"))
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(source), "--no-deps",
         "-q", "-w", str(tmp_path / "wheel")],
        check=True, capture_output=True, timeout=300,
    )
    wheel = next((tmp_path / "wheel").glob("fanout_lint-*.whl"))
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
