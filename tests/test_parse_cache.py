"""The cache of parsed Terraform files: what it returns is what a parse returns, and
whatever state it is in, a run's output is the same."""

from __future__ import annotations

import os

import pytest

from fanout_lint import cli
from fanout_lint.loaders import hcl_syntax, terraform_modules
from fanout_lint.loaders.hcl_parser import syntax_fingerprint
from fanout_lint.loaders.hcl_syntax import parse_hcl
from fanout_lint.parse_cache import ParseCache, _trim, open_cache, user_cache_dir

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")

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
    return sorted(p for p in root.rglob("*") if p.is_file())


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
            import pickle

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
    monkeypatch.setattr("fanout_lint.parse_cache.MEMORY_BYTES", 100)
    cache = ParseCache(None)
    def unused():
        raise AssertionError("no directory: no version needed")

    for index in range(10):
        cache.put("n", bytes([index]) * 30, unused, index)
    assert cache.get("n", bytes([9]) * 30, unused) == 9 and cache.get("n", bytes([7]) * 30, unused) == 7
    assert cache.get("n", bytes([6]) * 30, unused) is None  # the oldest were dropped
    assert cache._memory_bytes <= 100
    import pickle

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
    assert sorted(os.listdir(tmp_path)) == ["v-hcl-new"]


def test_the_namespace_changes_with_what_the_parse_depends_on(monkeypatch):
    before = syntax_fingerprint()
    assert len(before) == 32 and before == syntax_fingerprint()
    syntax_fingerprint.cache_clear()
    monkeypatch.setattr("fanout_lint.loaders.hcl_parser.__version__", "0.0.0-other")
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
    monkeypatch.setattr("fanout_lint.parse_cache.MAX_BYTES", 16 * 1024)  # 1 KiB a shard
    cache = ParseCache(str(tmp_path))
    for index in range(200):
        cache.put("n", str(index).encode(), lambda: "v", "x" * 200)
    total = sum(p.stat().st_size for p in tmp_path.rglob("*") if p.is_file())
    assert total <= 16 * 1024
    cache.put("n", b"too large", lambda: "v", "x" * 4096)  # larger than a shard: not stored
    assert ParseCache(str(tmp_path)).get("n", b"too large", lambda: "v") is None
