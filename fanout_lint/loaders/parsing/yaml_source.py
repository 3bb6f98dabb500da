"""Safe YAML/JSON parsing into plain data that remembers where each key was written.

We build the data ourselves from libyaml's event stream instead of using a constructor:
no tag can construct an object, nesting depth is bounded (PyYAML's composer recurses in C
and crashes the process on deep input), and aliases are shared, never copied, with a
budget on how far they would expand (a "billion laughs" document fails fast).

Mappings become ``Map`` (a dict with ``loc`` and per-key ``key_locs``), sequences ``Seq``
(a list with ``loc`` and per-item ``item_locs``). CloudFormation short-form tags become
their long form: ``!GetAtt A.Arn`` is ``{"Fn::GetAtt": "A.Arn"}``.
"""

from __future__ import annotations

import bisect
import gc
import json
import re
from array import array
from sys import intern

from fanout_lint.files.regular_files import TEMPLATE_BYTES, describe_size
from fanout_lint.loaders.parsing.json_source import UNLOCATABLE, loads, locate
from fanout_lint.loaders.parsing.located import MAX_DEPTH, OFFSET, Map, ParseError, Seq, Text
from fanout_lint.loaders.parsing.numbers import long_number_error, too_long
from fanout_lint.model.nodes import Loc

MAX_ALIAS_EXPANSION = 1_000_000
MAX_BYTES = TEMPLATE_BYTES  # why this much: regular_files.py


def decode(data: bytes) -> str:
    """Bytes to text, with a one-line error for binary or non-UTF-8 content."""
    if len(data) > MAX_BYTES:
        raise ParseError(f"file is larger than {describe_size(MAX_BYTES)}")
    if b"\x00" in data[:8192] and not data.startswith((b"\xff\xfe", b"\xfe\xff")):
        offset = data.index(b"\x00")
        raise ParseError("binary content (NUL byte), not a text template", _line_at(data, offset))
    try:
        # utf-8, then the byte order mark dropped: what utf-8-sig does, without its codec
        # module, and with the offset of a bad byte counted from the file's start
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ParseError(
            f"not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})",
            _line_at(data, exc.start),
        ) from None
    return text[1:] if text.startswith("\ufeff") else text


