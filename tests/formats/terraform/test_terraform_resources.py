"""The one Terraform resource mapping, as the HCL loader and the plan loader both use it."""

from __future__ import annotations

import json

from fanout_lint.loaders.parsing.yaml_source import parse_json
from fanout_lint.loaders.terraform.loader import load_terraform_dir
from fanout_lint.loaders.terraform_plan.loader import load_plan
from fanout_lint.loaders.names import named_resource
from fanout_lint.model.nodes import EventSourceMapping, Queue, QueuePolicy
from fanout_lint.model.values import Known, Unknown
from repo_paths import TESTS

ARN = "arn:aws:sqs:eu-west-1:123456789012:{}"
URL = "https://sqs.eu-west-1.amazonaws.com/123456789012/{}"


def _hcl(tmp_path, text):
    (tmp_path / "main.tf").write_text(text)
    graphs, errors = load_terraform_dir(str(tmp_path))
    assert errors == []
    return graphs[0]


def _plan(tmp_path, resources):
    plan = {"format_version": "1.2", "planned_values": {"root_module": {"resources": [
        {"address": f"{rtype}.{name}", "mode": "managed", "type": rtype, "name": name, "values": values}
        for rtype, name, values in resources
    ]}}}
    path = str(tmp_path / "plan.json")
    graphs, errors = load_plan(parse_json(json.dumps(plan, indent=1), path), path)
    assert errors == []
    return graphs[0]


def _redrive(graph, queue):
    value = graph.queue(queue).redrive
    assert isinstance(value, Known) and value.value is not None, value
    return value.value.dlq, value.value.max_receive_count


def test_hcl_separate_redrive_policy_resource_sets_the_queue_redrive(tmp_path):
    graph = _hcl(tmp_path, """
resource "aws_sqs_queue" "work" {}
resource "aws_sqs_queue" "dlq" {}
resource "aws_sqs_queue_redrive_policy" "work" {
  queue_url      = aws_sqs_queue.work.id
  redrive_policy = jsonencode({ deadLetterTargetArn = aws_sqs_queue.dlq.arn, maxReceiveCount = 4 })
}
""")
    assert _redrive(graph, "aws_sqs_queue.work") == ("aws_sqs_queue.dlq", Known(4))
    assert graph.queue("aws_sqs_queue.dlq").redrive == Known(None)


def test_plan_separate_redrive_policy_resource_sets_the_queue_redrive(tmp_path):
    graph = _plan(tmp_path, [
        ("aws_sqs_queue", "work", {"name": "work"}),
        ("aws_sqs_queue", "dlq", {"name": "dlq"}),
        ("aws_sqs_queue_redrive_policy", "work", {
            "queue_url": URL.format("work"),
            "redrive_policy": json.dumps({"deadLetterTargetArn": ARN.format("dlq")}),
        }),
    ])
    assert _redrive(graph, "aws_sqs_queue.work") == ("aws_sqs_queue.dlq", Known(10, "default"))


def test_redrive_set_in_two_places_is_unknown_in_both_formats(tmp_path):
    hcl = _hcl(tmp_path, """
resource "aws_sqs_queue" "work" {
  redrive_policy = jsonencode({ deadLetterTargetArn = aws_sqs_queue.dlq.arn, maxReceiveCount = 4 })
}
resource "aws_sqs_queue" "dlq" {}
resource "aws_sqs_queue_redrive_policy" "work" {
  queue_url      = aws_sqs_queue.work.id
  redrive_policy = jsonencode({ deadLetterTargetArn = aws_sqs_queue.dlq.arn, maxReceiveCount = 40 })
}
""")
    plan = _plan(tmp_path, [
        ("aws_sqs_queue", "work", {"name": "work", "redrive_policy": json.dumps(
            {"deadLetterTargetArn": ARN.format("dlq"), "maxReceiveCount": 4})}),
        ("aws_sqs_queue", "dlq", {"name": "dlq"}),
        ("aws_sqs_queue_redrive_policy", "work", {
            "queue_url": URL.format("work"),
            "redrive_policy": json.dumps({"deadLetterTargetArn": ARN.format("dlq"), "maxReceiveCount": 40}),
        }),
    ])
    for graph in (hcl, plan):
        assert isinstance(graph.queue("aws_sqs_queue.work").redrive, Unknown)


def test_a_redrive_policy_for_a_queue_we_cannot_tell_makes_unset_redrives_unknown(tmp_path):
    graph = _hcl(tmp_path, """
variable "queue_url" {}
resource "aws_sqs_queue" "work" {}
resource "aws_sqs_queue" "own" {
  redrive_policy = jsonencode({ deadLetterTargetArn = aws_sqs_queue.dlq.arn, maxReceiveCount = 4 })
}
resource "aws_sqs_queue" "dlq" {}
resource "aws_sqs_queue_redrive_policy" "elsewhere" {
  queue_url      = var.queue_url
  redrive_policy = jsonencode({ deadLetterTargetArn = aws_sqs_queue.dlq.arn, maxReceiveCount = 4 })
}
""")
    assert isinstance(graph.queue("aws_sqs_queue.work").redrive, Unknown)
    assert _redrive(graph, "aws_sqs_queue.own") == ("aws_sqs_queue.dlq", Known(4))


