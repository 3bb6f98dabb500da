"""The HCL parser's tables, kept in the user's cache directory: built by one run, loaded by
every later one, wherever the file is (hcl/parser.py)."""

from __future__ import annotations

import os

import lark
import pytest

from fanout_lint.loaders.terraform.hcl import parser as hcl_parser

TEXT = 'resource "aws_sqs_queue" "q" {\n  delay_seconds = 1\n    + 2\n}\n'


@pytest.fixture
def fresh_parser():
    """parser() as a new process meets it; the next test gets a parser of its own."""
    hcl_parser.parser.cache_clear()
    yield hcl_parser.parser
    hcl_parser.parser.cache_clear()


def _tables(home) -> str | None:
    return hcl_parser.grammar_cache_path({"XDG_CACHE_HOME": str(home)}, hcl_parser.parser_grammar(),
                                         lark.__version__)


def _never_build(*args, **kwargs):
    raise AssertionError("the tables were built again")


def test_tables_built_once_are_loaded_by_the_next_run_and_from_another_directory(tmp_path, monkeypatch,
                                                                               fresh_parser):
    # One build (over a second) serves the whole test: a file that does not load (cut short
    # by a full disk) is built again and replaced, and what replaced it, written under a
    # temporary name and moved into place, is loaded by every later run, wherever it is.
    first = tmp_path / "first"
    monkeypatch.setenv("XDG_CACHE_HOME", str(first))
    path = _tables(first)  # the directory is made on the way
    assert path is not None
    with open(path, "wb") as handle:
        handle.write(b"cut short")
    previous = os.umask(0o002)  # a group-writable umask, as on many desktops
    try:
        expected = fresh_parser().parse(TEXT)
    finally:
        os.umask(previous)
    assert expected.data == "start"
    with open(path, "rb") as handle:
        assert lark.Lark.load(handle).parse(TEXT) == expected
    assert not [n for n in os.listdir(first / "fanout-lint") if n.endswith(".tmp")]
    assert os.stat(path).st_mode & 0o077 == 0  # the user's alone, whatever the umask
    # Lark's own cache check hashed the file's path: a file written under a temporary name
    # and moved into place, or linked into another directory, was built again
    monkeypatch.setattr(lark.Lark, "__init__", _never_build)
    fresh_parser.cache_clear()
    assert fresh_parser().parse(TEXT) == expected
    other = tmp_path / "other"
    (other / "fanout-lint").mkdir(parents=True, mode=0o700)
    os.link(path, _tables(other))
    monkeypatch.setenv("XDG_CACHE_HOME", str(other))
    fresh_parser.cache_clear()
    assert fresh_parser().parse(TEXT) == expected
