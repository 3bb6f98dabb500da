"""``fanout-lint server`` end to end: the server started as an editor starts it, spoken
to over stdio by the small client in ``lsp_client.py``."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading

import pytest

from repo_paths import ROOT

pytest.importorskip("pygls")

from lsp_client import Client, apply, uri  # noqa: E402

PRODUCER = """\
AWSTemplateFormatVersion: "2010-09-09"
Resources:
  OrdersQueue:
    Type: AWS::SQS::Queue
    Properties:
      VisibilityTimeout: 60
      RedrivePolicy: {deadLetterTargetArn: !GetAtt OrdersDLQ.Arn, maxReceiveCount: 5}
  OrdersDLQ:
    Type: AWS::SQS::Queue
    Properties:
      MessageRetentionPeriod: 1209600
Outputs:
  OrdersQueueArn:
    Value: !GetAtt OrdersQueue.Arn
    Export: {Name: orders-queue-arn}
"""

CONSUMER = """\
AWSTemplateFormatVersion: "2010-09-09"
Resources:
  Consumer:
    Type: AWS::Lambda::Function
    Properties:
      Timeout: 300
  Mapping:
    Type: AWS::Lambda::EventSourceMapping
    Properties:
      EventSourceArn:
        Fn::ImportValue: orders-queue-arn
      FunctionName: !Ref Consumer
      FunctionResponseTypes: [ReportBatchItemFailures]