def test_both_loaders_map_dead_letter_settings_alike(tmp_path):
    hcl_dir = tmp_path / "hcl"
    hcl_dir.mkdir()
    hcl = _hcl(hcl_dir, """
resource "aws_sqs_queue" "dlq" { name = "dlq" }
resource "aws_lambda_function" "f" {
  function_name = "f"
  dead_letter_config { target_arn = aws_sqs_queue.dlq.arn }
}
resource "aws_lambda_event_source_mapping" "m" {
  event_source_arn = "arn:aws:sqs:eu-west-1:123456789012:dlq"
  function_name    = aws_lambda_function.f.arn
  destination_config {
    on_failure { destination_arn = aws_sqs_queue.dlq.arn }
  }
}
""")
    plan = _plan(tmp_path, [
        ("aws_sqs_queue", "dlq", {"name": "dlq", "arn": ARN.format("dlq")}),
        ("aws_lambda_function", "f", {"function_name": "f",
                                      "dead_letter_config": [{"target_arn": ARN.format("dlq")}]}),
        ("aws_lambda_event_source_mapping", "m", {
            "event_source_arn": ARN.format("dlq"), "function_name": "f",
            "destination_config": [{"on_failure": [{"destination_arn": ARN.format("dlq")}]}],
        }),
    ])
    for graph in (hcl, plan):
        uses = {(u.user, u.via) for u in graph.dead_letter_uses("aws_sqs_queue.dlq")}
        assert uses == {
            ("aws_lambda_function.f", "dead_letter_config.target_arn"),
            ("aws_lambda_event_source_mapping.m", "destination_config.on_failure.destination_arn"),
        }
        mapping = graph.get("aws_lambda_event_source_mapping.m")
        assert (mapping.source, mapping.function) == ("aws_sqs_queue.dlq", "aws_lambda_function.f")


def test_a_queue_policy_argument_is_a_queue_policy_in_both_formats(tmp_path):
    policy = {"Statement": [{"Effect": "Allow", "Principal": {"Service": "sns.amazonaws.com"},
                             "Action": "sqs:SendMessage", "Resource": "*"}]}
    hcl = _hcl(tmp_path, f"""
resource "aws_sqs_queue" "q" {{
  policy = <<EOF
{json.dumps(policy)}
EOF
}}
resource "aws_sqs_queue" "unset" {{
  policy = null
}}
""")
    # A plan shows the policy only when the configuration writes it: no configuration, no policy.
    plan = _plan(tmp_path, [("aws_sqs_queue", "q", {"name": "q", "policy": json.dumps(policy)})])
    policies = hcl.all(QueuePolicy)
    assert [(p.id, p.queues) for p in policies] == [("aws_sqs_queue.q.policy", ("aws_sqs_queue.q",))]
    statement, = policies[0].statements.value
    assert statement.principals == ("sns.amazonaws.com",) and statement.actions == ("sqs:SendMessage",)
    assert plan.all(QueuePolicy) == []


def test_literal_names_arns_and_urls_name_resources():
    names = {("queue", "q"): "aws_sqs_queue.q", ("function", "f"): "aws_lambda_function.f",
             ("topic", "t"): "aws_sns_topic.t"}
    assert named_resource(ARN.format("q"), None, names) == "aws_sqs_queue.q"
    assert named_resource(URL.format("q"), None, names) == "aws_sqs_queue.q"
    assert named_resource("arn:aws:lambda:eu-west-1:123456789012:function:f:live", None, names) == "aws_lambda_function.f"
    assert named_resource("arn:aws:sns:eu-west-1:123456789012:t", None, names) == "aws_sns_topic.t"
    assert named_resource("q", "queue", names) == "aws_sqs_queue.q"
    assert named_resource("q", "topic", names) is None
    assert named_resource(ARN.format("other"), None, names) is None


def test_count_and_for_each_nodes_stand_for_several_instances_in_both_formats():
    import os

    fixtures = os.path.join(TESTS, "fixtures")
    (hcl,), errors = load_terraform_dir(os.path.join(fixtures, "terraform", "tf_instances_silent"))
    assert errors == []
    path = os.path.join(fixtures, "terraform-plan", "plan_instances_silent.json")
    with open(path, encoding="utf-8") as handle:
        (plan,), errors = load_plan(parse_json(handle.read(), path), path)
    assert errors == []
    several = {
        "aws_sqs_queue.q", "aws_sqs_queue.q.policy", "aws_sqs_queue.q_dlq", "aws_sqs_queue.dlq",
        "aws_sns_topic_subscription.q",
        "module.pair.aws_sqs_queue.this", "module.pair.aws_sqs_queue.dlq",
    }
    for graph in (hcl, plan):
        flagged = {n.id for n in graph.nodes() if n.multi_instance}
        assert flagged == several, graph.unit.format


