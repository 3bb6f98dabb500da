"""``fanout-lint graph``: snapshots of every diagram format, their syntax, focus, exit codes.

Snapshots live in tests/snapshots/. After an intended change of the output, regenerate
them with ``FANOUT_LINT_UPDATE_SNAPSHOTS=1 python -m pytest tests/reports/test_topology.py`` and
review the diff.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
import properties  # noqa: F401  (Hypothesis's profile, before the first @settings)

import mermaid_syntax
from fanout_lint.model.format import Format
from fanout_lint.cli.main import main
from fanout_lint.results.records import Finding, Severity
from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import (
    EventSourceMapping,
    External,
    Function,
    Loc,
    Queue,
    QueuePolicy,
    Redrive,
    Subscription,
    Topic,
    Unit,
)
from fanout_lint.model.values import Known
from fanout_lint.reports import dot, markdown, mermaid, topology
from repo_paths import ROOT

SNAPSHOTS = os.path.join(ROOT, "tests", "snapshots")
UPDATE = os.environ.get("FANOUT_LINT_UPDATE_SNAPSHOTS") == "1"
# A fixed rule set, so that a new rule firing on the inputs does not change the snapshots.
# An empty configuration file: a repository configuration must not change the output either.
RULES = ["--select", "sns-to-lambda-direct,raw-delivery-off,shared-queue,missing-dlq",
         "--config", "tests/topology/fanout-lint.toml"]
FANOUT = "tests/topology/fanout.yaml"
SAM = "tests/topology/sam.yaml"
CASES = {
    "fanout": [FANOUT],
    "sam": [SAM],
    "two-units": [FANOUT, SAM],
    "focus-stock-queue": [FANOUT, SAM, "--focus", "StockQueue", "--hops", "1"],
    "terraform": ["tests/topology/tf_orders"],
    "delivery": ["tests/topology/delivery.yaml"],
    "linked": ["tests/topology/linked"],
}
FORMATS = {"mermaid": "mmd", "dot": "dot", "json": "json"}


def run(capsys, monkeypatch, *argv: str) -> tuple[int, str, str]:
    monkeypatch.chdir(ROOT)  # relative paths in the output, as a user would type them
    code = main(["graph", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("case", CASES)
def test_output_matches_snapshot(case, fmt, capsys, monkeypatch):
    code, out, err = run(capsys, monkeypatch, *CASES[case], *RULES, "--format", fmt)
    assert (code, err) == (0, "")
    path = os.path.join(SNAPSHOTS, f"{case}.{FORMATS[fmt]}")
    if UPDATE or not os.path.exists(path):
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(out)
        if not UPDATE:
            pytest.fail(f"snapshot {path} was missing and has been written: review and commit it")
    with open(path, encoding="utf-8") as handle:
        expected = handle.read()
    assert out == expected, (
        f"{case} --format {fmt} differs from {path}; if the change is intended, rerun with "
        "FANOUT_LINT_UPDATE_SNAPSHOTS=1 and review the diff"
    )


@pytest.mark.parametrize("case", CASES)
def test_mermaid_is_well_formed(case, capsys, monkeypatch):
    _, out, _ = run(capsys, monkeypatch, *CASES[case], "--format", "mermaid")
    mermaid_syntax.check(out)


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz `dot` is not installed")
@pytest.mark.parametrize("case", CASES)
def test_dot_renders_to_svg(case, capsys, monkeypatch):
    _, out, _ = run(capsys, monkeypatch, *CASES[case], "--format", "dot")
    done = subprocess.run(["dot", "-Tsvg"], input=out, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and not done.stderr, done.stderr
    assert done.stdout.lstrip().startswith("<?xml") and "</svg>" in done.stdout


def test_the_view_draws_every_edge_kind_and_the_findings_on_them(capsys, monkeypatch):
    _, out, _ = run(capsys, monkeypatch, FANOUT, *RULES, "--format", "json")
    view = json.loads(out)
    nodes = {n["key"]: n for n in view["nodes"]}
    kinds = {n["key"]: n["kind"] for n in view["nodes"]}
    edges = {(nodes_by_id(view)[e["source"]], nodes_by_id(view)[e["target"]]): e for e in view["edges"]}

    assert kinds["OrdersTopic"] == "topic"
    assert kinds["EmailDLQ"] == "dlq" and kinds["SubscriptionDLQ"] == "dlq" and kinds["EmailQueue"] == "queue"
    assert nodes["EmailSubscription"]["details"] == ["subscription", "sqs · raw on · filter"]
    assert nodes["StockSubscription"]["details"] == ["subscription", "sqs · raw off · no filter"]
    assert edges[("EmailQueue", "EmailDLQ")]["label"] == "after 5 receives"
    assert edges[("EmailSubscription", "SubscriptionDLQ")]["kind"] == "undeliverable"
    assert {edges[("EmailQueue", "EmailMapping")]["kind"], edges[("EmailMapping", "EmailFunction")]["kind"]} == {
        "polls", "invokes"
    }
    # things outside the template: a parameter topic and an imported DLQ, drawn dashed
    outside = {n["label"] for n in view["nodes"] if n["external"]}
    assert outside == {"parameter PartnerTopicArn", "import shared-dlq-arn"}
    assert edges[("StockQueue", "external: import shared-dlq-arn")]["external"] is True
    # the inline lambda subscription carries its finding, and so does the edge to the function
    inline = nodes["OrdersTopic.Subscription[0]"]
    assert inline["severity"] == "warning" and inline["findings"][0]["name"] == "sns-to-lambda-direct"
    assert edges[("OrdersTopic.Subscription[0]", "AuditFunction")]["severity"] == "warning"
    assert nodes["OrdersTopic"]["findings"] == []  # reported "on" the topic, drawn on the subscription
    assert nodes["StockQueue"]["severity"] == "error"
    assert edges[("StockQueue", "StockMapping")]["findings"][0]["name"] == "shared-queue"
    assert edges[("EmailQueue", "EmailMapping")]["findings"] == []


def test_the_view_draws_the_event_delivery_graph(capsys, monkeypatch):
    _, out, _ = run(capsys, monkeypatch, "tests/topology/delivery.yaml", "--format", "json")
    view = json.loads(out)
    kinds = {n["key"]: n["kind"] for n in view["nodes"]}
    edges = {(nodes_by_id(view)[e["source"]], nodes_by_id(view)[e["target"]]): e for e in view["edges"]}
    assert kinds["NightlyRule"] == "rule" and kinds["NightlyRule.Targets[0]"] == "target"
    assert kinds["Hourly"] == "schedule" and kinds["Uploads"] == "bucket"
    assert kinds["Uploads.QueueConfigurations[0]"] == "notification" and kinds["Clicks"] == "stream"
    assert "WorkerInvokeConfig" not in kinds  # drawn as what it configures: the function
    assert edges[("NightlyRule", "NightlyRule.Targets[0]")]["kind"] == "targets"
    assert edges[("NightlyRule.Targets[0]", "Worker")]["kind"] == "delivers"
    assert edges[("NightlyRule.Targets[1]", "RuleDLQ")]["kind"] == "dead-letter"
    assert edges[("Hourly", "Worker")]["kind"] == "invokes"
    assert edges[("Uploads", "Uploads.QueueConfigurations[0]")]["kind"] == "notifies"
    assert edges[("Uploads.QueueConfigurations[0]", "JobsQueue")]["kind"] == "delivers"
    assert edges[("Clicks", "ClicksMapping")]["kind"] == "polls"
    assert edges[("Worker", "Failures")]["label"] == "on failure" and edges[("Worker", "Failures")]["failure"]
    assert edges[("Worker", "Done")]["kind"] == "on-success"
    worker = next(n for n in view["nodes"] if n["key"] == "Worker")
    assert "reserved concurrency 5" in worker["details"]
    # the target's finding is drawn on it, not on its rule
    target = next(n for n in view["nodes"] if n["key"] == "NightlyRule.Targets[0]")
    assert {m["name"] for m in target["findings"]} >= {"eventbridge-target-without-dlq"}


def nodes_by_id(view: dict) -> dict[str, str]:
    return {n["id"]: n["key"] for n in view["nodes"]}


# -- focus ---------------------------------------------------------------------


def _keys(capsys, monkeypatch, *argv) -> set[str]:
    _, out, _ = run(capsys, monkeypatch, FANOUT, *RULES, "--format", "json", *argv)
    return {n["key"] for n in json.loads(out)["nodes"]}


def test_focus_counts_resources_not_subscriptions(capsys, monkeypatch):
    one = _keys(capsys, monkeypatch, "--focus", "OrdersTopic", "--hops", "1")
    assert {"EmailQueue", "StockQueue", "AuditFunction", "SubscriptionDLQ"} <= one
    assert "EmailDLQ" not in one and "EmailFunction" not in one and "PartnerSubscription" not in one
    two = _keys(capsys, monkeypatch, "--focus", "OrdersTopic", "--hops", "2")
    assert {"EmailDLQ", "EmailFunction", "PartnerSubscription", "external: parameter PartnerTopicArn"} <= two
    from_dlq = _keys(capsys, monkeypatch, "--focus", "EmailDLQ", "--hops", "2")
    assert from_dlq == {"EmailDLQ", "EmailQueue", "EmailSubscription", "EmailMapping", "EmailFunction",
                        "OrdersTopic", "SubscriptionDLQ"}
    assert _keys(capsys, monkeypatch, "--focus", "EmailDLQ", "--hops", "0") == {"EmailDLQ"}


def test_focus_keeps_only_the_findings_it_draws(capsys, monkeypatch):
    _, out, _ = run(capsys, monkeypatch, FANOUT, *RULES, "--format", "markdown", "--focus", "StockSubscription",
                    "--hops", "0")
    assert out.startswith("## fanout-lint: 1 finding (1 warning) in 1 unit\n")
    assert "raw-delivery-off" in out and "shared-queue" not in out


def test_unknown_focus_is_an_error(capsys, monkeypatch):
    code, out, err = run(capsys, monkeypatch, FANOUT, "--focus", "NoSuchQueue")
    assert code == 2 and out == ""
    assert err == "fanout-lint: error: no resource 'NoSuchQueue' in the topology (did you mean StockQueue?)\n"


# -- exit codes and errors -----------------------------------------------------


def test_findings_do_not_change_the_exit_code(capsys, monkeypatch):
    code, out, err = run(capsys, monkeypatch, FANOUT)
    assert code == 0 and err == "" and "warning: raw-delivery-off" in out


def test_a_file_that_cannot_be_parsed_exits_2_and_the_rest_is_still_drawn(tmp_path, capsys, monkeypatch):
    broken = tmp_path / "broken.yaml"
    broken.write_text("Resources:\n  Queue: [unclosed\n")
    code, out, err = run(capsys, monkeypatch, FANOUT, str(broken))
    assert code == 2
    assert "broken.yaml:" in err and "Traceback" not in err
    mermaid_syntax.check(out)
    assert "n0_OrdersTopic" in out


def test_a_missing_path_exits_2(capsys, monkeypatch):
    code, out, err = run(capsys, monkeypatch, "no/such/dir")
    assert code == 2 and "no/such/dir" in err


# -- markdown ------------------------------------------------------------------


def test_markdown_summary(capsys, monkeypatch):
    code, out, _ = run(capsys, monkeypatch, FANOUT, *RULES, "--format", "markdown", "--docs-url", "https://x.test/r/")
    assert code == 0
    assert out.startswith("## fanout-lint: 3 findings (1 error, 2 warning) in 1 unit\n")
    assert "| [FL201 shared-queue](https://x.test/r/shared-queue.md) | error | 1 |" in out
    rows = [line for line in out.splitlines() if line.startswith("| warning | [FL002 raw-delivery-off]")]
    assert len(rows) == 1 and "`tests/topology/fanout.yaml:24`" in rows[0] and "`StockSubscription`" in rows[0]
    block = out.split("```mermaid\n", 1)[1].split("```", 1)[0]
    mermaid_syntax.check(block)


def test_graph_applies_the_configuration_file(tmp_path, capsys, monkeypatch):
    config = tmp_path / "fanout-lint.toml"
    config.write_text('ignore = ["raw-delivery-off"]\n[severity]\nshared-queue = "info"\n')
    _, out, _ = run(capsys, monkeypatch, FANOUT, "--config", str(config), "--format", "json")
    marks = [m for n in json.loads(out)["nodes"] for m in n["findings"]]
    assert {"rule": "FL201", "name": "shared-queue", "severity": "info"} in marks
    assert not any(m["name"] == "raw-delivery-off" for m in marks)


def test_markdown_without_findings_says_so(capsys, monkeypatch):
    _, out, _ = run(capsys, monkeypatch, FANOUT, "--select", "missing-dlq", "--format", "markdown")
    assert out.startswith("## fanout-lint: no findings in 1 unit\n")
    assert "| Rule |" not in out and "```mermaid" in out


def test_markdown_cells_cannot_break_the_table():
    # a code span (nothing renders inside it) that neither `|` nor a backtick can end
    assert markdown.cell("a | b `c` <script>") == "``a \\| b `c` <script>``"


def test_markdown_omits_a_diagram_too_large_for_github():
    queues = [Queue(id=f"Q{i}", loc=Loc("t.yaml", i + 1), redrive=Known(Redrive("DLQ", Known(5), Loc("t.yaml", 1))))
              for i in range(500)]
    graph = Graph(Unit("t.yaml", Format.CLOUDFORMATION), [*queues, Queue(id="DLQ", loc=Loc("t.yaml", 1))])
    out = markdown.render(topology.build([graph], []))
    assert "```mermaid" not in out and "--focus" in out


# -- the view model on hand-made graphs ----------------------------------------


def _finding(node_ids: tuple[str, ...], name: str = "some-rule", severity=Severity.ERROR) -> Finding:
    return Finding(rule="FL999", name=name, severity=severity, message="m", resource=node_ids[0],
                   loc=Loc("t.yaml", 1), unit="t.yaml", node_ids=node_ids)


def test_a_policy_finding_is_shown_on_the_queues_it_governs():
    loc = Loc("t.yaml", 1)
    graph = Graph(Unit("t.yaml", Format.CLOUDFORMATION), [
        Queue(id="A", loc=loc), Queue(id="B", loc=loc), QueuePolicy(id="Policy", loc=loc, queues=("A", "B")),
    ])
    view = topology.build([graph], [_finding(("Policy",))])
    assert [n.key for n in view.nodes] == ["A", "B"]  # the policy itself is not drawn
    assert all(n.severity is Severity.ERROR for n in view.nodes)
    assert view.placements == (("n0_A", "n0_B"),)


def test_references_the_model_does_not_hold_are_drawn_not_dangling():
    loc = Loc("t.yaml", 1)
    graph = Graph(Unit("t.yaml", Format.CLOUDFORMATION), [
        EventSourceMapping(id="M", loc=loc, source="OrdersStream", function="F"), Function(id="F", loc=loc),
    ])
    view = topology.build([graph], [])
    missing = view.node("n0_OrdersStream")
    assert missing is not None and missing.kind == topology.MISSING and missing.external
    mermaid_syntax.check(mermaid.render(view))


def test_the_most_severe_finding_colours_a_node():
    graph = Graph(Unit("t.yaml", Format.CLOUDFORMATION), [Topic(id="T", loc=Loc("t.yaml", 1))])
    view = topology.build([graph], [_finding(("T",), "a", Severity.INFO), _finding(("T",), "b", Severity.WARNING)])
    assert view.nodes[0].severity is Severity.WARNING
    assert "class n0_T warning" in mermaid.render(view)


def test_ids_are_safe_and_distinct_even_when_names_differ_only_in_punctuation():
    names = ["a.b", "a_b", "a-b", "a_b_2", 'aws_sqs_queue.q["x"]', "module.m.aws_sqs_queue.q[0]", "end"]
    ids = topology.safe_ids(names, "n0_")
    assert len(set(ids.values())) == len(names)
    assert all(re.fullmatch(r"n0_[A-Za-z0-9_]+", i) for i in ids.values())
    assert ids["aws_sqs_queue.q[\"x\"]"] == "n0_aws_sqs_queue_q__x__"


NAMES = st.text(min_size=1, max_size=12)


@settings(max_examples=60, deadline=None)
@given(names=st.lists(NAMES, min_size=1, max_size=5, unique=True), label=st.text(max_size=20))
def test_any_resource_name_gives_well_formed_mermaid_and_dot(names, label):
    loc = Loc('d"ir/t|<x>.yaml', 1)
    nodes = [Topic(id=names[0], loc=loc)]
    for index, name in enumerate(names[1:]):
        nodes.append(Subscription(id=f"{name}#sub{index}", loc=loc, topic=names[0], endpoint=name,
                                  protocol=Known("sqs")))
        nodes.append(Queue(id=name, loc=loc))
    nodes.append(External(id="external: " + label, loc=loc, label=label))
    nodes.append(Subscription(id="ext-sub", loc=loc, topic="external: " + label, endpoint=names[0]))
    graph = Graph(Unit(loc.file, Format.CLOUDFORMATION), nodes)
    view = topology.build([graph], [_finding((names[0],), name=label or "x")])
    mermaid_syntax.check(mermaid.render(view))


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz `dot` is not installed")
def test_hostile_names_still_render_with_graphviz():
    loc = Loc('we"ird\\dir/t.yaml', 1)
    names = ['q"1', "q\\2", "q{3}", "q\n4", "q;5 -> x"]
    graph = Graph(Unit(loc.file, Format.CLOUDFORMATION), [Queue(id=n, loc=loc) for n in names])
    done = subprocess.run(["dot", "-Tsvg"], input=dot.render(topology.build([graph], [])),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and not done.stderr, done.stderr


def test_the_readme_shows_the_real_diagram_of_the_examples(capsys, monkeypatch):
    _, out, _ = run(capsys, monkeypatch, "examples/")
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as handle:
        readme = handle.read()
    begin, end = "<!-- graph-of-examples: begin -->\n```mermaid\n", "```\n<!-- graph-of-examples: end -->"
    shown = readme.split(begin, 1)[1].split(end, 1)[0]
    assert shown == out, "README's diagram is stale: paste the output of `fanout-lint graph examples/` between the markers"


def test_graph_of_templates_imports_neither_cfn_lint_nor_the_hcl_parser():
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "fanout_lint", "graph", "examples/broken/orders-fanout.yaml",
         "examples/clean/orders-fanout.yaml", "--format", "dot"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0 and done.stdout.startswith("digraph fanout {")
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if "|" in line}
    assert "fanout_lint.cli.graph" in imported  # the import log was read
    assert not {m for m in imported if m.split(".")[0] in ("cfnlint", "hcl2", "lark")}


_RULES_TF = "".join(
    f'resource "aws_cloudwatch_event_rule" "{name}" {{\n  schedule_expression = "rate(5 minutes)"\n{extra}}}\n'
    for name, extra in (
        ("absent", ""),
        ("enabled", '  state = "ENABLED"\n'),
        ("trail", '  state = "ENABLED_WITH_ALL_CLOUDTRAIL_MANAGEMENT_EVENTS"\n'),
        ("off", '  state = "DISABLED"\n'),
        ("old_on", "  is_enabled = true\n"),
        ("old_off", "  is_enabled = false\n"),
    )
)
_RULES_CFN = """Resources:
  Absent:
    Type: AWS::Events::Rule
    Properties: {ScheduleExpression: rate(5 minutes)}
  Enabled:
    Type: AWS::Events::Rule
    Properties: {ScheduleExpression: rate(5 minutes), State: ENABLED}
  Stopped:
    Type: AWS::Events::Rule
    Properties: {ScheduleExpression: rate(5 minutes), State: DISABLED}
