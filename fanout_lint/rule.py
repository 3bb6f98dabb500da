"""The shape of a rule: metadata, documentation, options, and a pure check over the graph.

A rule module holds its user documentation in its docstring (What it does / Why is this
bad? / How to fix / References), a ``check(graph, options)`` function that yields
``Violation``s, and one ``RULE`` value tying them together. The engine turns violations
into findings; rules never compute locations, read files or print.

The words of the API are its own: a ``Fix`` says how it may be applied
(``Applicability``) and carries a title, a ``Rule`` says whether it offers fixes at all
(``Fixable``), and each ``Option`` says its type (``OptionType``), which configuration
values are checked against and which the check reads them by (``Options``).
"""

from __future__ import annotations

import enum
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


class OptionType(enum.Enum):
    """What an option's value is: configuration is checked against it, the check reads it so."""

    INT = "int"
    FLOAT = "float"  # an integer is accepted and read as a float
    BOOL = "bool"
    TEXT = "str"  # any string, or one of the option's ``choices``
    SEVERITY = "severity"  # a level (info, warning, error), or one of ``choices``

    @property
    def words(self) -> str:
        """The type as an error message names it: ``an integer``."""
        return _TYPE_WORDS[self]


_TYPE_WORDS = {OptionType.INT: "an integer", OptionType.FLOAT: "a number", OptionType.BOOL: "a boolean",
               OptionType.TEXT: "a string", OptionType.SEVERITY: "a severity (error, warning or info)"}
_LEVELS = ("info", "warning", "error")


@dataclass(frozen=True, eq=False, repr=False)
class Option(Record):
    """A setting of a rule that configuration may change."""

    name: str  # kebab-case, as written in configuration
    type: OptionType
    default: Any
    description: str
    choices: tuple[str, ...] = ()  # the values a string or severity option accepts, when not any
    # Which side of the default makes the rule report less ("below": a smaller factor
    # or lowest value accepted; "above": a larger highest value), so that a configuration
    # that turns the rule down this way is said to lower the gate (``gate.py``).
    lowers: str = ""

    @property
    def accepted(self) -> tuple[str, ...]:
        """The strings the option accepts, or () for any (a string option without choices)."""
        if self.choices or self.type is not OptionType.SEVERITY:
            return self.choices
        return _LEVELS

    def parse(self, value: Any) -> Any:
        """A configuration value as the option holds it (a float option's ``2`` is ``2.0``).

        Raises ``ValueError`` with the end of a sentence that begins with the option's
        name: ``must be an integer like its default 6, not a string``."""
        kind = self.type
        if kind is OptionType.BOOL:
            ok = isinstance(value, bool)
        elif kind is OptionType.INT:
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif kind is OptionType.FLOAT:
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
            value = float(value) if ok else value
        else:
            ok = isinstance(value, str)
        if not ok:
            raise ValueError(f"must be {kind.words} like its default {self.default!r}, not {value_kind(value)}")
        if self.accepted and value not in self.accepted:
            raise ValueError(f"must be one of {', '.join(self.accepted)}, not {value!r}")
        return value


def value_kind(value: Any) -> str:
    """What a configuration value is, as an error message says it: ``a string``."""
    return {
        bool: "a boolean", int: "an integer", float: "a number", str: "a string",
        list: "a list", tuple: "a list", dict: "a table", frozenset: "a list", set: "a list",
    }.get(type(value), type(value).__name__)


@dataclass(frozen=True, eq=False, repr=False)
class Options(Record):
    """A rule's option values as its check reads them: by name and type, each one the
    configuration's (already checked by ``Option.parse``) or its default.

    Reading an option the rule does not declare, or as another type, is a mistake in the
    rule and raises at once (the engine reports the rule as failed on the unit)."""

    declared: tuple[Option, ...]
    values: Mapping[str, Any] = field(default_factory=dict)

    def integer(self, name: str) -> int:
        return self._read(name, OptionType.INT)

    def number(self, name: str) -> float:
        return self._read(name, OptionType.FLOAT)

    def flag(self, name: str) -> bool:
        return self._read(name, OptionType.BOOL)

    def text(self, name: str) -> str:
        return self._read(name, OptionType.TEXT)

    def severity(self, name: str) -> Severity:
        return Severity.parse(self._read(name, OptionType.SEVERITY))

    def _read(self, name: str, kind: OptionType) -> Any:
        option = next((o for o in self.declared if o.name == name), None)
        if option is None:
            raise KeyError(f"no option {name!r} is declared")
        if option.type is not kind:
            raise TypeError(f"option {name!r} is {option.type.value}, not {kind.value}")
        return self.values.get(name, option.default)


class Applicability(enum.Enum):
    """Who may apply a fix."""

    SAFE = "safe"  # --fix: it cannot change what the consumer's code sees
    UNSAFE = "unsafe"  # --fix --unsafe-fixes: the code or the behaviour must change with it
    DISPLAY_ONLY = "display-only"  # shown as a suggestion; nothing applies it

    def applies(self, unsafe: bool) -> bool:
        """``--fix`` applies it (``unsafe``: with ``--unsafe-fixes``)."""
        return self is Applicability.SAFE or (unsafe and self is Applicability.UNSAFE)


class Fixable(enum.Enum):
    """Whether a rule's findings come with a fix: its documentation and ``rules`` say so."""

    NONE = "none"  # never
    SOMETIMES = "sometimes"  # when every value the fix rests on is known
    ALWAYS = "always"  # every violation carries one (the engine may still find no edit)


@dataclass(frozen=True, eq=False, repr=False)
class Fix(Record):
    """A mechanical repair: set one setting of the violation's node to a value.

    Safe when it cannot change what the consumer's code sees (a longer visibility
    timeout or retention); unsafe when the code or behaviour must change with it (raw
    delivery changes the message body); display-only when it is a suggestion to read,
    not an edit to make. A rule offers a fix only when every value it depends on is
    known; the engine turns it into text edits only where the source can be edited (not
    CDK output or a plan, not a setting a SAM construct cannot express, not a value that
    comes from a parameter or variable). ``title`` is the short imperative an editor or
    the command line shows for it; when empty, the engine writes ``Set <setting> to
    <value>`` in the unit's vocabulary.
    """

    field: str
    value: Any
    applicability: Applicability
    title: str = ""


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
    Check = Callable[[Graph, Options], Iterable[Violation]]


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
    fixable: Fixable = Fixable.NONE  # whether its violations carry a ``Fix``
    # Names the rule had before (configuration, suppressions and `explain` still accept
    # them, with a notice); baselines match by ID and need nothing.
    former: tuple[str, ...] = field(default=())

    def is_named(self, key: str) -> bool:
        """``key`` names the rule: its ID (any case), its name or a former name."""
        return key == self.name or key.upper() == self.id or key in self.former

    def option_defaults(self) -> dict[str, Any]:
        return {o.name: o.default for o in self.options}

    def options_of(self, values: Mapping[str, Any]) -> Options:
        """The typed view the check reads: ``values`` (checked configuration) over the defaults."""
        return Options(self.options, values)

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
