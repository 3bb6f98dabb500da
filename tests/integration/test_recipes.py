"""The documented recipes work from the repository as it is, and the docs describe the tool.

fanout-lint is not on PyPI and no release is tagged yet: a recipe that installs it from
PyPI, pins a tag or links a page at one fails for whoever copies it today.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
import yaml

from fanout_lint.run import unsupported
from repo_paths import ROOT

DOCS = ("README.md", "docs/integrations.md", "docs/pypi.md", "action.yml")
# what exists only from the first release on
NOT_YET = (
    re.compile(r"\bpipx? install (--quiet )?['\"]?fanout-lint\b(?![^#\n]*git\+)"),  # from PyPI
    re.compile(r"fanout-lint==\w"),  # a version of it
    re.compile(r"\brev: v\d"),  # a tag
    re.compile(r"fanout-lint/fanout-lint@v\d"),
    re.compile(r"/blob/v\d"),
)


def _read(name: str) -> str:
    with open(os.path.join(ROOT, name), encoding="utf-8") as handle:
        return handle.read()


def _recipes(name: str) -> list[str]:
    """The commands and configuration a reader copies: fenced blocks (action.yml's comments
    and descriptions, which tell how to use it)."""
    text = _read(name)
    if name.endswith(".yml"):
        return [line for line in text.splitlines() if line.lstrip().startswith(("#", "description:"))]
    return re.findall(r"^```[a-z]*\n(.*?)^```", text, re.M | re.S)


@pytest.mark.parametrize("name", DOCS)
def test_no_recipe_installs_pins_or_links_what_exists_only_from_the_first_release(name):
    blocks = _recipes(name)
    assert blocks or name.endswith(".yml")
    for block in blocks:
        for line in block.splitlines():
            # in a doc, a comment may say what the first release changes
            code = line if name.endswith(".yml") else line.split(" # ", 1)[0]
            for pattern in NOT_YET:
                assert not pattern.search(code), f"{name}: {line.strip()}"


def test_the_docs_say_what_changes_with_the_first_release():
    for name in ("README.md", "docs/integrations.md", "docs/pypi.md"):
        assert "first release" in _read(name), name
    readme = _read("README.md")
    assert "pipx install git+https://github.com/fanout-lint/fanout-lint@<commit>" in readme
    assert "uses: fanout-lint/fanout-lint@<commit>" in readme and "rev: <commit>" in readme
    assert "pre-commit try-repo /path/to/your/clone fanout-lint" in readme


def test_the_action_pins_the_actions_it_uses_by_commit():
    action = yaml.safe_load(_read("action.yml"))
    uses = [step["uses"] for step in action["runs"]["steps"] if "uses" in step]
    assert uses
    for ref in uses:
        assert re.fullmatch(r"[\w./-]+@[0-9a-f]{40}", ref), ref


def test_help_package_and_action_name_every_format():
    done = subprocess.run([sys.executable, "-m", "fanout_lint", "--help"], capture_output=True, text=True,
                          timeout=60, env=dict(os.environ, COLUMNS="200"))
    assert done.returncode == 0
    description = re.search(r'^description = "(.*)"$', _read("pyproject.toml"), re.M).group(1)
    action = yaml.safe_load(_read("action.yml"))["description"]
    for text in (done.stdout, description, action):
        for word in ("CloudFormation", "Serverless", "Terraform", "OpenTofu"):
            assert word in text, (word, text[:200])


def test_the_pre_commit_sections_name_opentofu_files():
    readme = _read("README.md")
    section = readme[readme.index("pre-commit (the hook gets"):]
    assert "`.tofu`" in section[:400]
    integrations = _read("docs/integrations.md")
    section = integrations[integrations.index("## pre-commit"):]
    assert "`.tofu`" in section[:600]


def test_the_skipped_example_shows_the_reasons_the_tool_gives():
    text = _read("docs/integrations.md")
    block = text[text.index("fanout-lint: nothing linted; 3 files skipped:"):]
    block = block[:block.index("```")]
    reasons = {line.split(": ", 1)[1] for line in block.splitlines()[1:] if line.strip()}
    known = {e.reason for e in unsupported.NOT_READ_YET + unsupported.BY_CONTENT} | {unsupported.NOT_A_TEMPLATE}
    assert reasons and reasons <= known, reasons - known
    # formats that are read are not said to be skipped
    assert "not read yet" not in text
    assert not re.search(r"serverless\.yml\S*: Serverless", text) and ".tf.json): not read" not in text
