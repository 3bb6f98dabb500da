"""The cache of parsed Terraform files: what it returns is what a parse returns, and
whatever state it is in, a run's output is the same."""

from __future__ import annotations

import glob
import json
import os
import pickle
import shutil
import stat
import subprocess
import sys

import pytest

from fanout_lint.cli import main as cli
from fanout_lint.loaders.terraform.hcl import syntax as hcl_syntax
from fanout_lint.loaders.terraform import modules as terraform_modules
from fanout_lint.loaders.terraform.hcl.parser import syntax_fingerprint
from fanout_lint.loaders.terraform.hcl.syntax import parse_hcl
from fanout_lint.loaders.terraform.hcl.tree_data import file_from_data, file_to_data
from fanout_lint.loaders.parsing.parse_cache import ParseCache, _trim, directory_problem, open_cache, user_cache_dir
from repo_paths import TESTS

FIXTURES = os.path.join(TESTS, "fixtures")

MAIN_TF = """\
resource "aws_sns_topic" "t" {
  name = "t"
}

# fanout-lint: ignore[FL101] reason
resource "aws_sqs_queue" "q" {
  visibility_timeout_seconds = 30
  policy = jsonencode({ Statement = [{ Effect = "Allow", Resource = "*" }] })
}

resource "aws_sns_topic_subscription" "s" {
  topic_arn = aws_sns_topic.t.arn
  protocol  = "sqs"
  endpoint  = aws_sqs_queue.q.arn
}
"""


@pytest.fixture
def cache_home(tmp_path, monkeypatch):
    monkeypatch.delenv("CI", raising=False)  # the cache is off in CI; these tests turn it on
    home = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    return home / "fanout-lint"


def _unit(tmp_path, files=None):
    unit = tmp_path / "unit"
    unit.mkdir()
    for name, text in (files or {"main.tf": MAIN_TF, "other.tf": 'variable "v" {\n  default = 1\n}\n'}).items():
        (unit / name).write_text(text)
    return unit


def _run(capsys, *args) -> tuple[int, str]:
    code = cli.main(["check", "--format", "json", "-j", "1", *args])
    return code, capsys.readouterr().out


def _entries(root) -> list:
    # the parser's tables share the directory (hcl_parser.py); they are not entries
    return sorted(p for p in root.rglob("*") if p.is_file() and not p.name.endswith(".lark-cache"))


def test_a_cached_parse_is_the_parse(tmp_path):
    cache = ParseCache(str(tmp_path / "c"))
    data = MAIN_TF.encode()
    fresh = terraform_modules._parsed(cache, data, MAIN_TF, "a/main.tf")
    cached = terraform_modules._parsed(cache, data, MAIN_TF, "b/main.tf")
    assert cached is not fresh
    assert cached.path == "b/main.tf"  # the same bytes in another file
    # repr shows every field, positions that equality leaves out included
    assert repr(cached) == repr(parse_hcl(MAIN_TF, "b/main.tf"))


def test_the_second_run_parses_nothing_and_says_the_same(tmp_path, capsys, cache_home, monkeypatch):
    unit = _unit(tmp_path)
    first = _run(capsys, str(unit))
    assert len(_entries(cache_home)) == 2

    def no_parsing(text, path):
        raise AssertionError(f"parsed {path} again")

    monkeypatch.setattr(hcl_syntax, "parse_hcl", no_parsing)
    assert _run(capsys, str(unit)) == first


def test_only_the_changed_file_is_parsed_again(tmp_path, capsys, cache_home, monkeypatch):
    unit = _unit(tmp_path)
    _run(capsys, str(unit))
    (unit / "other.tf").write_text('variable "v" {\n  default = 2\n}\n')
    parsed = []

    def counting(text, path):
        parsed.append(os.path.basename(path))
        return parse_hcl(text, path)

    monkeypatch.setattr(hcl_syntax, "parse_hcl", counting)
    _, out = _run(capsys, str(unit / "other.tf"))  # as pre-commit names a changed file
    assert parsed == ["other.tf"]
    monkeypatch.setattr(hcl_syntax, "parse_hcl", parse_hcl)
    assert out == _run(capsys, "--no-cache", str(unit))[1]


@pytest.mark.parametrize("damage", [b"", b"garbage", b"\x80\x04\x95 truncated pickle", None])
def test_a_damaged_entry_is_a_miss(tmp_path, capsys, cache_home, damage):
    unit = _unit(tmp_path)
    expected = _run(capsys, "--no-cache", str(unit))
    _run(capsys, str(unit))
    for entry in _entries(cache_home):
        if damage is None:  # a pickle of something else
            entry.write_bytes(pickle.dumps({"not": "an HclFile"}))
        else:
            entry.write_bytes(damage)
    assert _run(capsys, str(unit)) == expected
    assert _run(capsys, str(unit)) == expected  # and the entries were written again


