"""Untrusted text: what a pull request's author writes cannot forge, hide or crash the output.

The author controls every template and file name. Each attack below goes in through one
of them (a logical ID, a Terraform label, a file name, a suppression reason) and the real
command line renders it in every format. The output must show the text neutralised, keep
its exit code (1 or 0 for findings, 2 for errors, never a traceback), start no line with
``::`` except the GitHub format's own commands, and hold no control character but the
newlines between its own lines.
"""

from __future__ import annotations

import hashlib
import html
import json
import os
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
import properties  # noqa: F401  (Hypothesis's profile, before the first @settings)

import mermaid_syntax
from fanout_lint.cli.graph import render
from fanout_lint.cli.main import main
from fanout_lint.run.engine import lint_paths
from fanout_lint.results.doc_links import RULE_DOCS_URL
from fanout_lint.results.records import Finding, LoadError, Severity, where
from fanout_lint.policy.fingerprint import fingerprint
from fanout_lint.model.nodes import Loc
from fanout_lint.reports import dot, markdown, mermaid, topology
from fanout_lint.rules import ALL_RULES
from fanout_lint.policy.settings import Settings
from fanout_lint.results.untrusted import clean

CHECK_FORMATS = ("text", "json", "sarif", "github", "junit", "gitlab")
GRAPH_FORMATS = ("mermaid", "dot", "json", "markdown")
# Control characters (all of C0 but the newline, DEL, C1), bidi and other invisible format
# characters, line and paragraph separators, lone surrogates.
FORBIDDEN = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ud800-\udfff]"
)
LOCATION = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): ")


# -- inputs --------------------------------------------------------------------

def template(queue: str = "Queue", mapping: str = "Mapping", function: str = "Worker",
             queue_metadata: dict | None = None) -> str:
    """A queue without a DLQ read by a function (FL101 on the queue, FL204 on the mapping).

    JSON with ASCII escapes, so any name fits, lone surrogates included.
    """
    queue_resource: dict = {"Type": "AWS::SQS::Queue"}
    if queue_metadata:
        queue_resource["Metadata"] = {"fanout-lint": queue_metadata}
    resources = {
        queue: queue_resource,
        function: {"Type": "AWS::Lambda::Function"},
        mapping: {"Type": "AWS::Lambda::EventSourceMapping", "Properties": {
            "EventSourceArn": {"Fn::GetAtt": [queue, "Arn"]}, "FunctionName": {"Ref": function}}},
    }
    return json.dumps({"AWSTemplateFormatVersion": "2010-09-09", "Resources": resources})


def write(directory, name: str | bytes, text: str) -> str:
    """Write ``text`` to ``directory/name`` (bytes names may be any bytes); the str path."""
    path = os.path.join(os.fsencode(directory), os.fsencode(name))
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    return os.fsdecode(path)


# -- checks --------------------------------------------------------------------

def assert_safe(output: str, commands: int | None = None) -> None:
    """No control or invisible character, encodable, and no line the runner reads as a command.

    ``commands``: for ``--format github``, how many workflow commands it writes (one per
    finding, error and notice); each must be one of fanout-lint's own.
    """
    bad = FORBIDDEN.search(output)
    assert bad is None, f"{bad.group()!r} in output: {output[max(bad.start() - 60, 0):bad.end() + 60]!r}"
    output.encode("utf-8")  # strict: no surrogate left
    # the GitHub runner strips leading whitespace before it looks for "::"
    found = [line for line in output.split("\n") if line.lstrip().startswith("::")]
    if commands is None:
        assert not found, found
        return
    assert len(found) == commands, found
    for line in found:
        head, separator, _ = line[2:].partition("::")
        kind, _, properties = head.partition(" ")
        assert separator and kind in ("error", "warning", "notice"), line
        for item in filter(None, properties.split(",")):
            key, _, value = item.partition("=")
            assert key in ("file", "line", "endLine", "col", "endColumn", "title") and ":" not in value, line


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()  # its stream encodes strictly: a surrogate would raise here
    assert "Traceback" not in captured.out + captured.err
    return code, captured.out, captured.err


