"""What the cfn-lint plugin needs besides its rule classes: the base class and the bridge.

Kept apart from ``fanout_lint.cfnlint_plugin`` because cfn-lint instantiates every
``CloudFormationLintRule`` subclass it finds at the top level of the module given to
``-a``; the base class must not be one of them. Imports cfn-lint: only the plugin may
import this module, never the CLI path.

Rule options come through cfn-lint (``-x WFL104:max=10``, ``configure_rules`` in
``.cfnlintrc``) and are checked as fanout-lint checks its own configuration: an unknown
option or a value of the wrong type is a match of that rule at the template's first
line, saying it was not used, never silently dropped. Suppression notices are matches of
``WFL000``. cfn-lint's own E3505 checks what FL202 checks for a mapping whose queue and
function are plain resources of the template; where it reports a queue and function,
FL202 stays silent about them, so cfn-lint says it once.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from cfnlint.rules import CloudFormationLintRule, RuleMatch

from fanout_lint.loaders import Parsed
from fanout_lint.loaders.cloudformation.loader import load_template
from fanout_lint.loaders.links.application import load_application
from fanout_lint.loaders.links.stack_links import nested_stacks
from fanout_lint.loaders.parsing.located import MAX_DEPTH, Map, Seq
from fanout_lint.model.nodes import Loc
from fanout_lint.policy.config import ConfigError, Flags
from fanout_lint.policy.file_ignores import ignored
from fanout_lint.policy.hierarchy import resolve
from fanout_lint.policy.settings import Settings, enabled_rules, find_rule, suggestion
from fanout_lint.policy.suppressions import Applied, apply_inline
from fanout_lint.results.records import Finding, Notice
from fanout_lint.rule import Option, OptionType, Rule
from fanout_lint.rules import ALL_RULES
from fanout_lint.run.link_plan import repository_root
from fanout_lint.run.unit import check_graph

if TYPE_CHECKING:
    from typing import Any

# cfn-lint derives the level from the first letter of the ID and, by default, runs only
# the E and W rules; fanout-lint's info rules need `--include-checks I`.
SEVERITY_LETTER = {"error": "E", "warning": "W", "info": "I"}
NOTICE_ID = "WFL000"
_CACHE_ATTRIBUTE = "_fanout_lint_run"
_OPTIONS_ATTRIBUTE = "_fanout_lint_options"
# cfn-lint's own rule for what FL202 checks, on the mappings it can read
CFN_LINT_TWIN = {"FL202": "E3505"}


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
        # cfn-lint lists the options with `--list-rules` and sets defaults from these
        self.config_definition = {o.name: {"default": o.default, "type": _cfn_type(o),
                                           "itemtype": "string"} for o in self.rule.options}
        self.options: dict[str, Any] = {}
        self.option_problems: list[str] = []
        self.twin_enabled: bool | None = None  # whether cfn-lint runs CFN_LINT_TWIN's rule

    def configure(self, configs=None, experimental=False):
        """cfn-lint's ``configure_rules`` for this rule: each option is checked against
        the rule's declared ones; what cannot be used is said, not dropped."""
        super().configure(None, experimental)  # cfn-lint's defaults; the values are read below
        self.options, self.option_problems = read_options(self.rule, self.id, configs)

    def initialize(self, cfn: Any) -> None:
        # cfn-lint configures and initializes every rule before it matches any, so by the
        # first match the template holds the options of every fanout-lint rule that runs
        options = getattr(cfn, _OPTIONS_ATTRIBUTE, None)
        if options is None:
            options = {}
            setattr(cfn, _OPTIONS_ATTRIBUTE, options)
        options[self.rule.id] = self.options

    def match(self, cfn: Any) -> list[RuleMatch]:
        matches = [RuleMatch([], f"fanout-lint: {problem}", location=(0, 0, 0, 1))
                   for problem in self.option_problems]
        findings = [f for f in run_of(cfn).kept if f.rule == self.rule.id]
        twin = CFN_LINT_TWIN.get(self.rule.id)
        if twin and findings and self._twin_runs(twin, cfn):
            covered = twin_pairs(cfn.template)
            findings = [f for f in findings if not _covered(f, covered)]
        return matches + [to_match(f) for f in findings]

    def _twin_runs(self, twin: str, cfn: Any) -> bool:
        if self.twin_enabled is None:
            self.twin_enabled = cfn_lint_runs(twin)
        return self.twin_enabled and twin not in _template_ignores(cfn.template)