def _line_at(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


# CloudFormation short-form tags and the long form they stand for.
_SHORT_TAGS = {
    "!Ref": "Ref",
    "!Condition": "Condition",
    "!GetAZs": "Fn::GetAZs",
}
_INT = re.compile(r"[-+]?(0|[1-9][0-9_]*)$")
_FLOAT = re.compile(r"[-+]?([0-9][0-9_]*)?\.[0-9_]*([eE][-+]?[0-9]+)?$|[-+]?[0-9][0-9_]*[eE][-+]?[0-9]+$")
_BOOLS = {
    "true": True, "True": True, "TRUE": True, "yes": True, "Yes": True, "YES": True,
    "on": True, "On": True, "ON": True,
    "false": False, "False": False, "FALSE": False, "no": False, "No": False, "NO": False,
    "off": False, "Off": False, "OFF": False,
}
_NULLS = {"", "~", "null", "Null", "NULL"}


def _plain_scalar(value: str):
    """YAML 1.1 implicit typing of a plain scalar, as PyYAML's SafeLoader resolves it."""
    if value in _NULLS:
        return None
    first = value[0]
    if first in "tTfFyYnNoO" and value in _BOOLS:
        return _BOOLS[value]
    if first in "-+0123456789.":
        if _INT.match(value):
            return int(value.replace("_", ""))
        if _FLOAT.match(value) and value not in (".", "-.", "+."):
            try:
                return float(value.replace("_", ""))
            except ValueError:
                return value
    return value


def _scalar(event, src: "Text") -> object:
    tag = event.tag
    value = event.value
    if tag is None or tag == "!":
        if event.implicit[0] and tag is None:
            return _plain_scalar(value)
        return value
    if tag.startswith("tag:yaml.org,2002:"):
        kind = tag[len("tag:yaml.org,2002:"):]
        if kind == "str":
            return value
        if kind in ("int", "float", "bool", "null"):
            return _plain_scalar(value)
        return value
    return _tagged(tag, value, src, event.start_mark.index, event.end_mark.index)


def _tagged(tag: str, value, src: "Text", start: int, end: int):
    if tag in _SHORT_TAGS:
        key = _SHORT_TAGS[tag]
    elif tag.startswith("!"):
        key = "Fn::" + tag[1:]
    else:
        return value
    if key == "Fn::GetAtt" and isinstance(value, str):
        # "!GetAtt A.Arn" is written as a string; the long form is a list.
        resource, _, attribute = value.partition(".")
        value = [resource, attribute]
    tagged = YamlMap()
    tagged._src = src
    tagged._offsets = array(OFFSET, (start, end, start, end, start, end))  # the tag and its value are one entry
    tagged[key] = value
    return tagged




class YamlMap(Map):
    """A ``Map`` that keeps the character offsets libyaml marked, and makes ``loc``,
    ``key_locs`` and spans from them when they are read (most never are).

    ``_offsets``: the mapping's start and end, then four per entry in the order of the
    keys: key start, key end, value start, value end. ``_index``: key -> its entry's first
    offset, made when an entry is first looked up (most mappings never are).
    """

    __slots__ = ("_src", "_offsets", "_index")

    __init__ = dict.__init__

    def __getattr__(self, name):
        # Only reached while the slot is unset: fill it once, then it is a plain read.
        if name == "loc":
            self.loc = self._src.loc(self._offsets[0])
            return self.loc
        if name == "key_locs":
            span, offsets = self._src.line_span, self._offsets
            self.key_locs = {key: span(offsets[at], offsets[at + 1]) for key, at in zip(self, range(2, len(offsets), 4))}
            return self.key_locs
        if name == "_index":
            self._index = dict(zip(self, range(2, len(self._offsets), 4)))
            return self._index
        raise AttributeError(name)

    def _entry(self, key) -> int:
        """Where ``key``'s entry starts in ``_offsets``; -1 when it is no key the parse
        located (the loaders add keys to a parsed mapping, never remove one)."""
        at = self._index.get(key, -1)
        return at if at + 4 <= len(self._offsets) else -1

    def loc_of(self, key) -> Loc:
        # a key is on one line (YAML's simple keys are; a complex one spans from its start)
        at = self._entry(key)
        return self.loc if at < 0 else self._src.line_span(self._offsets[at], self._offsets[at + 1])

    def span_of(self, key) -> Loc | None:
        at = self._entry(key)
        return None if at < 0 else self._src.span(self._offsets[at], self._offsets[at + 3])

    def value_span(self, key) -> Loc | None:
        at = self._entry(key)
        return None if at < 0 else self._src.span(self._offsets[at + 2], self._offsets[at + 3])

    def is_shared(self, key) -> bool:
        at = self._entry(key)
        return at >= 0 and self._src.is_shared(self._offsets[at + 2])

    def share(self, key=None) -> None:
        if key is None:
            self._src.share(self._offsets[0], self._offsets[1])
            return
        at = self._entry(key)
        if at >= 0:
            self._src.share(self._offsets[at + 2], self._offsets[at + 3])

    def body(self) -> Loc | None:
        # None inside an anchor: a setting inserted there would be every alias's
        if self._src.is_shared(self._offsets[0]):
            return None
        return self._src.span(self._offsets[0], self._offsets[1])


def _written_again(frame: list, key, start: int, end: int) -> None:
    """A key its mapping (``frame``'s) already holds: its entry, put in place at the end."""
    if frame[9] is None:
        frame[9] = {}
    frame[9][key] = (*frame[2], start, end)


def _rewrite(container: YamlMap, rewritten: dict) -> None:
    """Keys written twice: the last writing counts, as in PyYAML, and each keeps its place
    among the keys, as a dict keeps it. One pass over the keys, whatever their number."""
    offsets = container._offsets
    for at, key in zip(range(2, len(offsets), 4), container):
        entry = rewritten.get(key)
        if entry is not None:
            offsets[at:at + 4] = array(OFFSET, entry)


class YamlSeq(Seq):
    """A ``Seq`` that keeps each item's start offset and makes locations when read.

    ``_offsets``: the sequence's start, then each item's."""

    __slots__ = ("_src", "_offsets")

    __init__ = list.__init__

    def __getattr__(self, name):
        if name == "loc":
            self.loc = self._src.loc(self._offsets[0])
            return self.loc
        if name == "item_locs":
            loc = self._src.loc
            self.item_locs = [loc(offset) for offset in self._offsets[1:]]
            return self.item_locs
        raise AttributeError(name)

    def loc_of(self, index: int) -> Loc:
        # One item's location, without making those of all the others.
        return self._src.loc(self._offsets[index + 1]) if 0 <= index < len(self._offsets) - 1 else self.loc


def parse_yaml(text: str, file: str):
    """Parse the first YAML document of ``text`` into Map/Seq/scalars with locations."""
    # PyYAML only when there is YAML: a run on Terraform or JSON alone never loads it (about
    # 14 ms of start-up). libyaml's C parser when present; the pure-Python one otherwise.
    import yaml

    parser = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text)
    # The tree built here holds no reference cycles, yet the cyclic collector would scan
    # it again and again as it grows: a 20,000-resource template parsed twice as slowly
    # per resource as a 50-resource one with the collector on.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _build(parser, file, text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "invalid YAML"
        line = mark.line + 1 if mark else None
        column = mark.column + 1 if mark else None
        raise ParseError(f"invalid YAML: {problem}", line, column) from None
    except yaml.YAMLError as exc:
        raise ParseError(f"invalid YAML: {str(exc).splitlines()[0]}") from None
    finally:
        if collecting:
            gc.enable()
        parser.dispose()