def run_every_format(capsys, paths: list[str], check_code: int,
                     graph_code: int = 0) -> tuple[dict[str, str], dict[str, str]]:
    """``check`` and ``graph`` in every format, each checked safe; stdout and stderr by format."""
    code, report, err = run(capsys, "check", "--format", "json", *paths)
    assert code == check_code, err
    document = json.loads(report)
    commands = len(document["findings"]) + len(document["errors"]) + len(document["notices"])
    outputs, errors = {}, {}
    for fmt in CHECK_FORMATS:
        code, out, err = run(capsys, "check", "--format", fmt, *paths)
        assert code == check_code, (fmt, err)
        assert_safe(out, commands if fmt == "github" else None)
        assert_safe(err)
        outputs[fmt], errors[fmt] = out, err
    json.loads(outputs["sarif"])
    json.loads(outputs["gitlab"])
    ET.fromstring(outputs["junit"].split("\n", 1)[1])
    for fmt in GRAPH_FORMATS:
        code, out, err = run(capsys, "graph", "--format", fmt, *paths)
        assert code == graph_code, (fmt, err)
        assert_safe(out)
        assert_safe(err)
        outputs[f"graph-{fmt}"], errors[f"graph-{fmt}"] = out, err
    json.loads(outputs["graph-json"])
    mermaid_syntax.check(outputs["graph-mermaid"])
    return outputs, errors


def assert_shown_everywhere(outputs: dict[str, str], shown: str) -> None:
    """``shown`` (the neutralised form of a name) appears in every format's output, under
    that format's own escaping only."""
    for fmt, out in outputs.items():
        if fmt in ("json", "sarif", "graph-json", "gitlab"):
            out = json.dumps(json.loads(out), ensure_ascii=False)
            expected = json.dumps(shown, ensure_ascii=False)[1:-1]
        elif fmt == "junit":
            out, expected = html.unescape(out), shown
        elif fmt == "graph-mermaid":
            expected = mermaid.escape(shown)
        elif fmt == "graph-dot":
            expected = dot.quote(shown)[1:-1]
        else:
            expected = shown
        assert expected in out, (fmt, expected, out[:2000])


# -- names that carry workflow commands, escapes, bidi, surrogates ---------------

@pytest.mark.parametrize("name, shown", [
    ("Q\n::error file=a.yaml,line=1::forged", "Q\\x0a::error file=a.yaml,line=1::forged"),
    ("Q\r\n::add-mask::secret", "Q\\x0d\\x0a::add-mask::secret"),
    ("Q\n::stop-commands::token\n::error::now", "Q\\x0a::stop-commands::token\\x0a::error::now"),
    ("Q\x1b[2J\x1b]8;;http://evil\x07link\x1b]8;;\x07", "Q\\x1b[2J\\x1b]8;;http://evil\\x07link\\x1b]8;;\\x07"),
    ("Q\x9b31m\x7f\x00", "Q\\x9b31m\\x7f\\x00"),
    ("Q\u202eevil\u2066x\u2069\u200b", "Q\\u202eevil\\u2066x\\u2069\\u200b"),
    ("Q\u2028line\u0085next\t", "Q\\u2028line\\x85next\\x09"),
    ("Q\ud800lone\udfff", "Q\ufffdlone\ufffd"),
])
def test_a_hostile_logical_id_is_shown_neutralised_in_every_format(tmp_path, capsys, name, shown):
    path = write(tmp_path, "t.json", template(queue=name))
    outputs, _ = run_every_format(capsys, [path], check_code=1)
    assert_shown_everywhere(outputs, shown)
    text = outputs["text"].splitlines()
    assert text[0].startswith(f"{path}:1:") and f" FL101 [error] Queue {shown} has no dead-letter queue" in text[0]
    assert text[-1].startswith("2 findings (1 error, 1 warning); 1 unit checked")  # then what --fix could fix


def test_a_json_lone_surrogate_does_not_crash_the_real_process(tmp_path):
    # a real process: its stdout encodes to UTF-8 strictly, as in CI
    path = write(tmp_path, "t.json", template(queue="Q\ud800x", mapping="M\udc80"))
    for fmt in ("text", "github", "junit"):
        done = subprocess.run([sys.executable, "-m", "fanout_lint", "check", "--format", fmt, path],
                              capture_output=True, timeout=120, cwd=tmp_path)
        out, err = done.stdout.decode("utf-8"), done.stderr.decode("utf-8")
        assert done.returncode == 1 and "Traceback" not in err, err
        assert "Q\ufffdx" in out and "M\ufffd" in out
        assert_safe(out, 2 if fmt == "github" else None)


