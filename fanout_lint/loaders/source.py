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

import yaml

from fanout_lint.loaders.located import MAX_DEPTH, Map, ParseError, Seq
from fanout_lint.model.nodes import Loc
from fanout_lint.regular_files import TEMPLATE_BYTES, describe_size

try:  # libyaml's C parser when present; the pure-Python one otherwise
    _Parser = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on how PyYAML was built
    _Parser = yaml.SafeLoader

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
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ParseError(
            f"not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})",
            _line_at(data, exc.start),
        ) from None
    return text


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


def _scalar(event, file: str) -> object:
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
    mark = event.start_mark
    return _tagged(tag, value, Loc(file, mark.line + 1, mark.column + 1))


def _tagged(tag: str, value, loc: Loc):
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
    tagged = Map(loc)
    tagged[key] = value
    tagged.key_locs[key] = loc
    return tagged


def parse_yaml(text: str, file: str):
    """Parse the first YAML document of ``text`` into Map/Seq/scalars with locations."""
    parser = _Parser(text)
    # The tree built here holds no reference cycles, yet the cyclic collector would scan
    # it again and again as it grows: a 20,000-resource template parsed twice as slowly
    # per resource as a 50-resource one with the collector on.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _build(parser, file)
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


def _build(parser, file: str):
    stack: list[list] = []  # [container, pending_key, pending_key_loc, tag, size]
    anchors: dict[str, tuple[object, int]] = {}
    expanded = 0
    root = None
    done = False
    while not done:
        event = parser.get_event()
        kind = type(event)
        if kind is yaml.ScalarEvent or kind is yaml.AliasEvent:
            if kind is yaml.AliasEvent:
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
            if kind is yaml.ScalarEvent:
                value, size = _scalar(event, file), 1
                if event.anchor:
                    anchors[event.anchor] = (value, 1)
            if not stack:
                root, done = value, True
                continue
            frame = stack[-1]
            frame[4] += size
            frame[7] = event.end_mark
            container = frame[0]
            # A Loc is built only where one is recorded (an item, a key): a mapping's value
            # is located by its key, and values are about half of all scalars.
            mark = event.start_mark
            if isinstance(container, Seq):
                container.append(value)
                container.item_locs.append(Loc(file, mark.line + 1, mark.column + 1))
            elif frame[1] is _NO_KEY:
                # a key's location spans it: a resource-level finding highlights the logical ID
                end = event.end_mark
                loc = Loc(file, mark.line + 1, mark.column + 1, end.line + 1, end.column + 1)
                frame[1], frame[2] = _hashable(value, loc), loc
            else:
                container[frame[1]] = value
                container.key_locs[frame[1]] = frame[2]
                # the marks exist already: keeping them costs one tuple, a span is made on demand
                container.value_marks[frame[1]] = (mark, event.end_mark)
                frame[1] = _NO_KEY
        elif kind is yaml.MappingStartEvent or kind is yaml.SequenceStartEvent:
            if len(stack) >= MAX_DEPTH:
                raise ParseError(
                    f"nesting deeper than {MAX_DEPTH} levels", event.start_mark.line + 1
                )
            mark = event.start_mark
            loc = Loc(file, mark.line + 1, mark.column + 1)
            container = Map(loc) if kind is yaml.MappingStartEvent else Seq(loc)
            tag = event.tag if event.tag and event.tag.startswith("!") else None
            # [container, pending key, its loc, tag, size, anchor, start mark, end of the
            # last entry, flow style]: a block collection's end event is marked at the next
            # token, lines below, so its span ends with its last entry instead.
            stack.append([container, _NO_KEY, None, tag, 1, event.anchor, mark, None, event.flow_style])
        elif kind is yaml.MappingEndEvent or kind is yaml.SequenceEndEvent:
            container, _, _, tag, size, anchor, start, last, flow = stack.pop()
            end = event.end_mark if flow or last is None else last
            if kind is yaml.MappingEndEvent:
                container.end = end
            value = _tagged(tag, container, container.loc) if tag else container
            if anchor:
                anchors[anchor] = (value, size)
            if not stack:
                root, done = value, True
                continue
            frame = stack[-1]
            frame[4] += size
            frame[7] = end
            parent = frame[0]
            loc = container.loc
            if isinstance(parent, Seq):
                parent.append(value)
                parent.item_locs.append(loc)
            elif frame[1] is _NO_KEY:
                frame[1], frame[2] = _hashable(value, loc), loc
            else:
                parent[frame[1]] = value
                parent.key_locs[frame[1]] = frame[2]
                parent.value_marks[frame[1]] = (start, end)
                frame[1] = _NO_KEY
        elif kind is yaml.StreamEndEvent:
            done = True
    return root


_NO_KEY = object()


def _hashable(key, loc: Loc):
    if isinstance(key, (dict, list)):
        # Complex keys have no meaning in CloudFormation; keep them as text.
        return json.dumps(key, default=str, sort_keys=True)
    return key


def parse_json(text: str, file: str):
    """Parse JSON strictly (``json``), with the location of every key and list item.

    The fast path (``json_source``) finds locations in the text at C speed and builds them
    lazily. Where it cannot prove them exact (duplicate keys, unusual escapes) libyaml
    parses the text again to learn where keys are: libyaml alone would accept YAML-isms
    such as trailing commas, hence ``json`` first. Where libyaml rejects valid JSON (rare
    escapes), keys are found by search.
    """
    from fanout_lint.loaders.json_source import UNLOCATABLE, locate, loads

    collecting = gc.isenabled()
    gc.disable()  # the tree holds no reference cycles (see parse_yaml)
    try:
        try:
            data = loads(text)
        except json.JSONDecodeError as exc:
            raise ParseError(f"invalid JSON: {exc.msg}", exc.lineno, exc.colno) from None
        except RecursionError:
            data = located = UNLOCATABLE  # too deep for json: libyaml below says where
        else:
            located = locate(data, text, file)
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
