"""The policy stage: inline suppressions and the baseline decide which findings are reported.

An inline suppression sits on a resource (CloudFormation ``Metadata: fanout-lint``, a
Terraform ``# fanout-lint: ignore=...`` comment) and hides the findings whose primary
resource is that resource. ``ignore=all`` hides every rule's. A file-level suppression
(``# fanout-lint: ignore-file=RULE -- reason``, a comment line in a ``.tf`` file or YAML
template, as tflint's ``tflint-ignore-file``) hides the rule's findings that point into
that file. Each must give a reason, and may give an expiry date after which it stops
hiding anything.

Problems with suppressions themselves become notices: warnings printed beside the report
that never change the exit code, because the finding they failed to hide is reported
anyway. A suppression that cannot apply (no reason, an unknown rule, a bad or past date)
is one; so is one that applies but hid nothing, as ruff's unused ``noqa`` (RUF100): a
rule that does not fire there, a suppression on another resource than the finding's,
a Terraform comment that is on no resource block (above a ``module`` block, say).
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from fanout_lint.model.format import Format, unknown
from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import Loc, Suppression
from fanout_lint.policy.settings import find_rule, renamed, rule_suggestion
from fanout_lint.results.records import Finding, Notice, Suppressed
from fanout_lint.results.untrusted import clean_path
from fanout_lint.rule import Rule

if TYPE_CHECKING:
    import datetime

ALL = "all"  # ``ignore=all``: every rule
MARK = "fanout-lint:"
# ``fanout-lint: ignore-file=ID-or-name[,other] [until=YYYY-MM-DD] [-- reason]``; linear as
# the resource form in the Terraform loader: runs separated by commas they cannot hold
_IGNORE_FILE = re.compile(r"fanout-lint:[ \t]*ignore-file[ \t]*=[ \t]*([\w.-]+(?:[ \t]*,[ \t]*[\w.-]+)*)(.*)\Z")
_IGNORE = re.compile(r"fanout-lint:[ \t]*ignore[ \t]*=")
_UNTIL = re.compile(r"\buntil[ \t]*=[ \t]*(\S+)")


@dataclass(eq=False, repr=False)
class Applied:
    """Findings after inline suppressions: those kept, those hidden, and notices."""

    kept: list[Finding] = field(default_factory=list)
    suppressed: list[Suppressed] = field(default_factory=list)
    notices: list[Notice] = field(default_factory=list)


def apply_inline(graph: Graph, findings: list[Finding], rules: tuple[Rule, ...],
                 today: datetime.date | None = None, ran: tuple[Rule, ...] | None = None) -> Applied:
    """Split ``findings`` into kept and suppressed, and report every faulty or unused
    suppression of ``graph``. ``ran``: the rules that ran (default: all of ``rules``); a
    suppression of a rule that did not run is not called unused."""
    ran_ids = {r.id for r in (ran if ran is not None else rules)}
    applied = Applied()
    notices: dict[Notice, None] = {}  # SAM copies a resource's metadata onto what it generates
    on_resources = _resource_suppressions(graph)
    in_files = file_suppressions(graph)
    usable = {}
    for suppression in [*on_resources, *in_files]:
        problem = suppression_problem(suppression, rules, today)
        if problem:
            notices[Notice(suppression.loc or Loc(graph.unit.path, 1, 1), problem)] = None
        else:
            usable[_key(suppression)] = suppression
            former = _former_name(suppression, rules)  # it applies, under its old name
            if former:
                notices[Notice(suppression.loc or Loc(graph.unit.path, 1, 1), former)] = None
    used: set[tuple] = set()
    for finding in findings:
        shown_file = finding.loc.file
        matches = [s for s in finding.suppressions if _names(s.rule, finding, rules) and _key(s) in usable]
        matches += [s for s in in_files if _names(s.rule, finding, rules) and _key(s) in usable
                    and s.loc is not None and clean_path(s.loc.file) == shown_file]
        used.update(_key(s) for s in matches)
        if matches:
            applied.suppressed.append(Suppressed(finding, matches[0]))
        else:
            applied.kept.append(finding)
    for key, suppression in usable.items():
        if key not in used and _ran(suppression, rules, ran_ids):
            notices[Notice(suppression.loc or Loc(graph.unit.path, 1, 1), _unused(suppression, rules))] = None
    for loc, _text, rule_keys, block in _orphan_comments(graph, on_resources):
        notices[Notice(loc, _orphan(rule_keys, block, graph.unit.format))] = None
    applied.notices.extend(notices)
    return applied


def _resource_suppressions(graph: Graph) -> list[Suppression]:
    found: dict[tuple, Suppression] = {}
    for node in graph.nodes():
        for suppression in node.suppressions:
            if suppression.loc is None:
                suppression = Suppression(suppression.rule, suppression.reason, suppression.until, node.loc,
                                          suppression.syntax)
            found.setdefault(_key(suppression), suppression)
    return list(found.values())


def _key(suppression: Suppression) -> tuple:
    loc = suppression.loc
    where = (loc.file, loc.line, loc.column) if loc is not None else None
    return (where, suppression.rule.strip(), suppression.syntax)


def suppression_problem(suppression: Suppression, rules: tuple[Rule, ...], today: datetime.date | None) -> str:
    """Why this suppression does not apply, or "" when it does (on ``today``; None: the
    real today)."""
    key = suppression.rule.strip()
    if key.lower() != ALL and find_rule(rules, key) is None:
        hint = rule_suggestion(rules, key) or " (see `fanout-lint rules`)"
        return f"suppression names unknown rule {key!r}{hint}; it suppresses nothing"
    comment = suppression.syntax in ("comment", "file")  # a comment line, not CloudFormation Metadata
    if not suppression.reason.strip():
        if suppression.syntax == "file":
            hint = f"`# fanout-lint: ignore-file={key} -- <reason>`"
        elif comment:
            hint = f"`# fanout-lint: ignore={key} -- <reason>`"
        else:
            hint = "`reason: ...`"
        return f"suppression of {key} has no reason; it is not applied (add {hint})"
    if suppression.until:
        try:
            until = datetime.date.fromisoformat(str(suppression.until).strip())
        except ValueError:
            written = f"until={suppression.until}" if comment else f"until: {suppression.until!r}"
            return (f"suppression of {key} has {written}, not a date "
                    "(YYYY-MM-DD); it is not applied")
        if (today or datetime.date.today()) > until:
            return f"suppression of {key} expired on {until.isoformat()}; it no longer suppresses"
    return ""


def _former_name(suppression: Suppression, rules: tuple[Rule, ...]) -> str:
    """A notice for a suppression that names its rule by a former name (it still applies)."""
    notice = renamed(rules, suppression.rule.strip())
    return f"suppression: {notice}" if notice else ""


def _names(key: str, finding: Finding, rules: tuple[Rule, ...]) -> bool:
    """The suppression's rule is the finding's: ``all``, its ID, its name or a former name."""
    key = key.strip()
    if key.lower() == ALL or key == finding.name or key.upper() == finding.rule:
        return True
    rule = find_rule(rules, key)
    return rule is not None and rule.id == finding.rule


def _ran(suppression: Suppression, rules: tuple[Rule, ...], ran_ids: set[str]) -> bool:
    key = suppression.rule.strip()
    if key.lower() == ALL:
        return True
    rule = find_rule(rules, key)
    return rule is not None and rule.id in ran_ids


def _unused(suppression: Suppression, rules: tuple[Rule, ...]) -> str:
    key = suppression.rule.strip()
    rule = find_rule(rules, key)
    what = "no finding" if rule is None else f"no {rule.id} ({rule.name}) finding"
    if suppression.syntax == "file":
        return f"file-level suppression of {key} suppresses nothing: {what} points into this file; remove it"
    hint = ("remove the comment, or move it to the resource the finding names" if suppression.syntax == "comment"
            else "remove the entry, or move it to the resource the finding names")
    return f"suppression of {key} suppresses nothing: {what} on this resource ({hint})"


# -- comment lines: file-level suppressions, and resource ones that are on no resource ---

def file_suppressions(graph: Graph) -> list[Suppression]:
    """The ``ignore-file`` comment lines of the unit's files (YAML templates, ``.tf``)."""
    found = []
    for file, text in (graph.sources or {}).items():
        if MARK not in text or file.lower().endswith(".json"):
            continue  # JSON has no comments
        for number, comment in _comment_lines(text):
            match = _IGNORE_FILE.match(comment)
            if match is None:
                continue
            rest = match.group(2)
            until = _UNTIL.search(rest)
            reason = _UNTIL.sub("", rest).split("--", 1)[1].strip() if "--" in rest else ""
            for rule in (r.strip() for r in match.group(1).split(",")):
                if rule:
                    found.append(Suppression(rule=rule, reason=reason, until=until.group(1) if until else None,
                                             loc=Loc(file, number, 1), syntax="file"))
    return found


