"""The LALR parser for HCL: python-hcl2's grammar, without Lark's position bookkeeping.

python-hcl2's own parser (``hcl2.parser.parser``) turns on ``propagate_positions``, which
gives every subtree a line and column: about 45% of a parse. ``hcl_syntax`` takes the
positions it keeps from tokens instead (the first and last token of the few subtrees it
keeps), so it needs none of that, and this parser is built without it.

Only the grammar file is read from python-hcl2, found without importing the package:
``import hcl2`` runs ``hcl2.api``, which imports the dict transformer, formatter,
deserializer and reconstructor that fanout-lint never uses. The one piece of python-hcl2
code its grammar depends on, the post-lexer that lets a binary operator continue a line,
is ``_continue_lines`` here. Two changes are made to the grammar: its heredoc terminals'
patterns were quadratic, and the parser is built with linear ones that match the same
text (``linear_heredocs``); and an interpolation may break its line after ``${`` and
before ``}``, as Terraform reads it (``interpolation_lines``).

Building the LALR tables takes over a second; they are kept in a file written with
``Lark.save`` and read with ``Lark.load``, named for a hash of what it was built from (the
grammar, the options, the file's format, Lark's version and Python's), so that a stale or
foreign file is never used; one that cannot be loaded is built again. Lark's own ``cache``
option is not used: its check hashes the file's path with the grammar, so a file built
under a temporary name (to be moved into place whole) or moved to another directory failed
it, and every such first run built the tables twice. The file lives in the user's cache
directory (``$XDG_CACHE_HOME/fanout-lint``, by default ``~/.cache/fanout-lint``), so
environments with other versions can share the directory. Nothing
is ever written into the installed package: a file left there would outlive
``pip uninstall``, and the folder it keeps would shadow the next install of the package.
Where the cache directory cannot be written the tables are built in memory, every run.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import stat
import sys

from fanout_lint import __version__
from fanout_lint.loaders.parsing.parse_cache import directory_problem, user_cache_dir

# The token types of binary operators (and ``?``) in python-hcl2's grammar: a newline just
# before one continues the expression instead of ending the attribute. MINUS is not among
# them: ``-`` also starts a negative literal on the next line.
_CONTINUES_LINE = frozenset({
    "DOUBLE_EQ", "NEQ", "LT", "GT", "LEQ", "GEQ", "ASTERISK", "SLASH", "PERCENT",
    "DOUBLE_AMP", "DOUBLE_PIPE", "PLUS", "QMARK",
})
_GRAMMAR_CACHE = "hcl-grammar-{key}.lark-cache"  # in the user's cache directory
_TABLES_FORMAT = "Lark.save/1"  # what the file holds: part of its name
_OPTIONS = {"parser": "lalr", "propagate_positions": False}

# python-hcl2's heredoc terminals find the closing marker with a lazy body followed by
# ``\s*``, which also spans line breaks: at every line of the body the blank lines after
# it are run through again, so a body of blank lines (or one never closed) costs their
# number squared (37 s for 80 KB). The same token, found line by line: the body is whole
# lines, and the closing line is blanks (no line break) and the marker. Both end at the
# first line that is blanks and the marker, so they match the same text.
_QUADRATIC_BODY = r"(?:(?:.|\n)*?\r?\n)??\s*"
_LINEAR_BODY = r"(?:[^\n]*\n)*?[^\S\n]*"
_HEREDOC_TERMINALS = ("HEREDOC_TEMPLATE", "HEREDOC_TEMPLATE_TRIM")


class _ContinueLines:
    """Lark's post-lexer interface (``process`` and ``always_accept``) for ``_continue_lines``."""

    always_accept = ()

    def process(self, stream):
        return _continue_lines(stream)


def _continue_lines(stream):
    """Tokens, with a newline (or comment) that precedes an operator folded into the
    operator's token: an LALR parser cannot tell a line that ends an attribute from one
    that an operator on the next line continues."""
    held = None
    for token in stream:
        if token.type == "NL_OR_COMMENT":
            if held is not None:
                yield held
            held = token
            continue
        if held is not None:
            if token.type in _CONTINUES_LINE:
                token = token.update(value=str(held) + str(token))
            else:
                yield held
            held = None
        yield token
    if held is not None:
        yield held


def grammar_path() -> str:
    """python-hcl2's grammar file, located without executing the package."""
    spec = importlib.util.find_spec("hcl2")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("python-hcl2 is not installed")
    return os.path.join(list(spec.submodule_search_locations)[0], "hcl2.lark")


@functools.cache
def grammar_text() -> str:
    with open(grammar_path(), encoding="utf-8") as handle:
        return handle.read()


@functools.cache
def parser_grammar() -> str:
    """The grammar the parser is built from: python-hcl2's, its heredoc terminals linear and
    its interpolations open to line breaks."""
    return interpolation_lines(linear_heredocs(grammar_text()))


