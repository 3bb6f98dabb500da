"""The server under the command line's configuration: each unit under its own nearest
file, the configured baseline left out, and "add to baseline" writing it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytest.importorskip("pygls")

from lsp_client import Client, uri  # noqa: E402
from test_server import CONSUMER, PRODUCER  # noqa: E402


def _codes(diagnostics) -> list[str]:
    return sorted(d["code"] for d in diagnostics if "code" in d)


def _app(root, config: str | None) -> None:
    (root / ".git").mkdir()
    (root / "producer.yaml").write_text(PRODUCER, encoding="utf-8")
    (root / "consumer.yaml").write_text(CONSUMER, encoding="utf-8")
    if config is not None:
        (root / ".fanout-lint.toml").write_text(config, encoding="utf-8")


def _actions(client, path, diagnostics):
    return client.request("textDocument/codeAction", {
        "textDocument": {"uri": uri(path)}, "range": diagnostics[0]["range"],
        "context": {"diagnostics": diagnostics}})


@pytest.fixture
def started(tmp_path):
    clients = []

    def start():
        clients.append(Client(tmp_path))
        return clients[-1]

    yield start
    for client in clients:
        client.kill()


def test_add_to_baseline_records_the_finding_and_clears_it_as_check_would(tmp_path, started):
    _app(tmp_path, 'baseline = "ci/baseline.json"\n')
    (tmp_path / "ci").mkdir()
    client = started()
    client.initialize([tmp_path])
    client.open(tmp_path / "consumer.yaml")
    client.open(tmp_path / "producer.yaml")
    shown = client.diagnostics(tmp_path / "producer.yaml", lambda d: "FL202" in _codes(d))
    finding = [d for d in shown if d.get("code") == "FL202"]
    [add] = [a for a in _actions(client, tmp_path / "producer.yaml", finding) if "baseline" in a["title"]]
    assert add["title"] == "Add this visibility-timeout-below-function-timeout finding to the baseline (baseline.json)"
    assert "edit" not in add  # the server writes the baseline: it is a command
    seen = len(client.notifications)
    client.request("workspace/executeCommand", {"command": add["command"]["command"],
                                                "arguments": add["command"]["arguments"]})
    after = client.diagnostics(tmp_path / "producer.yaml", lambda d: "FL202" not in _codes(d), after=seen)
    assert "FL202" not in _codes(after)
    recorded = json.loads((tmp_path / "ci" / "baseline.json").read_text(encoding="utf-8"))
    assert [(e["rule"], e["file"], e["resource"]) for e in recorded["findings"]] == [
        ("FL202", "producer.yaml", "OrdersQueue")]
    # the command line, under the same configuration, agrees that it is baselined
    run = subprocess.run([sys.executable, "-m", "fanout_lint", "check", "--select", "FL202", "producer.yaml",
                          "consumer.yaml"], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert client.close() == 0


def test_without_a_configured_baseline_there_is_no_baseline_action(tmp_path, started):
    _app(tmp_path, None)
    client = started()
    client.initialize([tmp_path])
    client.open(tmp_path / "consumer.yaml")
    client.open(tmp_path / "producer.yaml")
    shown = client.diagnostics(tmp_path / "producer.yaml", lambda d: "FL202" in _codes(d))
    finding = [d for d in shown if d.get("code") == "FL202"]
    titles = [a["title"] for a in _actions(client, tmp_path / "producer.yaml", finding)]
    assert titles and not any("baseline" in t for t in titles)
    assert client.close() == 0


def test_a_baseline_outside_the_repository_is_neither_read_nor_written(tmp_path, started):
    repo = tmp_path / "repo"
    repo.mkdir()
    _app(repo, 'baseline = "../outside.json"\n')
    client = Client(repo)
    try:
        client.initialize([repo])
        client.open(repo / "consumer.yaml")
        client.open(repo / "producer.yaml")
        shown = client.diagnostics(repo / "producer.yaml", lambda d: "FL202" in _codes(d))
        finding = [d for d in shown if d.get("code") == "FL202"]
        assert not any("baseline" in a["title"] for a in _actions(client, repo / "producer.yaml", finding))
        assert any("outside the repository" in line for line in client.log_lines())
        assert client.close() == 0
    finally:
        client.kill()
    assert not (tmp_path / "outside.json").exists()


def test_each_unit_is_linted_under_its_own_nearest_configuration(tmp_path, started):
    (tmp_path / ".git").mkdir()
    for name in ("strict", "relaxed"):
        (tmp_path / name).mkdir()
        export = f"{name}-orders-queue-arn"  # one export name per application
        (tmp_path / name / "producer.yaml").write_text(PRODUCER.replace("orders-queue-arn", export), encoding="utf-8")
        (tmp_path / name / "consumer.yaml").write_text(CONSUMER.replace("orders-queue-arn", export), encoding="utf-8")
    (tmp_path / "relaxed" / ".fanout-lint.toml").write_text('ignore = ["FL202"]\n', encoding="utf-8")
    client = started()
    client.initialize([tmp_path])
    for name in ("strict", "relaxed"):
        client.open(tmp_path / name / "consumer.yaml")
        client.open(tmp_path / name / "producer.yaml")
    strict = client.diagnostics(tmp_path / "strict" / "producer.yaml", lambda d: "FL202" in _codes(d))
    assert "FL202" in _codes(strict)
    relaxed = client.diagnostics(tmp_path / "relaxed" / "producer.yaml")
    assert "FL202" not in _codes(relaxed)
    assert client.close() == 0


def test_the_baseline_named_in_the_editors_menu_is_one_printable_line(tmp_path):
    # the configuration is a pull request's text: its file name reaches the action's title
    from fanout_lint.rules import ALL_RULES
    from fanout_lint.server.diagnostics import publishable
    from fanout_lint.server.linting import lint_folder
    from fanout_lint.server.workspace import Buffer

    _app(tmp_path, 'baseline = "ci\\u001b[2J\\u202e.json"\n')
    buffers = [Buffer(uri(tmp_path / name), str(tmp_path / name), (tmp_path / name).read_text(), 1)
               for name in ("producer.yaml", "consumer.yaml")]
    outcome = lint_folder(str(tmp_path), buffers, ALL_RULES, None)
    shown = publishable(outcome, [b.path for b in buffers], "utf-16")[str(tmp_path / "producer.yaml")]
    [data] = [d.data for d in shown if d.code == "FL202"]
    assert data["baseline"].isprintable() and "\x1b" not in data["baseline"] and "\u202e" not in data["baseline"]
