"""The shape of a rule: metadata, documentation, options, and a pure check over the graph.

A rule module holds its user documentation in its docstring (What it does / Why is this
bad? / How to fix / References), a ``check(graph, options)`` function that yields
``Violation``s, and one ``RULE`` value tying them together. The engine turns violations
into findings; rules never compute locations, read files or print.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import Node
from fanout_lint.model.record import Record, ValueRecord
from fanout_lint.severity import Severity

if TYPE_CHECKING:
    from typing import Any, Callable, Iterable, Mapping


@dataclass(frozen=True, eq=False, repr=False)
class Option(Record):
    """A setting of a rule that configuration may change."""

    name: str  # kebab-case, as written in configuration
    default: Any
    description: str
    choices: tuple[str, ...] = ()  # the values a string option accepts, when not any string
    # Which side of the default makes the rule report less ("below": a smaller factor
    # or lowest value accepted; "above": a larger highest value), so that a configuration
    # that turns the rule down this way is said to lower the gate (``gate.py``).
    lowers: str = ""


@dataclass(frozen=True, eq=False, repr=False)
class Fix(Record):
    """A mechanical repair: set one setting of the violation's node to a value.

    Safe when it cannot change what the consumer's code sees (a longer visibility
    timeout or retention); unsafe when the code or behaviour must change with it (raw
    delivery changes the message body). A rule offers a fix only when every value it
    depends on is known; the engine turns it into text edits only where the source can
    be edited (not CDK output or a plan, not a setting a SAM construct cannot express,
    not a value that comes from a parameter or variable).
    """

    field: str
    value: Any
    safe: bool


@dataclass(eq=False, repr=False)
class Violation(ValueRecord):
    """What a check reports: where the fix goes, what is wrong, and who else is involved."""

    at: Node
    message: str
    related: tuple[tuple[Node, str], ...] = ()  # (node, role)
    field: str | None = None  # the setting at fault: the finding points at it when written
    fix: Fix | None = None
    # The level of this finding when it is not the rule's: a shape the team would not act
    # on (a function only a schedule runs) is reported lower, and the message says why.
    severity: Severity | None = None


if TYPE_CHECKING:
    Check = Callable[[Graph, Mapping[str, Any]], Iterable[Violation]]


@dataclass(frozen=True, eq=False, repr=False)
class Rule(Record):
    """A rule: its identity, documentation, options and check."""

    id: str
    name: str
    severity: Severity
    summary: str
    check: Check
    doc: str
    options: tuple[Option, ...] = field(default=())
    # Names the rule had before (configuration, suppressions and `explain` still accept
    # them, with a notice); baselines match by ID and need nothing.
    former: tuple[str, ...] = field(default=())

    def is_named(self, key: str) -> bool:
        """``key`` names the rule: its ID (any case), its name or a former name."""
        return key == self.name or key.upper() == self.id or key in self.former

    def option_defaults(self) -> dict[str, Any]:
        return {o.name: o.default for o in self.options}

    def section(self, title: str) -> str:
        """One ``## Title`` section of the documentation, without its heading."""
        return doc_sections(self.doc).get(title, "")

    @property
    def references(self) -> list[str]:
        return re.findall(r"https?://[^\s)>\]]+", self.section("References"))


def doc_sections(doc: str) -> dict[str, str]:
    sections: dict[str, str] = {}
    title = ""
    lines: list[str] = []
    for line in _dedent(doc).splitlines():
        if line.startswith("## "):
            if title:
                sections[title] = "\n".join(lines).strip()
            title, lines = line[3:].strip(), []
        else:
            lines.append(line)
    if title:
        sections[title] = "\n".join(lines).strip()
    return sections


def _dedent(doc: str) -> str:
    first, _, rest = (doc or "").partition("\n")
    return (first.strip() + "\n" + textwrap.dedent(rest)).strip()
