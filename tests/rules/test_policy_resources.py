"""What a statement's Resource names, and source conditions that match anything."""

from __future__ import annotations

from fanout_lint.model.format import Format
from fanout_lint.loaders.policy_documents import parse_policy
from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import External, Loc, Queue, Unit
from fanout_lint.model.values import Known, Unknown
from rules.common import may_cover
from rules.iam import may_act_on

LOC = Loc("t.yaml", 1)


def _value_of(raw):
    return Known(raw) if isinstance(raw, (str, list)) else Unknown("intrinsic")


def _target_of(raw):
    if isinstance(raw, dict) and "Fn::GetAtt" in raw:
        return raw["Fn::GetAtt"][0]
    return "external: parameter" if isinstance(raw, dict) else None


def _statement(**item):
    parsed = parse_policy({"Statement": [{"Effect": "Allow", **item}]}, LOC, _value_of, target_of=_target_of)
    return parsed.value[0]


def _graph():
    nodes = [Queue(id="Orders", loc=LOC), Queue(id="Audit", loc=LOC),
             External(id="external: parameter", loc=LOC, label="parameter QueueArn")]
    return Graph(Unit("t.yaml", Format.CLOUDFORMATION), nodes)


def test_resource_entries_are_references_or_literals():
    statement = _statement(Action="sqs:SendMessage", Resource=[{"Fn::GetAtt": ["Orders", "Arn"]}, "*"])
    assert statement.resources == (("ref", "Orders"), ("text", "*"))
    assert _statement(Action="sqs:SendMessage", NotResource="*").resources is None
    assert _statement(Action="sqs:SendMessage", Resource={"Fn::If": []}).resources == (
        ("ref", "external: parameter"),)


def test_a_statement_covers_a_queue_unless_every_resource_is_provably_another():
    graph = _graph()
    orders, audit = graph.queue("Orders"), graph.queue("Audit")
    to_audit = _statement(Action="sqs:SendMessage", Resource={"Fn::GetAtt": ["Audit", "Arn"]})
    assert may_cover(graph, to_audit, orders) is False and may_cover(graph, to_audit, audit) is True
    assert may_cover(graph, _statement(Action="sqs:SendMessage", Resource="*"), orders) is None
    assert may_cover(graph, _statement(Action="sqs:SendMessage", Resource="arn:aws:sns:us-east-1:1:t"),
                     orders) is False
    assert may_cover(graph, _statement(Action="sqs:SendMessage", Resource="arn:aws:sqs:*:1:*"), orders) is None
    parameter = _statement(Action="sqs:SendMessage", Resource=[{"Fn::GetAtt": ["Audit", "Arn"]}, {"Ref": "P"}])
    assert may_cover(graph, parameter, orders) is None


def test_wildcard_sources_restrict_nothing():
    def keys(condition):
        return _statement(Action="sqs:SendMessage", Resource="*", Condition=condition).wildcard_keys

    assert keys({"ArnLike": {"aws:SourceArn": "arn:aws:s3:::*"}}) == {"aws:sourcearn"}
    assert keys({"ArnEquals": {"aws:SourceArn": "arn:aws:sns:*:*:*"}}) == {"aws:sourcearn"}
    assert keys({"StringLike": {"aws:SourceAccount": "*"}}) == {"aws:sourceaccount"}
    assert keys({"StringEquals": {"aws:SourceAccount": "*"}}) == frozenset()  # "*" is the character
    assert keys({"ArnLike": {"aws:SourceArn": "arn:aws:s3:::uploads-*"}}) == frozenset()
    assert keys({"ArnLike": {"aws:SourceArn": ["arn:aws:s3:::*", "arn:aws:s3:::logs"]}}) == frozenset()
    # written twice, once restricting: the key restricts
    assert keys({"ArnLike": {"aws:SourceArn": "*"}, "ArnEquals": {"aws:SourceArn": "arn:aws:sns:x:1:t"}}) == frozenset()


def test_an_identity_statement_acts_on_a_node_only_when_its_resource_is_that_node_or_everything():
    graph = _graph()
    own = _statement(Action="sqs:*", Resource={"Fn::GetAtt": ["Orders", "Arn"]})
    everything = _statement(Action="sqs:SendMessage", Resource="*")
    other = _statement(Action="sqs:SendMessage", Resource={"Fn::GetAtt": ["Audit", "Arn"]})
    assert may_act_on(graph, (own,), "sqs:SendMessage", "Orders") is True
    assert may_act_on(graph, (everything,), "sqs:SendMessage", "Orders") is True
    assert may_act_on(graph, (other,), "sqs:SendMessage", "Orders") is False
    deny = parse_policy({"Statement": [{"Effect": "Deny", "Action": "sqs:*", "Resource": "*"}]}, LOC,
                        _value_of).value[0]
    assert may_act_on(graph, (own, deny), "sqs:SendMessage", "Orders") is None
