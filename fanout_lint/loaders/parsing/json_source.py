"""JSON parsed by ``json`` (C) with key and item locations found at C speed, made lazily.

The values come from ``json.loads``. Locations come from the text: the keys of the parsed
tree, in document order, are found one after another with ``str.find`` from a moving
cursor (one C call per key); list items are stepped over with the C scanner of ``json``.
Line and column are computed only when a location is read, from a line table built once.

Why a key search from a cursor is exact: in valid JSON a quoted key followed by ``:`` can
only be a key (a string value cannot contain an unescaped quote, and a string followed by
a colon is a key), and no key lies between the cursor and the next key of the tree. So the
n searches match n key occurrences in order, and if the text holds exactly n keys (no
duplicate that ``json`` merged) each search matched its own key. Whenever that cannot be
shown cheaply (a key written with unusual escapes, duplicate keys, keys made only of JSON
punctuation) ``locate`` says so and the caller uses the exact libyaml path.
"""

from __future__ import annotations

import json
import re
from array import array

from fanout_lint.loaders.parsing.located import MAX_DEPTH, OFFSET, Map, Seq, Text
from fanout_lint.model.nodes import Loc

# NaN and Infinity are not JSON; kept as the text they are, as the YAML path reads them.
_DECODER = json.JSONDecoder(parse_constant=str)
# Each pattern is one character, or one run of blanks after a quote: a run ends where the
# next quote could start, so searches over the whole text are linear.
_NOT_SPACE = re.compile(r"[^ \t\n\r]")
_SPACE_COLON = re.compile(r'"[ \t\n\r]+:')
_ESCAPED = re.compile(r'["\\\x00-\x1f]')  # what json.dumps(ensure_ascii=False) escapes
_KEY_END = re.compile(r'(?<!\\)"[ \t\n\r]*:')
# The opening quote of a string that begins with a colon (blanks allowed before and after
# the quote): one structural character, then runs of blanks on either side of one quote;
# a match cannot start inside another, so the scan is linear.
_OPENS_WITH_COLON = re.compile(r'[\[{,:][ \t\n\r]*"[ \t\n\r]*:')
# Keys whose closing quote could look like an opening one to the count above.
_ENDS_LIKE_OPENING = re.compile(r'[\[{,:\s]\Z')
# A key made only of characters that may stand between two strings in JSON (punctuation,
# digits, literals), a comma or colon among them, could match across a string boundary;
# such keys take the exact path. One class repeated up to the end: linear (a pattern with
# the comma or colon between two such classes tries every split of a long key).
_PUNCTUATION_ONLY = re.compile(r"[\s,:\[\]{}0-9+\-.eEtrufalsn]*\Z")


def between_strings(key: str) -> bool:
    return ("," in key or ":" in key) and _PUNCTUATION_ONLY.match(key) is not None


class _Unlocatable(Exception):
    """The fast path cannot prove the locations: use the exact one."""


class _Text(Text):
    """The source text and its line table, shared by every container of one file."""

    __slots__ = ()

    def key_loc(self, offset: int) -> Loc:
        """The span of the quoted key that starts at ``offset``, as libyaml marks a key
        (a JSON string holds no line break)."""
        return self.line_span(offset, _step_over(self.text, offset))

    def start(self, offset: int) -> int:
        """The first non-blank offset at or after ``offset``: where a value begins."""
        found = _NOT_SPACE.search(self.text, offset)
        return found.start() if found else offset