def later_documents(text: str, file: str) -> list[tuple[int, object]]:
    """The documents after the first of a YAML stream, each with the line it starts on:
    empty for the usual one document. ``parse_yaml`` reads the first only; a stream whose
    first document is no template may still hold one further on, which must not pass as
    "not a template". A later document that does not parse ends the list (no loader
    reads past it either)."""
    if "\n---" not in text and "\n..." not in text:
        return []  # a later document starts with a marker at the start of a line
    import yaml

    parser = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text)
    found: list[tuple[int, object]] = []
    collecting = gc.isenabled()
    gc.disable()
    try:
        _build(parser, file, text)
        while True:
            event = parser.peek_event()
            if isinstance(event, yaml.StreamEndEvent):
                break
            if isinstance(event, (yaml.DocumentStartEvent, yaml.DocumentEndEvent)):
                parser.get_event()
                continue
            found.append((event.start_mark.line + 1, _build(parser, file, text)))
    except (yaml.YAMLError, ParseError):
        pass
    finally:
        if collecting:
            gc.enable()
        parser.dispose()
    return found


def _build(parser, file: str, text: str):
    """The document as YamlMap/YamlSeq/scalars, from libyaml's events.

    Each frame of the stack is [container, pending key or _NO_KEY, the key's (start, end)
    offsets, tag, size, anchor, start offset, end of the last entry, flow style, the
    entries of keys written twice (None until one is: see ``_rewrite``), the mappings
    its merge keys merge (None until one does: see ``_merge``)]. Only
    offsets are kept (ints libyaml computed anyway); a block collection's end event is
    marked at the next token, lines below, so its span ends with its last entry instead.
    Strings are interned: a template writes the same few dozen keys, types and names
    thousands of times.
    """
    from yaml import (
        AliasEvent,
        MappingEndEvent,
        MappingStartEvent,
        ScalarEvent,
        SequenceEndEvent,
        SequenceStartEvent,
        StreamEndEvent,
    )

    # Names bound here, not looked up as globals: this loop runs once per YAML event.
    get_event, scalar, hashable, offsets_of = parser.get_event, _scalar, _hashable, array
    src = Text(text, file)
    stack: list[list] = []
    anchors: dict[str, tuple[object, int]] = {}
    expanded = 0
    root = None
    done = False
    while not done:
        event = get_event()
        kind = type(event)
        if kind is ScalarEvent or kind is AliasEvent:
            if kind is AliasEvent:
                if event.anchor not in anchors:
                    raise ParseError(
                        f"invalid YAML: unknown alias *{event.anchor}",
                        event.start_mark.line + 1,
                        event.start_mark.column + 1,
                    )
                value, size = anchors[event.anchor]
                expanded += size
                if expanded > MAX_ALIAS_EXPANSION:
                    raise ParseError(
                        f"YAML aliases expand to more than {MAX_ALIAS_EXPANSION:,} nodes "
                        "(an alias bomb?)",
                        event.start_mark.line + 1,
                    )
            if kind is ScalarEvent:
                try:
                    value, size = scalar(event, src), 1
                except ValueError:  # int() of more digits than Python converts
                    mark = event.start_mark
                    message = f"invalid YAML: {too_long(len(event.value))}"
                    raise ParseError(message, mark.line + 1, mark.column + 1) from None
                if type(value) is str:  # most are keys and type names a template writes many times
                    value = intern(value)
                if event.anchor:
                    anchors[event.anchor] = (value, 1)
                    src.share(event.start_mark.index, event.end_mark.index)
            if not stack:
                root, done = value, True
                continue
            frame = stack[-1]
            frame[4] += size
            start, end = event.start_mark.index, event.end_mark.index
            frame[7] = end
            container = frame[0]
            if type(container) is YamlSeq:
                container.append(value)
                container._offsets.append(start)
            elif frame[1] is _NO_KEY:
                if value == "<<" and kind is ScalarEvent and event.tag is None and event.implicit[0]:
                    frame[1] = _MERGE  # YAML 1.1's merge key, as PyYAML resolves it: plain "<<"
                else:
                    frame[1], frame[2] = hashable(value), (start, end)
            elif frame[1] is _MERGE:
                _merge(frame, value, src, start, end, event.start_mark)
            else:
                key = frame[1]
                if key in container:
                    _written_again(frame, key, start, end)
                else:
                    container._offsets.extend((*frame[2], start, end))
                container[key] = value
                frame[1] = _NO_KEY
        elif kind is MappingStartEvent or kind is SequenceStartEvent:
            if len(stack) >= MAX_DEPTH:
                raise ParseError(
                    f"nesting deeper than {MAX_DEPTH} levels", event.start_mark.line + 1
                )
            start = event.start_mark.index
            if kind is MappingStartEvent:
                container = YamlMap()
                container._offsets = offsets_of(OFFSET, (start, start))  # its end comes with its end event
            else:
                container = YamlSeq()
                container._offsets = offsets_of(OFFSET, (start,))
            container._src = src
            tag = event.tag if event.tag and event.tag.startswith("!") else None
            stack.append([container, _NO_KEY, None, tag, 1, event.anchor, start, None, event.flow_style, None, None])
        elif kind is MappingEndEvent or kind is SequenceEndEvent:
            container, _, _, tag, size, anchor, start, last, flow, rewritten, merged = stack.pop()
            end = event.end_mark.index if flow or last is None else last
            if kind is MappingEndEvent:
                container._offsets[1] = end
                if rewritten:
                    _rewrite(container, rewritten)
                if merged:
                    _take_merged(container, merged)
            value = _tagged(tag, container, src, start, end) if tag else container
            if anchor:
                anchors[anchor] = (value, size)
                src.share(start, end)  # its aliases are the same value: no fix edits it
            if not stack:
                root, done = value, True
                continue
            frame = stack[-1]
            frame[4] += size
            frame[7] = end
            parent = frame[0]
            if type(parent) is YamlSeq:
                parent.append(value)
                parent._offsets.append(start)
            elif frame[1] is _NO_KEY:
                frame[1], frame[2] = hashable(value), (start, end)
            elif frame[1] is _MERGE:
                _merge(frame, value, src, start, end, event.start_mark)
            else:
                key = frame[1]
                if key in parent:
                    _written_again(frame, key, start, end)
                else:
                    parent._offsets.extend((*frame[2], start, end))
                parent[key] = value
                frame[1] = _NO_KEY
        elif kind is StreamEndEvent:
            done = True
    return root


