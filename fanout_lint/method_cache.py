"""The methods ``dataclass()`` writes for fanout-lint's classes, compiled once, not at every start.

``dataclass()`` writes each class's ``__init__``, ``__repr__``, ``__eq__``, ``__hash__``
(and, frozen, ``__setattr__`` and ``__delattr__``) as source text and compiles it with
``exec``: for the 70-odd classes a one-template run defines, about 360 compilations, a
third of that run's own time. The text is a pure function of the class definition, and
its compiled code a pure function of the text and of the interpreter, so the code is kept
the way Python keeps a module's bytecode: in one file under the package's ``__pycache__``
(where ``sys.pycache_prefix`` puts it, if set), named for this interpreter's cache tag,
stamped with its bytecode magic number, holding ``marshal``'d code objects keyed by the
exact text (in the user's cache directory instead when the installation is read-only). A
text not in the file is compiled as ``exec`` would compile it, and the file is rewritten at
exit when the run compiled anything new; nothing is written where Python writes no bytecode
(``PYTHONDONTWRITEBYTECODE``). A missing, truncated or foreign file is an empty one: the
worst it costs is the compilations. The file may be deleted at any time.

Only ``exec`` calls made by the ``dataclasses`` module, for a class of this package, go
through here (``install`` gives that module its own ``exec`` global, which it finds before
the built-in); any other class is compiled as before.
"""

from __future__ import annotations

import builtins
import marshal
import os
import sys

_PACKAGE = __name__.rsplit(".", 1)[0] + "."  # "fanout_lint."
_MAX_ENTRIES = 4000  # about 5 times what every module of the package defines together

_state: dict = {}  # "path", "codes" (text -> code), "new" (texts compiled this run)


def install() -> None:
    """Route the ``dataclasses`` module's ``exec`` through the cache, once per process."""
    if _state:
        return
    import dataclasses
    from importlib.util import MAGIC_NUMBER, cache_from_source

    if getattr(dataclasses, "exec", builtins.exec) is not builtins.exec:
        return  # someone else's hook: leave it alone
    try:
        # cache_from_source honours sys.pycache_prefix and gives ".../__init__.<tag>.pyc"
        init_pyc = cache_from_source(os.path.join(os.path.dirname(os.path.abspath(__file__)), "__init__.py"))
    except NotImplementedError:  # no cache tag: this interpreter keeps no bytecode
        return
    name = f"dataclass-methods.{sys.implementation.cache_tag}.bin"
    path = os.path.join(os.path.dirname(init_pyc), name)
    if not os.path.isfile(path) and not _writable(os.path.dirname(path)):
        # an installation this user may not write (its bytecode compiled by the installer)
        from fanout_lint.parse_cache import user_cache_dir

        path = os.path.join(user_cache_dir(os.environ), name)
    _state.update(path=path, codes=_read(path, MAGIC_NUMBER), new=set(), magic=MAGIC_NUMBER)
    dataclasses.exec = _exec
    import atexit

    atexit.register(_save)


def _exec(source, globals=None, locals=None, /):
    """``exec`` for the dataclasses module: the cached code of ``source`` for a class of
    this package, else the built-in ``exec``."""
    if type(source) is not str or globals is None or not str(globals.get("__name__", "")).startswith(_PACKAGE):
        return builtins.exec(source, globals, locals)
    codes = _state["codes"]
    code = codes.get(source)
    if code is None:
        # dont_inherit: exec() of a string compiles with its caller's __future__ flags,
        # and dataclasses has none (this module's `annotations` must not leak in).
        code = compile(source, "<string>", "exec", dont_inherit=True)
        codes[source] = code
        _state["new"].add(source)
    return builtins.exec(code, globals, locals)


def _writable(directory: str) -> bool:
    """Whether ``directory`` (or the nearest of its parents that exists) may be written."""
    while directory and not os.path.isdir(directory):
        parent = os.path.dirname(directory)
        if parent == directory:
            return False
        directory = parent
    return os.access(directory, os.W_OK)


def _read(path: str, magic: bytes) -> dict:
    try:
        with open(path, "rb") as handle:
            data = handle.read()
        if not data.startswith(magic):
            return {}
        codes = marshal.loads(data[len(magic):])
    except Exception:  # missing, truncated, or not ours: compile as if there were none
        return {}
    if type(codes) is not dict:
        return {}
    return {text: code for text, code in codes.items() if type(text) is str and hasattr(code, "co_code")}


def _save() -> None:
    """Write the file again when this run compiled a text it did not hold."""
    if not _state.get("new") or sys.dont_write_bytecode:
        return
    path, magic = _state["path"], _state["magic"]
    codes = _read(path, magic)  # what another run may have added meanwhile
    codes.update((text, _state["codes"][text]) for text in _state["new"])
    if len(codes) > _MAX_ENTRIES:  # texts of classes edited many times over: keep this run's
        codes = {text: code for text, code in _state["codes"].items()}
    temporary = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(temporary, "wb") as handle:
            handle.write(magic + marshal.dumps(codes))
        os.replace(temporary, path)  # readers see a whole file or the one before
    except OSError:
        try:
            os.remove(temporary)
        except OSError:
            pass
    _state["new"] = set()
