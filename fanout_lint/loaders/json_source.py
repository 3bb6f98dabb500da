"""JSON parsed by ``json`` (C), with key and item locations read from the text when asked.

The values come from ``json.loads``; each mapping and list is wrapped as a ``JsonMap`` or
``JsonSeq`` that knows the container holding it. Nothing is located at parse time: most
locations are never read (a template's logical IDs are, and the few settings a finding or
fix points at). When a container's locations are first read, its entries are read from
the text from where it starts: each key with ``json``'s string scanner (C), each value
stepped over with ``json``'s scanner (C), so the offsets are exact for any JSON ``json``
accepts (keys written with escapes, duplicate keys: the last one, which ``json`` keeps,
as libyaml reads them). Where a container starts is learnt from the one that holds it
(the root starts at the first character that is not blank). A value of more than
``SCAN_LIMIT`` values is walked the same way instead of stepped over: the scanner makes a
copy of what it steps over, and a template's ``Resources`` is most of the file. Line and
column are computed only for the locations read, from a line table built once.
"""

from __future__ import annotations

import json
import re
from json.decoder import scanstring

from fanout_lint.loaders.located import MAX_DEPTH, Map, Seq, Text
from fanout_lint.model.nodes import Loc

# NaN and Infinity are not JSON; kept as the text they are, as the YAML path reads them.
_DECODER = json.JSONDecoder(parse_constant=str)
_NOT_SPACE = re.compile(r"[^ \t\n\r]")  # one character: linear
SCAN_LIMIT = 256  # values under a container stepped over by the scanner, not walked


class _Unlocatable(Exception):
    """The fast path cannot locate the text (nesting too deep): use the exact one."""


class _Text(Text):
    """The source text and its line table, shared by every container of one file."""

    __slots__ = ()

    def key_loc(self, offset: int) -> Loc:
        """The span of the quoted key that starts at ``offset``, as libyaml marks a key
        (a JSON string holds no line break)."""
        return self.line_span(offset, scanstring(self.text, offset + 1)[1])

    def start(self, offset: int) -> int:
        """The first non-blank offset at or after ``offset``: where a value begins."""
        found = _NOT_SPACE.search(self.text, offset)
        return found.start() if found else offset


class JsonMap(Map):
    """A ``Map`` whose locations are read from the text when first asked (see above).

    ``_at``: the offset of its ``{``; ``_key_at``: each key's offset; ``_stop``: the offset
    just after its ``}``; ``_up``: the container holding it; ``_size``: the values under it.
    """

    __slots__ = ("_src", "_up", "_size", "_at", "_key_at", "_stop")

    __init__ = dict.__init__  # a copy of the parsed dict, at C speed (not Map's signature)

    def __getattr__(self, name):
        # Only reached while the slot is unset: fill it once, then it is a plain read.
        if name in ("_key_at", "_stop"):
            at = self._at
            if not _is_set(self, name):  # reading _at may have walked this mapping
                self._key_at, self._stop = _map_entries(self, at)
            return getattr(self, name)
        if name == "_at":
            _place(self)
            return self._at
        if name == "loc":
            self.loc = self._src.loc(self._at)
            return self.loc
        if name == "key_locs":
            key_loc = self._src.key_loc
            self.key_locs = {key: key_loc(offset) for key, offset in self._key_at.items()}
            return self.key_locs
        raise AttributeError(name)

    def place(self) -> None:
        """Learn where each value starts (each container value then knows its ``_at``)."""
        self._key_at  # noqa: B018 (read for its effect)

    def loc_of(self, key) -> Loc:
        # One key's location, without making those of all the others.
        offset = self._key_at.get(key)
        return self.loc if offset is None else self._src.key_loc(offset)

    # Spans are rare (a finding's attribute, a fix): never stored.
    def _value_offsets(self, key) -> tuple[int, int] | None:
        offset = self._key_at.get(key)
        if offset is None:
            return None
        src = self._src
        start = src.start(src.start(scanstring(src.text, offset + 1)[1]) + 1)  # past the colon
        value = dict.get(self, key)
        if type(value) is JsonMap or type(value) is JsonSeq:
            return start, value._stop
        return start, _step_over(src.text, start)

    def value_span(self, key) -> Loc | None:
        found = self._value_offsets(key)
        return None if found is None else self._src.span(*found)

    def span_of(self, key) -> Loc | None:
        found = self._value_offsets(key)
        return None if found is None else self._src.span(self._key_at[key], found[1])

    def body(self) -> Loc | None:
        return self._src.span(self._at, self._stop)


