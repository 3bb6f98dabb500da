"""One loader per format, each producing the same Graph. ``load_candidate`` picks one."""

from __future__ import annotations

import gc

from fanout_lint.discover import Candidate
from fanout_lint.findings import LoadError
from fanout_lint.loaders.cfn_template import is_template
from fanout_lint.loaders.source import MAX_BYTES, ParseError, decode, parse_json, parse_yaml
from fanout_lint.model.graph import Graph
from fanout_lint.parse_cache import ParseCache
from fanout_lint.regular_files import read_bounded

# Words one of which every template (or plan, or Serverless Framework service) contains;
# other files are not parsed.
_MARKERS = ("Resources", "AWSTemplateFormatVersion", "planned_values", "service")


def load_candidate(candidate: Candidate, cache: ParseCache | None = None) -> tuple[list[Graph], list[LoadError]]:
    """``cache``: parsed files of this run and of earlier ones (``parse_cache.py``), or
    None to parse every file."""
    if candidate.kind == "terraform":
        from fanout_lint.loaders.terraform import load_terraform_dir  # HCL parser only when needed

        # The collector is paused while the directory is read and evaluated: its parsed
        # files are large and hold no cycles, and each full collection walked them all
        # again (at 10,000 resources evaluating cost 20 times per resource what it did at
        # 1,000). The few cycles a module tree makes are collected after the unit.
        collecting = gc.isenabled()
        gc.disable()
        try:
            return load_terraform_dir(candidate.path, cache)
        finally:
            if collecting:
                gc.enable()
    return _load_file(candidate.path)


def _load_file(path: str) -> tuple[list[Graph], list[LoadError]]:
    try:
        data = read_bounded(path, MAX_BYTES)  # kind and size are checked before reading
    except OSError as exc:
        return [], [LoadError(path, None, f"cannot read: {exc.strerror or exc}")]
    try:
        text = decode(data)
        if not any(marker in text for marker in _MARKERS):
            return [], []  # not a template: pre-commit hands us every YAML and JSON file
        parsed = _parse(text, path)
    except ParseError as exc:
        return [], [LoadError(path, exc.line, exc.message, exc.column)]
    if _is_plan(parsed):
        from fanout_lint.loaders.terraform_plan import load_plan

        return load_plan(parsed, path)
    if isinstance(parsed, dict) and "service" in parsed:
        from fanout_lint.loaders.serverless import is_service, load_service

        if is_service(parsed):
            return load_service(parsed, path, _syntax(text, path), text)
    if not is_template(parsed):
        return [], []
    from fanout_lint.loaders.cloudformation import load_template

    return [load_template(parsed, path, _syntax(text, path), text)], []


def _syntax(text: str, path: str) -> str:
    return "json" if path.lower().endswith(".json") or text.lstrip().startswith("{") else "yaml"


def _parse(text: str, path: str):
    if _syntax(text, path) == "json":
        return parse_json(text, path)
    return parse_yaml(text, path)


def _is_plan(parsed) -> bool:
    return (
        isinstance(parsed, dict)
        and "format_version" in parsed
        and ("planned_values" in parsed or "configuration" in parsed)
    )