# HCL reads a template interpolation with its line breaks ignored: Terraform accepts
# ``"${\n  var.a\n}"``, where python-hcl2's rule takes no newline after ``${`` nor before
# ``}`` and the whole unit failed to load. Line breaks inside the expression already parse
# where the grammar allows them elsewhere (before an operator, around a conditional's
# ``?`` and ``:``, in brackets).
_INTERPOLATION_RULE = "interpolation: INTERP_START expression RBRACE"
_INTERPOLATION_LINES = ("interpolation: INTERP_START new_line_or_comment? expression new_line_or_comment? RBRACE")


def interpolation_lines(grammar: str) -> str:
    """``grammar`` with a line break (or comment) allowed after an interpolation's ``${`` and
    before its ``}`` (a grammar without that rule, another version's, is left as it is)."""
    lines = grammar.split("\n")
    for number, line in enumerate(lines):
        if line.strip() == _INTERPOLATION_RULE:
            lines[number] = line.replace(_INTERPOLATION_RULE, _INTERPOLATION_LINES)
    return "\n".join(lines)


def linear_heredocs(grammar: str) -> str:
    """``grammar`` with the body of its heredoc terminals' patterns matched line by line
    (a grammar without that body, another version's, is left as it is)."""
    lines = grammar.split("\n")
    for number, line in enumerate(lines):
        name = line.split(":", 1)[0].strip()
        if name in _HEREDOC_TERMINALS and ":" in line:
            lines[number] = line.replace(_QUADRATIC_BODY, _LINEAR_BODY)
    return "\n".join(lines)


@functools.cache
def syntax_fingerprint() -> str:
    """What a parsed file depends on, for the parse cache: the grammar, Lark's version,
    this package's version and the sources of the modules that shape the tree. Computed
    without importing Lark, so that a run whose files are all cached never loads it."""
    digest = hashlib.sha256()
    digest.update(f"{__version__}\0{sys.implementation.name}\0{sys.version}\0".encode())
    digest.update(parser_grammar().encode())
    for module in ("lark", "fanout_lint.loaders.terraform.hcl.syntax", "fanout_lint.loaders.terraform.hcl.tree"):
        spec = importlib.util.find_spec(module)
        origin = spec.origin if spec is not None else None
        if origin and os.path.isfile(origin):
            with open(origin, "rb") as handle:  # lark/__init__.py holds its __version__
                digest.update(handle.read())
    return digest.hexdigest()[:32]


@functools.cache
def parser():
    """The parser, built once per process: a pure function of the installed grammar and
    Lark, like python-hcl2's own cached parser."""
    import lark

    text = parser_grammar()
    path = grammar_cache_path(os.environ, text, lark.__version__)
    if path is not None and os.path.isfile(path):
        loaded = _load_tables(lark, path)
        if loaded is not None:
            return loaded
    built = lark.Lark(text, postlex=_ContinueLines(), **_OPTIONS)
    if path is not None:
        _save_tables(built, path)
    return built


def _load_tables(lark, path: str):
    """The parser saved at ``path``, or None when the file does not load (cut short by a
    full disk, or written by something else under the same name): it is built again."""
    try:
        with open(path, "rb") as handle:
            return lark.Lark.load(handle)
    except Exception:  # unpickling a damaged file can raise almost anything
        return None


def _save_tables(built, path: str) -> None:
    """Written under a name of this process's, then moved into place: a run that reads the
    file while another writes it finds the whole file or none. A file that cannot be
    written is no error: the next run builds the tables again."""
    partial = f"{path}.{os.getpid()}.tmp"
    try:
        # the user's alone whatever the umask (a file others may write is never loaded,
        # grammar_cache_path), and a new file: never one planted under this name
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError:
        return
    try:
        with os.fdopen(descriptor, "wb") as handle:
            built.save(handle)  # the options too, the post-lexer by reference to its class
        os.replace(partial, path)
    except OSError:
        _remove(partial)


def grammar_cache_path(environ, text: str, lark_version: str) -> str | None:
    """Where the parser's tables are kept, or None when the user's cache directory cannot
    be written (nor the file read). Never inside the installed package."""
    made_of = f"{text}\0{_TABLES_FORMAT}\0{sorted(_OPTIONS.items())}\0{lark_version}\0{sys.version_info[:2]}".encode()
    directory = user_cache_dir(environ)
    path = os.path.join(directory, _GRAMMAR_CACHE.format(key=hashlib.sha256(made_of).hexdigest()[:16]))
    # Lark loads its tables with pickle, so they are code: used only from a directory and
    # a file that are the user's alone, as the parse cache's entries (parse_cache.py).
    if directory_problem(directory) is not None:
        return None
    if os.path.lexists(path):
        return path if _own_regular_file(path) and os.access(path, os.R_OK) else None
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
    except OSError:
        return None
    if directory_problem(directory) is not None:
        return None
    return path if os.access(directory, os.W_OK) else None


def _own_regular_file(path: str) -> bool:
    """A regular file (not a link) of the current user that nobody else can write."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    owner = getattr(os, "geteuid", None)
    return (stat.S_ISREG(info.st_mode) and (owner is None or info.st_uid == owner())
            and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH))


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except OSError:
        pass
