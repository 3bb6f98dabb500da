"""Which local module directories a Terraform directory calls, by a cheap scan.

Discovery uses it so that a directory another unit of the run loads as a local module
(``module "x" { source = "./modules/x" }``) is not linted a second time on its own, with
its variable defaults instead of the caller's inputs. It reads top-level ``module``
blocks and their literal ``source`` only, skipping strings, comments and heredocs, so it
needs no HCL parser and costs one pass over the text (``json`` reads the files in
Terraform's JSON syntax), with the files and override files the loader reads. A source that is not a literal
local path (a registry, git or URL source, an interpolation) calls nothing here, just as
the loader treats it as opaque. A local source outside the repository, or through a
symbolic link, calls nothing here either (``confine.py``): its files are not read, and
the loader reports it.
"""

from __future__ import annotations

import json
import os
import re
from typing import TYPE_CHECKING

from fanout_lint.files.confine import problem
from fanout_lint.files.regular_files import HCL_FILE_BYTES, HCL_UNIT_BYTES, read_bounded, resolved_path
from fanout_lint.loaders.terraform.files import config_files, is_json

if TYPE_CHECKING:
    from typing import Iterator

MAX_MODULE_DEPTH = 16  # as the loader: deeper chains of modules are not followed

# Linear on any text: each pattern either is matched at a given offset or starts with a
# line anchor followed by characters that cannot be newlines, so no attempt spans lines.
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_MODULE_BLOCK = re.compile(r"(?m)^[ \t\r]*module[ \t\r]*\"")
_HEREDOC = re.compile(r"<<-?([A-Za-z_][A-Za-z0-9_-]*)[ \t]*\r?\n")


def local_sources(text: str) -> list[str]:
    """The literal local ``source`` of each top-level ``module`` block (``./x``, ``../x``)."""
    return [source for _, source in module_sources(text) if _is_local(source)]


def module_sources(text: str) -> list[tuple[str | None, str | None]]:
    """(name, source) of each top-level ``module`` block of a native-syntax file: the
    literal source text, "" when it is not a literal, None when the block sets none (an
    override block may leave the source to the block it overrides)."""
    found: list[tuple[str | None, str | None]] = []
    if "module" not in text or not _MODULE_BLOCK.search(text):
        return found  # most files call no module: no need to tokenize them
    # module "name" { ... source = "./x" ... }, read from the token stream with a small
    # state, so that memory does not grow with the file. A token that is not what the
    # state expects is read again in the state before.
    state = "seek"
    name: str | None = None
    source: str | None = None
    for kind, value, depth in _tokens(text):
        if state == "label":
            if kind == "string":
                name, state = value, "brace"
                continue
            state = "seek"
        elif state == "brace":
            if value == "{":
                source, state = None, "body"
                continue
            state = "seek"
        elif state == "equals":
            if value == "=":
                state = "value"
                continue
            state = "body"
        elif state == "value":
            # a block's first source is its source; only a literal string can be one
            source = value if kind == "string" and value is not None else ""
            state = "rest"
            if kind == "string":
                continue
        if state == "seek":
            if kind == "ident" and value == "module" and depth == 0:
                state = "label"
        elif depth == 0:  # the block's closing brace
            found.append((name, source))
            state = "seek"
        elif state == "body" and depth == 1 and kind == "ident" and value == "source":
            state = "equals"
    if state in ("body", "equals", "value", "rest"):  # an unterminated block: still only a scan
        found.append((name, source))
    return found


def json_module_sources(text: str) -> list[tuple[str | None, str | None]]:
    """(name, source) of each ``module`` block of a file in Terraform's JSON syntax."""
    if '"module"' not in text:
        return []
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return []  # the loader reports it
    found: list[tuple[str | None, str | None]] = []
    modules = data.get("module") if isinstance(data, dict) else None
    for group in modules if isinstance(modules, list) else [modules]:
        if not isinstance(group, dict):
            continue
        for name, bodies in group.items():
            for body in bodies if isinstance(bodies, list) else [bodies]:
                if isinstance(body, dict):
                    source = body.get("source")
                    found.append((name, source if isinstance(source, str) and "${" not in source
                                  else None if source is None else ""))
    return found


def _is_local(source: str | None) -> bool:
    return source is not None and source.startswith(("./", "../"))


def called_directories(directory: str, root: str | None = None) -> list[str]:
    """The directories a Terraform directory's module blocks load, normalized; with
    ``root``, only those inside it through no symbolic link (``confine.py``).

    Read as the loader reads the directory (``terraform_files``): an override file's
    module block replaces the source of the call it overrides. Files the loader would
    refuse (not regular, too large, past the unit's total) are skipped: the loader
    reports them when it loads the unit.
    """
    try:
        files = config_files(os.listdir(directory))
    except OSError:
        return []
    sources: dict[object, str | None] = {}  # call name -> its source
    budget = HCL_UNIT_BYTES
    for name in files.primary + files.overrides:
        try:
            data = read_bounded(os.path.join(directory, name), min(HCL_FILE_BYTES, budget), follow=False)
        except OSError:
            continue
        budget -= len(data)
        if b"module" not in data:
            continue
        text = data.decode("utf-8", errors="replace")
        calls = json_module_sources(text) if is_json(name) else module_sources(text)
        for call, source in calls:
            if name in files.overrides:
                if source is not None and call in sources:
                    sources[call] = source
            else:  # an interpolated label is a call of its own
                sources.setdefault(call if call is not None else ("unnamed", len(sources)), source)
    called = [os.path.normpath(os.path.join(directory, source)) for source in sources.values() if _is_local(source)]
    return called if root is None else [d for d in called if problem(d, root) is None]


