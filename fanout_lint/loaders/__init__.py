"""One loader per format, each producing the same Graph. ``load_candidate`` picks one."""

from __future__ import annotations

import gc
import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fanout_lint.files.regular_files import read_bounded
from fanout_lint.loaders.candidate import Candidate
from fanout_lint.loaders.cloudformation.template import is_read, is_template
from fanout_lint.loaders.links.link_sections import cut
from fanout_lint.loaders.parsing.escapes import may_hide_words
from fanout_lint.loaders.parsing.numbers import long_number_error
from fanout_lint.loaders.parsing.parse_cache import ParseCache
from fanout_lint.loaders.parsing.yaml_source import (
    MAX_BYTES,
    ParseError,
    decode,
    later_documents,
    parse_json,
    parse_yaml,
)
from fanout_lint.model.format import Format
from fanout_lint.model.graph import Graph
from fanout_lint.results.records import LoadError

if TYPE_CHECKING:
    from typing import Any

# Words one of which every template (or plan, or Serverless Framework service) contains;
# other files are not parsed.
_MARKERS = ("Resources", "AWSTemplateFormatVersion", "planned_values", "service")
# In JSON one of them is a key: quoted, then a colon (JSON's blanks between). Each pattern
# is a literal, then one run of blanks that cannot hold the literal's quote: linear.
_QUOTED_MARKERS = tuple((f'"{marker}"', re.compile(f'"{marker}"[ \t\n\r]*:')) for marker in _MARKERS)
_COLON_AFTER_BLANKS = re.compile(r"[ \t\n\r]*:")
_LOOKS = 16  # occurrences of a word looked at one by one; past them, one search in C
# What a file JSON's extension names, or that starts with "{", and that is not JSON may
# still be YAML (CloudFormation reads both, whatever the name): a marker as a key of
# YAML's own (a whole scalar, unquoted or single-quoted, or followed by a comment or a
# line break before its colon; an unquoted one's colon is followed by a blank or a flow
# indicator, else it is part of the scalar), or an alias where a key may start (the alias
# of an anchored marker may be the key; anchor names are letters, digits, "-" and "_").
# In valid JSON none of these is outside a string. Linear: a literal, then runs of
# classes that exclude what follows them; what precedes a match is looked at after it.
_MARKER_KEYS = tuple(  # one pattern a marker: a literal prefix is searched for fast
    re.compile(marker + "(?:['\"][ \t\n\r]*[:#]|[ \t\n\r]*(?:#|:(?![^\\s,\\[\\]{}])))") for marker in _MARKERS
)
_ALIAS_KEY = re.compile(r"\*[0-9A-Za-z_-]+[ \t\n\r]*:")
_BEFORE_KEY = frozenset("{,? \t\r\n'\"")  # what a whole scalar starts after (blanks: a tag's, an anchor's)
_BEFORE_ALIAS = frozenset("{,?\n")  # where a key starts, blanks aside
_LOOK_BACK = 64  # characters; further, the answer is "maybe"


def _may_be_yaml_key(text: str) -> bool:
    """Whether ``text`` may be YAML (not JSON) that writes a marker as a key: see
    ``_MARKER_KEYS``. Past ``_LOOKS`` candidates, or blanks too long to look back over,
    "maybe"."""
    for marker_key in _MARKER_KEYS:
        for looks, match in enumerate(marker_key.finditer(text)):
            start = match.start()
            if looks == _LOOKS or start == 0 or text[start - 1] in _BEFORE_KEY:
                return True
    for looks, match in enumerate(_ALIAS_KEY.finditer(text)):
        at = match.start() - 1
        stop = max(at - _LOOK_BACK, -1)
        while at > stop and text[at] in " \t\r":
            at -= 1
        if looks == _LOOKS or at <= stop or text[at] in _BEFORE_ALIAS:
            return True
    return False


def _worth_parsing(text: str, path: str) -> tuple[str, bool] | None:
    """The file's syntax, and whether its text shows it may be read (a marker, and in
    JSON a marker as a key: a file that then does not parse is an error), or None when it
    cannot be a template, plan or service. A "no" is never wrong: when the text may spell
    a marker only through an escape (see ``escapes.py``), or a file named JSON may be
    YAML that writes one as a key, the answer is "maybe" (False), and the parsed top level
    decides; such a file that does not parse is passed over, as before."""
    hidden = None
    if not any(marker in text for marker in _MARKERS):
        hidden = may_hide_words(text)
        if not hidden:
            return None  # not a template: pre-commit hands us every YAML and JSON file
    syntax = _syntax(text, path)
    if syntax != "json":
        return syntax, not hidden
    if _may_be_read(text, syntax):
        return syntax, True
    if hidden is None:
        hidden = may_hide_words(text)
    if hidden or _may_be_yaml_key(text):
        return syntax, False
    return None