class JsonMap(Map):
    """A ``Map`` whose ``loc`` and ``key_locs`` are computed from offsets when first read.

    ``_key_at``: each key's offset, in the order of the keys. ``_index``: key -> its place
    there, made when a key is first looked up (most mappings never are)."""

    __slots__ = ("_src", "_at", "_key_at", "_index")

    __init__ = dict.__init__  # a copy of the parsed dict, at C speed (not Map's signature)

    def __getattr__(self, name):
        # Only reached while the slot is unset: fill it once, then it is a plain read.
        if name == "loc":
            self.loc = self._src.loc(self._src.start(self._at))
            return self.loc
        if name == "key_locs":
            key_loc = self._src.key_loc
            self.key_locs = {key: key_loc(offset) for key, offset in zip(self, self._key_at)}
            return self.key_locs
        if name == "_index":
            self._index = dict(zip(self, range(len(self._key_at))))
            return self._index
        raise AttributeError(name)

    def _key_offset(self, key) -> int | None:
        """Where ``key`` is written; None for no key the parse located (the loaders add keys
        to a parsed mapping, never remove one)."""
        index = self._index.get(key)
        return None if index is None or index >= len(self._key_at) else self._key_at[index]

    def loc_of(self, key) -> Loc:
        # One key's location, without making those of all the others (key_locs is made
        # from the same offsets; nothing writes locations into a parsed mapping).
        offset = self._key_offset(key)
        return self.loc if offset is None else self._src.key_loc(offset)

    # Spans are rare (a finding's attribute, a fix): found from the key's offset with the
    # C scanner of ``json``, never stored.
    def _value_offsets(self, key) -> tuple[int, int] | None:
        offset = self._key_offset(key)
        if offset is None:
            return None
        text = self._src.text
        colon = self._src.start(_step_over(text, offset))
        start = self._src.start(colon + 1)
        return start, _step_over(text, start)

    def value_span(self, key) -> Loc | None:
        found = self._value_offsets(key)
        return None if found is None else self._src.span(*found)

    def span_of(self, key) -> Loc | None:
        found = self._value_offsets(key)
        return None if found is None else self._src.span(self._key_offset(key), found[1])

    def is_shared(self, key) -> bool:
        found = self._value_offsets(key)
        return found is not None and self._src.is_shared(found[0])

    def share(self, key=None) -> None:
        if key is None:
            start = self._src.start(self._at)
            self._src.share(start, _step_over(self._src.text, start))
            return
        found = self._value_offsets(key)
        if found is not None:
            self._src.share(*found)

    def body(self) -> Loc | None:
        start = self._src.start(self._at)
        if self._src.is_shared(start):  # read by a variable too: a setting inserted there would be its
            return None
        return self._src.span(start, _step_over(self._src.text, start))


class JsonSeq(Seq):
    """A ``Seq`` whose ``loc`` and ``item_locs`` are computed from offsets when first read."""

    __slots__ = ("_src", "_at", "_item_at")

    __init__ = list.__init__

    def __getattr__(self, name):
        if name == "loc":
            self.loc = self._src.loc(self._src.start(self._at))
            return self.loc
        if name == "item_locs":
            self.item_locs = [self._src.loc(offset) for offset in self._item_at]
            return self.item_locs
        if name == "_item_at":
            self._item_at = _item_offsets(self._src, self._at, len(self))
            return self._item_at
        raise AttributeError(name)

    def loc_of(self, index: int) -> Loc:
        # One item's location, without making those of all the others (a policy's first
        # statement); the first item starts after the bracket, found without stepping over any.
        if not 0 <= index < len(self):
            return self.loc
        src = self._src
        if index == 0:
            return src.loc(src.start(src.start(self._at) + 1))
        return src.loc(self._item_at[index])


UNLOCATABLE = object()  # what ``locate`` returns when the exact path must run


def locate(data, text: str, file: str, read=None):
    """Located containers for ``data`` (``loads(text)``), or UNLOCATABLE.

    ``read``: for a template, which bodies of its ``Resources`` something reads; the others
    are stepped over (their keys counted, not located) and stay plain values."""
    try:
        located, keys = _Locator(text, file, read).run(data)
    except _Unlocatable:
        return UNLOCATABLE
    if keys and not _one_occurrence_per_key(text, keys):
        return UNLOCATABLE
    return located


def loads(text: str):
    return _DECODER.decode(text)


def _one_occurrence_per_key(text: str, keys: int) -> bool:
    """Whether the text writes exactly ``keys`` keys, i.e. ``json`` merged no duplicate.

    A key ends with a quote and a colon; so does the *opening* quote of a string that
    begins with a colon (``":sqs:"`` in a ``Fn::Join``, all over CDK output), which the
    first count takes for a key too. Those are counted apart, only when the first count
    is over: an opening quote follows a bracket, brace, comma or colon (blanks between),
    where a key's closing quote follows the key's last character, and no located key
    ends with one of those or a blank (``pattern`` refuses them), so no key is taken
    for an opening quote. Both counts only ever overcount keys, so equality is exact.
    """
    # A key ending in a backslash (written ``"a\\":``) defeats the counts below, which
    # take its last ``\"`` for an escaped quote. A string value ending in one (``"C:\\"``,
    # common in UserData scripts) is never followed by a colon, so without blanks before
    # colons only a backslash, quote and colon is refused.
    if _SPACE_COLON.search(text):
        if '\\\\"' in text:
            return False
        written = sum(1 for _ in _KEY_END.finditer(text))
    else:
        if '\\\\":' in text:
            return False
        written = text.count('":') - text.count('\\":')
    if written > keys:
        written -= sum(1 for _ in _OPENS_WITH_COLON.finditer(text))
    return written == keys