"""


@pytest.fixture
def app(tmp_path):
    (tmp_path / ".git").mkdir()  # the repository the stacks link in
    (tmp_path / "producer.yaml").write_text(PRODUCER, encoding="utf-8")
    (tmp_path / "consumer.yaml").write_text(CONSUMER, encoding="utf-8")
    return tmp_path


@pytest.fixture
def client(app):
    started = Client(app)
    yield started
    started.kill()


def _rules(diagnostics) -> list[str]:
    return sorted(d["code"] for d in diagnostics)


def _has(code):
    return lambda diagnostics: code in _rules(diagnostics)


def _lacks(code):
    return lambda diagnostics: code not in _rules(diagnostics)


def test_initialize_advertises_code_actions_and_exit_after_shutdown_is_clean(client, app):
    capabilities = client.initialize([app])["capabilities"]
    assert capabilities["codeActionProvider"]["codeActionKinds"] == ["quickfix", "source.fixAll.fanout-lint"]
    assert capabilities["textDocumentSync"]["openClose"] is True
    assert client.close() == 0


def test_exit_without_shutdown_is_exit_code_1(client, app):
    client.initialize([app])
    client.notify("exit", None)
    assert client.process.wait(timeout=20) == 1


def test_a_cross_stack_finding_shows_on_the_producers_setting_and_in_the_consumer(client, app):
    client.initialize([app])
    client.open(app / "consumer.yaml")
    client.open(app / "producer.yaml")
    producer = client.diagnostics(app / "producer.yaml", _has("FL202"))
    finding = next(d for d in producer if d["code"] == "FL202")
    assert finding["severity"] == 1
    assert finding["source"] == "fanout-lint"
    assert finding["codeDescription"]["href"].endswith("/visibility-timeout-below-function-timeout.md")
    # the span of the setting, not the resource's header: `VisibilityTimeout: 60` on line 6
    assert finding["range"] == {"start": {"line": 5, "character": 6}, "end": {"line": 5, "character": 27}}
    related = {(r["location"]["uri"], r["location"]["range"]["start"]["line"]) for r in finding["relatedInformation"]}
    assert (uri(app / "consumer.yaml"), 2) in related  # the Consumer function
    consumer = client.diagnostics(app / "consumer.yaml", _has("FL202"))
    echo = next(d for d in consumer if d["code"] == "FL202")
    assert echo["severity"] == 3
    assert echo["relatedInformation"][0]["location"]["uri"] == uri(app / "producer.yaml")
    assert client.close() == 0


def test_an_unsaved_change_to_the_producer_clears_the_consumers_diagnostic(client, app):
    client.initialize([app])
    client.open(app / "consumer.yaml")
    client.diagnostics(app / "consumer.yaml", _has("FL202"))
    client.open(app / "producer.yaml")
    client.diagnostics(app / "producer.yaml", _has("FL202"))
    client.change(app / "producer.yaml", PRODUCER.replace("VisibilityTimeout: 60", "VisibilityTimeout: 1800"), 2)
    assert "FL202" not in _rules(client.diagnostics(app / "consumer.yaml", _lacks("FL202")))
    assert "FL202" not in _rules(client.diagnostics(app / "producer.yaml", _lacks("FL202")))
    assert (app / "producer.yaml").read_text(encoding="utf-8") == PRODUCER  # the disk is the editor's to write
    # and back: the finding returns with the unsaved text
    seen = client.last_seen
    client.change(app / "producer.yaml", PRODUCER, 3)
    assert "FL202" in _rules(client.diagnostics(app / "consumer.yaml", _has("FL202"), after=seen))
    assert client.close() == 0


def test_an_unsaved_change_to_the_consumer_reaches_the_producer(client, app):
    client.initialize([app])
    client.open(app / "producer.yaml")
    client.diagnostics(app / "producer.yaml", _has("FL202"))
    client.open(app / "consumer.yaml")
    client.change(app / "consumer.yaml", CONSUMER.replace("Timeout: 300", "Timeout: 5"), 2)
    assert _lacks("FL202")(client.diagnostics(app / "producer.yaml", _lacks("FL202")))
    assert client.close() == 0


def _actions(client, path, diagnostics, only=None):
    context = {"diagnostics": diagnostics}
    if only:
        context["only"] = only
    return client.request("textDocument/codeAction", {
        "textDocument": {"uri": uri(path)},
        "range": diagnostics[0]["range"] if diagnostics else {"start": {"line": 0, "character": 0},
                                                              "end": {"line": 0, "character": 0}},
        "context": context})


def _edits(action, path) -> list[dict]:
    changes = action["edit"].get("documentChanges")
    if changes is not None:
        return [e for c in changes if c["textDocument"]["uri"] == uri(path) for e in c["edits"]]
    return action["edit"]["changes"][uri(path)]


def test_the_quick_fix_applied_to_the_buffer_clears_the_finding(client, app):
    client.initialize([app])
    client.open(app / "consumer.yaml")
    client.open(app / "producer.yaml")
    finding = [d for d in client.diagnostics(app / "producer.yaml", _has("FL202")) if d["code"] == "FL202"]
    actions = _actions(client, app / "producer.yaml", finding)
    fix = next(a for a in actions if a["title"].startswith("Set "))
    assert fix["title"] == "Set VisibilityTimeout to 1800 (visibility-timeout-below-function-timeout)"
    assert fix["kind"] == "quickfix" and fix["isPreferred"] is True
    assert fix["edit"]["documentChanges"][0]["textDocument"]["version"] == 1
    fixed = apply(PRODUCER, _edits(fix, app / "producer.yaml"))
    assert "VisibilityTimeout: 1800\n" in fixed and fixed.replace("1800", "60") == PRODUCER
    seen = client.last_seen
    client.change(app / "producer.yaml", fixed, 2)
    assert _lacks("FL202")(client.diagnostics(app / "producer.yaml", _lacks("FL202"), after=seen))
    assert client.close() == 0


def test_fix_all_is_a_source_action_of_the_safe_fixes(client, app):
    client.initialize([app])
    client.open(app / "consumer.yaml")
    client.open(app / "producer.yaml")
    client.diagnostics(app / "producer.yaml", _has("FL202"))
    actions = _actions(client, app / "producer.yaml", [], only=["source.fixAll"])
    assert [a["kind"] for a in actions] == ["source.fixAll.fanout-lint"]
    assert "VisibilityTimeout: 1800" in apply(PRODUCER, _edits(actions[0], app / "producer.yaml"))
    assert _actions(client, app / "producer.yaml", [], only=["quickfix"]) == []
    assert client.close() == 0


def test_suppress_here_writes_the_resources_metadata_and_hides_the_finding(client, app):
    client.initialize([app])
    client.open(app / "consumer.yaml")
    client.open(app / "producer.yaml")
    finding = [d for d in client.diagnostics(app / "producer.yaml", _has("FL202")) if d["code"] == "FL202"]
    suppress = next(a for a in _actions(client, app / "producer.yaml", finding) if a["title"].startswith("Suppress"))
    suppressed = apply(PRODUCER, _edits(suppress, app / "producer.yaml"))
    assert "  OrdersQueue:\n    Metadata:\n      fanout-lint:\n        ignore:\n" \
           "          - {rule: visibility-timeout-below-function-timeout, reason:" in suppressed
    seen = client.last_seen
    client.change(app / "producer.yaml", suppressed, 2)
    assert _lacks("FL202")(client.diagnostics(app / "producer.yaml", _lacks("FL202"), after=seen))
    assert client.close() == 0


def test_a_producer_deleted_and_created_on_disk_changes_the_open_consumer(client, app):
    client.initialize([app])
    client.open(app / "consumer.yaml")
    client.diagnostics(app / "consumer.yaml", _has("FL202"))
    (app / "producer.yaml").unlink()
    client.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": uri(app / "producer.yaml"), "type": 3}]})
    client.diagnostics(app / "consumer.yaml", _lacks("FL202"))
    seen = client.last_seen
    (app / "stacks").mkdir()
    (app / "stacks" / "orders.yaml").write_text(PRODUCER, encoding="utf-8")  # renamed, elsewhere
    client.notify("workspace/didChangeWatchedFiles",
                  {"changes": [{"uri": uri(app / "stacks" / "orders.yaml"), "type": 1}]})
    client.diagnostics(app / "consumer.yaml", _has("FL202"), after=seen)
    assert client.close() == 0


def test_a_configuration_change_reloads_without_a_restart(client, app):
    client.initialize([app])
    client.open(app / "consumer.yaml")
    client.open(app / "producer.yaml")
    client.diagnostics(app / "producer.yaml", _has("FL202"))
    (app / ".fanout-lint.toml").write_text('ignore = ["visibility-timeout-below-function-timeout"]\n')
    client.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": uri(app / ".fanout-lint.toml"), "type": 1}]})
    client.diagnostics(app / "producer.yaml", _lacks("FL202"))
    assert client.close() == 0


def test_two_workspace_folders_lint_apart(tmp_path):
    first, second = tmp_path / "one", tmp_path / "two"
    for folder in (first, second):
        (folder / ".git").mkdir(parents=True)
        (folder / "consumer.yaml").write_text(CONSUMER, encoding="utf-8")
    (first / "producer.yaml").write_text(PRODUCER, encoding="utf-8")
    client = Client(tmp_path)
    try:
        client.initialize([first, second])
        client.open(second / "consumer.yaml")
        assert _lacks("FL202")(client.diagnostics(second / "consumer.yaml"))  # no producer in its repository
        client.open(first / "consumer.yaml")
        client.diagnostics(first / "consumer.yaml", _has("FL202"))
        assert client.close() == 0
    finally:
        client.kill()


def test_a_file_outside_the_repository_is_refused_in_one_line(client, app, tmp_path_factory):
    outside = tmp_path_factory.mktemp("elsewhere") / "linked.yaml"
    outside.write_text(PRODUCER, encoding="utf-8")
    (app / "linked.yaml").symlink_to(outside)
    client.initialize([app])
    client.open(app / "linked.yaml")
    client.open(app / "consumer.yaml")
    client.diagnostics(app / "consumer.yaml")
    assert any("linked.yaml is not linted" in line for line in client.log_lines())
    assert client.close() == 0


def test_without_the_extra_the_subcommand_says_which_to_install(tmp_path):
    blocked = tmp_path / "pygls"
    blocked.mkdir()
    (blocked / "__init__.py").write_text("raise ImportError('not installed', name='pygls')\n")
    run = subprocess.run([sys.executable, "-m", "fanout_lint", "server"], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(tmp_path)}, timeout=60)
    assert run.returncode == 2
    assert run.stderr == "fanout-lint: error: the server needs pygls and lsprotocol: " \
                         "install fanout-lint with its server extra (fanout-lint[server])\n"


def test_the_command_line_never_imports_the_servers_libraries(app):
    code = ("import sys; from fanout_lint.cli.main import main; main(['check', 'producer.yaml']); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pygls', 'lsprotocol', 'fanout_lint.server')))")
    run = subprocess.run([sys.executable, "-c", code], cwd=app, capture_output=True, text=True, timeout=60)
    assert run.stdout.strip().splitlines()[-1] == "[]"


def test_a_lint_past_its_time_box_is_cut_and_the_next_one_runs():
    from fanout_lint.server.scheduler import Scheduler

    release = threading.Event()
    said: list[str] = []
    published: list[tuple[str, object]] = []
    calls: list[str] = []

    def run(folder, snapshot):
        calls.append(folder)
        if len(calls) == 1:
            release.wait(30)  # the first lint stalls
        return f"outcome {len(calls)}"

    async def scenario():
        loop = asyncio.get_running_loop()
        scheduler = Scheduler(loop, run, lambda f, o: published.append((f, o)), said.append, 0, 0.05)
        scheduler.request("/w")
        while not said:
            await asyncio.sleep(0.01)
        scheduler.request("/w")
        while not published:
            await asyncio.sleep(0.01)
        release.set()

    asyncio.run(asyncio.wait_for(scenario(), 30))
    assert said == ["fanout-lint: the lint of /w took over 0.05 s and was cut; "
                    "its diagnostics are from the last lint that finished"]
    assert published == [("/w", "outcome 2")]


def test_a_request_while_a_lint_runs_drops_its_result_and_lints_again():
    from fanout_lint.server.scheduler import Scheduler

    started, release = threading.Event(), threading.Event()
    published: list[object] = []
    calls: list[int] = []

    def run(folder, snapshot):
        calls.append(1)
        if len(calls) == 1:
            started.set()
            release.wait(30)
        return len(calls)

    async def scenario():
        loop = asyncio.get_running_loop()
        scheduler = Scheduler(loop, run, lambda f, o: published.append(o), lambda line: None, 0, 60)
        scheduler.request("/w")
        await loop.run_in_executor(None, started.wait, 30)
        scheduler.request("/w")  # stale now: its result must not be shown
        release.set()
        while not published:
            await asyncio.sleep(0.01)

    asyncio.run(asyncio.wait_for(scenario(), 30))
    assert published == [2]


def test_the_benchmark_harness_runs_on_a_small_repository(capsys):
    sys.path.insert(0, ROOT)
    from bench import server as bench_server

    assert bench_server.main(["--units", "12", "--runs", "1"]) == 0
    table = capsys.readouterr().out
    assert "| command line, `fanout-lint -j 1 FILE` |" in table and table.rstrip().endswith("x |")


def test_requests_within_the_debounce_make_one_lint_of_the_latest():
    from fanout_lint.server.scheduler import Scheduler

    calls: list[str] = []
    published: list[object] = []

    async def scenario():
        loop = asyncio.get_running_loop()
        scheduler = Scheduler(loop, lambda folder, snapshot: calls.append(snapshot) or snapshot,
                              lambda f, o: published.append(o), lambda line: None, 0.05, 60,
                              snapshot=lambda folder: len(calls) + 100)
        for _ in range(3):  # in one turn of the loop: the timer is replaced, never fired
            scheduler.request("/w")
        while not published:
            await asyncio.sleep(0.01)

    asyncio.run(asyncio.wait_for(scenario(), 30))
    assert calls == [100] and published == [100]
