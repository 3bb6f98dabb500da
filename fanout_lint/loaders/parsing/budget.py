"""How much work one unit may cost, and the counter that holds a unit to it.

fanout-lint gates pull requests, so the author of a template also chooses how much work
linting it takes. Evaluation is therefore bounded by construction rather than by hope:
every evaluator of a unit (CloudFormation intrinsics, Terraform expressions and modules,
plan references, Serverless variables and merges) is handed the unit's ``Budget`` and
charges it as it works. Work that reads the same text or value again (a variable nested
in another, a heredoc in an interpolation of a heredoc, a value two references share) is
either done once and shared, or charged by its size each time it is done.

Two kinds of limit, with two outcomes:

- a *size* limit (one string, one number, one list) makes that one value unknown
  (``TooLarge``, which the evaluator turns into ``Unknown``): rules stay silent about it
  and the rest of the unit is linted as usual;
- a *work* limit (steps, characters built, module instances, nesting of references)
  stops the unit (``BudgetExceeded``): it becomes one load error, exit code 2, and the
  other units are still linted.

Every value is far above what real templates need (the test fixtures and the benchmark's
generated repositories use a small fraction of each) and low enough that a hostile unit
stops within seconds and a few hundred MB.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Iterable

# Evaluation steps per unit: one expression node, intrinsic function or reference
# evaluated, or one item of a value walked (copied, compared, encoded). A real unit of
# 10,000 resources takes a few hundred thousand; a step costs about a microsecond, so a
# unit that reaches this stops within a few seconds.
MAX_STEPS = 4_000_000

# Characters of strings built by evaluation per unit (joins, interpolations, encoded and
# decoded JSON). Real units build a few times their own size; this bounds both the time
# spent copying text and the memory memoised values hold (at most 4 bytes a character).
MAX_CHARACTERS = 64 * 1024 * 1024

# One evaluated string. CloudFormation itself takes at most 1 MB of template (and 4 KB
# parameter values), IAM policies are at most 20 KB: a longer built string cannot be a
# value a rule needs, so it is unknown.
MAX_STRING = 1024 * 1024

# References and unknown parts of one evaluated string (``"${local.a}${local.a}"``, each
# part a reference made unknown, doubles them at every level). A part is a record that
# costs far more than a character to copy, hash and compare, so it is charged a step and
# bounded on its own; real strings hold a handful, a policy document built of references
# a few hundred.
MAX_STRING_PARTS = 10_000

# Magnitude of an evaluated number, in bits. Every number the rules read (seconds, counts,
# sizes) fits in a few dozen; squaring chains (``local.a * local.a``) would otherwise make
# integers of millions of digits, slow to multiply, print and compare.
MAX_NUMBER_BITS = 64

# Items of one evaluated list, set or map (``concat`` of a list with itself, repeated,
# doubles it each time). The largest real collections are for_each maps of hundreds.
MAX_ITEMS = 100_000

# Local module instances per unit, at every depth: a module that calls another K times,
# which calls another K times, ... makes K^D instances, each parsed and evaluated. Real
# configurations have tens, large ones a few hundred.
MAX_MODULE_INSTANCES = 1_000

# Nested stack instances per application, at every depth (a template nested twice is two
# instances, each read and evaluated with its parent's parameters). Real applications
# nest a few stacks, large ones tens; a stack nesting another K times at each of D levels
# makes K^D.
MAX_NESTED_STACKS = 1_000

# Times parsing an HCL file may read its text again. Heredoc bodies arrive from the
# grammar unparsed, and each interpolation in one is parsed from its text: an
# interpolation of a heredoc is read twice, a heredoc in it three times, ... Real files
# read a small part of themselves once more; heredocs nested a hundred deep would read
# the file a hundred times over.
MAX_REREADS = 16

# References being resolved inside one another (a local that reads a local that reads a
# module output ...). Real chains are a few deep, rarely more than twenty; the limit keeps
# the evaluator's recursion well inside Python's stack.
MAX_REFERENCE_DEPTH = 64


class BudgetExceeded(Exception):
    """The unit needs more work than its budget allows: one load error for the unit."""

    def __init__(self, message: str, file: str | None = None, line: int | None = None):
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line


class TooLarge(Exception):
    """A value past a size limit: the evaluator makes it unknown."""


@dataclass(eq=False, repr=False)
class Budget:
    """What one unit has spent so far. Created per unit and passed to its evaluators;
    the limits are fields so that tests can use small ones."""

    max_steps: int = MAX_STEPS
    max_characters: int = MAX_CHARACTERS
    max_string: int = MAX_STRING
    max_string_parts: int = MAX_STRING_PARTS
    max_number_bits: int = MAX_NUMBER_BITS
    max_items: int = MAX_ITEMS
    max_modules: int = MAX_MODULE_INSTANCES
    max_depth: int = MAX_REFERENCE_DEPTH
    max_nested_stacks: int = MAX_NESTED_STACKS
    steps: int = 0
    characters: int = 0
    modules: int = 0
    nested_stacks: int = 0
    depth: int = 0
    # Where evaluation is (file, line, what), set by loaders at resource granularity, so
    # that the error can point somewhere useful.
    file: str | None = None
    line: int | None = None
    what: str = ""

    # -- work: past these the unit stops ------------------------------------------
    def step(self, count: int = 1) -> None:
        self.steps += count
        if self.steps > self.max_steps:
            self._exceeded(f"the evaluation budget ({self.max_steps:,} steps)")

    def built(self, characters: int) -> None:
        """Charge characters of text made (or read through) by evaluation."""
        self.characters += characters
        if self.characters > self.max_characters:
            self._exceeded(f"the string budget ({self.max_characters:,} characters built)")

    def module(self, file: str | None, line: int | None) -> None:
        """Charge one module instance, before it is read."""
        self.modules += 1
        if self.modules > self.max_modules:
            self.file, self.line, self.what = file, line, ""
            self._exceeded(f"the module budget ({self.max_modules:,} module instances)")

    def nested_stack(self, file: str | None, line: int | None) -> None:
        """Charge one nested stack instance of an application, before it is read."""
        self.nested_stacks += 1
        if self.nested_stacks > self.max_nested_stacks:
            self.file, self.line, self.what = file, line, ""
            self._exceeded(f"the nested stack budget ({self.max_nested_stacks:,} nested stack instances)")

    def enter(self) -> None:
        """One reference deeper; pair with ``leave`` in a ``finally``."""
        if self.depth >= self.max_depth:
            self._exceeded(f"the nesting budget (references {self.max_depth} deep)")
        self.depth += 1

    def leave(self) -> None:
        self.depth -= 1

    def at(self, file: str, line: int | None, what: str = "") -> None:
        self.file, self.line, self.what = file, line, what

    def _exceeded(self, budget: str) -> None:
        where = f" while evaluating {self.what}" if self.what else ""
        raise BudgetExceeded(f"unit exceeds {budget}{where}", self.file, self.line)

    # -- sizes: past these a value is unknown ---------------------------------------
    def join(self, separator: str, pieces: Iterable[str]) -> str:
        """``separator.join(pieces)``, or TooLarge before a too-long string is made."""
        kept: list[str] = []
        total = 0
        for piece in pieces:
            total += len(piece) + (len(separator) if kept else 0)
            if total > self.max_string:
                raise TooLarge(f"string longer than {self.max_string:,} characters")
            kept.append(piece)
        self.built(total)
        return separator.join(kept)

    def text(self, length: int) -> None:
        """A string (or string-like value) of ``length`` is about to be made."""
        if length > self.max_string:
            raise TooLarge(f"string longer than {self.max_string:,} characters")
        self.built(length)

    def parts(self, count: int) -> None:
        """A string of ``count`` references or unknown parts is about to be made."""
        if count > self.max_string_parts:
            raise TooLarge(f"string of more than {self.max_string_parts:,} references or unknown parts")
        self.step(count)

    def number(self, value):
        """``value`` when within the number limit (floats: finite), else TooLarge."""
        if isinstance(value, int):
            if value.bit_length() > self.max_number_bits:
                raise TooLarge(f"number larger than 2**{self.max_number_bits}")
        elif isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
            raise TooLarge("number is not finite")
        return value

    def items(self, count: int) -> None:
        """A collection of ``count`` items is about to be made (and its items copied)."""
        if count > self.max_items:
            raise TooLarge(f"collection of more than {self.max_items:,} items")
        self.step(count)
