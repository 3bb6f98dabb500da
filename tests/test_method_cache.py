"""The methods dataclass() writes for the package's classes are compiled once and kept
(fanout_lint/method_cache.py): a run that finds them kept compiles none, its classes behave
as dataclass() makes them, and a damaged file or a run that may not write bytecode costs
compilations, never a wrong class."""

from __future__ import annotations

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# In a fresh interpreter: define classes as a module of the package would (the cache
# serves classes whose module is under fanout_lint.), use them, and say how many of the
# texts dataclass() wrote were compiled in this run and how many were found kept.
_PROBE = r"""
import dataclasses, json, sys, types
import fanout_lint
from fanout_lint import method_cache

module = types.ModuleType("fanout_lint._probe")
sys.modules[module.__name__] = module
exec('''
from __future__ import annotations
from dataclasses import dataclass, field

@dataclass(frozen=True)
class Point:
    "A point."
    x: int
    y: int = 0
    tags: tuple = field(default=())

@dataclass(slots=True, unsafe_hash=True)
class Loc:
    "A location."
    file: str
    line: int = 1
''', module.__dict__)

before = len(method_cache._state.get("codes", {}))

@dataclasses.dataclass
class Outside:
    "Not the package's: compiled as always."
    a: int

Point, Loc = module.Point, module.Loc
p = Point(1, tags=("a",))
try:
    p.x = 2
    frozen = False
except dataclasses.FrozenInstanceError:
    frozen = True
state = method_cache._state
print(json.dumps({
    "repr": [repr(p), repr(Loc("f", 3)), repr(Outside(1))],
    "eq": [p == Point(1, 0, ("a",)), p == Point(2), Loc("f") == Loc("f", 1)],
    "hash": hash(p) == hash(Point(1, 0, ("a",))) and hash(Loc("f")) == hash(Loc("f", 1)),
    "frozen": frozen,
    "annotations": Point.__init__.__annotations__,
    "compiled": len(state.get("new", ())),
    "kept": len(state.get("codes", {})) - len(state.get("new", ())),
    "outside": len(state.get("codes", {})) - before,
}))
"""


def _run(prefix, **env_extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPYCACHEPREFIX=str(prefix), **env_extra)
    done = subprocess.run([sys.executable, "-c", _PROBE], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def _cache_files(prefix) -> list[str]:
    return [os.path.join(d, n) for d, _, names in os.walk(prefix) for n in names if n.startswith("dataclass-methods.")]


EXPECTED = {
    "repr": ["Point(x=1, y=0, tags=('a',))", "Loc(file='f', line=3)", "Outside(a=1)"],
    "eq": [True, False, True],
    "hash": True,
    "frozen": True,
    # the generated code is compiled without this package's `from __future__ import annotations`
    "annotations": {"x": "int", "y": "int", "tags": "tuple", "return": None},
}


def _behaviour(result: dict) -> dict:
    return {k: result[k] for k in EXPECTED}


def test_a_second_run_compiles_nothing_and_its_classes_are_the_same(tmp_path):
    first = _run(tmp_path)
    assert _behaviour(first) == EXPECTED
    assert first["compiled"] > 0
    [cache] = _cache_files(tmp_path)  # beside the bytecode, where PYTHONPYCACHEPREFIX puts it
    second = _run(tmp_path)
    assert _behaviour(second) == EXPECTED
    assert second["compiled"] == 0 and second["kept"] >= first["compiled"]
    assert first["outside"] == second["outside"] == 0  # another module's class: compiled as always, not kept


def test_a_damaged_file_is_compiled_over(tmp_path):
    _run(tmp_path)
    [cache] = _cache_files(tmp_path)
    with open(cache, "r+b") as handle:
        data = handle.read()
        handle.seek(0)
        handle.write(data[: len(data) // 2])  # truncated, as a crash while writing would not leave it
        handle.truncate()
    damaged = _run(tmp_path)
    assert _behaviour(damaged) == EXPECTED and damaged["compiled"] > 0
    assert _run(tmp_path)["compiled"] == 0  # written whole again


def test_nothing_is_written_where_python_writes_no_bytecode(tmp_path):
    result = _run(tmp_path, PYTHONDONTWRITEBYTECODE="1")
    assert _behaviour(result) == EXPECTED
    assert _cache_files(tmp_path) == []
