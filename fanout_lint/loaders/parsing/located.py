"""Parsed data that remembers where it was written: ``Map``, ``Seq`` and their spans.

Both parsers (libyaml's event stream in ``loaders/parsing/yaml_source.py``, ``json`` in ``json_source.py``)
produce these containers, so loaders read locations the same way whatever the syntax:

- ``loc`` is where the container starts; ``key_locs``/``item_locs`` where each key or
  item starts (a ``Loc`` without an end);
- ``span_of(key)`` is the whole entry, from the key to the end of its value
  (``VisibilityTimeout: 30``), and ``value_span(key)`` the value alone: what a finding
  points at and what a fix replaces;
- ``body()`` is the container from its first entry (or opening brace) to its end: where
  a fix inserts a new entry.

Spans are made on demand from what the parser kept (libyaml marks, JSON offsets): most
are never read, and a ``Loc`` per value would cost every parse.
"""

from __future__ import annotations

import bisect
import itertools
from array import array

from fanout_lint.model.nodes import Loc

MAX_DEPTH = 256


class Text:
    """A file's text and its line table, shared by every container parsed from it, so that
    a container keeps character offsets and makes a ``Loc`` only when one is read."""

    __slots__ = ("text", "file", "_line_starts", "_shared", "_disjoint")

    def __init__(self, text: str, file: str):
        self.text = text
        self.file = file
        self._line_starts: list[int] | None = None
        # (start, end) of text that stands for more than one place: a YAML anchor's node
        # (its aliases are the same value), a merge key's value (every mapping that merges
        # it reads it), a Serverless variable and what it reads. A fix is never made in one.
        self._shared: list[tuple[int, int]] | None = None
        self._disjoint: tuple[list[int], list[int]] | None = None  # the same, merged, for bisect

    def share(self, start: int, end: int) -> None:
        if self._shared is None:
            self._shared = []
        self._shared.append((start, max(end, start + 1)))
        self._disjoint = None

    def is_shared(self, offset: int) -> bool:
        if self._shared is None:
            return False
        if self._disjoint is None:
            starts: list[int] = []
            ends: list[int] = []
            for start, end in sorted(self._shared):
                if ends and start <= ends[-1]:
                    ends[-1] = max(ends[-1], end)
                else:
                    starts.append(start)
                    ends.append(end)
            self._disjoint = (starts, ends)
        starts, ends = self._disjoint
        at = bisect.bisect_right(starts, offset) - 1
        return at >= 0 and offset < ends[at]

    def loc(self, offset: int) -> Loc:
        if self._line_starts is None:
            # splitlines breaks where libyaml does for any text it or json accepts (the
            # other breaks splitlines knows, \x0b \x0c \x1c-\x1e, are refused by both):
            # \n, \r\n, \r, \x85, \u2028, \u2029.
            lines = self.text.splitlines(True)
            starts = [0, *itertools.accumulate(map(len, lines))]
            if lines and lines[-1] == lines[-1].rstrip("\r\n\x85\u2028\u2029"):
                starts.pop()  # the last line has no break: its end starts no line
            self._line_starts = starts
        line = bisect.bisect_right(self._line_starts, offset) - 1
        return Loc(self.file, line + 1, offset - self._line_starts[line] + 1)

    def span(self, start: int, end: int) -> Loc:
        first, last = self.loc(start), self.loc(end)
        return Loc(self.file, first.line, first.column, last.line, last.column)

    def line_span(self, start: int, end: int) -> Loc:
        """The span of text that cannot hold a line break (a key): one lookup, not two."""
        starts = self._line_starts
        if starts is None:
            self.loc(start)  # builds the line table
            starts = self._line_starts
        line = bisect.bisect_right(starts, start) - 1
        column = start - starts[line] + 1  # as loc(start) counts, without making that Loc too
        return Loc(self.file, line + 1, column, line + 1, column + end - start)


# Parsers keep character offsets in arrays of this type, four bytes each (a template is at
# most 64 MiB, regular_files.TEMPLATE_BYTES): a dict of ints per mapping cost about three
# times as much, and a parsed tree is most of what a run holds in memory (its size is what
# a large unit pays in cache misses, docs/benchmarks.md, "Growth").
OFFSET = "I" if array("I").itemsize >= 4 else "L"


class ParseError(Exception):
    def __init__(self, message: str, line: int | None = None, column: int | None = None):
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


def mark_loc(file: str, start, end) -> Loc:
    """A span from two libyaml marks (0-based line and column; end exclusive)."""
    return Loc(file, start.line + 1, start.column + 1, end.line + 1, end.column + 1)


