"""Hostile and broken input: never a traceback, always a one-line error naming the file
(and the line when there is one), exit 2, and every other file still linted."""

from __future__ import annotations

import glob
import json
import os
import sys
import tracemalloc

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
import properties  # noqa: F401  (Hypothesis's profile, before the first @settings)

import fanout_lint.loaders
from fanout_lint.cli.main import main
from fanout_lint.run.engine import lint_paths
from fanout_lint.rule import Rule
from fanout_lint.rules import ALL_RULES
from fanout_lint.policy.settings import Settings
from repo_paths import ROOT, TESTS

sys.path.insert(0, ROOT)
from bench.generate import cfn_template, render_json, render_yaml, terraform_files, topology  # noqa: E402

FIXTURES = os.path.join(TESTS, "fixtures")

# One template that fires (a queue without DLQ read by a function), for "other files still linted".
GOOD = """\
AWSTemplateFormatVersion: "2010-09-09"
Resources:
  Queue:
    Type: AWS::SQS::Queue
  Worker:
    Type: AWS::Lambda::Function
  Mapping:
    Type: AWS::Lambda::EventSourceMapping
    Properties:
      EventSourceArn: !GetAtt Queue.Arn
      FunctionName: !Ref Worker
      FunctionResponseTypes: [ReportBatchItemFailures]
"""


def check(capsys, *paths, extra=()) -> tuple[int, dict, str]:
    """Run the CLI with JSON output; the exit code, the report and stderr."""
    code = main(["check", "--format", "json", *extra, *map(str, paths)])
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err
    return code, json.loads(out.out), out.err


def assert_one_error(report: dict, path, *words: str, line: bool = True) -> dict:
    errors = [e for e in report["errors"] if e["file"] == str(path)]
    assert len(errors) == 1, report["errors"]
    error = errors[0]
    assert "\n" not in error["message"]
    for word in words:
        assert word in error["message"], error["message"]
    if line:
        assert isinstance(error["line"], int) and error["line"] >= 1, error
    return error


def assert_good_linted(report: dict, good) -> None:
    assert any(f["file"] == str(good) and f["name"] == "missing-dlq" for f in report["findings"]), report


@pytest.fixture
def good(tmp_path):
    path = tmp_path / "good.yaml"
    path.write_text(GOOD)
    return path


# -- mutated input, property-based --------------------------------------------

def _seeds() -> list[tuple[str, bytes]]:
    """Valid inputs to mutate: the fixtures, and generated YAML, JSON and HCL."""
    import random

    seeds = []
    for pattern, suffix in (("**/cfn_*.yaml", ".yaml"), ("**/*.json", ".json"), ("**/tf_*/**/*.tf", ".tf")):
        for path in sorted(glob.glob(os.path.join(FIXTURES, pattern), recursive=True))[:6]:
            with open(path, "rb") as handle:
                seeds.append((suffix, handle.read()))
    cells = topology(random.Random(1), 40, flaw_rate=0.5)
    seeds.append((".yaml", render_yaml(cfn_template(cells)).encode()))
    seeds.append((".json", render_json(cfn_template(cells)).encode()))
    seeds.append((".yaml", render_yaml(cfn_template(cells, sam=True)).encode()))
    seeds.append((".tf", terraform_files(cells)["messaging.tf"].encode()))
    return seeds


SEEDS = _seeds()


@st.composite
def mutated(draw):
    suffix, data = draw(st.sampled_from(SEEDS))
    data = bytearray(data)
    for _ in range(draw(st.integers(1, 4))):
        if not data:
            break
        at = draw(st.integers(0, len(data) - 1))
        op = draw(st.sampled_from(("delete", "insert", "replace", "truncate", "duplicate")))
        if op == "delete":
            del data[at:at + draw(st.integers(1, 40))]
        elif op == "insert":
            data[at:at] = draw(st.sampled_from((
                b"{", b"}", b"[", b"]", b"\"", b"'", b":", b"- ", b"\n  ", b"\t", b"&a ", b"*a", b"!Ref ",
                b"!GetAtt ", b"${", b"\x00", b"\xff", b"\xc3", b"#", b"=", b"<<", b"%YAML 1.1\n", b"---\n",
            )))
        elif op == "replace":
            data[at] = draw(st.integers(0, 255))
        elif op == "truncate":
            del data[at:]
        else:
            end = min(len(data), at + draw(st.integers(1, 200)))
            data[end:end] = data[at:end]
    return suffix, bytes(data)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=mutated())