def modules_of_others(directories: list[str], roots: dict[str, str] | None = None) -> set[str]:
    """Those of ``directories`` another of them loads as a module (directly or through
    modules of its own), as the caller lints them with their real inputs. Directories
    that load each other in a cycle, with no caller outside it, are all kept. ``roots``:
    directory -> the repository its modules are confined to (default: the current one)."""
    real = {d: _real(d) for d in directories}
    root_of = {real[d]: (roots or {}).get(d, ".") for d in directories}
    calls: dict[tuple[str, str], list[str]] = {}  # (real directory, root) -> real directories it calls
    reach = {r: _reachable(r, calls, root_of[r]) for r in set(real.values())}
    callers: dict[str, set[str]] = {}  # real directory -> directories of the run that load it
    for caller, below in reach.items():
        for directory in below:
            callers.setdefault(directory, set()).add(caller)
    # A caller that the directory itself loads is part of a cycle, not above it.
    return {
        d for d in directories
        if any(c != real[d] and c not in reach[real[d]] for c in callers.get(real[d], ()))
    }


def roots_calling(module: str, directories: list[str], root: str = ".") -> list[str]:
    """Those of ``directories`` that load ``module`` (directly or through other modules)
    and that none of them loads: the roots ``module`` is linted in. Empty when no
    directory calls it. Modules are looked for inside ``root`` only."""
    target = _real(module)
    calls: dict[tuple[str, str], list[str]] = {}
    callers = [d for d in directories if _real(d) != target and target in _reachable(_real(d), calls, root)]
    if not callers:
        return []
    called = modules_of_others(directories, {d: root for d in directories})
    return [d for d in callers if d not in called] or callers


def _reachable(start: str, calls: dict[tuple[str, str], list[str]], root: str) -> set[str]:
    """Every directory loaded below ``start`` (not ``start`` itself, unless in a cycle),
    inside ``root``."""
    seen: set[str] = set()
    frontier = [(start, 0)]
    while frontier:
        directory, depth = frontier.pop()
        if depth >= MAX_MODULE_DEPTH:
            continue
        if (directory, root) not in calls:
            calls[(directory, root)] = [_real(c) for c in called_directories(directory, root)]
        for child in calls[(directory, root)]:
            if child not in seen:
                seen.add(child)
                frontier.append((child, depth + 1))
    return seen


def _real(directory: str) -> str:
    return os.path.normcase(resolved_path(directory) or os.path.abspath(directory))


# -- a tokenizer that knows just enough HCL to find block structure ---------------

def _tokens(text: str) -> Iterator[tuple[str, str | None, int]]:
    """(kind, value, brace depth before it): identifiers, punctuation, newlines, and
    strings (value None when interpolated). Comments and heredocs are skipped."""
    depth = 0
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\n":
            yield ("newline", None, depth)
            i += 1
        elif ch in " \t\r":
            i += 1
        elif ch == "#" or text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
        elif text.startswith("<<", i) and (match := _HEREDOC.match(text, i)):
            i = _heredoc_end(text, match.end(), match.group(1))
            yield ("string", None, depth)
        elif ch == '"':
            value, i = _string(text, i + 1)
            yield ("string", value, depth)
        elif ch == "{":
            yield ("punct", "{", depth)
            depth += 1
            i += 1
        elif ch == "}":
            depth = max(depth - 1, 0)
            yield ("punct", "}", depth)
            i += 1
        elif match := _IDENT.match(text, i):
            yield ("ident", match.group(), depth)
            i = match.end()
        else:
            yield ("punct", ch, depth)
            i += 1


def _string(text: str, i: int) -> tuple[str | None, int]:
    """A quoted string from just after its opening quote: (its text, or None when it
    interpolates, and the index after its closing quote).

    Strings nest in interpolations (``"${f("x")}"``) to any depth, so the open ones are
    kept on a list rather than on the call stack: ``None`` for a string, else the brace
    depth of an interpolation.
    """
    start, n = i, len(text)
    interpolated = False
    open_: list[int | None] = [None]
    while i < n:
        ch = text[i]
        if open_[-1] is None:  # in a string
            if ch == "\\":
                i += 2
                continue
            if ch == '"' or ch == "\n":  # a newline ends an unterminated string
                open_.pop()
                i += 1
                if not open_:
                    return (None if interpolated else text[start:i - 1]), i
                continue
            if text.startswith(("${", "%{"), i):
                interpolated = True
                open_.append(1)
                i += 2
                continue
        elif ch == '"':  # a string inside an interpolation
            open_.append(None)
        elif ch == "{":
            open_[-1] += 1
        elif ch == "}":
            open_[-1] -= 1
            if open_[-1] == 0:
                open_.pop()
        i += 1
    return None, n


def _heredoc_end(text: str, i: int, marker: str) -> int:
    """The index after the line that closes a heredoc whose body starts at ``i``."""
    n = len(text)
    while i < n:
        end = text.find("\n", i)
        line_end = n if end < 0 else end
        if text[i:line_end].strip() == marker:
            return line_end
        i = line_end + 1
    return n
