"""A seeded generator of synthetic repositories with fan-out topologies.

Each unit (a template or a Terraform directory) is a set of fan-out *cells*: one SNS
topic and two to four consumers. A healthy consumer is a queue with a dead-letter queue
(14-day retention, maxReceiveCount 5), a raw-delivery subscription, a queue policy that
allows the topic (aws:SourceArn), and a function reading the queue through a mapping that
reports batch item failures. A share of the consumers carries one anti-pattern, so every
rule has work to do. The same seed gives the same repository, byte for byte.
"""

from __future__ import annotations

import json
import os
import random
from dataclasses import dataclass

import yaml

FLAWS = (
    "sns-to-lambda-direct",
    "raw-delivery-off",
    "missing-dlq",
    "dlq-only-on-subscription",
    "dlq-retention-not-longer",
    "shared-queue",
    "visibility-timeout-below-function-timeout",
)
FORMATS = ("yaml", "json", "sam", "tf")
# Also: "cdk", JSON as `cdk synth` writes it (construct paths, a role per function whose
# policy names ARNs with Fn::Join, the bootstrap parameter and rule); not in FORMATS, so
# the repositories generated before it existed stay byte for byte the same.
RETENTION_14_DAYS = 1_209_600
RESOURCES_PER_HEALTHY_CONSUMER = 6  # queue, DLQ, subscription, policy, function, mapping


@dataclass(frozen=True)
class Consumer:
    name: str
    flaw: str | None


@dataclass(frozen=True)
class Cell:
    topic: str
    consumers: tuple[Consumer, ...]


