"""A run writes nothing into the installed package: the README's two commands in one clone.

A file written beside the package's modules is not in pip's record of the install, so
``pip uninstall`` leaves it, and the folder it keeps shadows the next, editable, install.
Caches live in the user's cache directory, or nowhere.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

import fanout_lint
import fanout_lint.rules
from repo_paths import ROOT

QUEUE_TF = 'resource "aws_sqs_queue" "q" {\n  name = "q"\n}\n'


def _files_under(*directories: str) -> set[str]:
    return {os.path.join(dirpath, name)
            for directory in directories
            for dirpath, _, names in os.walk(directory)
            for name in names}


def _package_dirs() -> tuple[str, ...]:
    return (os.path.dirname(fanout_lint.__file__), os.path.dirname(fanout_lint.rules.__file__))


def _lint(tmp_path, cache_home: str, name: str = "unit", text: str = QUEUE_TF) -> subprocess.CompletedProcess:
    unit = tmp_path / name
    unit.mkdir(exist_ok=True)
    (unit / "main.tf").write_text(text)
    env = dict(os.environ, XDG_CACHE_HOME=cache_home, PYTHONDONTWRITEBYTECODE="1")
    env.pop("CI", None)  # every cache on
    return subprocess.run([sys.executable, "-m", "fanout_lint", "--format", "json", str(unit)],
                          cwd=str(tmp_path), capture_output=True, text=True, timeout=120, env=env)


def test_an_hcl_lint_writes_nothing_under_the_package_and_its_tables_to_the_cache_dir(tmp_path):
    before = _files_under(*_package_dirs())
    home = tmp_path / "xdg"
    done = _lint(tmp_path, str(home))
    assert done.returncode == 0 and json.loads(done.stdout)["summary"]["units"] == 1, done.stderr
    assert _files_under(*_package_dirs()) == before
    tables = [n for n in os.listdir(home / "fanout-lint") if n.endswith(".lark-cache")]
    assert len(tables) == 1 and tables[0].startswith("hcl-grammar-")
    assert not [n for n in os.listdir(home / "fanout-lint") if n.endswith(".tmp")]
    # the next lint, of a file the parse cache has not seen, needs the parser: it reads the
    # tables the first wrote (under a temporary name, then moved), and does not build them again
    stamp = os.stat(home / "fanout-lint" / tables[0]).st_mtime_ns
    again = _lint(tmp_path, str(home), "other", QUEUE_TF.replace('"q"', '"other"'))
    assert again.returncode == 0 and json.loads(again.stdout)["summary"]["units"] == 1, again.stderr
    assert os.stat(home / "fanout-lint" / tables[0]).st_mtime_ns == stamp
    assert _files_under(*_package_dirs()) == before


def test_an_unwritable_cache_dir_means_no_cache_and_the_same_findings(tmp_path):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    before = _files_under(*_package_dirs())
    done = _lint(tmp_path, str(blocker))
    # against a cache directory with the tables in it (this test's, conftest.py): the
    # session built them once, as a lint builds them
    written = _lint(tmp_path, os.environ["XDG_CACHE_HOME"])
    assert done.returncode == written.returncode == 0, done.stderr
    assert json.loads(done.stdout)["summary"]["units"] == 1
    assert done.stdout == written.stdout and written.stderr == ""
    # the parse cache says once that it is off (parse_cache.py); nothing else is said
    assert done.stderr in ("", f"fanout-lint: warning: the parse cache is off: {blocker}/fanout-lint cannot be read (Not a directory)\n")
    assert _files_under(*_package_dirs()) == before


def test_the_tables_in_the_cache_dir_are_read_again(tmp_path):
    from fanout_lint.loaders.terraform.hcl.parser import grammar_cache_path, parser_grammar

    import lark

    # this test's cache directory (conftest.py) holds the tables the session built once, as
    # the first lint in an empty one writes them (the first test here), and no parsed file:
    # the lint needs the parser
    home = os.environ["XDG_CACHE_HOME"]
    path = grammar_cache_path({"XDG_CACHE_HOME": home}, parser_grammar(), lark.__version__)
    assert path is not None and os.path.isfile(path)
    stamp = os.stat(path).st_mtime_ns
    assert _lint(tmp_path, home).returncode == 0
    assert os.stat(path).st_mtime_ns == stamp  # read, not rebuilt
    # another Lark or grammar gets a file of its own
    assert grammar_cache_path({"XDG_CACHE_HOME": home}, parser_grammar(), "0.0.0") != path


def _readme_commands() -> list[str]:
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as handle:
        block = re.search(r"```sh\n(.*?)```", handle.read(), re.S).group(1)
    return [line for line in block.splitlines() if line.strip()]


@pytest.mark.slow
@pytest.mark.integration
def test_the_readmes_two_commands_in_order_in_one_clone(tmp_path):
    git = shutil.which("git")
    if git is None or not os.path.isdir(os.path.join(ROOT, ".git")) and not os.path.isfile(os.path.join(ROOT, ".git")):
        pytest.skip("needs a git checkout to list the repository's files")
    first, second = _readme_commands()
    assert "pip install ." in first and "pip install -e '.[test]'" in second
    # the clone: the repository's files as they are in this checkout
    listed = subprocess.run([git, "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    clone = tmp_path / "clone"
    for name in filter(None, listed.decode().split("\0")):
        if os.path.isfile(os.path.join(ROOT, name)):
            os.makedirs(os.path.dirname(clone / name), exist_ok=True)
            shutil.copy2(os.path.join(ROOT, name), clone / name)
    # pip's check for a newer pip of its own (an index request on each run) changes no result
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "xdg"), PIP_DISABLE_PIP_VERSION_CHECK="1")
    env.pop("CI", None)
    env.pop("VIRTUAL_ENV", None)

    def run(command: str, cwd) -> subprocess.CompletedProcess:
        return subprocess.run(["bash", "-c", command], cwd=str(cwd), capture_output=True, text=True,
                              timeout=900, env=env)

    done = run(first, clone)
    assert done.returncode == 1, done.stderr[-3000:]  # the broken examples' findings
    assert "examples/broken/terraform/main.tf:" in done.stdout  # Terraform parsed, tables built
    # the second, without the whole suite (it is this suite): its install, then the
    # commands that a leftover folder in site-packages broke. Its test extras are left out
    # of the install here: installing them is what got this suite running (it imports
    # pytest, hypothesis, cfn-lint, pygls), and .ci/run installs them as written in a fresh
    # clone on every landing (test_ci_runs_the_readmes_second_command); what only this test
    # shows is the first command's install becoming the second's editable one in one venv
    install, _, _ = second.rpartition(" && ")
    assert install.count("'.[test]'") == 1
    done = subprocess.run(["bash", "-c", install.replace("'.[test]'", ".")], cwd=str(clone), capture_output=True,
                          text=True, timeout=900, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    site = run(".venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()[\"purelib\"])'", clone)
    assert not os.path.exists(os.path.join(site.stdout.strip(), "fanout_lint")), "left in site-packages"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    version = run(f"{clone}/.venv/bin/fanout-lint --version", elsewhere)
    assert version.returncode == 0 and fanout_lint.__version__ in version.stdout, version.stderr[-3000:]
    where = run(f"{clone}/.venv/bin/python -c 'import fanout_lint; print(fanout_lint.__file__)'", elsewhere)
    assert where.stdout.strip() == str(clone / "fanout_lint" / "__init__.py")
    again = run(f"{clone}/.venv/bin/fanout-lint {clone}/examples/clean", elsewhere)
    assert again.returncode == 0, again.stdout + again.stderr[-3000:]


def test_ci_runs_the_readmes_second_command():
    """CI (.ci/run) installs the project and runs the tests exactly as the README's second
    command does, so the test extras' install the README test leaves out runs as written
    on every landing."""
    _, second = _readme_commands()
    install, _, tests = second.rpartition(" && ")
    with open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8") as handle:
        lines = [line.strip() for line in handle if line.strip() and not line.lstrip().startswith("#")]
    assert "rm -rf .venv" in lines  # a fresh environment, as on a fresh machine
    assert install in lines and tests in lines
    assert lines.index("rm -rf .venv") < lines.index(install) < lines.index(tests)


def test_grammar_tables_are_used_only_from_a_directory_and_file_of_the_users_alone(tmp_path):
    """Lark reads its tables with pickle: a file someone else could write would run their code."""
    import lark

    from fanout_lint.loaders.terraform.hcl.parser import grammar_cache_path, parser_grammar

    home = tmp_path / "xdg"
    environ = {"XDG_CACHE_HOME": str(home)}
    path = grammar_cache_path(environ, parser_grammar(), lark.__version__)
    assert path is not None and os.path.dirname(path) == str(home / "fanout-lint")
    assert os.stat(home / "fanout-lint").st_mode & 0o077 == 0  # made private
    with open(path, "wb") as handle:
        handle.write(b"tables")
    os.chmod(path, 0o666)  # writable by others: not trusted
    assert grammar_cache_path(environ, parser_grammar(), lark.__version__) is None
    os.remove(path)
    os.symlink(tmp_path / "elsewhere", path)  # a link: not followed
    assert grammar_cache_path(environ, parser_grammar(), lark.__version__) is None
    os.remove(path)
    os.chmod(home / "fanout-lint", 0o777)  # a directory others can write: no tables at all
    assert grammar_cache_path(environ, parser_grammar(), lark.__version__) is None
    os.chmod(home / "fanout-lint", 0o700)
    assert grammar_cache_path(environ, parser_grammar(), lark.__version__) == path
