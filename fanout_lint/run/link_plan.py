"""Which templates of a run link, and how they group into applications.

Most templates link with nothing. Whether one may is decided from its bytes
(``marks``: ``ImportValue``, ``Export``, ``TemplateURL``,
``Serverless::Application``); every other unit stays on the plain path, loaded and
checked alone, so a run of templates that link nothing reads each file once more and
parses nothing more. Only when some template may import and another may export, or some
template may nest, are those templates parsed here for their *link facts*: the names
they export and import, and the templates they nest (``stack_links.py``).

An application is a connected component of the templates joined by an import of a name
exactly one template exports, or by nesting. It is loaded and checked whole, in one
worker, as one graph (``loaders/application.py``). A nested template belongs to its
parent's application and is not linted alone, as a Terraform module is linted inside
its caller; a template nested by no template of the run is linted alone, as before.

A run that names template files (pre-commit hands the hook the staged files) links them
against the rest of their repository: the git top level above each (else the
``--repo-root``) is scanned the same way, cheaply, and the templates that link with a
named one join its application. Findings of such an application are reported when they
involve a named template (``Application.reported``), so a named template's findings are
those of a full run.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fanout_lint.files.regular_files import read_bounded
from fanout_lint.files.repository import top_level
from fanout_lint.loaders import link_data
from fanout_lint.loaders.candidate import Candidate
from fanout_lint.loaders.cloudformation.cdk_assembly import MANIFEST, stack_names
from fanout_lint.loaders.links.stack_links import LINK_WORDS, exports, imports, naming, nested_stacks
from fanout_lint.loaders.parsing.budget import Budget
from fanout_lint.loaders.parsing.escapes import may_hide_text_in_bytes, may_hide_words_in_bytes
from fanout_lint.loaders.parsing.yaml_source import MAX_BYTES
from fanout_lint.model.format import Format
from fanout_lint.run.discover import walk_templates

if TYPE_CHECKING:
    from fanout_lint.run.discover import Exclude

# Words in the bytes of a template that may link: one of them must be there.
IMPORT_MARK = b"ImportValue"
EXPORT_MARK = b"Export"
NEST_MARKS = (b"TemplateURL", b"Serverless::Application")

# Words of a named template that make its repository worth scanning: the link marks, and
# what a nested template has (its parent passes parameters in and reads outputs).
SCAN_MARKS = (b"Parameters", b"Outputs")


@dataclass(eq=False, repr=False)
class Marks:
    """Which kinds of link a file's bytes may hold."""

    imports: bool
    exports: bool
    nests: bool

    @property
    def any(self) -> bool:
        return self.imports or self.exports or self.nests


def marks(data: bytes) -> Marks:
    """What the bytes say a file may link by; every kind when it may write a word only
    through an escape (``Fn::Import\\x56alue``, ``!Import%56alue``: see ``escapes.py``),
    which the parse of its link facts then decides."""
    nests = False
    for mark in NEST_MARKS:  # every file of a run is looked at: no generator per file
        if mark in data:
            nests = True
            break
    found = Marks(IMPORT_MARK in data, EXPORT_MARK in data, nests)
    if not (found.imports and found.exports and found.nests) and may_hide_words_in_bytes(data):
        return Marks(True, True, True)
    return found


@dataclass(eq=False, repr=False)
class Application:
    """Templates linked into one graph: the top-level templates to load (their nested
    templates are found from them), and what loading needs to know."""

    paths: tuple[str, ...]
    root: str  # nested templates are read only inside it
    stack_names: tuple[tuple[str, str], ...] = ()  # template -> stack name, from a CDK assembly
    ambiguous: frozenset[str] = frozenset()  # export names more than one template defines
    # Files (as ``file_key``) whose findings are reported, when the application includes
    # templates the run did not name (pre-commit); None reports every finding.
    reported: frozenset[str] | None = None

    @property
    def path(self) -> str:
        return self.paths[0]

    @property
    def format(self) -> Format:
        return Format.CLOUDFORMATION  # only templates link


@dataclass(eq=False, repr=False)
class Facts:
    """What links one template to others: the names it exports and imports, the templates it nests."""

    exports: tuple[str, ...] = ()
    imports: tuple[str, ...] = ()
    children: tuple[str, ...] = ()  # nested templates, as paths
    refused: bool = False  # it names a local template outside the repository or through a link


NO_FACTS = Facts()


def file_key(path: str) -> str:
    return os.path.normcase(os.path.abspath(path))