_NO_KEY = object()
_MERGE = object()  # the pending key is a merge key (<<)


def _merge(frame: list, value, src: Text, start: int, end: int, mark) -> None:
    """A merge key's value (a mapping, or a sequence of mappings, usually aliases): kept on
    the frame until its mapping ends, its text marked as shared (a fix through it would
    change every mapping that merges it)."""
    if isinstance(value, YamlMap):
        sources = [value]
    elif isinstance(value, YamlSeq) and all(isinstance(item, YamlMap) for item in value):
        sources = list(reversed(value))  # the first mapping of the sequence wins
    else:
        raise ParseError("invalid YAML: a merge key (<<) takes a mapping or a sequence of mappings",
                         mark.line + 1, mark.column + 1)
    if frame[10] is None:
        frame[10] = []
    frame[10].extend(sources)
    src.share(start, end)
    frame[1] = _NO_KEY


def _take_merged(container: YamlMap, merged: list) -> None:
    """Merged keys, as PyYAML reads them: a key written in the mapping wins, then the
    mapping merged last; each merged entry keeps where its source writes it (inside an
    anchor or the merge key's value, so no fix edits it)."""
    entries: dict = {}
    for source in merged:
        offsets = source._offsets
        for key, at in zip(source, range(2, len(offsets), 4)):
            entries[key] = (source[key], offsets[at:at + 4])
    for key, (value, offsets) in entries.items():
        if key not in container:
            container[key] = value
            container._offsets.extend(offsets)


