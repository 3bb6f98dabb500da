"""Linking the units of a run: imports of exports, nested stacks, CDK assemblies,
applications as one graph, and named templates linked with their repository."""

from __future__ import annotations

import dataclasses
import json
import os
import textwrap
import time

import pytest

from fanout_lint.run.link_plan import Application, plan
from fanout_lint.cli.main import main
from fanout_lint.run.discover import discover
from fanout_lint.run.engine import lint_paths
from fanout_lint.policy.fingerprint import fingerprint
from fanout_lint.model.nodes import External, Queue
from fanout_lint.rules import ALL_RULES
from fanout_lint.policy.settings import Settings
from repo_paths import ROOT

SHARED = """\
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
  Lonely:
    Type: AWS::SQS::Queue
  LonelyFeeder:
    Type: AWS::Lambda::EventSourceMapping
    Properties:
      EventSourceArn: !GetAtt Lonely.Arn
      FunctionName: some-function
      FunctionResponseTypes: [ReportBatchItemFailures]
Outputs:
  OrdersQueueArn:
    Value: !GetAtt OrdersQueue.Arn
    Export: {Name: %(export)s}
"""

CONSUMER = """\
AWSTemplateFormatVersion: "2010-09-09"
Resources:
  Consumer:
    Type: AWS::Lambda::Function
    Properties:
      Timeout: %(timeout)s
  Mapping:
    Type: AWS::Lambda::EventSourceMapping
    Properties:
      EventSourceArn:
        Fn::ImportValue: %(name)s
      FunctionName: !Ref Consumer
      FunctionResponseTypes: [ReportBatchItemFailures]
"""