def plan(candidates: list[Candidate], named: list[str], exclude: Exclude = (),
         repo_root: str = ".", scan_repo_root: bool = False, memo=None) -> list[Candidate | Application]:
    """The run's work in candidate order: single units, and applications in the place of
    their first template. ``memo``: link facts kept between runs of one process (the
    language server's), by everything they are read from, the bytes included; a mapping's
    ``get`` and item assignment."""
    templates = [c.path for c in candidates if c.format is Format.CLOUDFORMATION]
    if not templates:
        return list(candidates)
    scan = _Scan(exclude, repo_root, scan_repo_root, memo)
    run = {file_key(path): path for path in templates}
    universe = dict(run)
    named_keys = {file_key(p): p for p in named}
    for root in scan.roots_to_scan([(key, p) for key, p in named_keys.items() if key in run]):
        for path in walk_templates(root, exclude):
            universe.setdefault(file_key(path), path)
    applications = scan.applications(universe, run)
    if not applications:
        return list(candidates)
    work: list[Candidate | Application] = []
    placed: set[int] = set()
    for candidate in candidates:
        app = applications.get(file_key(candidate.path)) if candidate.format is Format.CLOUDFORMATION else None
        if app is None:
            work.append(candidate)
        elif id(app) not in placed:
            placed.add(id(app))
            work.append(app)
    return work


def _read(path: str) -> bytes:
    try:
        return read_bounded(path, MAX_BYTES, follow=False)
    except OSError:
        return b""  # the unit reports it when it is loaded


class _Scan:
    """One run's look at its templates: bytes, facts, manifests and roots, each read once."""

    def __init__(self, exclude: Exclude, repo_root: str, scan_repo_root: bool = False, memo=None):
        self.exclude = exclude
        self.memo = memo
        self.repo_root = repo_root
        # outside git, a named template's repository is ``repo_root`` only when the user said
        # so (--repo-root): the current directory may be a home directory
        self.scan_repo_root = scan_repo_root
        self._marks: dict[str, object] = {}
        self._facts: dict[str, Facts] = {}
        self._stack_names: dict[str, dict[str, str]] = {}
        self._roots: dict[str, str] = {}
        self._tops: dict[str, str | None] = {}  # directory -> its git top level

    # -- bytes ----------------------------------------------------------------
    def data(self, path: str) -> bytes:
        if self.memo is not None:  # a long-lived process keeps the bytes of unchanged files
            return self.memo.file(path, _read)[0]
        return _read(path)

    def marks(self, key: str, path: str):
        found = self._marks.get(key)
        if found is None:
            if self.memo is not None:
                data, derived = self.memo.file(path, _read)
                found = derived.get("marks")
                if found is None:
                    found = derived["marks"] = marks(data)
            else:
                found = marks(self.data(path))
            self._marks[key] = found
        return found

    # -- where templates may link from ----------------------------------------
    def root_of(self, path: str) -> str:
        directory = os.path.dirname(os.path.abspath(path))
        if directory not in self._roots:
            self._roots[directory] = repository_root(path, self.repo_root)
        return self._roots[directory]

    def roots_to_scan(self, named: list[tuple[str, str]]) -> list[str]:
        """The repositories of the named templates (``file_key``, path) that may link (a
        named template is scanned for when it may import, export, nest, or be nested: it
        has parameters or outputs)."""
        roots: dict[str, None] = {}
        for key, path in named:
            data = self.data(path)
            found = self._marks[key] = marks(data)
            if found.any or any(m in data for m in SCAN_MARKS):
                top = self.top_level(os.path.dirname(os.path.abspath(path)))
                if top is None and self.scan_repo_root and _inside(os.path.abspath(path),
                                                                   os.path.abspath(self.repo_root)):
                    top = os.path.abspath(self.repo_root)
                if top is not None:
                    roots[_spelled(top)] = None
        return list(roots)

    def top_level(self, directory: str) -> str | None:
        return top_level(directory, self._tops)  # a directory above many templates is looked at once

    # -- facts ----------------------------------------------------------------
    def stack_name(self, path: str) -> str | None:
        directory = os.path.dirname(os.path.abspath(path))
        if directory not in self._stack_names:
            present = os.path.isfile(os.path.join(directory, MANIFEST))
            self._stack_names[directory] = stack_names(directory) if present else {}
        return self._stack_names[directory].get(os.path.basename(path))

    def facts(self, key: str, path: str) -> Facts:
        found = self._facts.get(key)
        if found is None:
            data, found_marks = self.data(path), self.marks(key, path)
            stack_name, root = self.stack_name(path), self.root_of(path)
            kept = None
            # a nested stack's facts also depend on the disk (whether its file is there)
            if self.memo is not None and not found_marks.nests:
                kept = (path, stack_name, root, found_marks.imports, found_marks.exports, found_marks.nests, data)
                found = self.memo.get(kept)
            if found is None:
                found = _facts_of(path, data, found_marks, stack_name, root)
                if kept is not None:
                    self.memo[kept] = found
            self._facts[key] = found
        return found

    def applications(self, universe: dict[str, str], run: dict[str, str]) -> dict[str, Application]:
        """Run template key -> its application, for the templates that link.

        Templates are parsed only as far as links can reach from the run's: those that
        may nest, import or export; the exporters (all of them, since a name two
        templates export links neither) only once a known name is imported or exported;
        the importers once a known name is exported; and templates outside the run only
        when they may reach it (a parent that names a run template's file, say).
        """
        marks = {key: self.marks(key, path) for key, path in universe.items()}
        importing = any(m.imports for m in marks.values())
        if not any(m.nests for m in marks.values()) and not (importing and any(m.exports for m in marks.values())):
            return {}
        paths = dict(universe)
        facts: dict[str, Facts] = {}
        pending = [key for key in run if marks[key].any]
        outside_nests = [key for key, m in marks.items() if m.nests and key not in run]
        # Which outside templates may nest a template reached so far is asked once per
        # reached name, of an index of the names each outside template mentions (read
        # once): rescanning every outside template for every name reached so far, once
        # per level of a nesting chain, made naming one file of a long chain cubic.
        mentions = _mentioned(outside_nests, paths, self) if outside_nests else {}
        offered: set[bytes] = set()
        fresh = list(run)  # reached, and not yet offered to the index
        exporters = importers = False
        links = exported = False  # whether some template with facts imports or exports, exports
        while True:
            while pending:
                key = pending.pop()
                if key in facts:
                    continue
                fact = facts[key] = self.facts(key, paths[key])
                links = links or bool(fact.imports or fact.exports)
                exported = exported or bool(fact.exports)
                fresh.append(key)
                for child in fact.children:  # nested templates join, named or not
                    paths.setdefault(file_key(child), child)
                    pending.append(file_key(child))
            if not exporters and links:
                exporters = True
                pending += [key for key, m in marks.items() if m.exports and key not in facts]
            if not importers and exported:
                importers = True
                pending += [key for key, m in marks.items() if m.imports and key not in facts]
            if fresh and _ANY_NAME not in offered:
                offered.add(_ANY_NAME)
                # an outside template that escapes text may name any template reached
                pending += [k for k in mentions.get(_ANY_NAME, ()) if k not in facts]
            for key in fresh:
                name = os.path.basename(paths[key]).encode("utf-8", "surrogatepass")
                if name in offered:
                    continue
                offered.add(name)
                # an outside template that may nest a template reached so far
                pending += [k for k in mentions.get(name, ()) if k not in facts]
            fresh = []
            if not pending:
                break
        return _components(facts, paths, run, self)