class _Locator:
    def __init__(self, text: str, file: str, read=None):
        self.src = _Text(text, file)
        self.text = text
        self.cursor = 0
        self.keys = 0
        self.patterns: dict[str, str] = {}
        self.read = read

    def run(self, data):
        kind = type(data)
        if kind is dict:
            resources = data.get("Resources") if self.read is not None else None
            return self.map(data, 0, 0, resources if type(resources) is dict else None), self.keys
        if kind is list:
            return self.seq(data, self.src.start(0), 0), self.keys
        return data, 0

    def pattern(self, key: str) -> str:
        quoted = self.patterns.get(key)
        if quoted is None:
            if between_strings(key) or _ENDS_LIKE_OPENING.search(key):
                raise _Unlocatable(key)
            if _ESCAPED.search(key):
                quoted = json.dumps(key, ensure_ascii=False)
            else:  # as json.dumps writes it, without its cost (most keys are new to a file)
                quoted = f'"{key}"'
            self.patterns[key] = quoted
        return quoted

    def map(self, data: dict, at: int | None, depth: int, resources: dict | None = None) -> JsonMap:
        """``data`` located; ``resources``: the template's ``Resources``, among its values,
        whose unread bodies are stepped over."""
        if depth >= MAX_DEPTH:
            raise _Unlocatable("nesting")
        out = JsonMap(data)
        out._src, out._at = self.src, at
        key_at = out._key_at = array(OFFSET)
        add = key_at.append
        text, patterns, find, cursor = self.text, self.patterns, self.text.find, self.cursor
        for key, value in data.items():
            quoted = patterns.get(key) or self.pattern(key)
            found = find(quoted, cursor)
            end = found + len(quoted)
            if found < 0 or not text.startswith(":", end):  # not found, or written `"key" :`, or not the key
                found, end = self.find_key(quoted, found)
            add(found)
            if at is None:  # an item of a list: the mapping opens just before its first key
                at = out._at = text.rfind("{", 0, found)
            cursor = end + 1
            kind = type(value)
            if kind is dict and resources is not None and data is resources and not self.read(value):
                self.count_keys(value, depth + 1)
                cursor = _step_over(text, self.src.start(cursor))
            elif kind is dict or kind is list:
                self.cursor = cursor
                if kind is dict:
                    out[key] = self.map(value, cursor, depth + 1, resources if value is resources else None)
                else:
                    out[key] = self.seq(value, cursor, depth + 1)
                cursor = self.cursor
        self.cursor = cursor
        self.keys += len(data)
        return out

    def count_keys(self, value, depth: int) -> None:
        """Count the keys of a value stepped over, as ``map`` counts located ones, and refuse
        the same keys and nesting: ``_one_occurrence_per_key`` counts them in the text too."""
        pending = [(value, depth)]
        patterns = self.patterns
        while pending:
            value, depth = pending.pop()
            if depth >= MAX_DEPTH:
                raise _Unlocatable("nesting")
            if type(value) is dict:
                for key in value:
                    patterns.get(key) or self.pattern(key)
                self.keys += len(value)
                value = value.values()
            for item in value:
                if type(item) is dict or type(item) is list:
                    pending.append((item, depth + 1))

    def find_key(self, quoted: str, found: int) -> tuple[int, int]:
        """The next ``quoted`` from ``found`` that a colon follows, and the colon's offset."""
        text = self.text
        while found >= 0:
            after = _NOT_SPACE.search(text, found + len(quoted))
            if after and text[after.start()] == ":":
                return found, after.start()
            found = text.find(quoted, found + 1)
        raise _Unlocatable(quoted)

    def seq(self, data: list, at: int, depth: int) -> JsonSeq:
        if depth >= MAX_DEPTH:
            raise _Unlocatable("nesting")
        out = JsonSeq(data)
        out._src, out._at = self.src, at
        if list in map(type, data) or {} in data:
            self.seq_items(out, depth)
            return out
        # Items are located when asked (most never are); a mapping item knows its start
        # from its first key.
        for index, value in enumerate(data):
            if type(value) is dict:
                out[index] = self.map(value, None, depth + 1)
        return out

    def seq_items(self, out: JsonSeq, depth: int) -> None:
        """Locate every item now: a nested list or an empty mapping has no key to go by."""
        item_at = out._item_at = []
        src = self.src
        position = src.start(out._at) + 1  # after "["
        for index, value in enumerate(out):
            start = src.start(position)
            item_at.append(start)
            kind = type(value)
            if kind is dict:
                out[index] = self.map(value, start, depth + 1)
            elif kind is list:
                out[index] = self.seq(value, start, depth + 1)
            position = src.start(_step_over(self.text, start)) + 1  # past the comma


def _step_over(text: str, start: int) -> int:
    """The offset just after the JSON value that begins at ``start`` (C speed)."""
    return _DECODER.scan_once(text, start)[1]


def _item_offsets(src: _Text, at: int, count: int) -> list[int]:
    offsets = []
    position = src.start(at) + 1  # after "["
    for _ in range(count):
        start = src.start(position)
        offsets.append(start)
        position = src.start(_step_over(src.text, start)) + 1
    return offsets