def test_mutated_input_gives_findings_or_one_line_errors(tmp_path_factory, case):
    suffix, data = case
    root = tmp_path_factory.mktemp("mutant")
    if suffix == ".tf":
        (root / "unit").mkdir()
        target = root / "unit" / "main.tf"
    else:
        target = root / f"template{suffix}"
    target.write_bytes(data)
    result = lint_paths([str(root)], ALL_RULES, Settings(jobs=1))
    for error in result.errors:
        assert error.file.startswith(str(root)) and "\n" not in error.message, error
        assert "internal error" not in error.message and "failed:" not in error.message, error
    for finding in result.findings:
        assert finding.loc.file.startswith(str(root)) and finding.loc.line >= 1


# -- explicit hostile cases ---------------------------------------------------

def test_alias_bomb_fails_fast_with_bounded_memory(capsys, tmp_path, good):
    lines = ['AWSTemplateFormatVersion: "2010-09-09"', 'a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, 12):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    lines.append("Resources: {Q: {Type: AWS::SQS::Queue, Properties: {Tags: *a11}}}")
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("\n".join(lines) + "\n")
    tracemalloc.start()
    try:
        code, report, _ = check(capsys, bomb, good)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert code == 2
    assert_one_error(report, bomb, "alias")
    assert_good_linted(report, good)
    assert peak < 64 * 1024 * 1024


@pytest.mark.parametrize("style", ["flow", "block", "json"])
def test_ten_thousand_levels_of_nesting_is_an_error_not_a_crash(capsys, tmp_path, good, style):
    depth = 10_000
    if style == "flow":
        text = 'AWSTemplateFormatVersion: "2010-09-09"\nResources: ' + "[" * depth + "]" * depth + "\n"
        path = tmp_path / "deep.yaml"
    elif style == "block":
        text = 'AWSTemplateFormatVersion: "2010-09-09"\nResources:\n' + "".join(
            " " * (i + 1) + f"k{i}:\n" for i in range(depth)
        ) + " " * (depth + 1) + "v\n"
        path = tmp_path / "deep.yaml"
    else:
        text = '{"AWSTemplateFormatVersion": "2010-09-09", "Resources": ' + '{"a": ' * depth + "1" + "}" * depth + "}"
        path = tmp_path / "deep.json"
    path.write_text(text)
    code, report, _ = check(capsys, path, good)
    assert code == 2
    assert_one_error(report, path, "nesting", line=style != "json")
    assert_good_linted(report, good)


def test_fifty_megabyte_template_is_linted(capsys, tmp_path):
    # 50 MB of inline code in a real template: large, valid, and linted like any other.
    body = ("x = 1  # padding line\n" * (50 * 1024 * 1024 // 32)).replace("\n", "\n          ")
    text = GOOD + "  Big:\n    Type: AWS::Lambda::Function\n    Properties:\n      Code:\n        ZipFile: |\n          " + body + "\n"
    path = tmp_path / "big.yaml"
    path.write_text(text)
    assert path.stat().st_size > 50 * 1024 * 1024
    code, report, _ = check(capsys, path)
    assert code == 1 and not report["errors"]
    assert_good_linted(report, path)


def test_binary_file_named_yaml(capsys, tmp_path, good):
    path = tmp_path / "image.yaml"
    path.write_bytes(b"Resources:\n" + bytes(range(256)) * 4)
    code, report, _ = check(capsys, path, good)
    assert code == 2
    assert_one_error(report, path, "binary")
    assert_good_linted(report, good)


def test_invalid_utf8(capsys, tmp_path, good):
    path = tmp_path / "latin1.yaml"
    path.write_bytes(GOOD.encode() + b"  Other:\n    Type: AWS::SQS::Queue\n    Properties: {QueueName: caf\xe9}\n")
    code, report, _ = check(capsys, path, good)
    assert code == 2
    error = assert_one_error(report, path, "UTF-8")
    assert error["line"] == GOOD.count("\n") + 3
    assert_good_linted(report, good)


def test_invalid_utf8_after_a_byte_order_mark_names_the_bad_byte(capsys, tmp_path, good):
    path = tmp_path / "bom.yaml"
    data = b"\xef\xbb\xbf" + GOOD.encode() + b"  Other:\n    Type: AWS::SQS::Queue\n    Properties: {QueueName: caf\xe9}\n"
    path.write_bytes(data)
    code, report, _ = check(capsys, path, good)
    assert code == 2
    error = assert_one_error(report, path, "UTF-8")
    assert f"byte 0xe9 at offset {data.index(bytes([0xe9]))}" in error["message"]  # counted from the file's start
    assert error["line"] == GOOD.count("\n") + 3


def test_a_byte_order_mark_is_not_part_of_the_template(capsys, tmp_path):
    path = tmp_path / "bom.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + GOOD.encode())
    code, report, _ = check(capsys, path)
    assert report["errors"] == [] and report["summary"]["units"] == 1


def test_empty_file_is_not_a_template_and_not_an_error(capsys, tmp_path, good):
    # pre-commit passes every YAML file; an empty one is no template, like a CI workflow.
    for name in ("empty.yaml", "empty.json"):
        (tmp_path / name).write_bytes(b"")
    code, report, _ = check(capsys, tmp_path)
    assert code == 1 and report["errors"] == []
    assert_good_linted(report, good)


def test_broken_json_that_names_the_words_only_in_values_is_no_template(capsys, tmp_path, good):
    # A repository's pattern descriptions and API models mention "services" and
    # "Resources" in their text; broken or not, they are no template and no error.
    (tmp_path / "pattern.json").write_text('{"title": "Fan-out", "services": ["sns" "sqs"],\n'
                                          ' "text": "Resources: a queue, and a \\"service\\"", "n": 1')
    code, report, _ = check(capsys, tmp_path)
    assert report["errors"] == []
    assert_good_linted(report, good)


@pytest.mark.parametrize("key", ['"Resources"', '"Resources" \n\t:', '"service"', '"planned_values"'])
def test_broken_json_that_writes_a_template_word_as_a_key_is_an_error(capsys, tmp_path, good, key):
    # not YAML either (a brace is missing): valid YAML would be read as YAML
    text = "{" + key + ("" if key.endswith(":") else ":") + ' {"Q": {"Type": "AWS::SQS::Queue",}}'
    (tmp_path / "broken.json").write_text(text)
    code, report, _ = check(capsys, tmp_path)
    assert code == 2
    assert [(os.path.basename(e["file"]), e["message"][:12]) for e in report["errors"]] == [("broken.json", "invalid JSON")]
    assert_good_linted(report, good)


@pytest.mark.parametrize("values", [0, 3, 5000])
def test_a_template_word_as_a_key_is_found_after_any_number_of_it_in_values(values):
    from fanout_lint.loaders import _may_be_read

    before = '{"a": [' + ", ".join(['"service"'] * values) + "]"
    assert _may_be_read(before + ', "Resources" :\n {}}', "json")
    assert _may_be_read(before + ', "service": "x"}', "json")
    assert not _may_be_read(before + ', "b": "Resources:"}', "json")
    assert _may_be_read(before + "}", "yaml")  # YAML is told by its parse


def test_symlink_loop_in_a_walked_directory(capsys, tmp_path, good):
    (tmp_path / "nested").mkdir()
    os.symlink(tmp_path, tmp_path / "nested" / "loop")
    os.symlink(tmp_path / "nested" / "self", tmp_path / "nested" / "self")  # a link to itself
    code, report, _ = check(capsys, tmp_path)
    assert code == 1 and report["errors"] == []
    assert len([f for f in report["findings"] if f["name"] == "missing-dlq"]) == 1


def test_unreadable_file(capsys, tmp_path, good, monkeypatch):
    # Tests run as root in CI, and root reads a chmod 000 file; so the loader's read is
    # made to fail as it does for an ordinary user.
    locked = tmp_path / "locked.yaml"
    locked.write_text(GOOD)
    real_read = fanout_lint.loaders.read_bounded

    def deny(path, *args, **kwargs):
        if os.fspath(path) == str(locked):
            raise PermissionError(13, "Permission denied", str(path))
        return real_read(path, *args, **kwargs)

    monkeypatch.setattr(fanout_lint.loaders, "read_bounded", deny)
    code, report, _ = check(capsys, locked, good)
    assert code == 2
    assert_one_error(report, locked, "cannot read", "Permission denied", line=False)
    assert_good_linted(report, good)


@pytest.mark.skipif(os.geteuid() == 0 if hasattr(os, "geteuid") else True, reason="root reads any file")
def test_unreadable_file_by_permissions(capsys, tmp_path, good):
    locked = tmp_path / "locked.yaml"
    locked.write_text(GOOD)
    locked.chmod(0)
    code, report, _ = check(capsys, locked, good)
    assert code == 2
    assert_one_error(report, locked, "cannot read", line=False)


def test_ten_thousand_resources(capsys, tmp_path):
    queues = "".join(f"  Q{i}: {{Type: AWS::SQS::Queue, Properties: {{VisibilityTimeout: {i % 900}}}}}\n" for i in range(9_999))
    path = tmp_path / "wide.yaml"
    path.write_text(GOOD + queues)
    code, report, _ = check(capsys, path)
    assert code == 1 and not report["errors"]
    assert [f["name"] for f in report["findings"]] == ["missing-dlq"]


def test_terraform_directory_with_a_broken_file_next_to_good_ones(capsys, tmp_path, good):
    import random

    unit = tmp_path / "stack"
    unit.mkdir()
    cells = topology(random.Random(3), 20, flaw_rate=0.0)
    for name, text in terraform_files(cells).items():
        (unit / name).write_text(text)
    (unit / "queue.tf").write_text('resource "aws_sqs_queue" "lonely" {}\n'
                                   'resource "aws_lambda_function" "reader" {\n  function_name = "r"\n}\n'
                                   'resource "aws_lambda_event_source_mapping" "m" {\n'
                                   "  event_source_arn = aws_sqs_queue.lonely.arn\n"
                                   "  function_name    = aws_lambda_function.reader.arn\n"
                                   '  function_response_types = ["ReportBatchItemFailures"]\n}\n')
    broken = unit / "broken.tf"
    broken.write_text('resource "aws_sqs_queue" "x" {\n  name = "x"\n\nresource "oops" {{{\n')
    healthy = tmp_path / "healthy"
    healthy.mkdir()
    (healthy / "queue.tf").write_text((unit / "queue.tf").read_text())
    code, report, _ = check(capsys, unit, healthy, good)
    assert code == 2
    assert_one_error(report, broken, "HCL")
    # The broken file may declare what the rules need (a DLQ, a redrive policy), so its
    # unit gives no findings rather than false ones; every other unit is linted.
    assert not [f for f in report["findings"] if f["file"].startswith(str(unit))]
    assert any(f["name"] == "missing-dlq" and f["file"] == str(healthy / "queue.tf") for f in report["findings"])
    assert_good_linted(report, good)



@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_named_like_a_template_is_an_error_not_a_hang(tmp_path, good):
    # Opening a FIFO blocks until something writes to it. The run is a subprocess so that
    # a regression fails on the guard below instead of hanging the suite.
    import subprocess

    os.mkfifo(tmp_path / "pipe.yaml")
    unit = tmp_path / "stack"
    unit.mkdir()
    (unit / "queue.tf").write_text('resource "aws_sqs_queue" "q" {}\n')
    os.mkfifo(unit / "pipe.tf")
    for argv in ([tmp_path], [tmp_path / "pipe.yaml", good]):
        proc = subprocess.run(
            [sys.executable, "-m", "fanout_lint", "check", "--format", "json", *map(str, argv)],
            capture_output=True, text=True, timeout=120, cwd=tmp_path,
        )
        assert "Traceback" not in proc.stderr
        assert proc.returncode == 2, proc.stderr
        report = json.loads(proc.stdout)
        assert_one_error(report, tmp_path / "pipe.yaml", "not a regular file", line=False)
        if argv == [tmp_path]:
            assert_one_error(report, unit / "pipe.tf", "not a regular file", line=False)
        assert_good_linted(report, good)


# -- a rule that crashes -------------------------------------------------------

def _explode(graph, options):
    if any(node.id == "Queue" for node in graph.nodes()):
        raise KeyError("boom")
    return iter(())


BROKEN_RULE = Rule(
    id="FL999", name="exploding-rule", severity=ALL_RULES[0].severity,
    summary="raises on a unit with a resource named Queue", check=_explode, doc=__doc__,
)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_crashing_rule_is_an_error_record_and_the_rest_still_runs(capsys, tmp_path, monkeypatch, jobs):
    monkeypatch.setattr("fanout_lint.cli.main._all_rules", lambda: ALL_RULES + (BROKEN_RULE,))
    first = tmp_path / "a.yaml"
    first.write_text(GOOD)
    others = []
    for i in range(3):
        other = tmp_path / f"b{i}.yaml"
        other.write_text(GOOD.replace("  Queue:", "  Inbox:").replace("Queue.Arn", "Inbox.Arn"))
        others.append(other)
    code, report, _ = check(capsys, tmp_path, extra=("-j", jobs))
    assert code == 2
    error = assert_one_error(report, first, "FL999", "exploding-rule", "KeyError", line=False)
    assert error["file"] == str(first)
    # the other rules on the same unit, and the other units, still report
    assert_good_linted(report, first)
    for other in others:
        assert_good_linted(report, other)


# -- literals no parser can read ------------------------------------------------

LONG = "9" * 5000  # past the 4,300 digits Python turns into an int


def _tf(tmp_path, name: str, text: str):
    unit = tmp_path / name.split(".")[0]
    unit.mkdir()
    path = unit / name
    path.write_text(text, encoding="utf-8")
    return unit, path


@pytest.mark.parametrize("escape", [r"\U00110000", r"\UFFFFFFFF", r"\U7FFFFFFF"])
@pytest.mark.parametrize("where", ["value", "label", "key"])
def test_an_hcl_escape_of_no_character_is_an_error_with_its_line(capsys, tmp_path, good, escape, where):
    text = {
        "value": 'resource "aws_sqs_queue" "q" {\n  name = "x%s"\n}\n',
        "label": 'resource "aws_sqs_queue" "q" {\n}\nresource "aws_sqs_queue" "%s" {\n}\n',
        "key": 'resource "aws_sqs_queue" "q" {\n  tags = {\n    "%s" = "x"\n  }\n}\n',
    }[where] % escape
    unit, path = _tf(tmp_path, "main.tf", text)
    code, report, err = check(capsys, unit, good)
    assert code == 2
    error = assert_one_error(report, path, "HCL", escape, "no Unicode character")
    assert error["line"] == {"value": 2, "label": 3, "key": 3}[where]
    assert_good_linted(report, good)


def test_hcl_escapes_of_characters_still_read(tmp_path):
    from fanout_lint.loaders.terraform.hcl.syntax import parse_hcl

    parsed = parse_hcl('a = "\\u00e9\\U0001F600\\U0010FFFF"\n', "main.tf")
    assert parsed.body.attributes["a"].expr.value == "\u00e9\U0001F600\U0010FFFF"


@pytest.mark.parametrize("name, text, line", [
    ("template.json", '{"Resources": {"Q": {"Type": "AWS::SQS::Queue",\n "Properties": {"VisibilityTimeout": %s}}}}', 2),
    ("template.yaml", "Resources:\n  Q:\n    Type: AWS::SQS::Queue\n    Properties:\n      VisibilityTimeout: %s\n", 5),
    ("tagged.yaml", "Resources:\n  Q:\n    Type: AWS::SQS::Queue\n    Properties:\n      VisibilityTimeout: !!int %s\n", 5),
    ("plan.json", '{"format_version": "1.2", "planned_values": {"root_module": {"resources": [\n'
                  '{"address": "aws_sqs_queue.q", "type": "aws_sqs_queue", "name": "q", "mode": "managed",\n'
                  ' "values": {"visibility_timeout_seconds": %s}}]}}}', 3),
    ("serverless.yml", "service: s\nprovider:\n  name: aws\nfunctions:\n  f:\n    handler: a.b\n    timeout: %s\n", 7),
])
def test_a_number_too_long_to_read_is_an_error_with_its_line(capsys, tmp_path, good, name, text, line):
    path = tmp_path / name
    path.write_text(text % LONG)
    code, report, err = check(capsys, path, good)
    assert code == 2
    error = assert_one_error(report, path, "number literal too long", "5,000 digits")
    assert error["line"] == line
    assert_good_linted(report, good)


@pytest.mark.parametrize("name", ["main.tf.json", "main.tofu.json"])
def test_a_number_too_long_to_read_in_terraform_json_is_an_error_with_its_line(capsys, tmp_path, good, name):
    unit, path = _tf(tmp_path, name, '{"resource": {"aws_sqs_queue": {"q": {\n"visibility_timeout_seconds": %s}}}}' % LONG)
    code, report, err = check(capsys, unit, good)
    assert code == 2
    error = assert_one_error(report, path, "number literal too long")
    assert error["line"] == 2
    assert_good_linted(report, good)


def test_a_number_too_long_in_a_json_tfvars_file_is_an_error(capsys, tmp_path, good):
    unit, path = _tf(tmp_path, "main.tf", 'variable "t" {}\nresource "aws_sqs_queue" "q" {\n'
                                          "  visibility_timeout_seconds = var.t\n}\n")
    tfvars = unit / "terraform.tfvars.json"
    tfvars.write_text('{"t": %s}' % LONG)
    code, report, err = check(capsys, unit, good)
    assert code == 2
    error = assert_one_error(report, tfvars, "number literal too long")
    assert error["line"] == 1
    assert "internal error" not in json.dumps(report)


@pytest.mark.parametrize("literal", ["1e99999", "-1e99999", "1.0e308", "123456789012345678901234567890123"])
@pytest.mark.parametrize("syntax", ["yaml", "json", "hcl"])
def test_huge_numbers_that_parse_are_unknown_not_crashes(capsys, tmp_path, literal, syntax):
    """A float past the double range, or an integer past any AWS bound, as a function's
    timeout: silence, not a finding, a fix or a crash (a known 10^32 s would make FL202
    ask for a visibility timeout of 6 x 10^32)."""
    if syntax == "hcl":
        unit, _ = _tf(tmp_path, "main.tf", f'''resource "aws_sqs_queue" "q" {{
  visibility_timeout_seconds = 30
}}
resource "aws_lambda_function" "f" {{
  function_name = "f"
  timeout       = {literal}
}}
resource "aws_lambda_event_source_mapping" "m" {{
  event_source_arn        = aws_sqs_queue.q.arn
  function_name           = aws_lambda_function.f.arn
  function_response_types = ["ReportBatchItemFailures"]
}}
''')
        path = unit
    else:
        template = {"Resources": {
            "Q": {"Type": "AWS::SQS::Queue", "Properties": {"VisibilityTimeout": 30}},
            "F": {"Type": "AWS::Lambda::Function", "Properties": {"Timeout": "@"}},
            "M": {"Type": "AWS::Lambda::EventSourceMapping", "Properties": {
                "EventSourceArn": {"Fn::GetAtt": ["Q", "Arn"]}, "FunctionName": {"Ref": "F"},
                "FunctionResponseTypes": ["ReportBatchItemFailures"]}}}}
        path = tmp_path / f"template.{syntax}"
        path.write_text(json.dumps(template).replace('"@"', literal))
    code, report, err = check(capsys, path)
    assert report["errors"] == []
    names = [f["name"] for f in report["findings"]]
    assert "visibility-timeout-below-function-timeout" not in names
    assert "visibility-timeout-headroom" not in names


def test_nothing_to_lint_is_not_said_after_a_unit_failed_to_load(capsys, tmp_path):
    path = tmp_path / "template.yaml"
    path.write_text("Resources:\n  Q:\n    Type: AWS::SQS::Queue\n    Properties: {VisibilityTimeout: %s}\n" % LONG)
    code = main(["check", str(path)])
    out = capsys.readouterr()
    assert code == 2
    assert "nothing to lint" not in out.out + out.err
    assert f"{path}:4:" in out.out + out.err
    unit, _ = _tf(tmp_path, "main.tf", 'resource "aws_sqs_queue" "q" {\n  name = "\\U00110000"\n}\n')
    code = main(["check", str(unit)])
    out = capsys.readouterr()
    assert code == 2
    assert "nothing to lint" not in out.out + out.err
    assert "internal error" not in out.out + out.err


def test_nothing_to_lint_is_still_said_when_there_was_nothing(capsys, tmp_path):
    code = main(["check", str(tmp_path)])  # an empty directory
    out = capsys.readouterr()
    assert "nothing to lint" in out.err


@pytest.mark.parametrize("name", ["template.yaml", "serverless.yml"])
def test_a_yaml_escape_of_no_character_is_an_error_with_its_line(capsys, tmp_path, good, name):
    path = tmp_path / name
    path.write_text("service: s\nprovider:\n  name: aws\nResources:\n  Q:\n    Type: AWS::SQS::Queue\n"
                    '    Properties: {QueueName: "\\U00110000"}\n')
    code, report, _ = check(capsys, path, good)
    assert code == 2
    error = assert_one_error(report, path, "invalid YAML")
    assert error["line"] == 7
    assert_good_linted(report, good)
