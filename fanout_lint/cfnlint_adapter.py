"""What the cfn-lint plugin needs besides its rule classes: the base class and the bridge.

Kept apart from ``fanout_lint.cfnlint_plugin`` because cfn-lint instantiates every
``CloudFormationLintRule`` subclass it finds at the top level of the module given to
``-a``; the base class must not be one of them. Imports cfn-lint: only the plugin may
import this module, never the CLI path.
"""

from __future__ import annotations

from typing import Any

from cfnlint.rules import CloudFormationLintRule, RuleMatch

from fanout_lint.findings import Finding
from fanout_lint.loaders.cloudformation import load_template
from fanout_lint.loaders.located import MAX_DEPTH, Map, Seq
from fanout_lint.model.nodes import Loc
from fanout_lint.rule import Rule
from fanout_lint.rules import ALL_RULES
from fanout_lint.settings import Settings, find_rule

# cfn-lint derives the level from the first letter of the ID and, by default, runs only
# the E and W rules; fanout-lint's info rules need `--include-checks I`.
SEVERITY_LETTER = {"error": "E", "warning": "W", "info": "I"}
_CACHE_ATTRIBUTE = "_fanout_lint_findings"


def cfnlint_id(rule: Rule) -> str:
    """``FL201`` (error) -> ``EFL201``."""
    return SEVERITY_LETTER[rule.severity.value] + rule.id


def rule_by_id(rule_id: str) -> Rule:
    rule = find_rule(ALL_RULES, rule_id)
    if rule is None:
        raise LookupError(f"fanout-lint has no rule {rule_id}")
    return rule


class FanoutLintRule(CloudFormationLintRule):
    """One fanout-lint rule inside cfn-lint. Subclasses name the rule: ``fanout_id``."""

    fanout_id = ""

    def __init__(self) -> None:
        super().__init__()
        self.rule = rule_by_id(self.fanout_id)
        self.id = cfnlint_id(self.rule)
        self.shortdesc = self.rule.summary
        self.description = f"{self.rule.summary} (fanout-lint {self.rule.id} {self.rule.name})"
        references = self.rule.references
        self.source_url = references[0] if references else ""
        self.tags = ["fanout-lint", self.rule.name]

    def match(self, cfn: Any) -> list[RuleMatch]:
        return [to_match(f) for f in findings_of(cfn) if f.rule == self.rule.id]


def to_match(finding: Finding) -> RuleMatch:
    line, column = finding.loc.line - 1, finding.loc.column - 1
    # The message and resource are already one printable line (a Finding cleans its text
    # when it is made), so cfn-lint prints nothing a template author smuggled in.
    # The path lets cfn-lint apply a resource's `Metadata: cfn-lint: config: ignore_checks`;
    # the location gives the exact line fanout-lint itself reports.
    loc = finding.loc
    end = (loc.end_line - 1, loc.end_column - 1) if loc.has_end else (line, column + len(finding.resource))
    return RuleMatch(
        ["Resources", finding.resource],
        finding.message,
        location=(line, column, *end),
    )


def findings_of(cfn: Any) -> list[Finding]:
    """All fanout-lint findings for the template, computed once and kept on the template.

    cfn-lint calls each rule class separately; the graph and the checks run once.
    """
    cached = getattr(cfn, _CACHE_ATTRIBUTE, None)
    if cached is None:
        cached = _lint(cfn)
        setattr(cfn, _CACHE_ATTRIBUTE, cached)
    return cached


def _lint(cfn: Any) -> list[Finding]:
    from fanout_lint.unit import check_graph
    from fanout_lint.policy import apply_inline

    file = cfn.filename or "-"
    data = to_located(cfn.template, file)
    if not isinstance(data, dict):
        return []
    graph = _graph(data, file)
    findings, _errors = check_graph(graph, ALL_RULES, Settings())  # a crashed rule stays silent here
    # fanout-lint's own `Metadata: fanout-lint: ignore` applies too, reason and expiry included.
    kept = apply_inline(graph, findings, ALL_RULES).kept
    # cfn-lint reports on the template it lints: what is found in a nested template is
    # reported when that template is linted (alone, with its parameters' defaults)
    return [f for f in kept if f.unit == file]


def _graph(data: dict, file: str):
    """cfn-lint lints one template at a time. Its nested stacks with local templates are
    linked (their parameters from this template, their outputs back into it); an
    ``Fn::ImportValue`` stays unknown, since the exporting template is not at hand."""
    from fanout_lint.applications import repository_root
    from fanout_lint.loaders.stack_links import nested_stacks

    root = repository_root(file) if file != "-" else "."
    if file == "-" or not any(n.template for n in nested_stacks(data, file, root)):
        return load_template(data, file)
    from fanout_lint.loaders import Parsed
    from fanout_lint.loaders.application import load_application

    graph, _, _ = load_application((file,), root, given={file: Parsed(data, "yaml", None)})
    return graph if graph is not None else load_template(data, file)


def to_located(node: Any, file: str, depth: int = 0) -> Any:
    """cfn-lint's decoded nodes (with ``start_mark``) as fanout-lint's ``Map``/``Seq``."""
    if depth > MAX_DEPTH:
        return None
    if isinstance(node, dict):
        out = Map(_loc(node, file))
        out.end = getattr(node, "end_mark", None)
        for key, value in node.items():
            out[str(key)] = to_located(value, file, depth + 1)
            out.key_locs[str(key)] = _loc(key, file, out.loc)
            start, end = getattr(value, "start_mark", None), getattr(value, "end_mark", None)
            if _is_mark(start) and _is_mark(end):  # cfn-lint keeps marks on strings and containers
                out.value_marks[str(key)] = (start, end)
        return out
    if isinstance(node, list):
        seq = Seq(_loc(node, file))
        for item in node:
            seq.append(to_located(item, file, depth + 1))
            seq.item_locs.append(_loc(item, file, seq.loc))
        return seq
    if isinstance(node, str):
        return str(node)  # drop cfn-lint's str_node class
    return node


def _loc(node: Any, file: str, fallback: Loc | None = None) -> Loc:
    mark, end = getattr(node, "start_mark", None), getattr(node, "end_mark", None)
    if _is_mark(mark):
        if _is_mark(end):
            return Loc(file, mark.line + 1, mark.column + 1, end.line + 1, end.column + 1)
        return Loc(file, mark.line + 1, mark.column + 1)
    return fallback or Loc(file, 1, 1)


def _is_mark(mark: Any) -> bool:
    return isinstance(getattr(mark, "line", None), int) and isinstance(getattr(mark, "column", None), int)
