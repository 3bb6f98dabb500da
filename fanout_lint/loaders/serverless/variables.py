"""Serverless Framework variables (``${source:address, fallback}``) resolved within the file.

As the Framework reads them (its resolver: a ``${...}`` is a variable only when it holds
a ``:`` or a ``(...)``; ``${AWS::Region}`` and CloudFormation's own ``${Name}`` are left
for ``Fn::Sub``; commas outside parentheses and nested ``${}`` separate fallbacks; a
quoted fallback is text, an unquoted one a JSON literal such as ``10`` or ``true``):

- ``${self:a.b.c}`` is the value at that path of the file, itself resolved (a variable
  whose whole string is the variable keeps the value's type: ``timeout: ${self:custom.t}``
  is a number; inside a longer string it is text); a path that is absent or null takes
  the next fallback;
- ``${aws:region}`` and ``${aws:accountId}`` are the stack's region and account, which
  CloudFormation names ``AWS::Region`` and ``AWS::AccountId``: a string holding them
  becomes the equivalent ``Fn::Sub``, so ARNs written with them still name the queue;
- every other source (``opt``, ``env``, ``ssm``, ``cf``, ``s3``, ``file``, ``sls``,
  ``param``, ...) is given when the Framework runs, not by the file: the value is
  unknown, and so is a fallback after it, since which one applies is not known.

An unknown value becomes ``{"Ref": <text>}`` to a parameter without default, which the
CloudFormation evaluator already reads as unknown (and as an external reference), so no
rule fires on it. The resolution works in place on the parsed file, each string once;
self-references, and variables inside variables, are followed at most
``Budget.max_depth`` deep, and a cycle is unknown. Each variable's text is charged to the
budget as it is read (a variable nested in another is read again with it), so that text
read over and over stops the file with one error at the line of the string.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from fanout_lint.loaders.parsing.budget import Budget, BudgetExceeded, TooLarge
from fanout_lint.loaders.parsing.located import Map, Seq, loc_of
from fanout_lint.model.nodes import Loc
from fanout_lint.model.record import Record, ValueRecord

if TYPE_CHECKING:
    from typing import Any

# The stack's own values, as CloudFormation names them.
PSEUDO = {"region": "AWS::Region", "accountId": "AWS::AccountId"}
# Placeholders the Framework leaves alone (CloudFormation pseudo parameters, CloudWatch
# dynamic labels, IoT policy variables).
_IGNORED_SOURCES = ("AWS", "PROP", "iot")
_SOURCE = re.compile(r"([^:()]+)(?:\((.*)\))?(?::(.*))?\Z", re.DOTALL)
MAX_PLACEHOLDERS = 1000  # in one string: past any real configuration


@dataclass(eq=False, repr=False)
class Pseudo(ValueRecord):
    """A pseudo parameter a variable resolves to (``AWS::Region``), known only at deploy time."""

    name: str  # AWS::Region


class _Unknown:
    """A part the file does not give."""


UNKNOWN = _Unknown()


@dataclass(eq=False, repr=False)
class Resolution(Record):
    """What resolving a service's variables found, beside the values themselves."""

    # the parameters (without default) that unknown values refer to
    parameters: dict[str, dict] = field(default_factory=dict)
    # id of each intrinsic made in place of a string -> (the intrinsic, the string's parts:
    # text, or None where the file does not give it), for what the Framework derives
    # from the text (a queue's name in a logical ID)
    made: dict[int, tuple[dict, tuple]] = field(default_factory=dict)
    # (container, key) of every value a variable stands for or reads: what is written
    # there is read from more than one place, so no fix edits it
    shared: list[tuple[Any, Any]] = field(default_factory=list)

    def parts_of(self, raw: Any) -> tuple | None:
        """The parts of a string a variable made into ``raw``, or None for anything else."""
        found = self.made.get(id(raw)) if isinstance(raw, dict) else None
        return found[1] if found is not None and found[0] is raw else None


def resolve_variables(data: Any, budget: Budget) -> Resolution:
    resolver = _Resolver(data, budget)
    resolver.walk()
    return resolver.resolution


