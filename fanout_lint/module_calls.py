"""Which local module directories a Terraform directory calls, by a cheap scan.

Discovery uses it so that a directory another unit of the run loads as a local module
(``module "x" { source = "./modules/x" }``) is not linted a second time on its own, with
its variable defaults instead of the caller's inputs. It reads top-level ``module``
blocks and their literal ``source`` only, skipping strings, comments and heredocs, so it
needs no HCL parser and costs one pass over the text. A source that is not a literal
local path (a registry, git or URL source, an interpolation) calls nothing here, just as
the loader treats it as opaque.
"""

from __future__ import annotations

import os
import re

from fanout_lint.regular_files import refuse_special

MAX_FILE_BYTES = 20 * 1024 * 1024  # the loader refuses larger files
MAX_MODULE_DEPTH = 16  # as the loader: deeper chains of modules are not followed

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_MODULE_BLOCK = re.compile(r"(?m)^\s*module\s*\"")
_HEREDOC = re.compile(r"<<-?([A-Za-z_][A-Za-z0-9_-]*)[ \t]*\r?\n")


def local_sources(text: str) -> list[str]:
    """The literal local ``source`` of each top-level ``module`` block (``./x``, ``../x``)."""
    found: list[str] = []
    if "module" not in text or not _MODULE_BLOCK.search(text):
        return found  # most files call no module: no need to tokenize them
    tokens = _tokens(text)
    for index, (kind, value, depth) in enumerate(tokens):
        if kind != "ident" or value != "module" or depth != 0:
            continue
        # module "name" { ... source = "./x" ... }
        if index + 2 >= len(tokens) or tokens[index + 1][0] != "string" or tokens[index + 2][1] != "{":
            continue
        for inner in range(index + 3, len(tokens) - 2):
            kind_i, value_i, depth_i = tokens[inner]
            if depth_i == 0:
                break  # the block's closing brace
            if (depth_i == 1 and kind_i == "ident" and value_i == "source"
                    and tokens[inner + 1][1] == "=" and tokens[inner + 2][0] == "string"):
                source = tokens[inner + 2][1]
                if source is not None and source.startswith(("./", "../")):
                    found.append(source)
                break
    return found


def called_directories(directory: str) -> list[str]:
    """The directories a Terraform directory's module blocks load, normalized."""
    called = []
    try:
        names = sorted(n for n in os.listdir(directory) if n.endswith(".tf"))
    except OSError:
        return []
    for name in names:
        try:
            refuse_special(os.path.join(directory, name))
            with open(os.path.join(directory, name), "rb") as handle:
                data = handle.read(MAX_FILE_BYTES + 1)
        except OSError:
            continue
        if len(data) > MAX_FILE_BYTES or b"module" not in data:
            continue
        for source in local_sources(data.decode("utf-8", errors="replace")):
            called.append(os.path.normpath(os.path.join(directory, source)))
    return called


def modules_of_others(directories: list[str]) -> set[str]:
    """Those of ``directories`` another of them loads as a module (directly or through
    modules of its own), as the caller lints them with their real inputs. Directories
    that load each other in a cycle, with no caller outside it, are all kept."""
    real = {d: _real(d) for d in directories}
    calls: dict[str, list[str]] = {}  # real directory -> real directories it calls
    reach = {r: _reachable(r, calls) for r in set(real.values())}
    callers: dict[str, set[str]] = {}  # real directory -> directories of the run that load it
    for caller, below in reach.items():
        for directory in below:
            callers.setdefault(directory, set()).add(caller)
    # A caller that the directory itself loads is part of a cycle, not above it.
    return {
        d for d in directories
        if any(c != real[d] and c not in reach[real[d]] for c in callers.get(real[d], ()))
    }


def _reachable(start: str, calls: dict[str, list[str]]) -> set[str]:
    """Every directory loaded below ``start`` (not ``start`` itself, unless in a cycle)."""
    seen: set[str] = set()
    frontier = [(start, 0)]
    while frontier:
        directory, depth = frontier.pop()
        if depth >= MAX_MODULE_DEPTH:
            continue
        if directory not in calls:
            calls[directory] = [_real(c) for c in called_directories(directory)]
        for child in calls[directory]:
            if child not in seen:
                seen.add(child)
                frontier.append((child, depth + 1))
    return seen


def _real(directory: str) -> str:
    return os.path.normcase(os.path.realpath(directory))


# -- a tokenizer that knows just enough HCL to find block structure ---------------

def _tokens(text: str) -> list[tuple[str, str | None, int]]:
    """(kind, value, brace depth before it): identifiers, punctuation, newlines, and
    strings (value None when interpolated). Comments and heredocs are skipped."""
    out: list[tuple[str, str | None, int]] = []
    depth = 0
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\n":
            out.append(("newline", None, depth))
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
            out.append(("string", None, depth))
        elif ch == '"':
            value, i = _string(text, i + 1)
            out.append(("string", value, depth))
        elif ch == "{":
            out.append(("punct", "{", depth))
            depth += 1
            i += 1
        elif ch == "}":
            depth = max(depth - 1, 0)
            out.append(("punct", "}", depth))
            i += 1
        elif match := _IDENT.match(text, i):
            out.append(("ident", match.group(), depth))
            i = match.end()
        else:
            out.append(("punct", ch, depth))
            i += 1
    return out


def _string(text: str, i: int) -> tuple[str | None, int]:
    """A quoted string from just after its opening quote: (its text, or None when it
    interpolates, and the index after its closing quote)."""
    start, n = i, len(text)
    interpolated = False
    while i < n:
        ch = text[i]
        if ch == "\\":
            i += 2
        elif ch == '"' or ch == "\n":  # a newline ends an unterminated string
            return (None if interpolated else text[start:i]), i + 1
        elif text.startswith(("${", "%{"), i):
            interpolated = True
            i = _template_end(text, i + 2)
        else:
            i += 1
    return None, n


def _template_end(text: str, i: int) -> int:
    """The index after the ``}`` that closes an interpolation opened just before ``i``."""
    depth, n = 1, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            _, i = _string(text, i + 1)  # a string inside the interpolation
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return n


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