def test_a_hostile_terraform_label_is_shown_neutralised(tmp_path, capsys):
    unit = tmp_path / "stack"
    unit.mkdir()
    (unit / "main.tf").write_text(
        'resource "aws_sqs_queue" "q" {}\n'
        'resource "aws_lambda_function" "f" {\n  function_name = "f"\n}\n'
        'resource "aws_lambda_event_source_mapping" "m\\n::error::tf\\u001b[31m\\u202e\\uD800" {\n'
        "  event_source_arn = aws_sqs_queue.q.arn\n  function_name    = aws_lambda_function.f.arn\n}\n"
    )
    outputs, _ = run_every_format(capsys, [str(unit)], check_code=1)
    assert_shown_everywhere(outputs, "aws_lambda_event_source_mapping.m\\x0a::error::tf\\x1b[31m\\u202e\ufffd")


# -- file names ------------------------------------------------------------------

def test_a_file_name_with_a_newline_and_a_command(tmp_path, capsys):
    path = write(tmp_path, "x\n::error file=evil.yaml,line=1::forged.json", template())
    outputs, _ = run_every_format(capsys, [str(tmp_path)], check_code=1)
    shown = str(tmp_path) + "/x\\x0a::error file=evil.yaml,line=1::forged.json"
    assert clean(path) == shown
    assert_shown_everywhere({k: v for k, v in outputs.items() if k not in ("github", "sarif")}, shown)
    # GitHub and SARIF take paths relative to the repository root, with their own escaping
    assert "x\\x0a%3A%3Aerror file=evil.yaml%2Cline=1%3A%3Aforged.json" in outputs["github"]


def test_a_file_name_that_is_not_utf8_is_shown_with_replacement_characters(tmp_path, capsys):
    write(tmp_path, b"bad\xff\xfe\n::warning::x.json", template())
    outputs, _ = run_every_format(capsys, [str(tmp_path)], check_code=1)
    assert_shown_everywhere({k: v for k, v in outputs.items() if k not in ("github", "sarif")},
                            str(tmp_path) + "/bad\ufffd\ufffd\\x0a::warning::x.json")
    for fmt in ("text", "github"):  # a real process, whose stdout encodes strictly
        done = subprocess.run([sys.executable, "-m", "fanout_lint", "check", "--format", fmt, "."],
                              capture_output=True, timeout=120, cwd=tmp_path)
        out = done.stdout.decode("utf-8")
        assert done.returncode == 1 and "Traceback" not in done.stderr.decode("utf-8", "replace")
        assert "bad\ufffd\ufffd\\x0a" in out
        assert_safe(out, 2 if fmt == "github" else None)


def test_a_file_name_cannot_forge_a_location_for_another_file(tmp_path, capsys):
    forged = "x.yaml:9:1: FL101 [error] forged (Q) .yaml"
    write(tmp_path, forged, template().replace('"Queue"', '"Q"'))
    code, out, _ = run(capsys, "check", str(tmp_path))
    assert code == 1
    lines = out.splitlines()[:-1]
    assert len(lines) == 2
    for line in lines:
        match = LOCATION.match(line)
        assert match and match["file"] == str(tmp_path) + "/x.yaml%3A9%3A1: FL101 [error] forged (Q) .yaml", line
        assert match["line"] == "1"


def test_a_file_name_cannot_start_a_line_with_a_command(tmp_path, capsys, monkeypatch):
    # pre-commit hands over file names relative to the repository, as written
    monkeypatch.chdir(tmp_path)
    bad_suppression = {"ignore": ["no-such-rule"], "reason": "r"}  # a notice, printed on stderr
    write(tmp_path, "::error::x.json", template(queue_metadata=bad_suppression))
    write(tmp_path, " ::warning::y.json", template())
    write(tmp_path, "\t::notice::z.json", template())
    outputs, errors = run_every_format(capsys, ["::error::x.json", " ::warning::y.json", "\t::notice::z.json"],
                                       check_code=1)
    text = outputs["text"]
    assert "./::error::x.json:1:" in text and "./ ::warning::y.json:1:" in text and "\\x09::notice::z.json:1:" in text
    assert re.match(r"\./::error::x\.json:1:\d+: warning: suppression names unknown rule", errors["text"])