def test_both_loaders_follow_a_lambda_alias_to_its_function(tmp_path):
    # A mapping (or subscription) on an alias reads the function: FL202 compares its timeout.
    hcl_dir = tmp_path / "hcl"
    hcl_dir.mkdir()
    hcl = _hcl(hcl_dir, """
resource "aws_sqs_queue" "q" { name = "q" }
resource "aws_lambda_function" "f" {
  function_name = "f"
  timeout       = 60
}
resource "aws_lambda_alias" "live" {
  name          = "live"
  function_name = aws_lambda_function.f.arn
}
resource "aws_lambda_event_source_mapping" "m" {
  event_source_arn = aws_sqs_queue.q.arn
  function_name    = aws_lambda_alias.live.arn
}
""")
    plan = {
        "format_version": "1.2",
        "planned_values": {"root_module": {"resources": [
            {"address": "aws_sqs_queue.q", "mode": "managed", "type": "aws_sqs_queue", "name": "q",
             "values": {"name": "q"}},
            {"address": "aws_lambda_function.f", "mode": "managed", "type": "aws_lambda_function", "name": "f",
             "values": {"function_name": "f", "timeout": 60}},
            {"address": "aws_lambda_alias.live", "mode": "managed", "type": "aws_lambda_alias", "name": "live",
             "values": {"name": "live"}},
            {"address": "aws_lambda_event_source_mapping.m", "mode": "managed",
             "type": "aws_lambda_event_source_mapping", "name": "m", "values": {}},
        ]}},
        "configuration": {"root_module": {"resources": [
            {"address": "aws_sqs_queue.q", "type": "aws_sqs_queue", "name": "q",
             "expressions": {"name": {"constant_value": "q"}}},
            {"address": "aws_lambda_function.f", "type": "aws_lambda_function", "name": "f",
             "expressions": {"timeout": {"constant_value": 60}}},
            {"address": "aws_lambda_alias.live", "type": "aws_lambda_alias", "name": "live",
             "expressions": {"function_name": {"references": ["aws_lambda_function.f.arn", "aws_lambda_function.f"]}}},
            {"address": "aws_lambda_event_source_mapping.m", "type": "aws_lambda_event_source_mapping", "name": "m",
             "expressions": {
                 "event_source_arn": {"references": ["aws_sqs_queue.q.arn", "aws_sqs_queue.q"]},
                 "function_name": {"references": ["aws_lambda_alias.live.arn", "aws_lambda_alias.live"]},
             }},
        ]}},
    }
    path = str(tmp_path / "plan.json")
    graphs, errors = load_plan(parse_json(json.dumps(plan, indent=1), path), path)
    assert errors == []
    for graph in (hcl, graphs[0]):
        mapping = graph.get("aws_lambda_event_source_mapping.m")
        assert mapping.function == "aws_lambda_function.f", type(graph)
        assert mapping.source == "aws_sqs_queue.q"


def test_a_module_output_that_is_a_whole_resource_is_followed_through_its_attributes(tmp_path):
    module = tmp_path / "modules" / "jobs"
    module.mkdir(parents=True)
    (module / "main.tf").write_text('resource "aws_sqs_queue" "this" {}\noutput "queue" { value = aws_sqs_queue.this }\n')
    graph = _hcl(tmp_path, 'module "jobs" { source = "./modules/jobs" }\n'
                           'resource "aws_lambda_function" "f" { function_name = "f" }\n'
                           'resource "aws_lambda_event_source_mapping" "m" {\n'
                           '  event_source_arn = module.jobs.queue.arn\n'
                           '  function_name    = aws_lambda_function.f.arn\n}\n')
    [mapping] = graph.all(EventSourceMapping)
    assert mapping.source == "module.jobs.aws_sqs_queue.this"


def test_a_missing_module_directory_is_one_error_and_the_rest_is_linted(tmp_path):
    (tmp_path / "main.tf").write_text('module "gone" {\n  source = "./modules/gone"\n}\n'
                                      'resource "aws_sqs_queue" "q" {}\n')
    graphs, errors = load_terraform_dir(str(tmp_path))
    assert [(e.file, e.line) for e in errors] == [(str(tmp_path / "main.tf"), 1)]
    assert errors[0].message.startswith("module gone: no directory ./modules/gone")
    assert [n.id for n in graphs[0].all(Queue)] == ["aws_sqs_queue.q"]


def test_an_arn_template_proves_its_service_only_by_a_literal_segment():
    from fanout_lint.model.arns import arn_service

    assert arn_service("arn:aws:sqs:${var.region}:${var.account}:jobs") == "sqs"
    assert arn_service("arn:${data.aws_partition.current.partition}:sqs:${var.region}:1:jobs") == "sqs"
    assert arn_service("Sub arn:${AWS::Partition}:sqs:${AWS::Region}:${AWS::AccountId}:jobs") == "sqs"
    assert arn_service("arn:aws:sqs:eu-west-1:123456789012:jobs") == "sqs"
    assert arn_service("arn:aws:${var.service}:eu-west-1:1:sqs:jobs") is None
    assert arn_service("arn:aws:lambda:eu-west-1:1:function:sqs:x") == "lambda"
    assert arn_service("expression") is None
    assert arn_service("arn:" + "${" * 20000) is None  # linear: no backtracking on nested openers