def test_an_unwritable_cache_is_no_cache(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    unit = _unit(tmp_path)
    expected = _run(capsys, "--no-cache", str(unit))
    assert _run(capsys, str(unit)) == expected
    assert blocker.read_text() == "not a directory"


def test_no_cache_and_ci_write_nothing(tmp_path, capsys, cache_home, monkeypatch):
    unit = _unit(tmp_path)
    _run(capsys, "--no-cache", str(unit))
    assert not cache_home.exists()
    monkeypatch.setenv("CI", "true")
    _run(capsys, str(unit))
    assert not cache_home.exists()
    assert open_cache({"CI": "true"}) == ParseCache(None)
    assert open_cache({"CI": "false", "XDG_CACHE_HOME": "/x"}) == ParseCache("/x/fanout-lint")


def test_a_module_called_many_times_is_parsed_once(tmp_path, capsys, monkeypatch):
    unit = _unit(tmp_path, {"main.tf": "".join(
        f'module "m{i}" {{\n  source = "./mod"\n}}\n' for i in range(5))})
    (unit / "mod").mkdir()
    (unit / "mod" / "queue.tf").write_text('resource "aws_sqs_queue" "q" {\n  name = "q"\n}\n')
    parsed = []

    def counting(text, path):
        parsed.append(os.path.relpath(path, unit))
        return parse_hcl(text, path)

    monkeypatch.setattr(hcl_syntax, "parse_hcl", counting)
    _, out = _run(capsys, "--no-cache", str(unit))
    assert sorted(parsed) == ["main.tf", os.path.join("mod", "queue.tf")]
    assert out.count("module.m4.aws_sqs_queue.q") == out.count("module.m0.aws_sqs_queue.q")


def test_memory_is_bounded(monkeypatch):
    monkeypatch.setattr("fanout_lint.loaders.parsing.parse_cache.MEMORY_BYTES", 100)
    cache = ParseCache(None)
    def unused():
        raise AssertionError("no directory: no version needed")

    for index in range(10):
        cache.put("n", bytes([index]) * 30, unused, index)
    assert cache.get("n", bytes([9]) * 30, unused) == 9 and cache.get("n", bytes([7]) * 30, unused) == 7
    assert cache.get("n", bytes([6]) * 30, unused) is None  # the oldest were dropped
    assert cache._memory_bytes <= 100
    assert pickle.loads(pickle.dumps(cache))._memory_bytes == 0  # a worker starts empty


def test_the_cache_directory_follows_xdg():
    assert user_cache_dir({"XDG_CACHE_HOME": "/x"}) == "/x/fanout-lint"
    home = os.path.expanduser("~")
    assert user_cache_dir({}) == os.path.join(home, ".cache", "fanout-lint")
    assert user_cache_dir({"XDG_CACHE_HOME": "relative"}) == os.path.join(home, ".cache", "fanout-lint")


def test_entries_of_another_version_are_never_read_and_are_removed(tmp_path):
    ParseCache(str(tmp_path)).put("hcl", b"bytes", lambda: "old", "from an older version")
    cache = ParseCache(str(tmp_path))
    assert cache.get("hcl", b"bytes", lambda: "new") is None
    cache.put("hcl", b"bytes", lambda: "new", "current")
    assert ParseCache(str(tmp_path)).get("hcl", b"bytes", lambda: "new") == "current"
    assert sorted(os.listdir(tmp_path)) == ["v-hcl-new.1"]


def test_the_namespace_changes_with_what_the_parse_depends_on(monkeypatch):
    before = syntax_fingerprint()
    assert len(before) == 32 and before == syntax_fingerprint()
    syntax_fingerprint.cache_clear()
    monkeypatch.setattr("fanout_lint.loaders.terraform.hcl.parser.__version__", "0.0.0-other")
    try:
        assert syntax_fingerprint() != before
    finally:
        syntax_fingerprint.cache_clear()


def test_a_shard_is_trimmed_oldest_first(tmp_path):
    shard = tmp_path / "s"
    shard.mkdir()
    for age, name in enumerate(["old", "mid", "new"]):
        (shard / name).write_bytes(b"x" * 100)
        os.utime(shard / name, (1000 + age, 1000 + age))
    _trim(str(shard), 250)
    assert sorted(os.listdir(shard)) == ["mid", "new"]
    _trim(str(shard), 100)
    assert os.listdir(shard) == ["new"]


def test_the_cache_stays_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr("fanout_lint.loaders.parsing.parse_cache.MAX_BYTES", 16 * 1024)  # 1 KiB a shard
    cache = ParseCache(str(tmp_path))
    for index in range(200):
        cache.put("n", str(index).encode(), lambda: "v", "x" * 200)
    total = sum(p.stat().st_size for p in tmp_path.rglob("*") if p.is_file())
    assert total <= 16 * 1024
    cache.put("n", b"too large", lambda: "v", "x" * 4096)  # larger than a shard: not stored
    assert ParseCache(str(tmp_path)).get("n", b"too large", lambda: "v") is None


# -- the cache is data, not code -------------------------------------------------------

class _Planted:
    """Unpickled, writes ``marker``: what an attacker who can write the cache would plant."""

    def __init__(self, marker: str):
        self.marker = marker

    def __reduce__(self):
        return (exec, (f"open({self.marker!r}, 'w').write('ran')",))


def _counting_parses(monkeypatch) -> list:
    parsed = []

    def counting(text, path):
        parsed.append(os.path.basename(path))
        return parse_hcl(text, path)

    monkeypatch.setattr(hcl_syntax, "parse_hcl", counting)
    return parsed


def test_every_parsed_fixture_comes_back_from_its_data_as_it_was():
    files = sorted(glob.glob(os.path.join(FIXTURES, "**", "*.tf"), recursive=True))
    assert len(files) > 20
    compared = 0
    for file in files:
        with open(file, encoding="utf-8") as handle:
            text = handle.read()
        try:
            parsed = parse_hcl(text, file)
        except Exception:  # fixtures of files that do not parse
            continue
        back = file_from_data(json.loads(json.dumps(file_to_data(parsed))), file)
        assert repr(back) == repr(parsed), file  # repr shows positions too
        compared += 1
    assert compared > 20


@pytest.mark.parametrize("forged", [
    [], {}, "text", [[[], []]], [[[], []], [], []],
    [[[["a", ["L", {"a": 1}], 1, 1, None]], []], []],  # a literal no parse makes
    [[[["a", ["X", 1], 1, 1, None]], []], []],  # no such expression
    [[[["a", ["L", 1], "1", 1, None]], []], []],  # a line that is no int
    [[[["a", ["L", 1], True, 1, None]], []], []],
    [[[["a", ["L", 1], 1, 1, [1, 2, 3]]], []], []],  # a position of three
    [[[], [["resource", "ab", [[], []], 1, 2, 1, 2, [1, 2]]]], []],  # labels as a string
    [[[], []], [["1", "text"]]],
])
def test_data_no_parse_makes_is_refused(forged):
    with pytest.raises((ValueError, TypeError, KeyError)):
        file_from_data(forged, "main.tf")


def test_a_pickle_at_an_entry_runs_nothing(tmp_path, capsys, cache_home, monkeypatch):
    unit = _unit(tmp_path)
    expected = _run(capsys, "--no-cache", str(unit))
    _run(capsys, str(unit))
    marker = tmp_path / "marker"
    payload = pickle.dumps(_Planted(str(marker)))
    pickle.loads(payload)  # the payload works:
    assert marker.read_text() == "ran"
    marker.unlink()
    for entry in _entries(cache_home):
        entry.write_bytes(payload)
    parsed = _counting_parses(monkeypatch)
    assert _run(capsys, str(unit)) == expected
    assert not marker.exists()
    assert sorted(parsed) == ["main.tf", "other.tf"]  # ignored, and parsed again
    for entry in _entries(cache_home):  # and written again, as data
        assert entry.read_bytes().startswith(b"fanout-lint-parse-cache/1 ")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_fifo_at_an_entry_does_not_hang_the_run(tmp_path, cache_home, _grammar_tables):
    unit = _unit(tmp_path)
    # The parser's tables beside the entries, as in every other directory the suite's
    # processes use: without them each process below builds them, over a second apiece.
    cache_home.mkdir(parents=True, mode=0o700)
    for tables in _grammar_tables:
        try:
            os.link(tables, cache_home / os.path.basename(tables))
        except OSError:
            shutil.copyfile(tables, cache_home / os.path.basename(tables))
    environ = {**os.environ, "XDG_CACHE_HOME": str(cache_home.parent)}
    environ.pop("CI", None)
    command = [sys.executable, "-m", "fanout_lint", "check", "--format", "json", "-j", "1", str(unit)]
    first = subprocess.run(command, env=environ, capture_output=True, timeout=120)
    entries = _entries(cache_home)
    assert len(entries) == 2
    for entry in entries:
        entry.unlink()
        os.mkfifo(entry)
    # a generous bound: the run takes a second; a FIFO opened for reading waits forever
    again = subprocess.run(command, env=environ, capture_output=True, timeout=120)
    assert again.stdout == first.stdout and again.returncode == first.returncode
    assert all(stat.S_ISREG(os.lstat(e).st_mode) for e in entries)  # replaced by entries


@pytest.mark.parametrize("mode", [0o770, 0o707, 0o777])
def test_a_cache_directory_others_can_write_is_not_used(tmp_path, capsys, cache_home, monkeypatch, mode):
    unit = _unit(tmp_path)
    expected = _run(capsys, "--no-cache", str(unit))
    _run(capsys, str(unit))
    before = {e: e.read_bytes() for e in _entries(cache_home)}
    cache_home.chmod(mode)
    parsed = _counting_parses(monkeypatch)
    code = cli.main(["check", "--format", "json", "-j", "1", str(unit)])
    captured = capsys.readouterr()
    assert (code, captured.out) == expected
    assert sorted(parsed) == ["main.tf", "other.tf"]  # nothing read
    warnings = [line for line in captured.err.splitlines() if "parse cache" in line]
    assert warnings == [f"fanout-lint: warning: the parse cache is off: {cache_home} is writable by group or "
                        "others (chmod go-w, or remove it)"]
    assert {e: e.read_bytes() for e in _entries(cache_home)} == before  # nothing written
    cache_home.chmod(0o700)
    assert directory_problem(str(cache_home)) is None


def test_a_cache_directory_that_is_a_file_is_not_used(tmp_path):
    blocker = tmp_path / "fanout-lint"
    blocker.write_text("")
    told = []
    assert open_cache({"XDG_CACHE_HOME": str(tmp_path)}, warn=told.append) == ParseCache(None)
    assert told == [f"the parse cache is off: {blocker} is not a directory"]


def test_entries_and_their_directories_are_private(tmp_path, capsys, cache_home):
    unit = _unit(tmp_path)
    _run(capsys, str(unit))
    entries = _entries(cache_home)
    assert entries and all(stat.S_IMODE(e.stat().st_mode) == 0o600 for e in entries)
    directories = {cache_home} | {p for e in entries for p in (e.parent, e.parent.parent)}
    assert all(stat.S_IMODE(d.stat().st_mode) == 0o700 for d in directories)
    assert not list(cache_home.rglob("*.tmp"))


def test_a_truncated_entry_is_a_miss_and_written_again(tmp_path, capsys, cache_home, monkeypatch):
    unit = _unit(tmp_path)
    expected = _run(capsys, "--no-cache", str(unit))
    _run(capsys, str(unit))
    whole = {e: e.read_bytes() for e in _entries(cache_home)}
    for entry, data in whole.items():
        entry.write_bytes(data[: len(data) // 2])
    parsed = _counting_parses(monkeypatch)
    assert _run(capsys, str(unit)) == expected
    assert sorted(parsed) == ["main.tf", "other.tf"]
    assert {e: e.read_bytes() for e in _entries(cache_home)} == whole


def test_an_entry_of_other_bytes_is_a_miss(tmp_path, capsys, cache_home, monkeypatch):
    """An entry moved to another's path has the other's key: it is not read as this file."""
    unit = _unit(tmp_path, {"main.tf": MAIN_TF, "other.tf": MAIN_TF.replace("= 30", "= 31")})
    expected = _run(capsys, "--no-cache", str(unit))
    _run(capsys, str(unit))
    first, second = _entries(cache_home)
    first_bytes, second_bytes = first.read_bytes(), second.read_bytes()
    first.write_bytes(second_bytes)
    second.write_bytes(first_bytes)
    parsed = _counting_parses(monkeypatch)
    assert _run(capsys, str(unit)) == expected
    assert sorted(parsed) == ["main.tf", "other.tf"]


def test_an_oversized_entry_is_a_miss(tmp_path, capsys, cache_home, monkeypatch):
    unit = _unit(tmp_path)
    expected = _run(capsys, "--no-cache", str(unit))
    _run(capsys, str(unit))
    whole = {e: e.read_bytes() for e in _entries(cache_home)}
    for entry, data in whole.items():  # still a valid entry: JSON allows trailing blanks
        entry.write_bytes(data + b" " * (4 * 1024 * 1024))
    parsed = _counting_parses(monkeypatch)
    assert _run(capsys, str(unit)) == expected
    assert sorted(parsed) == ["main.tf", "other.tf"]
    assert {e: e.read_bytes() for e in _entries(cache_home)} == whole


@pytest.mark.skipif(not hasattr(os, "O_NOFOLLOW"), reason="POSIX")
def test_a_link_at_an_entry_is_not_followed(tmp_path, capsys, cache_home, monkeypatch):
    unit = _unit(tmp_path)
    _run(capsys, str(unit))
    for index, entry in enumerate(_entries(cache_home)):
        target = tmp_path / f"elsewhere{index}"
        target.write_bytes(entry.read_bytes())
        entry.unlink()
        entry.symlink_to(target)
    parsed = _counting_parses(monkeypatch)
    _run(capsys, str(unit))
    assert sorted(parsed) == ["main.tf", "other.tf"]
    assert not [e for e in cache_home.rglob("*") if e.is_symlink()]  # replaced, not written through