def _may_be_read(text: str, syntax: str) -> bool:
    """Whether a file that holds a marker may be a template, plan or service. A JSON one
    writes a marker as a key; the JSON files a repository holds beside its templates
    (package manifests, API models, test snapshots, tens of megabytes of them in a large
    repository) mostly name the words in values, and parsing them only to find that out
    cost more than linting the templates beside them."""
    if syntax != "json":
        return True
    for quoted, as_key in _QUOTED_MARKERS:
        # str.find is about twice as fast as the pattern's search on real files; a file
        # that writes a word millions of times is searched in C instead of looped over
        found, looks = text.find(quoted), 0
        while found >= 0:
            if looks == _LOOKS:
                if as_key.search(text, found):
                    return True
                break
            if _COLON_AFTER_BLANKS.match(text, found + len(quoted)):
                return True
            found, looks = text.find(quoted, found + 1), looks + 1
    return False


def load_candidate(candidate: Candidate, cache: ParseCache | None = None,
                   var_files: tuple[str, ...] = ()) -> tuple[list[Graph], list[LoadError]]:
    """``cache``: parsed files of this run and of earlier ones (``parse_cache.py``), or
    None to parse every file; ``var_files``: tfvars a Terraform unit reads after its own
    (``--var-file``)."""
    if candidate.format is Format.TERRAFORM:
        from fanout_lint.loaders.terraform.loader import load_terraform_dir  # HCL parser only when needed

        # The collector is paused while the directory is read and evaluated: its parsed
        # files are large and hold no cycles, and each full collection walked them all
        # again (at 10,000 resources evaluating cost 20 times per resource what it did at
        # 1,000). The few cycles a module tree makes are collected after the unit.
        collecting = gc.isenabled()
        gc.disable()
        try:
            return load_terraform_dir(candidate.path, cache, candidate.root, var_files)
        finally:
            if collecting:
                gc.enable()
    return _load_file(candidate.path)


@dataclass(eq=False, repr=False)
class Parsed:
    """A parsed file: its (located) data, its syntax ("yaml" or "json") and its text."""

    data: Any
    syntax: str
    text: str


def parse_file(path: str, located: bool = True) -> Parsed | LoadError | None:
    """The file parsed, a one-line error, or None when it cannot be a template.

    ``located`` False: values only, for reading what links a template to others (JSON
    through ``json`` alone, which costs a fraction of finding every key's location)."""
    try:
        data = read_bounded(path, MAX_BYTES, follow=False)  # kind and size are checked before reading
    except OSError as exc:
        return LoadError(path, None, f"cannot read: {exc.strerror or exc}")
    try:
        text = decode(data)
        worth = _worth_parsing(text, path)
        if worth is None:
            return None
        syntax, sure = worth
        try:
            parsed = _parse(text, path, syntax, located)
        except TemplateFurtherOn:
            raise  # a parse found it: a template, whatever the text showed
        except ParseError:
            if not sure:  # only a parse could tell: a file that does not parse is no template
                return None
            raise
        if parsed is not None and parsed.syntax == "yaml" and not _readable(parsed.data):
            _no_template_further_on(text, path)
        return parsed
    except ParseError as exc:
        return LoadError(path, exc.line, exc.message, exc.column)


class TemplateFurtherOn(ParseError):
    """A later YAML document of the file is a template (``_no_template_further_on``)."""


def _no_template_further_on(text: str, path: str) -> None:
    """A YAML file whose first document is no template may hold one in a later document
    (``--- {}`` then a template): passed over as "not a template", it would never be
    linted. No deploy tool reads a template from a stream of several documents, so it
    is an error at the document that is one."""
    for index, (line, data) in enumerate(later_documents(text, path), start=2):
        if _readable(data):
            raise TemplateFurtherOn(f"YAML document {index} of this file is a template, but not its first: "
                             "a template must be its file's only document", line)


def _parse(text: str, path: str, syntax: str, located: bool) -> Parsed | None:
    if syntax != "json":
        return Parsed(parse_yaml(text, path), syntax, text)
    try:
        data = parse_json(text, path, _readable, _bodies_read) if located else _plain_json(text, path)
    except ParseError:
        data = _as_yaml(text, path)
        if data is None:
            raise  # neither: the JSON error
        return Parsed(data, "yaml", text)
    return None if located and data is None else Parsed(data, syntax, text)


