"""What the server keeps between lints: link facts by their bytes, and the overlay of
unsaved buffers. Neither needs the server's libraries."""

from __future__ import annotations

import os

from fanout_lint.run import link_plan as applications
from fanout_lint.run.link_plan import Application, plan
from fanout_lint.run.discover import discover
from fanout_lint.files.regular_files import overlaid, read_bounded
from fanout_lint.server.memo import FactsMemo

PRODUCER = """\
Resources:
  Q: {Type: AWS::SQS::Queue}
Outputs:
  Arn: {Value: !GetAtt Q.Arn, Export: {Name: orders}}
"""
CONSUMER = """\
Resources:
  M:
    Type: AWS::Lambda::EventSourceMapping
    Properties: {EventSourceArn: !ImportValue orders, FunctionName: f}
"""


def _repo(tmp_path, count: int = 3):
    (tmp_path / ".git").mkdir()
    (tmp_path / "producer.yaml").write_text(PRODUCER)
    for index in range(count):
        (tmp_path / f"consumer{index}.yaml").write_text(CONSUMER)
    return tmp_path


def _plan(tmp_path, memo, named="consumer0.yaml"):
    path = str(tmp_path / named)
    return plan(discover([path])[0], [path], (), str(tmp_path), False, memo)


def _counted(monkeypatch) -> list[str]:
    read: list[str] = []
    original = applications._facts_of

    def counting(path, *args):
        read.append(os.path.basename(path))
        return original(path, *args)

    monkeypatch.setattr(applications, "_facts_of", counting)
    return read


def test_a_second_plan_reads_the_facts_of_the_changed_file_only(tmp_path, monkeypatch):
    root = _repo(tmp_path)
    read = _counted(monkeypatch)
    memo = FactsMemo()
    first = _plan(root, memo)
    assert sorted(read) == ["consumer0.yaml", "consumer1.yaml", "consumer2.yaml", "producer.yaml"]
    read.clear()
    (root / "consumer1.yaml").write_text(CONSUMER.replace("FunctionName: f", "FunctionName: g"))
    second = _plan(root, memo)
    assert read == ["consumer1.yaml"]
    for work in (first, second):
        [app] = [w for w in work if isinstance(w, Application)]
        assert len(app.paths) == 4


def test_the_plan_with_a_memo_is_the_plan_without(tmp_path):
    root = _repo(tmp_path)
    memo = FactsMemo()
    _plan(root, memo)

    def shape(work):
        return [sorted(os.path.basename(t) for t in w.paths) if isinstance(w, Application) else w.path
                for w in work]

    assert shape(_plan(root, memo)) == shape(_plan(root, None))


def test_the_memo_holds_at_most_its_bytes_least_recently_used_out():
    memo = FactsMemo(max_bytes=10)
    memo[("a", b"12345")] = 1
    memo[("b", b"12345")] = 2
    assert memo.get(("a", b"12345")) == 1  # a is now the most recent
    memo[("c", b"1")] = 3
    assert memo.get(("b", b"12345")) is None and memo.get(("a", b"12345")) == 1 and len(memo) == 2
    memo[("big", b"x" * 11)] = 4
    assert memo.get(("big", b"x" * 11)) is None


def test_an_overlay_is_the_content_of_its_files_for_the_block_and_this_thread_only(tmp_path):
    import threading

    path = tmp_path / "stack.yaml"
    path.write_bytes(b"disk")
    seen: list[bytes] = []
    with overlaid({os.path.realpath(path): b"buffer"}):
        assert read_bounded(str(path), 100) == b"buffer"
        other = threading.Thread(target=lambda: seen.append(read_bounded(str(path), 100)))
        other.start()
        other.join()
    assert seen == [b"disk"]
    assert read_bounded(str(path), 100) == b"disk"


def test_an_overlaid_file_reached_through_a_link_of_another_name_is_the_overlay(tmp_path):
    path = tmp_path / "stack.yaml"
    path.write_bytes(b"disk")
    (tmp_path / "other-name.yaml").symlink_to(path)
    with overlaid({os.path.realpath(path): b"buffer"}):
        assert read_bounded(str(tmp_path / "other-name.yaml"), 100) == b"buffer"


def _reader(calls: list[str]):
    def read(path: str) -> bytes:
        calls.append(os.path.basename(path))
        return read_bounded(path, 1 << 20, follow=False)

    return read


def test_a_files_bytes_are_read_again_only_when_it_is_written(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text(PRODUCER)
    memo, calls = FactsMemo(), []
    first, derived = memo.file(str(path), _reader(calls))
    derived["marks"] = "kept"
    again, derived_again = memo.file(str(path), _reader(calls))
    assert calls == ["t.yaml"] and again is first and derived_again == {"marks": "kept"}
    path.write_text(PRODUCER.replace("orders", "orderz"))  # same size: the times and ctime tell
    changed, derived_changed = memo.file(str(path), _reader(calls))
    assert calls == ["t.yaml", "t.yaml"] and b"orderz" in changed and derived_changed == {}


def test_an_overlaid_or_linked_file_is_never_kept(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text(PRODUCER)
    os.symlink(path, tmp_path / "link.yaml")
    memo, calls = FactsMemo(), []
    with overlaid({str(path.resolve()): b"unsaved"}):
        assert memo.file(str(path), _reader(calls))[0] == b"unsaved"
    assert memo.file(str(path), _reader(calls))[0] == PRODUCER.encode()  # the disk again, read
    def refusing(path: str) -> bytes:  # as the scan reads: a link is no file to it
        calls.append(os.path.basename(path))
        return b""

    memo.file(str(tmp_path / "link.yaml"), refusing)
    memo.file(str(tmp_path / "link.yaml"), refusing)
    assert calls == ["t.yaml", "t.yaml", "link.yaml", "link.yaml"]


def test_the_kept_bytes_are_bounded_least_recently_used_out(tmp_path):
    for name in ("a", "b", "c"):
        (tmp_path / name).write_bytes(b"x" * 6)
    memo, calls = FactsMemo(max_file_bytes=12), []
    for name in ("a", "b", "a", "c", "a", "b"):
        memo.file(str(tmp_path / name), _reader(calls))
    assert calls == ["a", "b", "c", "b"]  # c pushed b out; a, used again, stayed