# Where an ``ignore=`` comment is read: Terraform above or in a block, a Serverless service
# above a function or an event. A CloudFormation template reads none (its suppressions are
# Metadata), so there every one is a notice, as a Terraform comment on no block is.
_COMMENTS_READ = (Format.TERRAFORM, Format.SERVERLESS, Format.CLOUDFORMATION)


def _orphan_comments(graph: Graph, on_resources: list[Suppression]):
    """``ignore=`` comments no resource took: (loc, text, rules, next block)."""
    if graph.unit.format not in _COMMENTS_READ:
        return
    taken = {(s.loc.file, s.loc.line) for s in on_resources if s.loc is not None and s.syntax == "comment"}
    for file, text in (graph.sources or {}).items():
        if MARK not in text or file.lower().endswith(".json"):  # JSON has no comments
            continue
        lines = text.splitlines()
        for number, comment in _comment_lines(text):
            if not _IGNORE.match(comment) or (file, number) in taken:
                continue
            named = comment.split("=", 1)[1].split("--", 1)[0].split()
            rules = named[0] if named else "?"
            yield Loc(file, number, 1), comment, rules, _next_block(lines, number)


def _comment_lines(text: str):
    """(line number, text after ``#`` or ``//``) of each line that is only a comment."""
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith("#"):
            body = stripped.lstrip("#").strip()
        elif stripped.startswith("//"):
            body = stripped[2:].strip()
        else:
            continue
        if body.startswith(MARK):
            yield number, body