def _write(root, name: str, text: str) -> str:
    path = os.path.join(str(root), name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(textwrap.dedent(text))
    return path


def _app(root, export="orders-queue-arn", names=("orders-queue-arn", "orders-queue-arn"), timeouts=(5, 5)):
    _write(root, "shared.yaml", SHARED % {"export": export})
    for who, name, timeout in zip(("billing", "shipping"), names, timeouts):
        _write(root, f"{who}.yaml", CONSUMER % {"name": name, "timeout": timeout})


def _lint(*paths, **settings) -> "Result":  # noqa: F821
    return lint_paths([str(p) for p in paths], ALL_RULES, Settings(jobs=1, **settings), keep_graphs=True)


def _names(result) -> list[tuple[str, str, str]]:
    return sorted((f.name, os.path.basename(f.unit), f.resource) for f in result.findings)


# -- imports and exports ------------------------------------------------------------


def test_a_queue_exported_by_one_stack_and_read_in_two_others_is_shared(tmp_path):
    _app(tmp_path)
    result = _lint(tmp_path)
    (shared,) = [f for f in result.findings if f.name == "shared-queue"]
    assert shared.unit == shared.loc.file == str(tmp_path / "shared.yaml")
    assert shared.resource == "OrdersQueue"  # what findings name is the logical ID
    assert sorted({os.path.basename(r.loc.file) for r in shared.related}) == ["billing.yaml", "shipping.yaml"]
    assert shared.node_ids[0] == "shared/OrdersQueue"  # ids are namespaced per stack
    assert "billing/Consumer, shipping/Consumer" in shared.message
    (graph,) = result.graphs
    assert [os.path.basename(u.path) for u in graph.members] == ["billing.yaml", "shared.yaml", "shipping.yaml"]
    assert result.units == 3
    assert sorted((os.path.basename(l.source), os.path.basename(l.target), l.kind, l.label) for l in graph.links) == [
        ("billing.yaml", "shared.yaml", "imports", "orders-queue-arn"),
        ("shipping.yaml", "shared.yaml", "imports", "orders-queue-arn")]


def test_a_visibility_timeout_is_compared_with_a_function_of_another_stack(tmp_path):
    _app(tmp_path, timeouts=(120, 5))
    assert ("visibility-timeout-below-function-timeout", "shared.yaml", "OrdersQueue") in _names(_lint(tmp_path))


def test_templates_that_link_nothing_stay_units_of_their_own(tmp_path):
    _write(tmp_path, "a.yaml", SHARED % {"export": "a-only"})
    _write(tmp_path, "b.yaml", CONSUMER % {"name": "exported-nowhere", "timeout": 5})
    _write(tmp_path, "c.yaml", "Resources:\n  Q:\n    Type: AWS::SQS::Queue\n")
    candidates, _ = discover([str(tmp_path)])
    assert plan(candidates, []) == candidates
    result = _lint(tmp_path)
    assert [len(g.members) for g in result.graphs] == [1, 1, 1]
    (external,) = [n for g in result.graphs for n in g.nodes() if isinstance(n, External) and "import" in n.label]
    assert external.label == "import exported-nowhere" and external.id == "external: import exported-nowhere"


def test_an_export_that_two_stacks_define_is_ambiguous_and_stays_unknown(tmp_path):
    _app(tmp_path)
    _write(tmp_path, "other.yaml", SHARED % {"export": "orders-queue-arn"})
    result = _lint(tmp_path)
    assert not [f for f in result.findings if f.name == "shared-queue"]
    assert all(len(g.members) == 1 for g in result.graphs)


def test_export_names_evaluate_parameter_defaults_and_region_and_account_alike(tmp_path):
    _app(tmp_path, export='!Sub "${Env}-orders-${AWS::Region}-${AWS::AccountId}"',
         names=('!Sub "prod-orders-${AWS::Region}-${AWS::AccountId}"',
                '{"Fn::Join": ["-", [!Ref Source, orders, !Ref "AWS::Region", !Ref "AWS::AccountId"]]}'))
    for name, default in (("shared.yaml", "Env"), ("shipping.yaml", "Source")):
        path = tmp_path / name
        text = path.read_text()
        path.write_text(text.replace("Resources:", f"Parameters:\n  {default}:\n    Type: String\n"
                                                   "    Default: prod\nResources:", 1))
    assert ("shared-queue", "shared.yaml", "OrdersQueue") in _names(_lint(tmp_path))


def test_a_stack_name_is_unknown_without_a_cloud_assembly(tmp_path):
    _app(tmp_path, export='!Sub "${AWS::StackName}-orders"', names=("shared-orders", "shared-orders"))
    assert not [f for f in _lint(tmp_path).findings if f.name == "shared-queue"]


def test_a_cdk_stage_names_its_stacks_for_aws_stack_name(tmp_path):
    stage = tmp_path / "cdk.out" / "assembly-Prod"
    _write(stage, "ProdShared12AB.template.json", json.dumps({"Resources": {
        "Queue": {"Type": "AWS::SQS::Queue", "Properties": {"VisibilityTimeout": 60}}},
        "Outputs": {"Arn": {"Value": {"Fn::GetAtt": ["Queue", "Arn"]},
                            "Export": {"Name": {"Fn::Sub": "${AWS::StackName}:queue"}}}}}))
    for who in ("A", "B"):
        _write(stage, f"Prod{who}.template.json", json.dumps({"Resources": {
            "Fn": {"Type": "AWS::Lambda::Function", "Properties": {"Timeout": 5}},
            "Map": {"Type": "AWS::Lambda::EventSourceMapping", "Properties": {
                "EventSourceArn": {"Fn::ImportValue": "Prod-Shared:queue"}, "FunctionName": {"Ref": "Fn"}}}}}))
    _write(stage, "manifest.json", json.dumps({"version": "36.0.0", "artifacts": {
        "ProdShared12AB": {"type": "aws:cloudformation:stack",
                           "properties": {"templateFile": "ProdShared12AB.template.json", "stackName": "Prod-Shared"}},
        "ProdA": {"type": "aws:cloudformation:stack", "properties": {"templateFile": "ProdA.template.json"}},
        "ProdB": {"type": "aws:cloudformation:stack", "properties": {"templateFile": "ProdB.template.json"}}}}))
    _write(tmp_path / "cdk.out", "manifest.json", json.dumps({"version": "36.0.0", "artifacts": {
        "assembly-Prod": {"type": "cdk:cloud-assembly", "properties": {"directoryName": "assembly-Prod"}}}}))
    result = _lint(tmp_path / "cdk.out")
    assert ("shared-queue", "ProdShared12AB.template.json", "Queue") in _names(result)
    (graph,) = [g for g in result.graphs if len(g.members) > 1]
    assert any(n.id == "Prod-Shared/Queue" for n in graph.nodes())  # the stack's name is its namespace


def test_conditions_of_linked_stacks_are_their_own(tmp_path):
    _app(tmp_path)
    for who in ("billing", "shipping"):  # each stack's IsProd is its own: not provably together
        path = tmp_path / f"{who}.yaml"
        path.write_text(path.read_text().replace(
            "Resources:", "Conditions:\n  IsProd: !Equals [a, a]\nResources:", 1).replace(
            "    Type: AWS::Lambda::EventSourceMapping\n", "    Type: AWS::Lambda::EventSourceMapping\n"
                                                        "    Condition: IsProd\n"))
    result = _lint(tmp_path)
    assert not [f for f in result.findings if f.name == "shared-queue"]
    mappings = [n for g in result.graphs for n in g.nodes() if n.type == "AWS::Lambda::EventSourceMapping"
                and n.resource == "Mapping"]
    assert sorted(m.condition for m in mappings) == ["billing/IsProd", "shipping/IsProd"]


# -- nested stacks --------------------------------------------------------------------

PARENT = """\
AWSTemplateFormatVersion: "2010-09-09"
Resources:
  JobsQueue:
    Type: AWS::SQS::Queue
    Properties:
      VisibilityTimeout: 60
      RedrivePolicy: {deadLetterTargetArn: !GetAtt JobsDLQ.Arn, maxReceiveCount: 5}
  JobsDLQ:
    Type: AWS::SQS::Queue
    Properties:
      MessageRetentionPeriod: 1209600
  Workers:
    Type: AWS::CloudFormation::Stack
    %(condition)s
    Properties:
      TemplateURL: %(url)s
      Parameters:
        QueueArn: !GetAtt JobsQueue.Arn
        WorkerTimeout: %(timeout)s
"""

CHILD = """\
AWSTemplateFormatVersion: "2010-09-09"
Parameters:
  QueueArn: {Type: String}
  WorkerTimeout: {Type: Number, Default: 10}
Resources:
  Worker:
    Type: AWS::Lambda::Function
    Properties:
      Timeout: !Ref WorkerTimeout
  WorkerMapping:
    Type: AWS::Lambda::EventSourceMapping
    Properties:
      EventSourceArn: !Ref QueueArn
      FunctionName: !Ref Worker
      FunctionResponseTypes: [ReportBatchItemFailures]
%(extra)s
"""


def _nested(root, url="workers.yaml", timeout=300, condition="", extra="", child="workers.yaml"):
    _write(root, "parent.yaml", PARENT % {"url": url, "timeout": timeout, "condition": condition})
    return _write(root, child, CHILD % {"extra": extra})


def test_a_nested_stack_reads_what_its_parent_passes(tmp_path):
    _nested(tmp_path)
    result = _lint(tmp_path)
    (finding,) = [f for f in result.findings if f.name == "visibility-timeout-below-function-timeout"]
    assert finding.unit == str(tmp_path / "parent.yaml")
    assert "Timeout 300 s (parameter WorkerTimeout, as the parent stack passes it) of Worker" in finding.message
    assert finding.fix is not None  # the queue's own literal is fixed; the passed value is not touched
    assert {os.path.basename(r.loc.file) for r in finding.related} == {"workers.yaml"}
    (graph,) = result.graphs
    assert [(os.path.basename(l.source), os.path.basename(l.target), l.kind, l.label) for l in graph.links] == [
        ("parent.yaml", "workers.yaml", "nests", "Workers")]
    assert result.units == 2  # the nested template is not linted again on its own


def test_a_nested_template_alone_keeps_its_defaults(tmp_path):
    child = _nested(tmp_path)
    assert _names(_lint(child)) == _names(_lint(child, link=False))  # no parent names it: alone


def test_a_parent_reads_a_nested_stacks_output(tmp_path):
    _write(tmp_path, "parent.yaml", """\
        Resources:
          Topic:
            Type: AWS::SNS::Topic
          Queues:
            Type: AWS::CloudFormation::Stack
            Properties:
              TemplateURL: queues.yaml
          Subscription:
            Type: AWS::SNS::Subscription
            Properties:
              TopicArn: !Ref Topic
              Protocol: sqs
              Endpoint: !GetAtt [Queues, Outputs.QueueArn]
              RawMessageDelivery: true
        """)
    _write(tmp_path, "queues.yaml", """\
        Resources:
          Queue:
            Type: AWS::SQS::Queue
            Properties:
              RedrivePolicy: {deadLetterTargetArn: !GetAtt DLQ.Arn, maxReceiveCount: 5}
          DLQ:
            Type: AWS::SQS::Queue
            Properties: {MessageRetentionPeriod: 1209600}
        Outputs:
          QueueArn:
            Value: !GetAtt Queue.Arn
        """)
    names = _names(_lint(tmp_path))
    assert ("queue-policy-missing", "queues.yaml", "Queue") in names


def test_a_conditional_nested_stack_puts_its_resources_under_the_condition(tmp_path):
    _nested(tmp_path, condition="Condition: WithWorkers")
    (graph,) = _lint(tmp_path).graphs
    worker = next(n for n in graph.nodes() if n.resource == "WorkerMapping")
    assert worker.condition == "parent/WithWorkers"


def test_a_parent_that_hides_its_parameters_proves_none_of_the_childs(tmp_path):
    _nested(tmp_path)
    path = tmp_path / "parent.yaml"
    path.write_text(path.read_text().replace("      Parameters:\n", "      Parameters: !If [C, {}, {}]\n"
                                             "      Unused:\n"))
    assert not [f for f in _lint(tmp_path).findings if f.name == "visibility-timeout-below-function-timeout"]


def test_a_template_nested_twice_reports_its_findings_once(tmp_path):
    _nested(tmp_path)
    path = tmp_path / "parent.yaml"
    text = path.read_text()
    path.write_text(text + text[text.index("  Workers:"):].replace("  Workers:", "  MoreWorkers:"))
    result = _lint(tmp_path)
    assert len([f for f in result.findings if f.name == "visibility-timeout-below-function-timeout"]) == 1


def test_a_nested_template_outside_the_repository_is_not_read(tmp_path):
    repository = tmp_path / "repo"
    (repository / ".git").mkdir(parents=True)
    outside = _write(tmp_path, "outside.yaml", CHILD % {"extra": ""})
    _write(repository, "parent.yaml", PARENT % {"url": "../outside.yaml", "timeout": 300, "condition": ""})
    result = _lint(repository)
    assert [os.path.basename(u.path) for g in result.graphs for u in g.members] == ["parent.yaml"]
    assert os.path.exists(outside)
    # a local template outside the repository is one error on the nested stack (confine.py)
    assert [(os.path.basename(e.file), e.message) for e in result.errors] == [
        ("parent.yaml", f"nested stack Workers: not read: {tmp_path / 'outside.yaml'} is outside the repository "
                        f"({repository})")]
    os.remove(repository / "parent.yaml")
    _write(repository, "proc.yaml", PARENT % {"url": "/proc/self/environ", "timeout": 300, "condition": ""})
    assert not _lint(repository).errors  # no template file: not a local path


def test_a_nested_stack_cycle_is_not_followed(tmp_path):
    _nested(tmp_path, extra="""\
  Again:
    Type: AWS::CloudFormation::Stack
    Properties:
      TemplateURL: parent.yaml
""")
    result = _lint(tmp_path)
    assert any("names a template that includes it" in n.message for n in result.notices)
    assert not result.errors


def test_nested_stacks_that_multiply_stop_at_the_budget(tmp_path):
    for level in range(6):
        stacks = "".join(f"  S{i}:\n    Type: AWS::CloudFormation::Stack\n"
                         f"    Properties: {{TemplateURL: l{level + 1}.yaml}}\n" for i in range(4))
        _write(tmp_path, f"l{level}.yaml", "Resources:\n" + stacks)
    _write(tmp_path, "l6.yaml", "Resources:\n  Q:\n    Type: AWS::SQS::Queue\n")
    started = time.monotonic()
    result = _lint(tmp_path)
    assert time.monotonic() - started < 30
    assert [e.message for e in result.errors] == ["unit exceeds the nested stack budget (1,000 nested stack instances)"]


# -- a run that names templates -----------------------------------------------------


def test_a_named_template_links_with_its_repository(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    _app(tmp_path, timeouts=(120, 5))
    monkeypatch.chdir(tmp_path)
    result = _lint("billing.yaml")
    # on the shared queue, involving billing.yaml: reported; the fix would go into a file
    # the run did not name, so it is not offered
    assert _names(result) == [("shared-queue", "shared.yaml", "OrdersQueue"),
                              ("visibility-timeout-below-function-timeout", "shared.yaml", "OrdersQueue")]
    assert all(f.fix is None for f in result.findings)
    assert result.units == 1
    # the shared stack's own finding, which involves no named template, is not reported
    assert "missing-dlq" not in {f.name for f in result.findings}
    assert _names(_lint("billing.yaml", link_repository=False)) == []
    full = {(f.name, f.resource, f.message) for f in _lint(".").findings if f.name != "missing-dlq"}
    assert full == {(f.name, f.resource, f.message) for f in _lint("billing.yaml", "shipping.yaml").findings}


def test_a_named_nested_template_is_linted_with_its_parent(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    _nested(tmp_path, url="nested/workers.yaml", child="nested/workers.yaml")
    _write(tmp_path, "unrelated.yaml", SHARED % {"export": "x"})
    monkeypatch.chdir(tmp_path)
    names = _names(_lint("nested/workers.yaml"))
    assert names == [("visibility-timeout-below-function-timeout", "parent.yaml", "JobsQueue")]


def test_the_pre_commit_run_names_the_staged_files(tmp_path, monkeypatch, capsys):
    (tmp_path / ".git").mkdir()
    _app(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["billing.yaml", "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert [(f["rule"], f["file"]) for f in report["findings"]] == [("FL201", "shared.yaml")]


# -- what the run reports -----------------------------------------------------------


def test_findings_of_one_template_keep_their_fingerprints_when_it_links(tmp_path):
    _app(tmp_path)
    linked = {(f.name, f.resource): fingerprint(f, str(tmp_path)) for f in _lint(tmp_path).findings}
    alone = {(f.name, f.resource): fingerprint(f, str(tmp_path)) for f in _lint(tmp_path, link=False).findings}
    assert linked[("missing-dlq", "Lonely")] == alone[("missing-dlq", "Lonely")]


def test_sarif_relates_the_other_files_and_baselines_and_suppressions_apply(tmp_path, monkeypatch, capsys):
    _app(tmp_path)
    monkeypatch.chdir(tmp_path)
    main([".", "--format", "sarif", "--select", "shared-queue"])
    (result,) = json.loads(capsys.readouterr().out)["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "shared.yaml"
    related = {r["physicalLocation"]["artifactLocation"]["uri"] for r in result["relatedLocations"]}
    assert related == {"billing.yaml", "shipping.yaml"}

    assert main([".", "--select", "shared-queue", "--write-baseline", "baseline.json"]) == 0
    assert main([".", "--select", "shared-queue", "--baseline", "baseline.json"]) == 0
    capsys.readouterr()

    path = tmp_path / "shared.yaml"
    path.write_text(path.read_text().replace(
        "      VisibilityTimeout: 60\n", "      VisibilityTimeout: 60\n    Metadata:\n      fanout-lint:\n"
        "        ignore: [shared-queue]\n        reason: two readers on purpose\n", 1))
    assert main([".", "--select", "shared-queue", "--show-suppressed"]) == 0
    assert "[suppressed]" in capsys.readouterr().out


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github", "junit"])
def test_every_report_format_takes_a_linked_run(tmp_path, monkeypatch, capsys, fmt):
    _app(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main([".", "--format", fmt]) == 1
    out = capsys.readouterr().out
    assert "shared.yaml" in out
    if fmt == "junit":
        assert 'name="no findings" classname="billing.yaml"' in out  # an application's clean units are listed


def test_the_topology_draws_the_links_between_units(tmp_path, monkeypatch, capsys):
    _app(tmp_path, export='"orders\\e[31m"', names=('"orders\\e[31m"', '"orders\\e[31m"'))
    monkeypatch.chdir(tmp_path)
    assert main(["graph", ".", "--format", "json"]) == 0
    view = json.loads(capsys.readouterr().out)
    units = {u["id"]: u["path"] for u in view["units"]}
    assert sorted((units[l["source"]], units[l["target"]], l["kind"]) for l in view["links"]) == [
        ("billing.yaml", "shared.yaml", "imports"), ("shipping.yaml", "shared.yaml", "imports")]
    assert all("\x1b" not in l["label"] for l in view["links"])
    assert sum(e["between_units"] for e in view["edges"]) == 2
    main(["graph", ".", "--format", "mermaid"])
    out = capsys.readouterr().out
    assert "\x1b" not in out and '-.->|"imports orders\\x1b[31m"|' in out


def test_parallel_runs_link_as_serial_runs_do(tmp_path, capsys):
    for index in range(40):
        app = tmp_path / f"app{index:02d}"
        _app(app, export=f"queue-{index}", names=(f"queue-{index}", f"queue-{index}"), timeouts=(5, 60))
        _nested(app / "nested")
    serial = main(["check", "--format", "json", "-j", "1", str(tmp_path)]), capsys.readouterr().out
    parallel = main(["check", "--format", "json", "-j", "3", str(tmp_path)]), capsys.readouterr().out
    assert parallel == serial
    assert len(json.loads(serial[1])["findings"]) >= 40 * 4


def test_the_plan_puts_each_application_in_the_place_of_its_first_template(tmp_path):
    _app(tmp_path / "a")
    _write(tmp_path, "b/alone.yaml", "Resources:\n  Q:\n    Type: AWS::SQS::Queue\n")
    candidates, _ = discover([str(tmp_path)])
    work = plan(candidates, [])
    assert [type(w).__name__ for w in work] == ["Application", "Candidate"]
    (application,) = [w for w in work if isinstance(w, Application)]
    assert [os.path.basename(p) for p in application.paths] == ["billing.yaml", "shared.yaml", "shipping.yaml"]
    assert application.reported is None


def test_an_unreadable_partner_does_not_stop_the_run(tmp_path):
    _app(tmp_path)
    (tmp_path / "broken.yaml").write_text("Resources: [\nOutputs: {Export: x}\nImportValue\n")
    result = _lint(tmp_path)
    assert ("shared-queue", "shared.yaml", "OrdersQueue") in _names(result)
    assert [os.path.basename(e.file) for e in result.errors] == ["broken.yaml"]


def test_an_imported_queue_is_the_exporting_stacks_node(tmp_path):
    _app(tmp_path)
    (graph,) = _lint(tmp_path).graphs
    queue = graph.queue("shared/OrdersQueue")
    assert isinstance(queue, Queue) and graph.unit_of(queue) == str(tmp_path / "shared.yaml")
    assert {m.function for m in graph.consumers_of(queue.id)} == {"billing/Consumer", "shipping/Consumer"}
    assert dataclasses.asdict(graph.unit)["files"] == tuple(str(tmp_path / n) for n in
                                                            ("billing.yaml", "shared.yaml", "shipping.yaml"))


def test_a_generated_repository_split_into_linked_stacks_has_the_same_findings(tmp_path):
    from collections import Counter

    import sys
    sys.path.insert(0, ROOT)
    from bench.generate import generate_repo

    generate_repo(str(tmp_path / "alone"), 12, (10, 40), ("yaml", "json"), seed=5, flaw_rate=0.5)
    generate_repo(str(tmp_path / "linked"), 12, (10, 40), ("yaml", "json"), seed=5, flaw_rate=0.5, link_rate=1.0)
    alone, linked = _lint(tmp_path / "alone"), _lint(tmp_path / "linked")
    assert linked.units == 2 * alone.units and not alone.errors and not linked.errors
    assert Counter((f.name, f.resource) for f in linked.findings) == Counter((f.name, f.resource) for f in alone.findings)


def test_no_link_lints_every_template_alone(tmp_path, monkeypatch, capsys):
    _app(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main([".", "--format", "json"]) == 1
    linked = json.loads(capsys.readouterr().out)
    assert "FL201" in [f["rule"] for f in linked["findings"]]
    # alone, each consumer reads an imported queue it cannot see: no queue is proved shared
    main([".", "--format", "json", "--no-link"])
    alone = json.loads(capsys.readouterr().out)["findings"]
    assert "FL201" not in [f["rule"] for f in alone]
    assert [f for f in alone if f["rule"] != "FL201"] == [f for f in linked["findings"] if f["rule"] != "FL201"]


def test_the_plan_parses_only_the_parts_of_a_template_that_link(tmp_path, monkeypatch):
    import fanout_lint.loaders as loaders

    _app(tmp_path)
    for name in ("billing.yaml", "shipping.yaml"):  # a resource that links nothing, after the ones that do
        audit = "  Audit:\n    Type: AWS::SQS::Queue\n    Properties:\n      MessageRetentionPeriod: 1209600\n"
        (tmp_path / name).write_text((tmp_path / name).read_text(encoding="utf-8") + audit, encoding="utf-8")
    expected = [(f.name, f.resource, f.loc) for f in _lint(tmp_path).findings]
    parsed: list[tuple[str, int]] = []
    real = loaders.parse_yaml

    def counting(text, path):
        parsed.append((os.path.basename(path), len(text)))
        return real(text, path)

    monkeypatch.setattr(loaders, "parse_yaml", counting)
    assert [(f.name, f.resource, f.loc) for f in _lint(tmp_path).findings] == expected
    for name in ("billing.yaml", "shared.yaml", "shipping.yaml"):
        size = len((tmp_path / name).read_text(encoding="utf-8"))
        sizes = sorted(n for file, n in parsed if file == name)
        assert sizes[-1] == size and sizes.count(size) == 1, (name, sizes)  # loaded once, whole
        assert len(sizes) == 2 and sizes[0] < size, (name, sizes)  # planned from a part of it


@pytest.mark.parametrize("text", [
    "Resources:\n  A: &x\n    Type: AWS::SQS::Queue\n  B:\n    Type: AWS::SNS::Topic\n    Properties: *x\n"
    "Outputs:\n  O:\n    Value: !Ref B\n    Export: {Name: n}\n",
    "Resources:\n  A:\n    Type: AWS::SQS::Queue\n  A:\n    Type: AWS::SNS::Topic\n",
    "---\nResources: {A: {Type: AWS::SQS::Queue}}\nOutputs:\n  O:\n    Value: x\n    Export:\n      Name: n\n",
    '"Resources":\n  A:\n    Type: AWS::SQS::Queue\n',
    "%YAML 1.2\n---\nResources:\n  A:\n    Type: AWS::SQS::Queue\n",
])
def test_the_link_facts_of_a_cut_template_are_those_of_the_whole(text):
    from fanout_lint.loaders import link_data
    from fanout_lint.loaders.links.link_sections import cut
    from fanout_lint.loaders.parsing.yaml_source import parse_yaml
    from fanout_lint.loaders.links.stack_links import LINK_WORDS

    whole = parse_yaml(text, "t.yaml")
    got = link_data("t.yaml", text.encode(), LINK_WORDS)
    assert got.get("Outputs") == whole.get("Outputs")
    part = cut(text, LINK_WORDS)
    if part is not None:  # cut, it parses to the same exports, or it is parsed whole
        assert "Export" not in text or "Export" in part


def test_a_template_cut_for_its_links_keeps_its_header_sections_and_linking_entries():
    from fanout_lint.loaders.links.link_sections import cut
    from fanout_lint.loaders.links.stack_links import LINK_WORDS

    text = textwrap.dedent("""\
        AWSTemplateFormatVersion: "2010-09-09"
        Parameters:
          Env: {Type: String, Default: prod}
        Resources:
          First:
            Type: AWS::SQS::Queue
          # a comment
          Big:
            Type: AWS::Lambda::Function
            Properties:
              Code: {ZipFile: "x"}
          Map:
            Type: AWS::Lambda::EventSourceMapping
            Properties:
              EventSourceArn: !ImportValue
                Fn::Sub: "${Env}-queue"
        Outputs:
          Plain:
            Value: 1
          Shared:
            Value: !GetAtt First.Arn
            Export:
              Name: !Sub "${Env}-queue"
    """)
    part = cut(text, LINK_WORDS)
    assert "Big:" not in part and "Plain:" not in part
    assert "Map:" in part and "Shared:" in part and "Env:" in part
    assert "First:" not in part  # the version key, not a resource, makes it a template
    assert "First:" in cut(text.split("\n", 1)[1], LINK_WORDS)


def test_outside_git_a_named_template_links_with_its_directory_tree_only_under_repo_root(tmp_path, monkeypatch, capsys):
    # no .git: the current directory may be a home directory, so it is not walked unless
    # --repo-root names it
    _app(tmp_path)
    monkeypatch.chdir(tmp_path)
    main(["billing.yaml", "--format", "json"])
    assert "FL201" not in [f["rule"] for f in json.loads(capsys.readouterr().out)["findings"]]
    main(["billing.yaml", "--format", "json", "--repo-root", "."])
    assert "FL201" in [f["rule"] for f in json.loads(capsys.readouterr().out)["findings"]]


def test_the_git_top_level_is_the_same_with_a_memo_of_directories(tmp_path):
    from fanout_lint.files.repository import top_level

    (tmp_path / "repo" / ".git").mkdir(parents=True)
    deep, other, outside = tmp_path / "repo" / "a" / "b", tmp_path / "repo" / "a" / "c", tmp_path / "x"
    for directory in (deep, other, outside):
        directory.mkdir(parents=True)
    known: dict = {}
    for directory in (deep, other, outside, deep, tmp_path / "repo"):
        assert top_level(str(directory), known) == top_level(str(directory))
    assert top_level(str(deep)) == str(tmp_path / "repo")
    assert known[str(tmp_path / "repo" / "a")] == str(tmp_path / "repo")  # passed on the way up, remembered
    assert known[str(outside)] == top_level(str(outside))