def test_a_hostile_file_that_cannot_be_parsed_is_one_safe_error_line(tmp_path, capsys):
    # a file that cannot be parsed: its error goes to the report, and to stderr for `graph`
    write(tmp_path, "b\n::error::broken.yaml", 'AWSTemplateFormatVersion: "2010-09-09"\nResources: [\n')
    write(tmp_path, "ok.json", template())
    outputs, errors = run_every_format(capsys, [str(tmp_path)], check_code=2, graph_code=2)
    assert outputs["text"].startswith(f"{tmp_path}/b\\x0a::error::broken.yaml:3:1: error: invalid YAML")
    assert errors["graph-mermaid"].startswith(f"{tmp_path}/b\\x0a::error::broken.yaml:3:1: error: invalid YAML")


# -- stderr: paths and names the user passed, quoted back ------------------------

@pytest.mark.parametrize("argv", [
    ["check", "--config", "nope\n::error::x.toml", "."],
    ["check", "--baseline", "nope\n::error::\x1b[31m.json", "."],
    ["check", "--format", "x\n::error::argparse"],
    ["graph", "--config", "nope\n::error::x.toml", "."],
    ["graph", "--focus", "x\n::error::focus\x1b[31m", "."],
    ["explain", "x\n::error::rule"],
])
def test_error_messages_on_stderr_quote_user_input_neutralised(tmp_path, capsys, monkeypatch, argv):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "t.json", template())
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse usage errors
        code = exc.code
    captured = capsys.readouterr()
    assert code == 2 and "Traceback" not in captured.err
    assert_safe(captured.out)
    assert_safe(captured.err)
    assert "fanout-lint: error:" in captured.err and "::error::" in captured.err  # shown, not obeyed


def test_a_missing_path_with_a_hostile_name(tmp_path, capsys):
    outputs = {}
    for fmt in CHECK_FORMATS:
        code, out, err = run(capsys, "check", "--format", fmt, str(tmp_path / "no\n::error::such.yaml"))
        assert code == 2
        assert_safe(out, 1 if fmt == "github" else None)
        assert_safe(err)
        outputs[fmt] = out
    assert f"{tmp_path}/no\\x0a::error::such.yaml: error:" in outputs["text"]


def test_a_suppression_reason_shown_by_show_suppressed(tmp_path, capsys):
    reason = "ok\n::error::reason\x1b[31m\u202e"
    path = write(tmp_path, "t.json", template(queue_metadata={"ignore": ["missing-dlq"], "reason": reason}))
    shown = "ok\\x0a::error::reason\\x1b[31m\\u202e"
    for fmt in ("text", "json", "sarif"):
        code, out, err = run(capsys, "check", "--show-suppressed", "--format", fmt, path)
        assert code == 1
        assert_safe(out)
        assert_safe(err)
        if fmt == "text":
            assert "[suppressed] Queue Queue has no dead-letter queue" in out and f"-- {shown}" in out
        else:
            assert json.dumps(shown)[1:-1] in out


# -- markdown: no live link, image, autolink, HTML or mention --------------------

MARKDOWN_NAMES = [
    "Q`[x](http://evil.test/a)`",
    "Q![i](http://evil.test/p.png)",
    "Q@someone",
    "Qhttps://evil.test/bare",
    "Q<img src=x onerror=alert(1)>",
    "Q|pipe|cell",
    "Q``two`` ```three```",
    "`Qtick",
    "Qwww.evil.test",
]


def _outside_code_spans(text: str) -> str:
    """``text`` without its code spans, as CommonMark finds them (a run closes an equal run)."""
    out, at = [], 0
    for run in re.finditer(r"`+", text):
        if run.start() < at:
            continue
        closing = re.compile(rf"(?<!`){run.group()}(?!`)")
        end = closing.search(text, run.end())
        if end:
            out.append(text[at:run.start()])
            at = end.end()
    out.append(text[at:])
    return "".join(out)