def _components(facts: dict[str, Facts], paths: dict[str, str], run: dict[str, str], scan: _Scan):
    exporters: dict[str, set[str]] = {}
    for key, fact in facts.items():
        for name in fact.exports:
            exporters.setdefault(name, set()).add(key)
    ambiguous = frozenset(name for name, keys in exporters.items() if len(keys) > 1)
    parent: dict[str, str] = {}

    def find(key: str) -> str:
        while parent.get(key, key) != key:
            parent[key] = parent.get(parent[key], parent[key])
            key = parent[key]
        return key

    def union(a: str, b: str) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)

    children: dict[str, tuple[str, ...]] = {}
    for key, fact in facts.items():
        for name in fact.imports:
            exporter = exporters.get(name, ())
            if len(exporter) == 1:
                union(key, next(iter(exporter)))
        children[key] = tuple(file_key(c) for c in fact.children)
        for child in children[key]:
            union(key, child)
    nested = {child for kids in children.values() for child in kids}
    groups: dict[str, list[str]] = {}
    for key in facts:
        groups.setdefault(find(key), []).append(key)
    order = {key: i for i, key in enumerate(run)}
    found: dict[str, Application] = {}
    for members in groups.values():
        # a template that names a template it may not read is loaded as an application
        # of its own, whose loader says so (confine.py)
        if not any(key in run for key in members) or (len(members) < 2 and not facts[members[0]].refused):
            continue
        tops = [key for key in members if key not in nested] or [min(k for k in members if k in run)]
        tops.sort(key=lambda k: (order.get(k, len(order)), paths[k]))
        reported = _descendants([k for k in members if k in run], children)
        application = Application(
            paths=tuple(paths[k] for k in tops),
            root=scan.root_of(paths[tops[0]]),
            stack_names=tuple((paths[k], name) for k in tops if (name := scan.stack_name(paths[k]))),
            ambiguous=ambiguous,
            reported=None if reported >= set(members) else frozenset(reported),
        )
        for key in members:
            if key in run:
                found[key] = application
    return found