def _next_block(lines: list[str], number: int) -> str:
    """The keyword of the first line after ``number`` that is not a comment or blank."""
    for line in lines[number:]:
        stripped = line.strip()
        if stripped and not stripped.startswith(("#", "//")):
            return stripped.split(None, 1)[0]
    return ""


def _orphan(rules: str, block: str, unit_format: Format) -> str:
    match unit_format:
        case Format.CLOUDFORMATION:
            return (f"suppression of {rules} is a comment, which CloudFormation templates do not read, so it "
                    "suppresses nothing: write it in the resource's Metadata (`Metadata: {fanout-lint: {ignore: "
                    f"[{{rule: {rules}, reason: ...}}]}}}}`)")
        case Format.SERVERLESS:
            return (f"suppression of {rules} is on no function or event, so it suppresses nothing: write it on "
                    "the line above a function's key or an event's item; a resource of resources.Resources "
                    "takes CloudFormation's Metadata form (`Metadata: {fanout-lint: {ignore: "
                    f"[{{rule: {rules}, reason: ...}}]}}}}`)")
        case Format.TERRAFORM | Format.TERRAFORM_PLAN:
            if block == "module":
                return (f"suppression of {rules} is above a module block, where it suppresses nothing: put it "
                        "on the resource inside the module's files (`# fanout-lint: ignore=...` on the line "
                        "above its `resource` block)")
            return (f"suppression of {rules} is on no resource block, so it suppresses nothing: write it on "
                    "the line above a `resource` block (no blank line between) or inside the block")
        case _:
            unknown(unit_format)
