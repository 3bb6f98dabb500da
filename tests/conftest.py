import compileall
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(__file__))

import pytest

from repo_paths import ROOT


def pytest_configure(config: pytest.Config) -> None:
    """Where PYTHONDONTWRITEBYTECODE is set (as on this project's machines), every
    fanout-lint process a test starts would compile the whole package from source again:
    0.15 s each, about 130 times a run. The run compiles the package's own
    modules once, where any interpreter looks for them (``__pycache__``, ignored by git),
    as a first import without the variable would; the installed dependencies have theirs
    from pip. (A PYTHONPYCACHEPREFIX would hide those, and compile all of cfn-lint again
    in every process.)"""
    if not sys.flags.dont_write_bytecode or hasattr(config, "workerinput"):
        return
    for top in ("fanout_lint", "rules"):
        compileall.compile_dir(os.path.join(ROOT, top), quiet=2)


@pytest.fixture(scope="session")
def _grammar_tables(tmp_path_factory) -> list[str]:
    """The HCL parser's tables, built once for the session (over a second each time) in a
    cache directory of its own; this process's parser is built with them."""
    home = tmp_path_factory.mktemp("xdg-grammar")
    before = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(home)
    try:
        from fanout_lint.loaders.terraform.hcl.parser import parser

        parser()
    except (ImportError, OSError):  # no python-hcl2 or Lark: the tests that need them say so
        pass
    finally:
        if before is None:
            del os.environ["XDG_CACHE_HOME"]
        else:
            os.environ["XDG_CACHE_HOME"] = before
    directory = home / "fanout-lint"
    return [str(p) for p in directory.glob("*.lark-cache")] if directory.is_dir() else []


@pytest.fixture(autouse=True)
def _private_cache_dir(tmp_path_factory, monkeypatch, _grammar_tables):
    """Each test's runs cache parsed files in a directory of their own, never the user's:
    tests stay hermetic, and a cache left by one test cannot decide another. The parser's
    tables, which depend on the installed grammar and Lark alone, are linked in, so that
    each fanout-lint process a test starts does not build them again."""
    home = tmp_path_factory.mktemp("xdg-cache")
    if _grammar_tables:
        (home / "fanout-lint").mkdir()
    for tables in _grammar_tables:
        target = home / "fanout-lint" / os.path.basename(tables)
        try:
            os.link(tables, target)
        except OSError:
            shutil.copyfile(tables, target)
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))


def _schedule_rank(item: pytest.Item) -> int:
    """Where a test goes in the run: those that build an environment or run another tool
    for long first, then the other slow ones, the other integration tests, the rest."""
    slow = item.get_closest_marker("slow") is not None
    integration = item.get_closest_marker("integration") is not None
    return (0 if integration else 1) if slow else (2 if integration else 3)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # -n auto hands the modules out in the order of their first test (pyproject.toml:
    # --dist loadfile --no-loadscope-reorder), one at a time as the workers finish: with
    # the longest first, the workers finish together instead of one running the last
    # long module alone. A stable sort: within a rank, the collection's order.
    items.sort(key=_schedule_rank)