class _Resolver:
    def __init__(self, root: Any, budget: Budget):
        self.root = root
        self.budget = budget
        self.resolution = Resolution()
        self.busy: set[tuple[int, Any]] = set()
        self.sub_lists: set[int] = set()  # the argument lists of Fn::Sub: their first item is a template

    def walk(self) -> None:
        """Every string of the file with a variable, resolved where it stands."""
        seen: set[int] = set()
        stack = [self.root]
        while stack:
            container = stack.pop()
            if id(container) in seen:
                continue
            seen.add(id(container))
            self.budget.step()
            keys = container.keys() if isinstance(container, dict) else range(len(container))
            if isinstance(container, dict) and isinstance(container.get("Fn::Sub"), list):
                self.sub_lists.add(id(container["Fn::Sub"]))
            for key in list(keys):
                value = container[key]
                if isinstance(value, str) and "${" in value:
                    # what it resolves to is made here (nothing to resolve in it) or is
                    # a part of the file the walk reaches where it is written
                    self.resolve_at(container, key)
                elif isinstance(value, (dict, list)):
                    stack.append(value)

    def resolve_at(self, container, key) -> Any:
        """``container[key]`` resolved, written back so it is resolved once."""
        value = container[key]
        if not (isinstance(value, str) and "${" in value):
            return value
        mark = (id(container), key)
        if mark in self.busy:
            return self.unknown(value, (None,))  # a variable that needs itself: the Framework refuses it
        self.busy.add(mark)
        self.budget.enter()
        try:
            in_sub = key == "Fn::Sub" or (key == 0 and id(container) in self.sub_lists)
            resolved = self.string(value, in_sub)
        except BudgetExceeded as exc:
            if exc.line is None and isinstance(container, (Map, Seq)):  # the innermost string says where
                exc.line = loc_of(container, key, Loc(exc.file or "", 0)).line or None
            raise
        finally:
            self.budget.leave()
            self.busy.discard(mark)
        if isinstance(resolved, (dict, list)) and _reaches(resolved, container, self.budget):
            resolved = self.unknown(value, (None,))  # placing it would make the file contain itself
        container[key] = resolved
        self.resolution.shared.append((container, key))
        return resolved

    # -- strings ---------------------------------------------------------------------
    def string(self, text: str, in_sub: bool) -> Any:
        self.budget.step()
        pieces = _placeholders(text)
        if pieces is None:
            return self.unknown(text, (None,))
        if len(pieces) == 1 and not isinstance(pieces[0], str):
            return self.as_value(self.evaluate(pieces[0][1]), text, in_sub)  # the whole string: typed
        parts: list = []
        for piece in pieces:
            if isinstance(piece, str):
                parts.append(piece)
                continue
            value = self.evaluate(piece[1])
            if isinstance(value, Pseudo) or value is UNKNOWN:
                parts.append(value)
            else:
                rendered = _as_text(value)
                parts.append(UNKNOWN if rendered is None else rendered)
        return self.joined(parts, text, in_sub)

    def as_value(self, value: Any, text: str, in_sub: bool) -> Any:
        if value is UNKNOWN:
            return self.unknown(text, (None,))
        if isinstance(value, Pseudo):
            return self.joined([value], text, in_sub)
        return value

    def joined(self, parts: list, text: str, in_sub: bool) -> Any:
        if any(part is UNKNOWN for part in parts):
            shown = tuple(part if isinstance(part, str) else None for part in parts)
            return self.unknown(text, shown)
        try:
            self.budget.text(sum(len(p) if isinstance(p, str) else 16 for p in parts))
        except TooLarge:
            return self.unknown(text, (None,))
        if all(isinstance(part, str) for part in parts):
            return "".join(parts)
        template = "".join(
            "${" + part.name + "}" if isinstance(part, Pseudo) else part if in_sub else part.replace("${", "${!")
            for part in parts
        )
        if in_sub:
            return template
        return self.record({"Fn::Sub": template}, tuple(part if isinstance(part, str) else None for part in parts))

    def unknown(self, text: str, parts: tuple) -> dict:
        self.resolution.parameters.setdefault(text, {})
        return self.record({"Ref": text}, parts)

    def record(self, intrinsic: dict, parts: tuple) -> dict:
        self.resolution.made[id(intrinsic)] = (intrinsic, parts)
        return intrinsic

    # -- one variable ------------------------------------------------------------------
    def evaluate(self, content: str) -> Any:
        """The value of a placeholder's content: a plain value, a ``Pseudo``, or UNKNOWN."""
        self.budget.built(len(content))
        if "${" in content:  # a variable inside a variable: its text first
            self.budget.enter()
            try:
                inner = self.string(content, in_sub=False)
            finally:
                self.budget.leave()
            if not isinstance(inner, str):
                return UNKNOWN
            content = inner
        for fallback in _split_outside(content):
            fallback = fallback.strip()
            if len(fallback) >= 2 and fallback[0] in "'\"" and fallback[-1] in "'\"":
                return fallback[1:-1]
            match = _SOURCE.match(fallback)
            if match is None or (":" not in fallback and "(" not in fallback):
                return _json_literal(fallback)
            source, _, address = match.groups()
            if source == "self":
                found = self.lookup(address or "")
                if found is None:
                    continue  # absent or null: the next fallback
                return found
            if source == "aws" and address in PSEUDO:
                return Pseudo(PSEUDO[address])
            return UNKNOWN  # given when the Framework runs, or read from elsewhere
        return UNKNOWN

    def lookup(self, address: str) -> Any:
        """The value at a dotted path of the file, or None when it is absent or null."""
        if not address:
            return UNKNOWN  # the whole file
        node: Any = self.root
        for step in address.split("."):
            self.budget.step()
            if isinstance(node, dict):
                if step not in node:
                    return None
                child = self.resolve_at(node, step)
            elif isinstance(node, list) and step.isdigit() and int(step) < len(node):
                child = self.resolve_at(node, int(step))
            else:
                return None
            if isinstance(child, dict) and _is_unknown_ref(child, self.resolution):
                return UNKNOWN
            parent, node = node, child
        self.resolution.shared.append((parent, step))
        return node


