"""The Terraform expression evaluator: what it proves, and what it leaves unknown."""

from __future__ import annotations

import os

import pytest

from fanout_lint.loaders.terraform.hcl.expressions import (
    Evaluator,
    Hole,
    Interpolated,
    Ref,
    decode_json,
    encode_json,
)
from fanout_lint.loaders.terraform.hcl.syntax import HclError, parse_expression, parse_hcl
from fanout_lint.loaders.terraform.loader import load_terraform_dir, parse_suppression
from fanout_lint.model.nodes import Loc, Queue, Subscription, Suppression
from fanout_lint.model.values import VARIABLE, Known, OneOf, Unknown
from repo_paths import TESTS


class FakeScope:
    """Variables from a dict; resources are references; timeouts configured for one function."""

    def __init__(self, variables=None, configured=None):
        self.variables = variables or {}
        self.configured_values = configured or {}

    def lookup(self, root, steps):
        if root == "var":
            name = steps[0][1]
            return self.variables.get(name, Unknown(f"variable {name} has no value"))
        if root.startswith("aws_"):
            rest = [s for s in steps[1:] if s[0] == "attr"]
            return Known(Ref(f"{root}.{steps[0][1]}", rest[0][1] if rest else ""))
        return Unknown(root)

    def configured(self, ref):
        return self.configured_values.get((ref.address, ref.attribute), Unknown("after apply"))


def evaluate(text, **scope):
    return Evaluator(FakeScope(**scope)).eval(parse_expression(text))


def test_arithmetic_on_known_numbers():
    assert evaluate("14 * 24 * 60 * 60") == Known(1_209_600)
    assert evaluate("(1 + 2) * 3 - 10 / 5") == Known(7)
    assert evaluate("-5 + 2") == Known(-3)


def test_arithmetic_on_an_unknown_variable_is_unknown():
    assert isinstance(evaluate("var.missing * 6"), Unknown)


def test_variable_origin_survives_arithmetic():
    value = evaluate("var.timeout * 6", variables={"timeout": Known(10, VARIABLE, "timeout")})
    assert value == Known(60, VARIABLE, "timeout")


def test_resource_reference_keeps_the_address_without_index():
    assert evaluate("aws_sqs_queue.q.arn") == Known(Ref("aws_sqs_queue.q", "arn"))
    assert evaluate('aws_sqs_queue.q["a"].arn') == Known(Ref("aws_sqs_queue.q", "arn"))
    assert evaluate("aws_sqs_queue.q[0].url") == Known(Ref("aws_sqs_queue.q", "url"))


def test_reference_to_a_configured_argument_resolves_in_arithmetic():
    configured = {("aws_lambda_function.f", "timeout"): Known(60)}
    assert evaluate("aws_lambda_function.f.timeout * 6", configured=configured) == Known(360)
    assert isinstance(evaluate("aws_lambda_function.g.timeout * 6", configured=configured), Unknown)


def test_conditional_picks_a_branch_only_when_the_condition_is_known():
    prod = {"prod": Known(True, VARIABLE, "prod")}
    assert evaluate("var.prod ? 30 : 600", variables=prod) == Known(30, VARIABLE, "prod")
    assert evaluate("var.unset ? 30 : 600") == OneOf((Known(30), Known(600)))
    assert evaluate("var.unset ? 30 : 30") == Known(30)
    assert evaluate("true ? 1 : 2") == Known(1)
    assert isinstance(evaluate("var.missing ? var.other : 2"), Unknown)


def test_jsonencode_keeps_references_and_decodes_back():
    value = evaluate("jsonencode({deadLetterTargetArn = aws_sqs_queue.dlq.arn, maxReceiveCount = 5})")
    assert isinstance(value.value, Interpolated)
    document = decode_json(value.value)
    assert document == {"deadLetterTargetArn": Ref("aws_sqs_queue.dlq", "arn"), "maxReceiveCount": 5}


def test_jsonencode_without_references_is_plain_json():
    assert evaluate('jsonencode({a = 1, b = [true, "x"]})') == Known('{"a":1,"b":[true,"x"]}')


def test_heredoc_with_interpolation_decodes_with_the_reference():
    hcl = parse_hcl('p = <<-EOT\n  {"arn": "${aws_sns_topic.t.arn}", "n": ${var.n}}\n  EOT\n', "x.tf")
    value = Evaluator(FakeScope(variables={"n": Known(3)})).eval(hcl.body.attributes["p"].expr)
    assert decode_json(value.value) == {"arn": Ref("aws_sns_topic.t", "arn"), "n": 3}


