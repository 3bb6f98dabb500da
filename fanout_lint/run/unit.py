"""Linting one unit (a template, a Terraform directory, a plan) or one application
(templates linked into one graph): load it, run the rules on its graphs, apply its
inline suppressions, and turn violations into findings.

Both the serial loop and the worker processes call ``lint_or_error``, so one unit's
failure is an error of that unit and never ends the run.
"""

from __future__ import annotations

import gc
from dataclasses import replace
from typing import TYPE_CHECKING

from fanout_lint.fixes import Planner
from fanout_lint.fixes.sources import planned_on
from fanout_lint.loaders import load_candidate
from fanout_lint.loaders.candidate import Candidate
from fanout_lint.loaders.links.application import load_application
from fanout_lint.loaders.parsing.budget import BudgetExceeded
from fanout_lint.model.format import Format
from fanout_lint.model.graph import Graph
from fanout_lint.model.sites import loc_of
from fanout_lint.policy.file_ignores import ignored
from fanout_lint.policy.settings import Settings, enabled_rules, options_for, severity_for
from fanout_lint.policy.suppressions import apply_inline
from fanout_lint.results.cdk_hints import where_in_cdk
from fanout_lint.results.not_modelled import account
from fanout_lint.results.records import Finding, LoadError, Related, Result, Skipped
from fanout_lint.rule import Rule, Violation
from fanout_lint.run.link_plan import Application, file_key
from fanout_lint.run.unsupported import why_not_linted

if TYPE_CHECKING:
    from fanout_lint.run.link_plan import Application


def lint_or_error(candidate: Candidate | Application, rules: tuple[Rule, ...], settings: Settings,
                  keep_graphs: bool = False) -> Result:
    """The unit's (or application's) result, or a one-line error when linting it raised:
    one unit's failure must not end the run. Serial and parallel runs both go through here."""
    try:
        return lint_candidate(candidate, rules, settings, keep_graphs)
    except (Exception, SystemExit) as exc:  # SystemExit too: in a worker it would end the pool
        return Result(errors=[LoadError(candidate.path, None, f"internal error while linting: {describe(exc)}")])


def describe(exc: BaseException) -> str:
    """``Type: message`` on one line, short, with control characters escaped."""
    text = str(exc)
    text = text.splitlines()[0] if text else ""
    text = "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text[:300])
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def lint_candidate(candidate: Candidate | Application, rules: tuple[Rule, ...], settings: Settings,
                   keep_graphs: bool = False) -> Result:
    # A template's graph, values and findings hold no reference cycles (none on a generated
    # 1,000-template repository; the few some inputs make, e.g. a Terraform plan's, are
    # collected once the collector runs again after the unit): what is not kept is freed
    # by reference counting when the unit is done. The cyclic collector would only rescan
    # them (and every finding kept so far) as they are allocated, so it is paused for the
    # unit, as the parsers pause it for the tree. Not for Terraform directories, whose HCL
    # parser's objects were not checked for cycles.
    if candidate.format is Format.TERRAFORM:
        return _lint_unit(candidate, rules, settings, keep_graphs)
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _lint_unit(candidate, rules, settings, keep_graphs)
    finally:
        if collecting:
            gc.enable()


def _lint_unit(candidate: Candidate | Application, rules: tuple[Rule, ...], settings: Settings,
               keep_graphs: bool) -> Result:
    result = Result()
    notices: list = []
    try:
        if isinstance(candidate, Application):
            graphs, errors, notices = _load_application(candidate)
        else:
            graphs, errors = load_candidate(candidate, settings.cache, settings.var_files)
    except BudgetExceeded as exc:  # hostile or runaway input: this unit only
        return Result(errors=[LoadError(exc.file or candidate.path, exc.line, exc.message)])
    except RecursionError:
        return Result(errors=[LoadError(candidate.path, None, "unit nests references or values too deeply to evaluate")])
    except MemoryError:
        return Result(errors=[LoadError(candidate.path, None, "unit needs more memory to evaluate than is available")])
    except Exception as exc:  # a loader bug must not hide the other files' findings
        return Result(errors=[LoadError(candidate.path, None, f"internal error while loading: {type(exc).__name__}: {exc}")])
    result.errors.extend(errors)
    if not graphs and not errors and isinstance(candidate, Candidate) and candidate.format is Format.CLOUDFORMATION:
        result.skipped.append(Skipped(candidate.path, why_not_linted(candidate.path)))
    result.notices.extend(notices)
    reported = candidate.reported if isinstance(candidate, Application) else None
    for graph in graphs:
        findings, rule_errors = check_graph(graph, rules, settings)
        if len(graph.members) > 1:
            findings = list(dict.fromkeys(findings))  # a template nested twice finds the same twice
        applied = apply_inline(graph, findings, rules, settings.today, ran=enabled_rules(rules, settings))
        if settings.per_file_ignores:
            applied.kept = [f for f in applied.kept
                            if not ignored(f.loc.file, f.rule, settings.per_file_ignores, settings.per_file_base)]
        if reported is not None:
            _keep_reported(applied, reported)
        members = [unit.path for unit in graph.members if reported is None or file_key(unit.path) in reported]
        result.units += len(members)
        result.linted.extend(members)
        result.findings.extend(applied.kept)
        result.suppressed.extend(applied.suppressed)
        result.notices.extend(applied.notices)
        account(result, graph, None if reported is None else (lambda file: file_key(file) in reported))
        result.errors.extend(rule_errors)
        if any(f.fix is not None for f in applied.kept):
            result.fix_sources.update(planned_on(graph.sources, applied.kept))
        graph.sources = {}  # the fixes are planned: the texts are not needed any more
        if keep_graphs:
            result.graphs.append(graph)
    return result