class Map(dict):
    """A mapping with the location of each key and the marks of each value.

    ``value_marks[key]`` is ``(start, end)`` of the value as libyaml marked it;
    ``end`` is the mark after the container. Parsers that locate otherwise (JSON)
    override the span methods.
    """

    __slots__ = ("loc", "key_locs", "value_marks", "end")

    def __init__(self, loc: Loc):
        super().__init__()
        self.loc = loc
        self.key_locs: dict = {}
        self.value_marks: dict = {}
        self.end = None

    def loc_of(self, key) -> Loc:
        return self.key_locs.get(key, self.loc)

    def value_span(self, key) -> Loc | None:
        marks = self.value_marks.get(key)
        return mark_loc(self.loc.file, *marks) if marks else None

    def span_of(self, key) -> Loc | None:
        """From the key to the end of its value."""
        marks = self.value_marks.get(key)
        start = self.key_locs.get(key)
        if marks is None or start is None:
            return None
        end = marks[1]
        return Loc(start.file, start.line, start.column, end.line + 1, end.column + 1)

    def is_shared(self, key) -> bool:
        """Whether the value of ``key`` is written where other values read it too (a YAML
        anchor, alias or merge key, a Serverless variable): no fix may edit it."""
        return False

    def share(self, key=None) -> None:
        """Marks the value of ``key`` (None: the whole mapping) as read from elsewhere too."""

    def body(self) -> Loc | None:
        """From the first key (block style) or the opening brace (flow style) to the end."""
        if self.end is None:
            return None
        return Loc(self.loc.file, self.loc.line, self.loc.column, self.end.line + 1, self.end.column + 1)


class Seq(list):
    __slots__ = ("loc", "item_locs")

    def __init__(self, loc: Loc):
        super().__init__()
        self.loc = loc
        self.item_locs: list[Loc] = []

    def loc_of(self, index: int) -> Loc:
        return self.item_locs[index] if 0 <= index < len(self.item_locs) else self.loc


def loc_of(container, key, fallback: Loc) -> Loc:
    """The location of ``container[key]`` when the parser recorded it."""
    if isinstance(container, (Map, Seq)):
        try:
            return container.loc_of(key)
        except (TypeError, IndexError):
            return container.loc
    return fallback


def span_of(container, key) -> Loc | None:
    """The span of the entry ``container[key]`` (key and value), when recorded."""
    if isinstance(container, Map):
        try:
            return container.span_of(key)
        except TypeError:
            return None
    return None


def value_span(container, key) -> Loc | None:
    if isinstance(container, Map):
        try:
            return container.value_span(key)
        except TypeError:
            return None
    return None


class MapSite:
    """Where ``container[key]`` is written (a site, for YAML and JSON)."""

    __slots__ = ("container", "key")

    def __init__(self, container: Map, key):
        self.container = container
        self.key = key

    def entry(self) -> Loc:
        return self.container.span_of(self.key) or self.container.loc_of(self.key)

    def value(self) -> Loc | None:
        """The value, as a fix replaces it: None where editing it would change other
        values too (an anchor, an alias, a merge key)."""
        if self.container.is_shared(self.key):
            return None
        return self.container.value_span(self.key)


class DerivedMap(Map):
    """A mapping made of entries of other mappings, each located where it was written.

    The SAM expansion builds the resources the translator would generate out of the
    properties of a function and its events (the mapping's ``EventSourceArn`` is the
    event's ``Queue``): their settings stay located where the user wrote them, and a new
    setting goes where the user would write it (``home``, the event's properties).
    """

    __slots__ = ("origins", "home")

    def __init__(self, loc: Loc, home: Map | None = None):
        super().__init__(loc)
        self.origins: dict = {}
        self.home = home

    def take(self, key, source, source_key=None) -> None:
        """``self[key] = source[source_key]``, keeping where it was written."""
        source_key = key if source_key is None else source_key
        self[key] = source[source_key]
        if isinstance(source, Map):
            self.origins[key] = (source, source_key)

    def put(self, key, value, source, source_key) -> None:
        """``self[key] = value``, located where ``source[source_key]`` is written: a value the
        construct derives from what the user wrote (the Serverless Framework's
        ``functionResponseType: X`` is the mapping's ``FunctionResponseTypes: [X]``)."""
        self[key] = value
        if isinstance(source, Map):
            self.origins[key] = (source, source_key)

    def loc_of(self, key) -> Loc:
        origin = self.origins.get(key)
        return origin[0].loc_of(origin[1]) if origin else self.loc

    def span_of(self, key) -> Loc | None:
        origin = self.origins.get(key)
        return origin[0].span_of(origin[1]) if origin else None

    def value_span(self, key) -> Loc | None:
        origin = self.origins.get(key)
        return origin[0].value_span(origin[1]) if origin else None

    def is_shared(self, key) -> bool:
        origin = self.origins.get(key)
        return origin[0].is_shared(origin[1]) if origin else False

    def body(self) -> Loc | None:
        return self.home.body() if self.home is not None else None


def share_entry(container, key, seen: set) -> None:
    """Marks ``container[key]`` as read from more than one place (a variable that reads it,
    or the variable's own text): its text, and every mapping inside it, so that no fix
    edits it. ``seen``: the containers already marked in this pass, walked once."""
    if isinstance(container, Map):
        container.share(key)
    stack = [container[key]]
    while stack:
        item = stack.pop()
        if not isinstance(item, (dict, list)) or id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, Map):
            item.share()
        stack.extend(item.values() if isinstance(item, dict) else item)
