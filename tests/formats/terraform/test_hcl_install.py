"""A foreign ``hcl2`` module (checkov's bc-python-hcl2 installed over python-hcl2) is named
in one line, and the rest of the run is linted; a real process, as a CI job runs it."""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import subprocess
import sys

import pytest

from repo_paths import ROOT

FIXTURES = os.path.join(ROOT, "tests", "fixtures", "shared-queue")


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _shadowing_site(site, grammar: bool = False) -> None:
    """A site directory holding what bc-python-hcl2 installs: a module named hcl2 of its own
    (``grammar``: with its own grammar file, over python-hcl2's, whose record remains)."""
    files = {
        "hcl2/__init__.py": b'"""A fork of python-hcl2 with the same module name."""\n',
        "hcl2/api.py": b"def load(file):\n    raise NotImplementedError\n",
    }
    if grammar:
        files["hcl2/hcl2.lark"] = b"start : body\nbody : NAME*\n%import common.CNAME -> NAME\n"
        ours = site / "python_hcl2-8.1.4.dist-info"
        ours.mkdir(parents=True)
        (ours / "METADATA").write_text("Metadata-Version: 2.1\nName: python-hcl2\nVersion: 8.1.4\n", encoding="utf-8")
        (ours / "RECORD").write_text("hcl2/__init__.py,sha256=AAAA,9\nhcl2/hcl2.lark,sha256=BBBB,12345\n",
                                     encoding="utf-8")
    info = site / "bc_python_hcl2-0.4.3.dist-info"
    (site / "hcl2").mkdir(parents=True)
    info.mkdir()
    for name, data in files.items():
        (site / name).write_bytes(data)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: bc-python-hcl2\nVersion: 0.4.3\n", encoding="utf-8")
    (info / "top_level.txt").write_text("hcl2\n", encoding="utf-8")
    record = [f"{name},{_record_hash(data)},{len(data)}" for name, data in files.items()]
    record += ["bc_python_hcl2-0.4.3.dist-info/METADATA,,", "bc_python_hcl2-0.4.3.dist-info/RECORD,,"]
    (info / "RECORD").write_text("\n".join(record) + "\n", encoding="utf-8")


@pytest.mark.parametrize("grammar", [False, True], ids=["without-grammar", "grammar-overwritten"])
def test_a_shadowed_hcl2_is_one_line_naming_the_package_and_the_rest_is_linted(tmp_path, grammar):
    site = tmp_path / "site"
    _shadowing_site(site, grammar)
    work = tmp_path / "repo"
    for name in ("orders", "billing"):
        shutil.copytree(os.path.join(FIXTURES, "tf_fires"), work / name)
    shutil.copy(os.path.join(FIXTURES, "cfn_fires.yaml"), work / "stack.yaml")
    env = dict(os.environ, PYTHONPATH=str(site))
    done = subprocess.run([sys.executable, "-m", "fanout_lint", "."], cwd=work, env=env,
                          capture_output=True, text=True, timeout=120)
    lines = (done.stdout + done.stderr).splitlines()
    assert done.returncode == 2, lines
    (problem,) = [line for line in lines if "hcl2" in line]  # one line, not one per directory
    assert problem.startswith("billing: error: 2 Terraform directories not linted: the module hcl2 installed "
                              "here is bc-python-hcl2 0.4.3's, not python-hcl2's"), problem
    # what to do, with commands that work while the package is not on PyPI
    assert "pipx install git+https://github.com/fanout-lint/fanout-lint" in problem
    assert "pipx install checkov" in problem and "cannot share an environment" in problem
    assert "pipx install fanout-lint" not in problem and "internal error" not in done.stdout + done.stderr
    assert any(line.startswith("stack.yaml:5:3: FL201 [error]") for line in lines)  # the template is linted


def test_without_a_shadow_the_parser_loads(tmp_path):
    from fanout_lint.loaders.candidate import Candidate
    from fanout_lint.loaders.terraform.hcl_install import parser_problem
    from fanout_lint.loaders.terraform.hcl_shadow import shadowing_distribution
    from fanout_lint.model.format import Format

    assert shadowing_distribution() is None
    candidates = [Candidate("infra", Format.TERRAFORM), Candidate("stack.yaml", Format.CLOUDFORMATION)]
    assert parser_problem(candidates) == (candidates, [])