def test_heredoc_with_an_unknown_number_outside_a_string_still_decodes():
    hcl = parse_hcl('p = <<EOT\n{"a": "b", "n": ${var.missing}}\nEOT\n', "x.tf")
    value = Evaluator(FakeScope()).eval(hcl.body.attributes["p"].expr)
    document = decode_json(value.value)
    assert document["a"] == "b"
    assert isinstance(document["n"], Hole)


def test_quoted_string_escapes_and_literal_interpolation():
    assert evaluate('"a\\"b\\n$${not_a_ref}"') == Known('a"b\n${not_a_ref}')


def test_interpolated_string_with_variables():
    value = evaluate('"${var.env}-orders"', variables={"env": Known("prod", VARIABLE, "env")})
    assert value == Known("prod-orders", VARIABLE, "env")


def test_single_interpolation_keeps_the_type():
    assert evaluate('"${5}"') == Known(5)


def test_functions_we_evaluate_and_one_we_do_not():
    assert evaluate("max(10, 20, 5)") == Known(20)
    assert evaluate('lookup({a = 1}, "b", 7)') == Known(7)
    assert evaluate('tonumber("42")') == Known(42)
    assert evaluate('merge({a = 1}, {b = 2})') == Known({"a": 1, "b": 2})
    assert isinstance(evaluate('file("policy.json")'), Unknown)
    assert isinstance(evaluate("[for x in var.list : x]"), Unknown)


def test_object_with_an_unknown_member_keeps_the_known_ones():
    value = evaluate("{a = 1, b = var.missing}")
    assert value.value["a"] == 1
    assert isinstance(value.value["b"], Hole)


def test_encode_decode_round_trip_without_atoms():
    assert decode_json(encode_json({"x": [1, 2]})) == {"x": [1, 2]}


def test_malformed_hcl_has_a_line():
    with pytest.raises(HclError) as caught:
        parse_hcl('resource "aws_sqs_queue" "q" {\n  name = \n}\n', "bad.tf")
    assert caught.value.line == 2
    assert "invalid HCL" in caught.value.message


@pytest.mark.parametrize("text, expected", [
    ("fanout-lint: ignore=FL101 -- consumed by a batch job", [("FL101", "consumed by a batch job", None)]),
    ("fanout-lint: ignore=missing-dlq, FL202 until=2027-03-31 -- migration",
     [("missing-dlq", "migration", "2027-03-31"), ("FL202", "migration", "2027-03-31")]),
    ("fanout-lint: ignore=FL101 -- reason until=2027-03-31", [("FL101", "reason", "2027-03-31")]),
    ("just a comment", []),
])
def test_parse_suppression(text, expected):
    found = parse_suppression(text, Loc("x.tf", 3))
    assert [(s.rule, s.reason, s.until) for s in found] == expected


def test_suppressions_above_and_inside_blocks(tmp_path):
    (tmp_path / "main.tf").write_text(
        'resource "aws_sns_topic" "t" {}\n'
        "\n"
        "# fanout-lint: ignore=missing-dlq -- drained by hand\n"
        'resource "aws_sqs_queue" "q" {\n'
        "  // fanout-lint: ignore=FL202 until=2027-03-31 -- slow consumer\n"
        "  visibility_timeout_seconds = 10\n"
        "}\n"
        "\n"
        "# fanout-lint: ignore=raw-delivery-off\n"
        "\n"
        'resource "aws_sns_topic_subscription" "s" {\n'
        "  topic_arn = aws_sns_topic.t.arn\n"
        '  protocol  = "sqs"\n'
        "  endpoint  = aws_sqs_queue.q.arn\n"
        "}\n"
    )
    graphs, errors = load_terraform_dir(str(tmp_path))
    assert errors == []
    queue = graphs[0].queue("aws_sqs_queue.q")
    file = str(tmp_path / "main.tf")
    assert queue.suppressions == (
        Suppression("missing-dlq", "drained by hand", None, Loc(file, 3), "comment"),
        Suppression("FL202", "slow consumer", "2027-03-31", Loc(file, 5), "comment"),
    )
    # A blank line separates the comment from the block: it is not the block's.
    subscription = graphs[0].get("aws_sns_topic_subscription.s")
    assert isinstance(subscription, Subscription) and subscription.suppressions == ()