class JsonSeq(Seq):
    """A ``Seq`` whose locations are read from the text when first asked (see ``JsonMap``)."""

    __slots__ = ("_src", "_up", "_size", "_at", "_item_at", "_stop")

    __init__ = list.__init__

    def __getattr__(self, name):
        if name in ("_item_at", "_stop"):
            at = self._at
            if not _is_set(self, name):
                self._item_at, self._stop = _seq_items(self, at)
            return getattr(self, name)
        if name == "_at":
            _place(self)
            return self._at
        if name == "loc":
            self.loc = self._src.loc(self._at)
            return self.loc
        if name == "item_locs":
            self.item_locs = [self._src.loc(offset) for offset in self._item_at]
            return self.item_locs
        raise AttributeError(name)

    def place(self) -> None:
        self._item_at  # noqa: B018 (read for its effect)

    def loc_of(self, index: int) -> Loc:
        # One item's location, without making those of all the others (a policy's first
        # statement): the first item starts after the bracket, found without stepping over any.
        if not 0 <= index < len(self):
            return self.loc
        if index == 0:
            return self._src.loc(self._src.start(self._at + 1))
        return self._src.loc(self._item_at[index])



def _place(container) -> None:
    """Learn where ``container`` starts: read the entries of the containers holding it, from
    the outermost one whose start is known down (a loop, not a recursion: a chain may be as
    deep as the nesting limit)."""
    unplaced = []
    holder = container._up
    while True:
        unplaced.append(holder)
        if _is_set(holder, "_at"):
            break
        holder = holder._up
    for holder in reversed(unplaced):
        holder.place()


def _is_set(container, name: str) -> bool:
    """Whether a slot holds a value (without falling back to ``__getattr__``)."""
    try:
        object.__getattribute__(container, name)
    except AttributeError:
        return False
    return True


def _map_entries(container: JsonMap, at: int) -> tuple[dict, int]:
    """Each key's offset, and the offset after the ``}``, for the mapping at ``at``."""
    src = container._src
    text, start = src.text, src.start
    key_at: dict = {}
    position = start(at + 1)
    if text[position] == "}":
        return key_at, position + 1
    while True:
        key, end = scanstring(text, position + 1)
        key_at[key] = position  # a key written twice: the last, whose value json kept
        position = start(_value_end(dict.get(container, key), text, start(start(end) + 1)))
        if text[position] != ",":
            return key_at, position + 1
        position = start(position + 1)


def _seq_items(container: JsonSeq, at: int) -> tuple[list, int]:
    """Each item's offset, and the offset after the ``]``, for the list at ``at``."""
    src = container._src
    text, start = src.text, src.start
    offsets: list = []
    position = start(at + 1)
    for item in container:
        offsets.append(position)
        position = start(_value_end(item, text, position))
        if text[position] == ",":
            position = start(position + 1)
    return offsets, position + 1


def _value_end(value, text: str, start: int) -> int:
    """The offset after the value written at ``start``; ``value`` is what json made of it
    (for a key written twice, of its last writing: then another kind, or the same kind
    located again at the last writing)."""
    kind = type(value)
    if kind is JsonMap and text[start] == "{":
        value._at = start
        if value._size > SCAN_LIMIT:
            value._key_at, value._stop = _map_entries(value, start)
            return value._stop
    elif kind is JsonSeq and text[start] == "[":
        value._at = start
        if value._size > SCAN_LIMIT:
            value._item_at, value._stop = _seq_items(value, start)
            return value._stop
    return _step_over(text, start)


UNLOCATABLE = object()  # what ``locate`` returns when the exact path must run


def locate(data, text: str, file: str):
    """Containers for ``data`` (``loads(text)``) that locate themselves, or UNLOCATABLE."""
    kind = type(data)
    if kind is not dict and kind is not list:
        return data
    src = _Text(text, file)
    try:
        root = _wrap(data, src, None, 0)
    except _Unlocatable:
        return UNLOCATABLE
    root._at = src.start(0)
    return root


def loads(text: str):
    return _DECODER.decode(text)


def _wrap(value, src: _Text, up, depth: int):
    """``value`` (a dict or list) as a JsonMap or JsonSeq, every container under it too."""
    if depth >= MAX_DEPTH:
        raise _Unlocatable("nesting")
    if type(value) is dict:
        out = JsonMap(value)
        entries = value.items()
    else:
        out = JsonSeq(value)
        entries = enumerate(value)
    out._src, out._up = src, up
    size = len(value)
    for key, item in entries:
        kind = type(item)
        if kind is dict or kind is list:
            child = out[key] = _wrap(item, src, out, depth + 1)
            size += child._size
    out._size = size
    return out


def _step_over(text: str, start: int) -> int:
    """The offset just after the JSON value that begins at ``start`` (C speed)."""
    return _DECODER.scan_once(text, start)[1]
