"""Real-world shakedown: lint directories of public repositories and count what comes out.

Usage: python bench/shakedown.py REPOS_DIR [--out SUMMARY.json] [--jobs N] [--cli COMMAND]

REPOS_DIR holds one exported repository per subdirectory (see docs/shakedown.md for the
export commands). This script never fetches anything: it runs the ``fanout-lint`` CLI of
the current interpreter once per repository with ``--format json`` and prints, per
repository and in total, the units linted (by format), the findings per rule and the
errors by kind. A traceback on standard error counts as a crash of the whole run.
``--cli`` runs another build instead (say an older checkout, to count "before" a fix):
``--cli "env PYTHONPATH=/tmp/old python -m fanout_lint"``.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shlex
import subprocess
import sys

# The CLI and the loaders it uses are the thing under test; the format census below only
# reuses their discovery and parsing so that it counts exactly what the CLI sees.
from fanout_lint.model.format import Format
from fanout_lint.run.discover import discover
from fanout_lint.loaders.cloudformation.template import is_template, means_sam, raw_resources
from fanout_lint.loaders.parsing.yaml_source import ParseError, decode, parse_json, parse_yaml

_MARKERS = ("Resources", "AWSTemplateFormatVersion", "planned_values")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repos_dir")
    parser.add_argument("--out", help="write the summary as JSON here")
    parser.add_argument("--jobs", default="2", help="passed to fanout-lint -j")
    parser.add_argument("--cli", help="the fanout-lint command to run (default: this interpreter's)")
    args = parser.parse_args(argv)

    repos = sorted(
        name for name in os.listdir(args.repos_dir) if os.path.isdir(os.path.join(args.repos_dir, name))
    )
    per_repo = {}
    for name in repos:
        per_repo[name] = lint_repo(os.path.join(args.repos_dir, name), args.jobs, args.cli)
    total = add_up(per_repo.values())
    print(render(per_repo, total))
    if args.out:
        with open(args.out, "w", encoding="utf-8") as handle:
            json.dump({"repos": per_repo, "total": total}, handle, indent=1, sort_keys=True)
    return 0


def lint_repo(path: str, jobs: str, cli: str | None = None) -> dict:
    command = shlex.split(cli) if cli else [sys.executable, "-m", "fanout_lint"]
    path = os.path.abspath(path)
    run = subprocess.run(
        command + ["check", "--format", "json", "-j", jobs, "--fail-on", "error", path],
        capture_output=True,
        text=True,
        cwd=os.path.dirname(path),  # `python -m` puts the cwd first on sys.path: not a checkout's
    )
    crashed = "Traceback" in run.stderr or run.returncode not in (0, 1, 2)
    try:
        report = json.loads(run.stdout)
    except ValueError:
        report = {"findings": [], "errors": [], "summary": {"units": 0}}
        crashed = True
    rules = collections.Counter(f["rule"] for f in report["findings"])
    errors = collections.Counter(error_kind(e["message"]) for e in report["errors"])
    return {
        "exit_code": run.returncode,
        "cli_crash": crashed,
        "stderr_tail": run.stderr[-2000:] if crashed else "",
        "units": report["summary"].get("units", 0),
        "formats": dict(census(path)),
        "findings": dict(sorted(rules.items())),
        "errors": dict(sorted(errors.items())),
        "error_details": [
            {"file": e["file"], "line": e.get("line"), "message": e["message"]} for e in report["errors"]
        ],
    }


def error_kind(message: str) -> str:
    if message.startswith("internal error"):
        return "crash (loader)"
    if message.startswith("rule ") and " failed: " in message:
        return "crash (rule)"
    if "not supported" in message:
        return "unsupported"
    return "load error"


def census(path: str) -> collections.Counter:
    """Units by format, as the CLI would see them (non-template YAML/JSON is not counted)."""
    counts: collections.Counter = collections.Counter()
    candidates, _ = discover([path])
    for candidate in candidates:
        if candidate.format is Format.TERRAFORM:
            counts["terraform"] += 1
            continue
        counts[template_format(candidate.path)] += 1
    counts.pop("not a template", None)
    return counts


def template_format(path: str) -> str:
    try:
        with open(path, "rb") as handle:
            text = decode(handle.read())
        if not any(marker in text for marker in _MARKERS):
            return "not a template"
        is_json = path.lower().endswith(".json") or text.lstrip().startswith("{")
        data = parse_json(text, path) if is_json else parse_yaml(text, path)
    except (OSError, ParseError):
        return "unparsable"
    if isinstance(data, dict) and "format_version" in data and "planned_values" in data:
        return "terraform plan"
    if not is_template(data):
        return "not a template"
    if means_sam(data, raw_resources(data, path)):
        return "sam"
    if is_cdk_output(path, data):
        return "cdk json"
    return "cloudformation json" if is_json else "cloudformation yaml"


def is_cdk_output(path: str, data: dict) -> bool:
    """cdk synth names its output <Stack>.template.json and marks it (unless told not to)."""
    resources = data.get("Resources") or {}
    parameters = data.get("Parameters") if isinstance(data.get("Parameters"), dict) else {}
    return (
        path.endswith(".template.json")
        or "BootstrapVersion" in parameters
        or any(isinstance(r, dict) and (r.get("Type") == "AWS::CDK::Metadata" or (
            isinstance(r.get("Metadata"), dict) and "aws:cdk:path" in r["Metadata"]))
            for r in resources.values())
    )


def add_up(results) -> dict:
    total = {"units": 0, "formats": collections.Counter(), "findings": collections.Counter(),
             "errors": collections.Counter(), "cli_crashes": 0}
    for result in results:
        total["units"] += result["units"]
        total["formats"].update(result["formats"])
        total["findings"].update(result["findings"])
        total["errors"].update(result["errors"])
        total["cli_crashes"] += int(result["cli_crash"])
    for key in ("formats", "findings", "errors"):
        total[key] = dict(sorted(total[key].items()))
    return total


def render(per_repo: dict, total: dict) -> str:
    lines = ["| repository | units | formats | findings | errors |", "|---|---|---|---|---|"]
    for name, result in list(per_repo.items()) + [("**total**", total)]:
        lines.append(
            f"| {name} | {result['units']} | {_pairs(result['formats'])} | {_pairs(result['findings'])} "
            f"| {_pairs(result['errors'])}{' CLI CRASH' if result.get('cli_crash') else ''} |"
        )
    return "\n".join(lines)


def _pairs(counts: dict) -> str:
    return ", ".join(f"{key} {value}" for key, value in counts.items()) or "-"


if __name__ == "__main__":
    sys.exit(main())