def test_module_addresses_and_outputs(tmp_path):
    module = tmp_path / "modules" / "q"
    module.mkdir(parents=True)
    (module / "main.tf").write_text(
        'variable "retention" { default = 60 }\n'
        'resource "aws_sqs_queue" "this" { message_retention_seconds = var.retention * 2 }\n'
        'output "arn" { value = aws_sqs_queue.this.arn }\n'
    )
    (tmp_path / "main.tf").write_text(
        'module "billing" {\n  source = "./modules/q"\n  retention = 500\n}\n'
        'resource "aws_sns_topic_subscription" "s" {\n'
        '  topic_arn = "arn:aws:sns:eu-west-1:123456789012:elsewhere"\n'
        '  protocol  = "sqs"\n'
        "  endpoint  = module.billing.arn\n"
        "}\n"
    )
    graphs, errors = load_terraform_dir(str(tmp_path))
    assert errors == []
    queue = graphs[0].queue("module.billing.aws_sqs_queue.this")
    assert isinstance(queue, Queue)
    assert queue.message_retention == Known(1000)
    assert queue.loc.start() == Loc(str(module / "main.tf"), 2)
    subscription = graphs[0].get("aws_sns_topic_subscription.s")
    assert subscription.endpoint == "module.billing.aws_sqs_queue.this"
    assert graphs[0].is_external(subscription.topic)


def test_tfvars_override_defaults_and_auto_tfvars_come_last(tmp_path):
    (tmp_path / "main.tf").write_text(
        'variable "v" { default = 1 }\n'
        'resource "aws_sqs_queue" "q" { visibility_timeout_seconds = var.v }\n'
    )
    (tmp_path / "terraform.tfvars").write_text("v = 2\n")
    (tmp_path / "b.auto.tfvars").write_text("v = 4\n")
    (tmp_path / "a.auto.tfvars").write_text("v = 3\n")
    graphs, _ = load_terraform_dir(str(tmp_path))
    assert graphs[0].queue("aws_sqs_queue.q").visibility_timeout == Known(4, VARIABLE, "v")


def test_malformed_file_with_relevant_content_stops_the_unit(tmp_path):
    (tmp_path / "ok.tf").write_text('resource "aws_sqs_queue" "q" {}\n')
    (tmp_path / "bad.tf").write_text('resource "aws_sqs_queue" "r" {\n  name = "x\n}\n')
    graphs, errors = load_terraform_dir(str(tmp_path))
    assert graphs == []
    assert len(errors) == 1 and errors[0].file.endswith("bad.tf") and errors[0].line == 2


def test_module_cycle_is_an_error_not_a_hang(tmp_path):
    (tmp_path / "main.tf").write_text('module "self" {\n  source = "./"\n}\n')
    graphs, errors = load_terraform_dir(str(tmp_path))
    assert any("includes itself" in e.message for e in errors)


def test_fixture_directory_examples_parse():
    root = os.path.join(TESTS, "fixtures", "terraform", "tf_count_for_each")
    graphs, errors = load_terraform_dir(root)
    assert errors == []
    # count = 0 resources do not exist
    assert graphs[0].get("aws_sqs_queue.legacy_off") is None
    # count = var.enable_legacy ? 1 : 0 with the default false: not created either
    assert graphs[0].get("aws_sqs_queue.legacy") is None


def test_an_attribute_of_a_whole_resource_is_a_reference_to_that_attribute():
    from fanout_lint.loaders.terraform.hcl.expressions import access

    whole = Known(Ref("module.m.aws_lambda_function.f", ""))
    assert access(whole, (("attr", "arn"),)) == Known(Ref("module.m.aws_lambda_function.f", "arn"))
    # an attribute of an attribute is not known before apply
    deeper = access(whole, (("attr", "arn"), ("attr", "x")))
    assert isinstance(deeper, Unknown) or isinstance(deeper.value, Hole)


def test_an_arn_template_is_labelled_by_its_text():
    from fanout_lint.loaders.terraform.hcl.expressions import render

    assert render(parse_expression('"arn:aws:sqs:${var.region}:${var.account}:jobs"')) == \
        "arn:aws:sqs:${var.region}:${var.account}:jobs"
    assert render(parse_expression('"queue-${var.name}"')) == "expression"  # not an ARN: as before
    assert len(render(parse_expression('"arn:' + "x" * 1000 + '${var.a}"'))) == 203
