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
    first = tmp_path / "first"
    monkeypatch.setenv("XDG_CACHE_HOME", str(first))
    expected = fresh_parser().parse(TEXT)
    path = _tables(first)
    assert path is not None and os.path.isfile(path)
    assert not [n for n in os.listdir(first / "fanout-lint") if n.endswith(".tmp")]
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


def test_tables_that_do_not_load_are_built_again_and_replaced(tmp_path, monkeypatch, fresh_parser):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    path = _tables(tmp_path)  # the directory is made on the way
    with open(path, "wb") as handle:
        handle.write(b"cut short")
    tree = fresh_parser().parse(TEXT)
    assert tree.data == "start"
    with open(path, "rb") as handle:
        assert lark.Lark.load(handle).parse(TEXT) == tree