def topology(rng: random.Random, resources: int, flaw_rate: float = 0.2) -> list[Cell]:
    """Cells totalling about ``resources`` CloudFormation resources (at least one cell)."""
    cells: list[Cell] = []
    total = 0
    while total < resources or not cells:
        index = len(cells)
        consumers = []
        room = max(1, (resources - total - 1) // RESOURCES_PER_HEALTHY_CONSUMER)
        # two consumers at least: a topic with one subscriber is an anti-pattern of its own
        for j in range(min(rng.randint(2, 4), max(2, room))):
            flaw = rng.choice(FLAWS) if rng.random() < flaw_rate else None
            consumers.append(Consumer(f"C{index}x{j}", flaw))
        cells.append(Cell(f"Topic{index}", tuple(consumers)))
        total += 1 + RESOURCES_PER_HEALTHY_CONSUMER * len(consumers)
    return cells


# -- CloudFormation -----------------------------------------------------------

class Ref(str):
    pass


class GetAtt(str):
    pass


def _long_form(value):
    """Short-form helpers to the long form JSON templates use."""
    if isinstance(value, Ref):
        return {"Ref": str(value)}
    if isinstance(value, GetAtt):
        return {"Fn::GetAtt": str(value).split(".", 1)}
    if isinstance(value, dict):
        return {k: _long_form(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_long_form(v) for v in value]
    return value


class _Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):
    pass


_Dumper.add_representer(Ref, lambda d, v: d.represent_scalar("!Ref", str(v)))
_Dumper.add_representer(GetAtt, lambda d, v: d.represent_scalar("!GetAtt", str(v)))


def _queue_policy(queue: str, topic: str) -> dict:
    return {
        "Type": "AWS::SQS::QueuePolicy",
        "Properties": {
            "Queues": [Ref(queue)],
            "PolicyDocument": {
                "Version": "2012-10-17",
                "Statement": [{
                    "Effect": "Allow",
                    "Principal": {"Service": "sns.amazonaws.com"},
                    "Action": "sqs:SendMessage",
                    "Resource": GetAtt(f"{queue}.Arn"),
                    "Condition": {"ArnEquals": {"aws:SourceArn": Ref(topic)}},
                }],
            },
        },
    }


def _function(timeout: int) -> dict:
    return {
        "Type": "AWS::Lambda::Function",
        "Properties": {
            "Runtime": "python3.12",
            "Handler": "index.handler",
            "Role": Ref("FunctionRoleArn"),
            "Timeout": timeout,
            "Code": {"ZipFile": "def handler(event, context):\n    return {}\n"},
        },
    }


def _mapping(queue: str, function: str) -> dict:
    return {
        "Type": "AWS::Lambda::EventSourceMapping",
        "Properties": {
            "EventSourceArn": GetAtt(f"{queue}.Arn"),
            "FunctionName": Ref(function),
            "BatchSize": 10,
            "FunctionResponseTypes": ["ReportBatchItemFailures"],
        },
    }


def cfn_resources(cells: list[Cell], sam: bool = False) -> dict:
    out: dict = {}
    for cell in cells:
        out[cell.topic] = {"Type": "AWS::SNS::Topic", "Properties": {"TopicName": f"{cell.topic.lower()}-events"}}
        for c in cell.consumers:
            _cfn_consumer(out, cell.topic, c, sam)
    return out


def _cfn_consumer(out: dict, topic: str, c: Consumer, sam: bool) -> None:
    name, flaw = c.name, c.flaw
    fn, queue, dlq = f"{name}Function", f"{name}Queue", f"{name}DLQ"
    if flaw == "sns-to-lambda-direct":
        out[fn] = _function(30)
        out[f"{name}Subscription"] = {"Type": "AWS::SNS::Subscription", "Properties": {
            "TopicArn": Ref(topic), "Protocol": "lambda", "Endpoint": GetAtt(f"{fn}.Arn")}}
        out[f"{name}Permission"] = {"Type": "AWS::Lambda::Permission", "Properties": {
            "FunctionName": Ref(fn), "Action": "lambda:InvokeFunction",
            "Principal": "sns.amazonaws.com", "SourceArn": Ref(topic)}}
        return
    queue_props: dict = {"VisibilityTimeout": 180}
    if flaw not in ("missing-dlq", "dlq-only-on-subscription"):
        queue_props["RedrivePolicy"] = {"deadLetterTargetArn": GetAtt(f"{dlq}.Arn"), "maxReceiveCount": 5}
    if flaw == "visibility-timeout-below-function-timeout":
        queue_props["VisibilityTimeout"] = 30
    out[queue] = {"Type": "AWS::SQS::Queue", "Properties": queue_props}
    if flaw != "missing-dlq":
        retention = 345_600 if flaw == "dlq-retention-not-longer" else RETENTION_14_DAYS
        out[dlq] = {"Type": "AWS::SQS::Queue", "Properties": {"MessageRetentionPeriod": retention}}
    subscription: dict = {"TopicArn": Ref(topic), "Protocol": "sqs", "Endpoint": GetAtt(f"{queue}.Arn")}
    if flaw != "raw-delivery-off":
        subscription["RawMessageDelivery"] = True
    if flaw == "dlq-only-on-subscription":
        subscription["RedrivePolicy"] = {"deadLetterTargetArn": GetAtt(f"{dlq}.Arn")}
    out[f"{name}Subscription"] = {"Type": "AWS::SNS::Subscription", "Properties": subscription}
    out[f"{name}Policy"] = _queue_policy(queue, topic)
    timeout = 60 if flaw == "visibility-timeout-below-function-timeout" else 30
    consumers = [fn, f"{name}OtherFunction"] if flaw == "shared-queue" else [fn]
    for index, function in enumerate(consumers):
        suffix = "Mapping" if index == 0 else "OtherMapping"
        if sam:
            out[function] = {"Type": "AWS::Serverless::Function", "Properties": {
                "Runtime": "python3.12", "Handler": "index.handler", "InlineCode": "def handler(e, c): return {}",
                "Timeout": timeout, "Events": {"Queue": {"Type": "SQS", "Properties": {
                    "Queue": GetAtt(f"{queue}.Arn"), "BatchSize": 10,
                    "FunctionResponseTypes": ["ReportBatchItemFailures"]}}}}}
        else:
            out[function] = _function(timeout)
            out[f"{name}{suffix}"] = _mapping(queue, function)


def cfn_template(cells: list[Cell], sam: bool = False) -> dict:
    template: dict = {"AWSTemplateFormatVersion": "2010-09-09"}
    if sam:
        template["Transform"] = "AWS::Serverless-2016-10-31"
    template["Description"] = "Synthetic fan-out topology (bench/generate.py)"
    template["Parameters"] = {"FunctionRoleArn": {"Type": "String", "Default": "arn:aws:iam::123456789012:role/fn"}}
    template["Resources"] = cfn_resources(cells, sam)
    return template


def render_yaml(template: dict) -> str:
    return yaml.dump(template, Dumper=_Dumper, sort_keys=False, default_flow_style=False, width=200)


def render_json(template: dict) -> str:
    return json.dumps(_long_form(template), indent=2) + "\n"


def _arn(service: str, resource) -> dict:
    """An ARN as CDK writes one: joined from pseudo parameters, with ``":sqs:"`` and ``":"``
    as strings of their own (a string that begins with a colon, in every CDK template)."""
    return {"Fn::Join": ["", [
        "arn:", {"Ref": "AWS::Partition"}, f":{service}:", {"Ref": "AWS::Region"}, ":",
        {"Ref": "AWS::AccountId"}, ":", resource,
    ]]}


def cdk_template(cells: list[Cell], stack: str = "Stack") -> dict:
    """The template as CDK synthesizes it: every resource with its construct path, each
    function with a role whose policy names its queue and log group by joined ARNs."""
    resources = _long_form(cfn_resources(cells))
    out: dict = {}
    for name, resource in resources.items():
        resource["Metadata"] = {"aws:cdk:path": f"{stack}/{name}/Resource"}
        out[name] = resource
        if resource["Type"] != "AWS::Lambda::Function":
            continue
        role = f"{name}ServiceRole"
        resource["Properties"]["Role"] = {"Fn::GetAtt": [role, "Arn"]}
        queue = name[: -len("OtherFunction")] if name.endswith("OtherFunction") else name[: -len("Function")]
        out[role] = {
            "Type": "AWS::IAM::Role",
            "Properties": {
                "AssumeRolePolicyDocument": {"Statement": [{
                    "Action": "sts:AssumeRole", "Effect": "Allow",
                    "Principal": {"Service": "lambda.amazonaws.com"},
                }], "Version": "2012-10-17"},
                "Policies": [{"PolicyName": "consume", "PolicyDocument": {"Statement": [
                    {"Action": ["sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes"],
                     "Effect": "Allow", "Resource": _arn("sqs", f"{queue.lower()}-queue")},
                    {"Action": ["logs:CreateLogStream", "logs:PutLogEvents"], "Effect": "Allow",
                     "Resource": _arn("logs", {"Fn::Join": ["", ["log-group:/aws/lambda/", {"Ref": name}, ":*"]]})},
                ], "Version": "2012-10-17"}}],
            },
            "Metadata": {"aws:cdk:path": f"{stack}/{name}/ServiceRole/Resource"},
        }
    out["CDKMetadata"] = {
        "Type": "AWS::CDK::Metadata",
        "Properties": {"Analytics": "v2:deflate64:H4sIAAAAAAAA/zPSMzQ0MFRMLC9ITNZLSSxL1KtWcEnN"},
        "Metadata": {"aws:cdk:path": f"{stack}/CDKMetadata/Default"},
    }
    return {
        "Description": "Synthetic fan-out topology (bench/generate.py, CDK-shaped)",
        "Resources": out,
        "Parameters": {"BootstrapVersion": {
            "Type": "AWS::SSM::Parameter::Value<String>", "Default": "/cdk-bootstrap/hnb659fds/version",
            "Description": "Version of the CDK Bootstrap resources in this environment",
        }},
        "Rules": {"CheckBootstrapVersion": {"Assertions": [{
            "Assert": {"Fn::Not": [{"Fn::Contains": [["1", "2", "3", "4", "5"], {"Ref": "BootstrapVersion"}]}]},
            "AssertDescription": "CDK bootstrap stack version 6 required.",
        }]}},
    }


# -- Terraform ----------------------------------------------------------------

def terraform_files(cells: list[Cell]) -> dict[str, str]:
    """A Terraform unit: topics, queues and subscriptions in one file, functions in another."""
    messaging, compute = [], []
    for cell in cells:
        t = cell.topic.lower()
        messaging.append(f'resource "aws_sns_topic" "{t}" {{\n  name = "{t}-events"\n}}\n')
        for c in cell.consumers:
            _tf_consumer(messaging, compute, t, c)
    variables = 'variable "function_role_arn" {\n  type    = string\n  default = "arn:aws:iam::123456789012:role/fn"\n}\n'
    return {"messaging.tf": "\n".join(messaging), "compute.tf": "\n".join(compute), "variables.tf": variables}


def _tf_consumer(messaging: list[str], compute: list[str], topic: str, c: Consumer) -> None:
    name, flaw = c.name.lower(), c.flaw
    timeout = 60 if flaw == "visibility-timeout-below-function-timeout" else 30
    compute.append(_tf_function(name, timeout))
    if flaw == "sns-to-lambda-direct":
        messaging.append(
            f'resource "aws_sns_topic_subscription" "{name}" {{\n'
            f'  topic_arn = aws_sns_topic.{topic}.arn\n  protocol  = "lambda"\n'
            f'  endpoint  = aws_lambda_function.{name}.arn\n}}\n'
        )
        return
    visibility = 30 if flaw == "visibility-timeout-below-function-timeout" else 180
    redrive = ""
    if flaw not in ("missing-dlq", "dlq-only-on-subscription"):
        redrive = (
            "  redrive_policy = jsonencode({\n"
            f"    deadLetterTargetArn = aws_sqs_queue.{name}_dlq.arn\n    maxReceiveCount     = 5\n  }})\n"
        )
    messaging.append(
        f'resource "aws_sqs_queue" "{name}" {{\n  name                       = "{name}"\n'
        f"  visibility_timeout_seconds = {visibility}\n{redrive}}}\n"
    )
    if flaw != "missing-dlq":
        retention = 345_600 if flaw == "dlq-retention-not-longer" else RETENTION_14_DAYS
        messaging.append(
            f'resource "aws_sqs_queue" "{name}_dlq" {{\n  name                      = "{name}-dlq"\n'
            f"  message_retention_seconds = {retention}\n}}\n"
        )
    sub_extra = "" if flaw == "raw-delivery-off" else "  raw_message_delivery = true\n"
    if flaw == "dlq-only-on-subscription":
        sub_extra += (
            f"  redrive_policy = jsonencode({{ deadLetterTargetArn = aws_sqs_queue.{name}_dlq.arn }})\n"
        )
    messaging.append(
        f'resource "aws_sns_topic_subscription" "{name}" {{\n'
        f'  topic_arn = aws_sns_topic.{topic}.arn\n  protocol  = "sqs"\n'
        f"  endpoint  = aws_sqs_queue.{name}.arn\n{sub_extra}}}\n"
    )
    messaging.append(
        f'resource "aws_sqs_queue_policy" "{name}" {{\n  queue_url = aws_sqs_queue.{name}.id\n'
        "  policy = jsonencode({\n    Version = \"2012-10-17\"\n    Statement = [{\n"
        '      Effect    = "Allow"\n      Principal = { Service = "sns.amazonaws.com" }\n'
        f'      Action    = "sqs:SendMessage"\n      Resource  = aws_sqs_queue.{name}.arn\n'
        f'      Condition = {{ ArnEquals = {{ "aws:SourceArn" = aws_sns_topic.{topic}.arn }} }}\n'
        "    }]\n  })\n}\n"
    )
    functions = [name, f"{name}_other"] if flaw == "shared-queue" else [name]
    if flaw == "shared-queue":
        compute.append(_tf_function(f"{name}_other", timeout))
    for function in functions:
        compute.append(
            f'resource "aws_lambda_event_source_mapping" "{function}" {{\n'
            f"  event_source_arn        = aws_sqs_queue.{name}.arn\n"
            f"  function_name           = aws_lambda_function.{function}.arn\n"
            '  batch_size              = 10\n  function_response_types = ["ReportBatchItemFailures"]\n}\n'
        )


def _tf_function(name: str, timeout: int) -> str:
    return (
        f'resource "aws_lambda_function" "{name}" {{\n  function_name = "{name}"\n'
        f'  role          = var.function_role_arn\n  runtime       = "python3.12"\n'
        f'  handler       = "index.handler"\n  filename      = "lambda.zip"\n  timeout       = {timeout}\n}}\n'
    )


# -- repositories ---------------------------------------------------------------

@dataclass(frozen=True)
class Unit:
    path: str  # a file, or a Terraform directory
    format: str
    resources: int


def split_linked(template: dict, prefix: str) -> tuple[dict, dict]:
    """The template as two stacks that link: the original keeps its topics and queues and
    exports each queue a mapping reads; a consumer stack holds the mappings and their
    functions and imports the queues. The findings are the same, found across stacks."""
    resources = template["Resources"]
    mappings = {k: v for k, v in resources.items() if v["Type"] == "AWS::Lambda::EventSourceMapping"}
    functions = {str(m["Properties"]["FunctionName"]) for m in mappings.values()}
    moved = {k: v for k, v in resources.items() if k in mappings or k in functions}
    exports: dict = {}
    for mapping in mappings.values():
        queue = str(mapping["Properties"]["EventSourceArn"]).split(".")[0]
        name = f"{prefix}-{queue}-arn"
        exports[f"{queue}Arn"] = {"Value": GetAtt(f"{queue}.Arn"), "Export": {"Name": name}}
        mapping["Properties"]["EventSourceArn"] = {"Fn::ImportValue": name}
    producer = dict(template, Resources={k: v for k, v in resources.items() if k not in moved}, Outputs=exports)
    consumer = {k: v for k, v in template.items() if k != "Resources"}
    consumer["Resources"] = moved
    return producer, consumer


def generate_repo(
    root: str,
    units: int,
    resources: int | tuple[int, int],
    formats: tuple[str, ...] = FORMATS,
    seed: int = 0,
    flaw_rate: float = 0.2,
    link_rate: float = 0.0,
) -> list[Unit]:
    """Write ``units`` units under ``root`` (formats in turn), each of about ``resources``
    resources (or a size drawn from the ``(low, high)`` range). Returns what was written.

    ``link_rate``: the share of CloudFormation templates (YAML, JSON) written as two
    stacks that link (``split_linked``), drawn from a generator of its own so that the
    rest of the repository is the same."""
    rng = random.Random(seed)
    linking = random.Random(seed + 1)
    written = []
    for index in range(units):
        fmt = formats[index % len(formats)]
        size = resources if isinstance(resources, int) else rng.randint(*resources)
        cells = topology(rng, size, flaw_rate)
        team = os.path.join(root, f"service{index // 50:03d}")
        os.makedirs(team, exist_ok=True)
        if fmt == "tf":
            path = os.path.join(team, f"stack{index:04d}")
            os.makedirs(path, exist_ok=True)
            files = terraform_files(cells)
            for name, text in files.items():
                with open(os.path.join(path, name), "w", encoding="utf-8") as handle:
                    handle.write(text)
            count = sum(text.count('\nresource "') + text.startswith('resource "') for text in files.values())
        elif fmt == "cdk":
            template = cdk_template(cells, f"Stack{index:04d}")
            path = os.path.join(team, f"Stack{index:04d}.template.json")
            text = json.dumps(template, indent=1) + "\n"  # cdk synth indents by one
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text)
            count = len(template["Resources"])
        else:
            template = cfn_template(cells, sam=fmt == "sam")
            extension = "json" if fmt == "json" else "yaml"
            path = os.path.join(team, f"stack{index:04d}.{extension}")
            stacks = [(path, template)]
            if link_rate and fmt != "sam" and linking.random() < link_rate:
                producer, consumer = split_linked(template, f"stack{index:04d}")
                stacks = [(path, producer), (os.path.join(team, f"stack{index:04d}-consumers.{extension}"), consumer)]
            for stack_path, stack in stacks:
                text = render_json(stack) if fmt == "json" else render_yaml(stack)
                with open(stack_path, "w", encoding="utf-8") as handle:
                    handle.write(text)
                written.append(Unit(stack_path, fmt, len(stack["Resources"])))
            continue
        written.append(Unit(path, fmt, count))
    return written