def _hashable(key):
    if isinstance(key, (dict, list)):
        # Complex keys have no meaning in CloudFormation; keep them as text.
        return json.dumps(key, default=str, sort_keys=True)
    return key


def parse_json(text: str, file: str, wanted=None, read=None):
    """Parse JSON strictly (``json``), with the location of every key and list item.

    ``wanted``: a test of the parsed values; when it fails the file is read no further
    and None is returned. Locating every key costs several times what ``json`` does, and
    many JSON files that hold a template's words are no template (API models, schemas).
    ``read``: a test of the parsed values giving, for a template, which of its resources'
    bodies something reads (``cfn_template.is_read``): only those are located.

    The fast path (``json_source``) finds locations in the text at C speed and builds them
    lazily. Where it cannot prove them exact (duplicate keys, unusual escapes) libyaml
    parses the text again to learn where keys are: libyaml alone would accept YAML-isms
    such as trailing commas, hence ``json`` first. Where libyaml rejects valid JSON (rare
    escapes), keys are found by search.
    """
    collecting = gc.isenabled()
    gc.disable()  # the tree holds no reference cycles (see parse_yaml)
    try:
        try:
            data = loads(text)
        except json.JSONDecodeError as exc:
            raise ParseError(f"invalid JSON: {exc.msg}", exc.lineno, exc.colno) from None
        except ValueError:  # json's own for an integer of more digits than Python converts
            raise long_number_error(text, "JSON") from None
        except RecursionError:
            data = located = UNLOCATABLE  # too deep for json: libyaml below says where
        else:
            if wanted is not None and not wanted(data):
                return None
            located = locate(data, text, file, read(data) if read is not None else None)
    finally:
        if collecting:
            gc.enable()
    if located is not UNLOCATABLE:
        return located
    try:
        parsed = parse_yaml(text, file)
    except ParseError as yaml_error:
        if yaml_error.message.startswith(("nesting", "YAML aliases")):
            raise
        if data is UNLOCATABLE:
            raise ParseError(f"nesting deeper than {MAX_DEPTH} levels") from None
        return _locate_json(data, text, file)
    if data is UNLOCATABLE:
        raise ParseError(f"nesting deeper than {MAX_DEPTH} levels")
    return parsed


def _locate_json(data, text: str, file: str):
    """Located data for JSON libyaml rejected (rare escapes): keys found by text search."""
    line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def loc_at(offset: int) -> Loc:
        index = bisect.bisect_right(line_starts, offset) - 1
        return Loc(file, index + 1, offset - line_starts[index] + 1)

    cursor = [0]

    def walk(value, depth: int):
        if depth > MAX_DEPTH:
            raise ParseError(f"nesting deeper than {MAX_DEPTH} levels")
        if isinstance(value, dict):
            out = Map(loc_at(cursor[0]))
            for key, item in value.items():
                found = text.find(json.dumps(key), cursor[0])
                if found >= 0:
                    cursor[0] = found
                out[key] = walk(item, depth + 1)
                out.key_locs[key] = loc_at(found if found >= 0 else 0)
            return out
        if isinstance(value, list):
            out = Seq(loc_at(cursor[0]))
            for item in value:
                out.item_locs.append(loc_at(cursor[0]))
                out.append(walk(item, depth + 1))
            return out
        return value

    return walk(data, 0)