# A nested template's name ends in one of these (``stack_links.TEMPLATE_SUFFIXES``).
_TEMPLATE_SUFFIX = re.compile(rb"\.(?:yaml|yml|json|template)", re.IGNORECASE)  # fixed words: linear
_LONGEST_NAME = 255  # bytes of a file name (NAME_MAX)
# Bytes that end a reference to a nested template in its parent's text, before the
# name: a directory separator, a quote, a line break. Blanks may be part of a name.
_BEFORE_NAME = (b"/", b"\\", b'"', b"'", b"\n", b"\r", b"\x00")
_BLANKS_IN_NAME = 8  # a name with more blanks than this is not looked for


_ANY_NAME = b""  # in the index: templates that may mention any name (they escape text)


def _mentioned(keys: list[str], paths: dict[str, str], scan: _Scan) -> dict[bytes, list[str]]:
    """File name -> the templates of ``keys`` whose bytes mention it, as a reference to a
    nested template writes it (after a separator, a quote, a blank or a line break; a
    name can only be nested when it ends in a template suffix). Each file is read once,
    and each mention costs a bounded number of searches, so the index is linear in the
    files' size."""
    found: dict[bytes, list[str]] = {}
    for key in keys:
        data = scan.data(paths[key])
        if may_hide_text_in_bytes(data):  # it may spell a name through an escape
            found.setdefault(_ANY_NAME, []).append(key)
        names: set[bytes] = set()
        for match in _TEMPLATE_SUFFIX.finditer(data):
            names.update(_names_ending(data, match.end()))
        for name in names:
            found.setdefault(name, []).append(key)
    return found


def _names_ending(data: bytes, end: int) -> list[bytes]:
    """The file names that may end at ``end``: from the last byte no name holds, or a
    blank, within a name's length."""
    start = max(0, end - _LONGEST_NAME)
    for stop in _BEFORE_NAME:
        start = max(start, data.rfind(stop, start, end) + 1)
    names = [data[start:end]]
    cut = end
    for _ in range(_BLANKS_IN_NAME):
        blank = max(data.rfind(b" ", start, cut), data.rfind(b"\t", start, cut))
        if blank < 0:
            break
        names.append(data[blank + 1:end])
        cut = blank
    return names


def _descendants(keys: list[str], children: dict[str, tuple[str, ...]]) -> set[str]:
    """``keys`` and every template they nest, at any depth."""
    out: set[str] = set()
    pending = list(keys)
    while pending:
        key = pending.pop()
        if key not in out:
            out.add(key)
            pending.extend(children.get(key, ()))
    return out


def _facts_of(path: str, data: bytes, marks, stack_name: str | None, root: str) -> Facts:
    """What the template exports, imports and nests (only what its ``marks`` say it may),
    read from the parts of it that can say so (``loaders.link_data``); nothing when it
    cannot be read, is no template, or is too costly to evaluate (linted alone, it says
    why)."""
    try:
        template = link_data(path, data, LINK_WORDS)
        if template is None:
            return NO_FACTS
        x = naming(template, path, Budget(file=path), stack_name)
        nested = nested_stacks(template, path, root) if marks.nests else []
        return Facts(
            exports=tuple(dict.fromkeys(name for name, _, _ in exports(template, x))) if marks.exports else (),
            imports=tuple(sorted(imports(template, x))) if marks.imports else (),
            children=tuple(n.template for n in nested if n.template),
            refused=any(n.refused for n in nested),
        )
    except (Exception, RecursionError, MemoryError):  # a hostile file must not end the run here
        return NO_FACTS
def repository_root(path: str, repo_root: str = ".") -> str:
    """The git top level above ``path``, else ``repo_root`` when it holds the path, else
    the path's own directory: a template's nested templates are read only inside it."""
    directory = os.path.dirname(os.path.abspath(path))
    top = top_level(directory)
    if top is None:
        repo = os.path.abspath(repo_root)
        top = repo if _inside(directory, repo) else directory
    return top


def _spelled(directory: str) -> str:
    """A directory to walk, relative when it is the current one or inside it: the walk
    spells what it finds from it, and a full run of ``.`` spells its files ``./...``."""
    here = os.getcwd()
    return os.path.relpath(directory, here) if _inside(directory, here) else directory


def _inside(path: str, top: str) -> bool:
    path, top = os.path.normcase(path), os.path.normcase(top)
    return path == top or path.startswith(top.rstrip(os.sep) + os.sep)