class NoticeRule(CloudFormationLintRule):
    """fanout-lint's notices inside cfn-lint: suppressions that cannot apply or hide nothing."""

    def __init__(self) -> None:
        super().__init__()
        self.id = NOTICE_ID
        self.shortdesc = "fanout-lint suppression notices"
        self.description = ("A fanout-lint suppression that cannot apply (no reason, unknown rule, past its "
                            "date) or that suppresses nothing")
        self.source_url = ""
        self.tags = ["fanout-lint"]

    def match(self, cfn: Any) -> list[RuleMatch]:
        return [notice_match(n) for n in run_of(cfn).notices]


def notice_match(notice: Notice) -> RuleMatch:
    line, column = max(notice.loc.line - 1, 0), max(notice.loc.column - 1, 0)
    return RuleMatch([], notice.message, location=(line, column, line, column + 1))


def read_options(rule: Rule, cfn_id: str, configs: Any) -> tuple[dict[str, Any], list[str]]:
    """(the options to use, one sentence per option refused)."""
    if not isinstance(configs, dict):
        return {}, []
    declared = {o.name: o for o in rule.options}
    options, problems = {}, []
    for key, value in configs.items():
        option = declared.get(str(key))
        if option is None:
            known = ", ".join(declared) or "none"
            hint = suggestion(declared, str(key))
            problems.append(f"{cfn_id} has no option {key!r}{hint} (options: {known}); it was not used")
            continue
        try:
            options[option.name] = _converted(option, value)
        except ValueError:
            problems.append(f"option {option.name!r} of {cfn_id} must be {_wanted(option)} like its "
                            f"default {option.default!r}, not {value!r}; the default was used")
    return options, problems


def _converted(option: Option, value: Any) -> Any:
    """``value`` (a string from ``-x``, or typed from ``.cfnlintrc``) as the option's type."""
    kind = option.type
    if kind is OptionType.BOOL:
        if isinstance(value, bool):
            return value
        if str(value).strip().lower() in ("true", "false"):
            return str(value).strip().lower() == "true"
        raise ValueError(value)
    if isinstance(value, bool):
        raise ValueError(value)
    if kind is OptionType.INT:
        return int(str(value).strip()) if not isinstance(value, int) else value
    if kind is OptionType.FLOAT:
        return float(value)
    if option.accepted and str(value) not in option.accepted:
        raise ValueError(value)
    return str(value)


def _wanted(option: Option) -> str:
    if option.accepted:
        return f"one of {', '.join(option.accepted)}"
    return {OptionType.BOOL: "true or false", OptionType.INT: "an integer", OptionType.FLOAT: "a number"}.get(
        option.type, "a string")


def _cfn_type(option: Option) -> str:
    """cfn-lint's name for the type (it has none for a number with a fraction)."""
    return {OptionType.BOOL: "boolean", OptionType.INT: "integer"}.get(option.type, "string")


def cfn_lint_runs(rule_id: str) -> bool:
    """Whether this cfn-lint command line runs ``rule_id`` (its own ignore and include
    lists, configuration file included). Only the cfn-lint command can say; used through
    cfn-lint's API, the answer is no, so a finding may show twice but is never lost."""
    program = os.path.basename(sys.argv[0] if sys.argv else "")
    if not (program.startswith("cfn-lint") or sys.argv[0].endswith(os.path.join("cfnlint", "__main__.py"))):
        return False
    try:
        from cfnlint.config import ConfigMixIn

        config = ConfigMixIn(cli_args=sys.argv[1:])
        probe = CloudFormationLintRule()  # cfn-lint's own test, asked about the ID alone
        probe.id = rule_id
        return bool(probe.is_enabled(config.include_experimental, config.ignore_checks,
                                     config.include_checks, config.mandatory_checks))
    except (Exception, SystemExit):
        return False


def _template_ignores(template: Any) -> set[str]:
    """``Metadata: cfn-lint: config: ignore_checks`` at the template's top level."""
    try:
        checks = template["Metadata"]["cfn-lint"]["config"]["ignore_checks"]
    except (KeyError, TypeError):
        return set()
    return {str(c) for c in checks} if isinstance(checks, list) else set()


def twin_pairs(template: Any) -> set[tuple[str, str]]:
    """(queue, function) of each mapping cfn-lint's E3505 reports: EventSourceArn a GetAtt
    of a queue's Arn, FunctionName a Ref or GetAtt of a function, both timeouts integers or
    absent (30 and 3 s), the queue's below the function's."""
    resources = template.get("Resources") if isinstance(template, dict) else None
    if not isinstance(resources, dict):
        return set()
    pairs = set()
    for resource in resources.values():
        if not isinstance(resource, dict) or resource.get("Type") != "AWS::Lambda::EventSourceMapping":
            continue
        properties = resource.get("Properties")
        if not isinstance(properties, dict):
            continue
        queue = _target(properties.get("EventSourceArn"), resources, "AWS::SQS::Queue", ref=False)
        function = _target(properties.get("FunctionName"), resources, "AWS::Lambda::Function", ref=True)
        if queue is None or function is None:
            continue
        visibility = _integer(resources[queue], "VisibilityTimeout", 30)
        timeout = _integer(resources[function], "Timeout", 3)
        if visibility is not None and timeout is not None and visibility < timeout:
            pairs.add((queue, function))
    return pairs