def terraform_directory(path: str, files: int, resources: int, seed: int = 0, flaw_rate: float = 0.2) -> list[str]:
    """One Terraform unit of about ``resources`` resources spread over ``files`` files
    (``part00.tf`` ..., and ``variables.tf``), as a repository's larger directories are.
    Returns the files written."""
    rng = random.Random(seed)
    cells = topology(rng, resources, flaw_rate)
    os.makedirs(path, exist_ok=True)
    parts = max(1, files - 1)
    written = []
    variables = terraform_files([])["variables.tf"]
    for index in range(parts):
        group = cells[index::parts]
        if not group:
            continue
        texts = terraform_files(group)
        text = texts["messaging.tf"] + "\n" + texts["compute.tf"]
        if files == 1:
            text += "\n" + variables
        written.append(_write(os.path.join(path, f"part{index:02d}.tf"), text))
    if files > 1:
        written.append(_write(os.path.join(path, "variables.tf"), variables))
    return written


def _write(path: str, text: str) -> str:
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    return path


def unit_files(units: list[Unit]) -> list[str]:
    """Every file of the units: templates, and the ``.tf`` files of Terraform directories."""
    files = []
    for unit in units:
        if os.path.isdir(unit.path):
            files.extend(sorted(os.path.join(unit.path, f) for f in os.listdir(unit.path) if f.endswith(".tf")))
        else:
            files.append(unit.path)
    return files