def _cells(row: str) -> list[str]:
    # GitHub splits a row at every `|` without a backslash before it
    return [cell.strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", row.strip())[1:-1]]


def test_markdown_keeps_untrusted_text_in_code_spans(tmp_path, capsys):
    paths = []
    for index, name in enumerate(MARKDOWN_NAMES):
        paths.append(write(tmp_path, f"t{index}.json", template(queue=name, mapping=name + "M")))
    broken = write(tmp_path, "e`[x](javascript:evil())`@someone.yaml", "AWSTemplateFormatVersion: x\nResources: [\n")
    code, out, err = run(capsys, "graph", "--format", "markdown", "--docs-url", "https://docs.test/", *paths, broken)
    assert code == 2
    assert_safe(out)
    body, diagram = out.split("```mermaid\n", 1)
    diagram = diagram.split("\n```", 1)[0]
    mermaid_syntax.check(diagram)
    assert "`" not in diagram and "<img" not in diagram and "%" not in diagram
    rows = [line for line in body.splitlines() if line.startswith("| ") and "[FL" in line.split("|")[2]]
    assert len(rows) == 2 * len(MARKDOWN_NAMES)
    for row in rows:
        cells = _cells(row)
        assert len(cells) == 5, row  # no pipe in a name split the row
        for cell in cells[2:]:  # resource, location, message: each exactly one code span
            assert _outside_code_spans(cell) == "", cell
    for name in MARKDOWN_NAMES:
        assert any(name in row.replace("\\|", "|") for row in rows), name  # shown as written
    rest = re.sub(r"\[FL\d{3} [a-z-]+\]\(https://docs\.test/[a-z-]+\.md\)", "", _outside_code_spans(body))
    for live in ("evil", "someone", "<img", "](", "http", "www"):
        assert live not in rest, (live, rest)
    errors = [line for line in body.splitlines() if line.startswith("- ")]
    assert len(errors) == 1 and _outside_code_spans(errors[0]) == "- "


def test_markdown_code_span_fences_outgrow_every_backtick_run():
    assert markdown.code("plain") == "`plain`"
    assert markdown.code("a`b") == "``a`b``"
    assert markdown.code("``x``") == "``` ``x`` ```"
    assert markdown.code("`") == "`` ` ``"
    assert markdown.code(" both ") == "`  both  `"
    assert markdown.cell("a|b") == "`a\\|b`"
    for text in ("a`b", "``x``", "`", "x```", "````", "a | ` | b"):
        assert _outside_code_spans(markdown.code(text)) == ""


# -- Mermaid: no directive, no statement from a label -----------------------------

INIT = "%%{init: {'theme':'base','themeVariables':{'errorBkgColor':'#fff'}}}%%"
CLICK = 'x"]\n  click n0_Worker call alert(1)\n  style n0_Worker fill:#fff\n  y["'


@pytest.mark.parametrize("name", [INIT, CLICK, 'q"];click n0_Worker "http://evil.test";%%', "a%%{init}%%b"])
def test_mermaid_labels_cannot_add_a_directive_or_a_statement(tmp_path, capsys, name):
    path = write(tmp_path, "t.json", template(queue=name))
    code, out, _ = run(capsys, "graph", path)
    assert code == 0
    assert_safe(out)
    mermaid_syntax.check(out)  # every line is one of the statements fanout-lint writes
    assert "%" not in out and not any(line.lstrip().startswith(("click", "style")) for line in out.splitlines())
    assert "class n0_" in out and " error" in out  # the error colouring is still there
    code, out, _ = run(capsys, "graph", "--format", "markdown", path)
    table, diagram = out.split("```mermaid", 1)
    assert "%" not in diagram and "click" not in _outside_code_spans(table)


# What DOT lines look like once their quoted strings are taken out.
DOT_STATEMENT = re.compile(
    r"^(digraph fanout \{|  rankdir=LR;|  (node|edge) \[[^\[\]]*\];|  subgraph cluster_\w+ \{"
    r"|    label=; style=; color=;|    \w+ \[[^\[\]]*\];|  \w+ -> \w+ \[[^\[\]]*\];|  \}|\})$"
)


def test_dot_labels_stay_inside_their_quotes(tmp_path, capsys):
    name = 'q"];\n evil [label="x"]; a -> b; "\\'
    path = write(tmp_path, "t.json", template(queue=name))
    code, out, _ = run(capsys, "graph", "--format", "dot", path)
    assert code == 0
    assert_safe(out)
    outside = re.sub(r'"(?:[^"\\]|\\.)*"', "", out)  # DOT's quoted strings, escapes and all
    statements = outside.splitlines()
    assert all(DOT_STATEMENT.match(line) for line in statements), outside
    assert len([line for line in statements if re.match(r"    \w+ \[label=, ", line)]) == 3  # no node added


# -- the cfn-lint plugin -----------------------------------------------------------

def test_the_cfn_lint_plugin_passes_neutralised_messages(tmp_path):
    pytest.importorskip("cfnlint")
    import cfnlint.decode
    import cfnlint.template

    from fanout_lint.integrations import cfnlint_adapter

    path = write(tmp_path, "t.json", template(queue="Q\n::error::cfn\x1b[31m"))
    decoded, problems = cfnlint.decode.decode(path)
    assert not problems
    matches = [cfnlint_adapter.to_match(f)
               for f in cfnlint_adapter.findings_of(cfnlint.template.Template(path, decoded))]
    assert len(matches) == 2
    for match in matches:
        assert_safe(match.message)
        assert "Q\\x0a::error::cfn\\x1b[31m" in match.message


# -- fingerprints and baselines ----------------------------------------------------

def test_baselines_of_hostile_names_are_valid_json_and_match_again(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, b"bad\xff.json", template(queue="Q\ud800", mapping="M\n::error::x"))
    write(tmp_path, "ok.json", template(queue="Q\udfff"))
    code, _, err = run(capsys, "check", "--write-baseline", "base.json", ".")
    assert code == 0 and "wrote 4 finding(s)" in err
    with open(tmp_path / "base.json", encoding="utf-8") as handle:  # strict UTF-8
        document = json.load(handle)
    assert {e["resource"] for e in document["findings"]} == {"Q\ufffd", "M\\x0a::error::x", "Mapping"}
    assert len({e["fingerprint"] for e in document["findings"]}) == 4
    code, out, _ = run(capsys, "check", "--baseline", "base.json", ".")
    assert code == 0 and out.startswith("0 findings; 2 units checked; 4 in baseline")
    code, _, _ = run(capsys, "check", "--write-baseline", "again.json", ".")
    assert (tmp_path / "again.json").read_text() == (tmp_path / "base.json").read_text()  # deterministic


def test_fingerprints_hash_the_raw_names_and_keep_plain_ones_unchanged():
    def finding(resource: str, file: str = "t.json") -> Finding:
        return Finding(rule="FL101", name="missing-dlq", severity=Severity.ERROR, message="m", resource=resource,
                       loc=Loc(file, 1), unit=file, involved=(resource,))

    # plain names: the recipe as before, so baselines already written still match
    plain = hashlib.sha256("\x1f".join(["v1", "FL101", "t.json", "Queue"]).encode()).hexdigest()[:32]
    assert fingerprint(finding("Queue")) == plain
    # a lone surrogate and the replacement character it is shown as are different resources
    assert fingerprint(finding("Q\ud800")) != fingerprint(finding("Q\ufffd"))
    assert fingerprint(finding("Q", "bad\udcff.json")) != fingerprint(finding("Q", "bad\udcfe.json"))


# -- the records: cleaned once, at construction -------------------------------------

def test_records_clean_their_text_when_they_are_made():
    from fanout_lint.results.records import Related
    from fanout_lint.model.nodes import Suppression
    from fanout_lint.results.records import Notice, Suppressed

    f = Finding(rule="FL101", name="missing-dlq", severity=Severity.ERROR, message="m\n::error::x",
                resource="Q\x1b", loc=Loc("a\nb.yaml", 3, 4), cdk_path="S/\u202eQ", unit="a\nb.yaml",
                involved=("Q\x1b",), related=(Related("D\r", Loc("d\x1b.yaml", 1), "dead-letter queue"),))
    assert (f.message, f.resource, f.cdk_path, f.loc.file) == \
        ("m\\x0a::error::x", "Q\\x1b", "S/\\u202eQ", "a\\x0ab.yaml")
    assert (f.related[0].resource, f.related[0].loc.file) == ("D\\x0d", "d\\x1b.yaml")
    assert f.unit == "a\nb.yaml" and f.involved == ("Q\x1b",)  # identities stay raw, for matching
    error = LoadError("::e\udcff", 2, "bad\r\nthing")
    assert str(error) == "./::e\ufffd:2: error: bad\\x0d\\x0athing"
    assert str(Notice(Loc(" n.yaml", 1, 2), "w\x85")) == "./ n.yaml:1:2: warning: w\\x85"
    shown = Suppressed(f, Suppression("missing-dlq", "ok\n::error::r", "2999-01-01\x1b", Loc("s\n.yaml", 1)))
    assert (shown.suppression.reason, shown.suppression.until, shown.suppression.loc.file) == \
        ("ok\\x0a::error::r", "2999-01-01\\x1b", "s\\x0a.yaml")
    loc = Loc("plain.yaml", 1)
    same = Finding(rule="FL101", name="n", severity=Severity.ERROR, message="m", resource="Q", loc=loc)
    assert same.loc is loc  # nothing to clean, nothing copied
    node = topology.ViewNode(id="n0_x", cluster="u0", key="x\n", resource="x\n", kind="queue",
                             label="x\n", details=("d\x1b",), file="f\u202e")
    assert (node.key, node.label, node.details, node.file) == ("x\\x0a", "x\\x0a", ("d\\x1b",), "f\\u202e")


def test_clean_is_idempotent_and_shows_every_invisible_character():
    assert clean("plain text: café ✓ 日本") == "plain text: café ✓ 日本"
    assert clean("\x00\x1b\x7f\x85\xa0\u200e\u2028\U000e0001\ud800") == \
        "\\x00\\x1b\\x7f\\x85\\xa0\\u200e\\u2028\\U000e0001\ufffd"
    assert clean(clean("a\nb\x1b")) == clean("a\nb\x1b")


def test_where_keeps_a_file_name_from_passing_for_a_location():
    assert where("dir/t.yaml", 3, 4) == "dir/t.yaml:3:4"
    assert where("x.yaml:9:1: forged", 1, 1) == "x.yaml%3A9%3A1: forged:1:1"
    assert where("::error::x") == "./::error::x"
    assert where(" x", 2) == "./ x:2"
    assert where("C:\\dir\\t.yaml", 1, 1) == "C:\\dir\\t.yaml:1:1"


# -- size: the topology view is linear ------------------------------------------------

@pytest.mark.slow
def test_graph_of_24000_resources_is_quick(tmp_path, capsys):
    resources = {}
    for i in range(4000):
        resources[f"Topic{i}"] = {"Type": "AWS::SNS::Topic"}
        resources[f"Queue{i}"] = {"Type": "AWS::SQS::Queue"}
        resources[f"Sub{i}"] = {"Type": "AWS::SNS::Subscription", "Properties": {
            "TopicArn": {"Ref": f"Topic{i}"}, "Protocol": "sqs", "Endpoint": {"Fn::GetAtt": [f"Queue{i}", "Arn"]}}}
        resources[f"Fn{i}"] = {"Type": "AWS::Lambda::Function"}
        resources[f"Map{i}"] = {"Type": "AWS::Lambda::EventSourceMapping", "Properties": {
            "EventSourceArn": {"Fn::GetAtt": [f"Queue{i}", "Arn"]}, "FunctionName": {"Ref": f"Fn{i}"}}}
        resources[f"Policy{i}"] = {"Type": "AWS::SQS::QueuePolicy", "Properties": {
            "Queues": [{"Ref": f"Queue{i}"}], "PolicyDocument": {"Statement": [{
                "Effect": "Allow", "Principal": {"Service": "sns.amazonaws.com"}, "Action": "sqs:SendMessage",
                "Resource": "*"}]}}}
    path = write(tmp_path, "wide.json", json.dumps({"AWSTemplateFormatVersion": "2010-09-09", "Resources": resources}))
    # linted once, as `graph` lints it; then the view and every format the command draws
    result = lint_paths([path], ALL_RULES, Settings(jobs=1), keep_graphs=True)
    assert not result.errors and sum(len(g.nodes()) for g in result.graphs) >= 24_000
    started = time.perf_counter()  # a hang guard only: a quadratic view of this size takes hours
    view = topology.build(result.graphs, result.findings, result.errors)
    # the drawn formats (json is the view's dictionary, dumped)
    drawn = {fmt: render(view, fmt, RULE_DOCS_URL) for fmt in ("mermaid", "dot", "markdown")}
    elapsed = time.perf_counter() - started
    assert elapsed < 60, f"the view and its drawings took {elapsed:.1f} s"
    # the job summary: the findings table, and a note in place of a diagram this large
    assert "too large for a Mermaid diagram" in drawn["markdown"] and "| error | [FL302" in drawn["markdown"]
    assert drawn["mermaid"].startswith("flowchart LR\n")
    # drawn: topic, subscription, queue, mapping and function (the policy is the queue's),
    # joined by four arrows, four thousand times
    assert len(view.nodes) == 5 * 4000 and drawn["dot"].count(" -> ") == 4 * 4000


def test_safe_ids_stay_linear_when_every_name_has_the_same_base():
    # names that differ only in punctuation share one base and are numbered
    names = ["q" + "".join("-.:/@+=!~^"[int(d)] for d in f"{i:05d}") for i in range(30_000)]
    started = time.perf_counter()
    ids = topology.safe_ids(names, "n0_")
    assert time.perf_counter() - started < 10
    assert len(set(ids.values())) == len(set(names)) == len(names)


# -- property: any name, every format ------------------------------------------------

# any code point, with the dangerous ones often: controls, bidi, separators, lone surrogates,
# and the characters the formats treat specially
SPECIAL = "\n\r\t\x00\x1b\x07\x7f\x85\x9b\xa0\u061c\u200b\u202e\u2066\u2028\ufeff\ud800\udcff\udfff:`%\"|@[]()<>#&\\"
UNICODE = st.text(
    st.one_of(st.characters(exclude_categories=()), st.characters(categories=["Cs", "Cc", "Cf", "Zl", "Zp"]),
              st.sampled_from(SPECIAL)),
    min_size=1, max_size=16,
)
FILE_NAME = st.binary(min_size=1, max_size=12).map(lambda b: b.replace(b"/", b"_").replace(b"\0", b"_") + b".json")


def _hcl_label(text: str) -> str:
    """``text`` as an HCL quoted label: escapes for quotes, backslashes, templates and the rest."""
    out = []
    for char in text:
        if char in '"\\':
            out.append("\\" + char)
        elif char in "$%":
            out.append(char * 2)  # "$${" and "%%{" are literal
        elif not char.isprintable() or not char.isascii():
            out.append(f"\\u{ord(char):04x}" if ord(char) <= 0xFFFF else f"\\U{ord(char):08x}")
        else:
            out.append(char)
    return "".join(out)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(queue=UNICODE, mapping=UNICODE, reason=UNICODE, label=UNICODE, file_name=FILE_NAME)
def test_any_name_renders_safely_in_every_format(tmp_path_factory, queue, mapping, reason, label, file_name):
    from fanout_lint.cli.check import render as render_check
    from fanout_lint.cli.graph import render as render_graph

    root = tmp_path_factory.mktemp("names")
    mapping = mapping if mapping != queue else mapping + "M"
    metadata = {"ignore": ["batch-item-failures-off", queue], "reason": reason}
    write(root, file_name, template(queue=queue, mapping=mapping).replace(
        '"Type": "AWS::Lambda::EventSourceMapping"',
        '"Type": "AWS::Lambda::EventSourceMapping", "Metadata": {"fanout-lint": ' + json.dumps(metadata) + "}"))
    unit = os.path.join(root, "stack")
    os.mkdir(unit)
    with open(os.path.join(unit, "main.tf"), "w", encoding="utf-8") as handle:
        handle.write(f'resource "aws_sqs_queue" "q" {{}}\nresource "aws_lambda_function" "f" {{}}\n'
                     f'resource "aws_lambda_event_source_mapping" "{_hcl_label(label)}" {{\n'
                     "  event_source_arn = aws_sqs_queue.q.arn\n  function_name = aws_lambda_function.f.arn\n}\n")

    result = lint_paths([str(root)], ALL_RULES, Settings(jobs=1), keep_graphs=True)
    commands = len(result.findings) + len(result.errors) + len(result.notices)
    for fmt in CHECK_FORMATS:
        out = render_check(result, fmt, ALL_RULES, Settings(), str(root), show_suppressed=True, colour=False)
        assert_safe(out, commands if fmt == "github" else None)
    for line in [*map(str, result.errors), *map(str, result.notices)]:  # what stderr shows
        assert_safe(line)
    view = topology.build(result.graphs, result.findings, result.errors)
    for fmt in GRAPH_FORMATS:
        out = render_graph(view, fmt, "https://docs.test/")
        assert_safe(out)
        if fmt == "mermaid":
            mermaid_syntax.check(out)
            assert "%" not in out