def _as_yaml(text: str, path: str):
    """``text`` parsed as YAML when that is something a loader reads, else None: JSON
    that does not parse may be YAML, which CloudFormation reads whatever the file's name
    (a flow mapping, ``{Resources: {...}}``, is YAML, not JSON)."""
    try:
        data = parse_yaml(text, path)
    except ParseError:
        return None
    if _is_plan(data) or is_template(data):
        return data
    if is_service(data):
        return data
    _no_template_further_on(text, path)
    return None


def _bodies_read(data):
    """For a template (not a plan or a Serverless Framework service), which resource
    bodies are read; None: every value is."""
    if _is_plan(data) or _is_service(data) or not is_template(data):
        return None
    return is_read


def _readable(data) -> bool:
    """What some loader reads: a plan, a Serverless Framework service, a template."""
    return _is_plan(data) or _is_service(data) or is_template(data)


def _plain_json(text: str, path: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(f"invalid JSON: {exc.msg}", exc.lineno, exc.colno) from None
    except ValueError:  # an integer of more digits than Python converts
        raise long_number_error(text, "JSON") from None
    except RecursionError:
        return parse_json(text, path)  # too deep for json: the located parse says so in its words


def read_template(path: str, located: bool = True) -> Parsed | LoadError | None:
    """A CloudFormation template (not a plan, not a Serverless Framework service), a
    one-line error, or None when the file is no template."""
    parsed = parse_file(path, located)
    if not isinstance(parsed, Parsed) or _is_plan(parsed.data) or not is_template(parsed.data):
        return parsed if isinstance(parsed, LoadError) else None
    if is_service(parsed.data):
        return None
    return parsed


def link_data(path: str, data: bytes, words: tuple[str, ...]) -> Any:
    """What a template's links are read from (``run/link_plan.py``), or None when the file
    is no template (or cannot be parsed: linted alone, it says why). JSON through ``json``
    alone; YAML cut down to the sections and entries that hold one of ``words``
    (``link_sections.py``), or whole when it cannot be cut or the cut does not parse."""
    text = decode(data)
    worth = _worth_parsing(text, path)
    if worth is None:
        return None
    syntax, sure = worth
    if syntax == "json":
        try:
            parsed = _plain_json(text, path)
        except ParseError:
            parsed = _as_yaml(text, path)  # YAML named JSON (see ``_as_yaml``)
            if parsed is None:
                if not sure:
                    return None
                raise
    else:
        # the cut keeps the entries whose text holds a word: an escaped word is not there
        part = None if may_hide_words(text) else cut(text, words)
        parsed = None
        if part is not None:
            try:
                parsed = parse_yaml(part, path)
            except ParseError:
                parsed = None  # an alias whose anchor was cut away, say
            if not is_template(parsed) or _is_service(parsed):
                parsed = None
        if parsed is None:
            parsed = parse_yaml(text, path)
    if _is_plan(parsed) or not is_template(parsed):
        return None
    if is_service(parsed):
        return None
    return parsed


def _load_file(path: str) -> tuple[list[Graph], list[LoadError]]:
    parsed_file = parse_file(path)
    if parsed_file is None:
        return [], []
    if isinstance(parsed_file, LoadError):
        return [], [parsed_file]
    parsed, text, syntax = parsed_file.data, parsed_file.text, parsed_file.syntax
    if _is_plan(parsed):
        from fanout_lint.loaders.terraform_plan.loader import load_plan

        return load_plan(parsed, path)
    if is_service(parsed):
        from fanout_lint.loaders.serverless.loader import load_service

        return load_service(parsed, path, syntax, text)
    if not is_template(parsed):
        return [], []
    from fanout_lint.loaders.cloudformation.loader import load_template

    return [load_template(parsed, path, syntax, text)], []


def _syntax(text: str, path: str) -> str:
    return "json" if path.lower().endswith(".json") or text.lstrip().startswith("{") else "yaml"


def _is_service(parsed) -> bool:
    """A Serverless Framework service: its ``service`` key says so."""
    return isinstance(parsed, dict) and "service" in parsed


def is_service(data: Any) -> bool:
    """A Serverless Framework service for AWS, by its content."""
    if not isinstance(data, dict) or "service" not in data:
        return False
    provider = data.get("provider")
    name = provider.get("name") if isinstance(provider, dict) else None
    if name is not None:
        return name == "aws"
    return "functions" in data


def _is_plan(parsed) -> bool:
    return (
        isinstance(parsed, dict)
        and "format_version" in parsed
        and ("planned_values" in parsed or "configuration" in parsed)
    )