def _target(value: Any, resources: dict, kind: str, ref: bool) -> str | None:
    name = None
    if isinstance(value, dict) and len(value) == 1:
        if ref and isinstance(value.get("Ref"), str):
            name = value["Ref"]
        attribute = value.get("Fn::GetAtt")
        if isinstance(attribute, list) and len(attribute) == 2 and attribute[1] == "Arn":
            name = attribute[0]
        elif isinstance(attribute, str) and attribute.endswith(".Arn"):
            name = attribute[:-4]
    resource = resources.get(name) if isinstance(name, str) else None
    return name if isinstance(resource, dict) and resource.get("Type") == kind else None


def _integer(resource: dict, key: str, default: int) -> int | None:
    properties = resource.get("Properties")
    value = properties.get(key, default) if isinstance(properties, dict) else default
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _covered(finding: Finding, covered: set[tuple[str, str]]) -> bool:
    functions = [r.resource for r in finding.related if r.role == "consumer"]
    return bool(functions) and all((finding.resource, f) in covered for f in functions)


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
    """All fanout-lint findings for the template (see ``run_of``)."""
    return run_of(cfn).kept


def run_of(cfn: Any):
    """The findings and notices for the template, computed once and kept on the template.

    cfn-lint calls each rule class separately; the graph and the checks run once, with
    the options every fanout-lint rule was configured with.
    """
    cached = getattr(cfn, _CACHE_ATTRIBUTE, None)
    if cached is None:
        cached = _lint(cfn, getattr(cfn, _OPTIONS_ATTRIBUTE, None))
        setattr(cfn, _CACHE_ATTRIBUTE, cached)
    return cached


def _lint(cfn: Any, options: dict[str, dict] | None):
    file = cfn.filename or "-"
    data = to_located(cfn.template, file)
    if not isinstance(data, dict):
        return Applied()
    graph = _graph(data, file)
    settings, problems = configured(options, file, os.getcwd())
    findings, _errors = check_graph(graph, ALL_RULES, settings)  # a crashed rule stays silent here
    # the rules cfn-lint runs are those it initialized (without that record, all of them)
    # that the configuration leaves on
    ran = tuple(r for r in enabled_rules(ALL_RULES, settings) if options is None or r.id in options)
    # fanout-lint's own `Metadata: fanout-lint: ignore` applies too, reason and expiry included.
    applied = apply_inline(graph, findings, ALL_RULES, ran=ran)
    # cfn-lint reports on the template it lints: what is found in a nested template is
    # reported when that template is linted (alone, with its parameters' defaults)
    applied.kept = [f for f in applied.kept if f.unit == file
                    and not ignored(f.loc.file, f.rule, settings.per_file_ignores, settings.per_file_base)]
    applied.notices = problems + [n for n in applied.notices if n.loc.file == file]
    return applied


def configured(options: dict[str, dict] | None, file: str, cwd: str) -> tuple[Settings, list[Notice]]:
    """The settings of fanout-lint's own configuration file (``.fanout-lint.toml`` or
    ``[tool.fanout-lint]``, the one nearest the template, as the command line finds it), so
    that ``select``, ``ignore``, ``extend-*``, ``per-file-ignores`` and rule options are
    written once for both. Options given through cfn-lint win over the file's. Severity
    stays the rule's own: cfn-lint's level is the ID's first letter. A file that cannot
    be used is a notice (``WFL000``) and the defaults apply."""
    given = {rule: dict(values) for rule, values in (options or {}).items()}
    try:
        settings, _ = resolve(Flags(paths=(file,)), ALL_RULES, cwd)
    except ConfigError as exc:
        notice = Notice(Loc(file, 1, 1), f"fanout-lint configuration not used: {exc}")
        return Settings(options=given), [notice]
    merged = {rule: dict(values) for rule, values in settings.options.items()}
    for rule, values in given.items():
        merged.setdefault(rule, {}).update(values)
    return Settings(select=settings.select, ignore=settings.ignore, options=merged,
                    per_file_ignores=settings.per_file_ignores, per_file_base=settings.per_file_base), []


def _graph(data: dict, file: str):
    """cfn-lint lints one template at a time. Its nested stacks with local templates are
    linked (their parameters from this template, their outputs back into it); an
    ``Fn::ImportValue`` stays unknown, since the exporting template is not at hand."""
    root = repository_root(file) if file != "-" else "."
    if file == "-" or not any(n.template for n in nested_stacks(data, file, root)):
        return load_template(data, file)

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
