"""``fanout-lint graph PATHS``: draw the topology the rules saw, with the findings on it.

Exit code 0, or 2 when a path could not be read or parsed (what could be read is still
drawn) or the arguments are wrong. Findings do not change the exit code: this command
draws, ``check`` gates.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys

from fanout_lint.files.confine import Roots
from fanout_lint.files.repository import repo_root
from fanout_lint.policy import baseline
from fanout_lint.policy.baseline import split
from fanout_lint.policy.config import ConfigError, Flags
from fanout_lint.policy.hierarchy import Hierarchy
from fanout_lint.policy.settings import suggestion
from fanout_lint.policy.var_files import problem
from fanout_lint.reports import dot, markdown, mermaid, topology
from fanout_lint.reports.topology import as_dict
from fanout_lint.results.doc_links import RULE_DOCS_URL
from fanout_lint.results.untrusted import clean
from fanout_lint.rules import ALL_RULES
from fanout_lint.run.engine import lint_paths

FORMATS = ("mermaid", "dot", "json", "markdown")
DEFAULT_HOPS = 2
EXIT_OK, EXIT_ERROR = 0, 2


def add_options(graph) -> None:
    graph.add_argument("paths", nargs="*", default=None,
                       help="files or directories (default: .); after `--` every argument is a path")
    graph.add_argument("--format", choices=FORMATS, default="mermaid")
    graph.add_argument("--focus", metavar="RESOURCE",
                       help="draw only this resource (logical ID or Terraform address) and its neighbourhood")
    graph.add_argument("--hops", type=int, default=None, metavar="N",
                       help="with --focus: how many resources away to draw (default: 2)")
    graph.add_argument("--output", "-o", metavar="FILE",
                       help="write the graph to FILE instead of standard output")
    graph.add_argument("--select", action="append", default=[], metavar="RULE",
                       help="show findings of these rules only (ID or name)")
    graph.add_argument("--ignore", action="append", default=[], metavar="RULE",
                       help="do not show findings of these rules")
    graph.add_argument("--exclude", action="append", default=[], metavar="GLOB",
                       help="skip paths matching this glob")
    graph.add_argument("--config", metavar="FILE",
                       help="configuration file (default: .fanout-lint.toml or pyproject.toml [tool.fanout-lint])")
    graph.add_argument("--isolated", action="store_true",
                       help="read no configuration file: the defaults and the flags only")
    graph.add_argument("--docs-url", default=None, metavar="URL",
                       help="markdown: where the rule pages are, <URL><rule-name>.md (default: the project's pages)")
    # as `check` takes them, so that a summary drawn beside a gate shows the findings it gates on
    graph.add_argument("--baseline", metavar="FILE", help="show only findings not recorded in this baseline")
    graph.add_argument("--repo-root", metavar="DIR", default=None,
                       help="the repository root, for baseline fingerprints and linking (default: the git top level, else .)")
    graph.add_argument("--no-link", action="store_true",
                       help="draw every template alone, as check --no-link lints it")


def run(args) -> int:
    if args.hops is not None and args.focus is None:
        return _fail("--hops applies only with --focus RESOURCE (the whole topology is drawn otherwise)")
    hops = DEFAULT_HOPS if args.hops is None else args.hops
    if hops < 0:
        return _fail("--hops must be 0 or more")
    # the same configuration as `check`, so the graph shows the findings the gate sees
    flags = Flags(select=_split(args.select), ignore=_split(args.ignore), exclude=_split(args.exclude),
                  config=args.config, isolated=args.isolated, paths=tuple(args.paths), docs_url=args.docs_url)

    root = repo_root(args.repo_root, os.getcwd())
    try:  # each unit under its own directory's configuration file, as `check` lints it
        hierarchy = Hierarchy(flags, ALL_RULES, os.getcwd(), Roots(root, args.repo_root is not None))
        settings, _ = hierarchy.primary(flags.paths)
    except ConfigError as exc:
        return _fail(str(exc))
    settings = dataclasses.replace(settings, repo_root=root, repo_root_given=args.repo_root is not None,
                                   link=not args.no_link, configuration=hierarchy)
    if settings.var_files:  # the configuration's: held to the repository as in check
        unreadable = problem(settings.var_files, settings.config_var_files, root, settings.per_file_base)
        if unreadable:
            return _fail(unreadable)
    known = _baseline(args.baseline)
    if known is None:
        return EXIT_ERROR
    try:
        result = lint_paths(args.paths, ALL_RULES, settings, keep_graphs=True, root=root)
    except ConfigError as exc:  # a configuration file below the paths
        return _fail(str(exc))
    for notice in hierarchy.notices():  # a near-miss table, a rule named by a former name
        sys.stderr.write(clean(notice) + "\n")
    gate = hierarchy.gate()
    for notice in gate:  # what each configuration file that governs part of the drawing lowers
        sys.stderr.write(f"{notice}\n")
    if args.baseline:
        result.findings = split(result.findings, known, root)[0]
    view = topology.build(result.graphs, result.findings, result.errors)
    if args.focus is not None:
        if not topology.matching(view, args.focus):
            for error in result.errors:
                sys.stderr.write(f"{error}\n")

            hint = suggestion(sorted({n.resource for n in view.nodes}), args.focus)
            return _fail(f"no resource {args.focus!r} in the topology{hint}")
        view = topology.focus(view, args.focus, hops)
    drawn = render(view, args.format, settings.docs_url or RULE_DOCS_URL, gate)
    if args.output:
        try:  # held to the repository as every written path (confine.py); a failed write keeps the old file
            Roots(root, given=args.repo_root is not None).write(args.output, drawn.encode("utf-8"))
        except OSError as exc:
            return _fail(f"cannot write {args.output}: {exc.strerror or exc}")
    else:
        sys.stdout.write(drawn)
    for error in result.errors:
        sys.stderr.write(f"{error}\n")
    return EXIT_ERROR if result.errors else EXIT_OK


def _baseline(path: str | None) -> frozenset[str] | None:
    """The baseline's fingerprints (empty without one); None after printing its error."""
    if not path:
        return frozenset()

    try:
        return baseline.load(path)
    except baseline.BaselineError as exc:
        _fail(str(exc))
        return None


def render(view, fmt: str, docs_url: str, gate: tuple = ()) -> str:
    if fmt == "dot":
        return dot.render(view)
    if fmt == "json":
        return json.dumps(as_dict(view), indent=2) + "\n"
    if fmt == "markdown":
        return markdown.render(view, docs_url, gate=gate)

    return mermaid.render(view)


def _split(values: list[str]) -> tuple[str, ...]:
    return tuple(v.strip() for value in values for v in value.split(",") if v.strip())


def _fail(message: str) -> int:
    # the message may quote a path or a --focus name, which a file or the user chose
    sys.stderr.write(f"fanout-lint: error: {clean(message)}\n")
    return EXIT_ERROR
