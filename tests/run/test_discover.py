"""Discovery of Terraform units: a directory another unit loads as a local module is
linted inside its caller, not again on its own."""

from __future__ import annotations

import json
import os

import pytest

from fanout_lint.model.format import Format
from fanout_lint.cli.main import main
from fanout_lint.run.discover import discover
from fanout_lint.loaders.terraform.module_calls import local_sources

# Alone, with its defaults, the module's queue hides messages from its slow function
# (visibility 30 s < timeout 60 s); its caller passes a visibility timeout that fits.
MODULE = """\
variable "visibility" {
  default = 30
}

resource "aws_sqs_queue" "this" {
  visibility_timeout_seconds = var.visibility
}
resource "aws_lambda_function" "this" {
  timeout = 60
}
resource "aws_lambda_event_source_mapping" "this" {
  event_source_arn        = aws_sqs_queue.this.arn
  function_name           = aws_lambda_function.this.arn
  function_response_types = ["ReportBatchItemFailures"]
}
"""


def _write(root, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _units(paths) -> list[str]:
    candidates, missing = discover([str(p) for p in paths])
    assert missing == []
    return [c.path for c in candidates if c.format is Format.TERRAFORM]


def _module_call(name: str, source: str, extra: str = "") -> str:
    return f'module "{name}" {{\n  source = "{source}"\n{extra}}}\n'


def test_a_called_module_is_not_a_unit_of_its_own(tmp_path):
    _write(tmp_path, {
        "live/main.tf": _module_call("a", "./modules/a") + _module_call("shared", "../shared"),
        "live/modules/a/main.tf": _module_call("nested", "../nested"),
        "live/modules/nested/main.tf": "",
        "shared/main.tf": "",
        "other/main.tf": "",
    })
    assert _units([tmp_path]) == [str(tmp_path / "live"), str(tmp_path / "other")]


def test_a_module_named_on_the_command_line_is_linted_unless_its_caller_is(tmp_path):
    _write(tmp_path, {"main.tf": _module_call("q", "./modules/q"), "modules/q/main.tf": MODULE})
    module = tmp_path / "modules" / "q"
    assert _units([module]) == [str(module)]
    assert _units([module / "main.tf"]) == [str(module)]
    assert _units([module, tmp_path / "main.tf"]) == [str(tmp_path)]


def test_modules_that_call_each_other_are_both_kept(tmp_path):
    _write(tmp_path, {"a/main.tf": _module_call("b", "../b"), "b/main.tf": _module_call("a", "../a")})
    assert _units([tmp_path]) == [str(tmp_path / "a"), str(tmp_path / "b")]


def test_a_caller_outside_the_run_does_not_hide_a_module(tmp_path):
    _write(tmp_path, {"root/main.tf": _module_call("q", "../q"), "q/main.tf": ""})
    assert _units([tmp_path / "q"]) == [str(tmp_path / "q")]


def test_a_symlinked_module_directory_is_not_followed(tmp_path):
    # No path is read through a symbolic link (confine.py): the call through the link
    # loads nothing, so real stays a unit of its own, and the link is one error.
    _write(tmp_path, {"root/main.tf": _module_call("q", "./q"), "real/main.tf": ""})
    os.symlink(tmp_path / "real", tmp_path / "root" / "q")
    candidates, missing = discover([str(tmp_path / "root"), str(tmp_path / "real")])
    assert sorted(c.path for c in candidates) == [str(tmp_path / "real"), str(tmp_path / "root")]
    assert [(m.path, m.message) for m in missing] == [
        (str(tmp_path / "root" / "q"), f"not read: a symbolic link to outside the repository ({tmp_path / 'root'})")]


def test_the_module_is_checked_once_with_its_callers_inputs(tmp_path, capsys):
    _write(tmp_path, {
        "main.tf": _module_call("q", "./modules/q", "  visibility = 360\n"),
        "modules/q/main.tf": MODULE,
    })
    assert main([str(tmp_path), "--format", "json", "--select", "FL202"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["findings"], report["summary"]["units"]) == ([], 1)
    # Alone, the module is linted with its defaults.
    assert main([str(tmp_path / "modules" / "q"), "--format", "json", "--select", "FL202"]) == 1
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert [f["resource"] for f in findings] == ["aws_sqs_queue.this"]


@pytest.mark.parametrize("text, expected", [
    ('module "a" {\n  source = "./a"\n}\n', ["./a"]),
    ('module "a" { source = "../x/a" }\n', ["../x/a"]),
    ('module "a" {\n  # source = "./commented"\n  source  = "../a" # the real one\n  count = 1\n}\n', ["../a"]),
    ('module "r" {\n  source  = "terraform-aws-modules/sqs/aws"\n  version = "4.0"\n}\n', []),
    ('module "g" {\n  source = "git::https://example.com/m.git"\n}\n', []),
    ('module "i" {\n  source = "./${var.x}"\n}\n', []),
    # A nested block's source (a provisioner's, say) is not the module's.
    ('module "n" {\n  inner {\n    source = "./no"\n  }\n  source = "./yes"\n}\n', ["./yes"]),
    ('resource "null_resource" "x" {\n  provisioner "file" {\n    source = "./conf"\n  }\n}\n', []),
    # Braces and quotes in strings, heredocs and comments do not change the block structure.
    ('locals {\n  a = "}"\n  b = "${jsonencode({ x = "}" })}"\n  c = <<EOT\n}\nmodule "h" {\n  source = "./heredoc"\n}\nEOT\n}\n'
     '/* module "c" { source = "./comment" } */\nmodule "m" {\n  source = "./m"\n}\n', ["./m"]),
    ('module "a" {\n  source = "./a"\n', ["./a"]),  # unterminated: still only a scan
    ('', []),
])
def test_local_sources_reads_module_blocks_only(text, expected):
    assert local_sources(text) == expected