"""


def test_only_an_explicitly_disabled_rule_is_drawn_disabled(tmp_path, capsys, monkeypatch):
    (tmp_path / "tf").mkdir()
    (tmp_path / "tf" / "main.tf").write_text(_RULES_TF, encoding="utf-8")
    (tmp_path / "stack.yaml").write_text(_RULES_CFN, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["graph", "./tf", "./stack.yaml", "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    disabled = {n["resource"]: "disabled" in n["details"] for n in document["nodes"]}
    assert disabled == {
        "aws_cloudwatch_event_rule.absent": False, "aws_cloudwatch_event_rule.enabled": False,
        "aws_cloudwatch_event_rule.trail": False, "aws_cloudwatch_event_rule.off": True,
        "aws_cloudwatch_event_rule.old_on": False, "aws_cloudwatch_event_rule.old_off": True,
        "Absent": False, "Enabled": False, "Stopped": True,
    }
    # paths as the other reports show them, without the ./ they were given with
    assert {n["file"] for n in document["nodes"]} == {"tf/main.tf", "stack.yaml"}
    assert {u["path"] for u in document["units"]} == {"tf", "stack.yaml"}


@pytest.mark.parametrize("path", ["tests/fixtures/eventbridge-target-role-missing/cfn_fires.yaml",
                                  "tests/fixtures/eventbridge-target-role-missing/tf_fires"])
def test_pipes_are_drawn_between_their_source_and_their_target(path, capsys, monkeypatch):
    _, out, _ = run(capsys, monkeypatch, path, "--format", "json")
    view = json.loads(out)
    kinds = {node["resource"]: node["kind"] for node in view["nodes"]}
    pipes = [name for name, kind in kinds.items() if kind == "pipe"]
    assert pipes and any(kind == "service" for kind in kinds.values())
    _, mmd, _ = run(capsys, monkeypatch, path)
    mermaid_syntax.check(mmd)
    assert "EventBridge pipe" in mmd and "Step Functions state machine<br/>Standard" in mmd
    _, dot_text, _ = run(capsys, monkeypatch, path, "--format", "dot")
    assert 'EventBridge pipe' in dot_text and 'style="rounded,bold' in dot_text
    by_id = {node["id"]: node["resource"] for node in view["nodes"]}
    invoked = {(by_id[e["source"]], by_id[e["target"]]) for e in view["edges"]}
    assert any(source in pipes and kinds[target] == "service" for source, target in invoked)
    assert any(target in pipes and kinds[source] == "queue" for source, target in invoked)


def test_a_customer_managed_key_is_drawn_with_what_it_encrypts(capsys, monkeypatch):
    fixture = "tests/fixtures/key-policy-denies-sender/cfn_fires.yaml"
    _, out, _ = run(capsys, monkeypatch, fixture, "--select", "key-policy-denies-sender", "--format", "json")
    view = json.loads(out)
    kinds = {n["key"]: n["kind"] for n in view["nodes"]}
    by_id = nodes_by_id(view)
    encrypts = {(by_id[e["source"]], by_id[e["target"]]) for e in view["edges"] if e["kind"] == "encrypts"}
    assert kinds["AccountOnlyKey"] == "key" and kinds["DefaultPolicyKey"] == "key"
    assert encrypts == {("AccountOnlyKey", "OrdersQueue"), ("AccountOnlyKey", "OrdersDLQ"),
                        ("EncryptOnlyKey", "JobsQueue"), ("DefaultPolicyKey", "AlertsTopic")}
    for fmt in ("mermaid", "dot"):
        _, out, _ = run(capsys, monkeypatch, fixture, "--select", "key-policy-denies-sender", "--format", fmt)
        assert "AccountOnlyKey" in out
        if fmt == "mermaid":
            mermaid_syntax.check(out)