def _is_unknown_ref(value: dict, resolution: Resolution) -> bool:
    return len(value) == 1 and isinstance(value.get("Ref"), str) and value["Ref"] in resolution.parameters


_BRACES = re.compile(r"\$\{|\}")  # fixed strings: one linear scan


def _placeholders(text: str) -> list | None:
    """The text in pieces: plain text, and ``("var", content)`` for each variable, as the
    Framework finds them (nested ``${}`` counted, so the outermost one is the variable)."""
    pieces: list = []
    depth = 0
    start = -1
    plain = 0
    for match in _BRACES.finditer(text):
        if match.group() == "${":
            if depth == 0:
                start = match.start()
            depth += 1
            continue
        if depth == 0:
            continue
        depth -= 1
        if depth:
            continue
        content = text[start + 2:match.start()]
        if _is_variable(content):
            if start > plain:
                pieces.append(text[plain:start])
            pieces.append(("var", content))
            plain = match.end()
            if len(pieces) > MAX_PLACEHOLDERS:
                return None
    if plain < len(text):
        pieces.append(text[plain:])
    return pieces


def _is_variable(content: str) -> bool:
    if ":" not in content and not ("(" in content and ")" in content):
        return False  # ${Name} of Fn::Sub
    first, alone = _first_outside(content)
    source = first.strip().split(":", 1)[0].split("(", 1)[0]
    if alone and source in _IGNORED_SOURCES:
        return False  # ${AWS::Region} and the like
    return not source.startswith("!")  # ${!Literal} of Fn::Sub


# What nests and what separates, found in one scan in C (fixed strings: linear); the
# text between them is not looked at one character at a time.
_COMMA_OR_NESTING = re.compile(r"\$\{|[}(),]")


def _commas(text: str):
    """The positions of the commas that stand outside parentheses and ``${}``."""
    parens = braces = 0
    for match in _COMMA_OR_NESTING.finditer(text):
        mark = match.group()
        if mark == "${":
            braces += 1
        elif mark == "}":
            if braces:
                braces -= 1
        elif mark == "(":
            parens += 1
        elif mark == ")":
            parens -= 1
        elif not parens and not braces:
            yield match.start()


def _split_outside(text: str) -> list[str]:
    """``text`` split at the commas that stand outside parentheses and ``${}``."""
    parts: list[str] = []
    last = 0
    for index in _commas(text):
        parts.append(text[last:index])
        last = index + 1
    parts.append(text[last:])
    return parts


def _first_outside(text: str) -> tuple[str, bool]:
    """The first part of ``_split_outside(text)``, and whether it is the only one, read
    no further than it ends."""
    for index in _commas(text):
        return text[:index], False
    return text, True


def _json_literal(text: str) -> Any:
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return UNKNOWN  # the Framework refuses it
    return value if not isinstance(value, (dict, list)) else UNKNOWN


def _as_text(value: Any) -> str | None:
    """A value inside a longer string, as JavaScript writes it; None for a mapping or
    list, which the Framework refuses there."""
    if value is None or isinstance(value, (dict, list)):
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _reaches(value: Any, target: Any, budget: Budget) -> bool:
    """Whether ``target`` is ``value`` or inside it (a YAML alias can make that so)."""
    seen: set[int] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if item is target:
            return True
        if id(item) in seen:
            continue
        seen.add(id(item))
        budget.step()
        if isinstance(item, dict):
            stack.extend(v for v in item.values() if isinstance(v, (dict, list)))
        elif isinstance(item, list):
            stack.extend(v for v in item if isinstance(v, (dict, list)))
    return False