def _load_application(app: Application):
    graph, errors, notices = load_application(app.paths, app.root, dict(app.stack_names), app.ambiguous)
    return ([graph] if graph is not None else []), errors, notices


def _keep_reported(applied, reported: frozenset[str]) -> None:
    """Only what involves a reported file: the resource the finding is on, or a related
    one. A template the run did not name was linked for what it tells about the named
    ones; a fix goes only into a named file."""
    def involves(finding: Finding) -> bool:
        return file_key(finding.unit) in reported or any(file_key(r.loc.file) in reported for r in finding.related)

    def own_fix(finding: Finding) -> Finding:
        if finding.fix is None or all(file_key(e.file) in reported for e in finding.fix.edits):
            return finding
        return replace(finding, fix=None)

    applied.kept = [own_fix(f) for f in applied.kept if involves(f)]
    applied.suppressed = [s for s in applied.suppressed if involves(s.finding)]
    applied.notices = [n for n in applied.notices if file_key(n.loc.file) in reported]


def check_graph(graph: Graph, rules: tuple[Rule, ...], settings: Settings) -> tuple[list[Finding], list[LoadError]]:
    findings: list[Finding] = []
    errors: list[LoadError] = []
    planner = _FixPlanner(graph)
    level = settings.fail_on.value if settings.fail_on is not None else "none"
    for rule in enabled_rules(rules, settings):
        try:
            violations = list(rule.check(graph, rule.options_of(options_for(rule, settings))))
        except Exception as exc:  # one broken rule must not stop the others
            errors.append(LoadError(graph.unit.path, None, f"rule {rule.id} ({rule.name}) failed: {type(exc).__name__}: {exc}"))
            continue
        severity = severity_for(rule, settings)
        findings.extend(to_finding(rule, severity, v, graph, planner, level) for v in violations)
    return findings, errors


class _FixPlanner:
    """The graph's fix planner, made (and its module imported) for the first fix."""

    def __init__(self, graph: Graph):
        self.graph = graph
        self.planner = None

    def plan(self, node, fix):
        if self.planner is None:
            self.planner = Planner(self.graph)
        return self.planner.plan(node, fix)


def to_finding(rule: Rule, severity, violation: Violation, graph: Graph, planner=None, fail_on: str = "") -> Finding:
    node = violation.at
    fix = None
    if violation.fix is not None:
        fix = (planner or _FixPlanner(graph)).plan(node, violation.fix)
    related = tuple(Related(n.resource, n.loc, role) for n, role in violation.related)
    involved = (node.cdk_path or node.resource,) + tuple(n.cdk_path or n.resource for n, _ in violation.related)
    return Finding(
        rule=rule.id,
        name=rule.name,
        severity=violation.severity or severity,
        message=(f"{node.written.where}: {violation.message}" if node.written.where else violation.message)
        + where_in_cdk(node, violation.field),
        resource=node.resource,
        loc=loc_of(node, violation.field),
        related=related,
        cdk_path=node.cdk_path,
        unit=graph.unit_of(node),
        involved=involved,
        suppressions=node.suppressions,
        node_ids=(node.id,) + tuple(n.id for n, _ in violation.related),
        fix=fix,
        fail_on=fail_on,
    )
