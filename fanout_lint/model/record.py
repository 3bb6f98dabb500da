"""One ``__repr__``, and one ``__eq__`` and ``__hash__``, for the package's records,
instead of methods compiled for each class.

``dataclass()`` writes the source of each method it adds and compiles it at every start;
nothing of it is in the bytecode cache. The methods here are compiled once, with the
module, and read a record's fields when they run.
"""

from __future__ import annotations

from dataclasses import fields
from functools import cache


class Record:
    """The base of a dataclass record that shows itself as ``dataclasses`` would,
    ``Name(field=value, ...)`` over the fields whose ``repr`` is on. ``dataclass()`` writes
    and compiles that method for each class at every start (about 3 ms of a one-template
    run); this one reads the fields when a repr is asked for, which is in failing tests
    and debugging only. Such a record says ``repr=False`` to ``dataclass()``."""

    __slots__ = ()  # slotted records stay without a __dict__

    def __repr__(self) -> str:
        shown = ", ".join(f"{field.name}={getattr(self, field.name)!r}" for field in fields(self) if field.repr)
        return f"{type(self).__qualname__}({shown})"


class ValueRecord(Record):
    """A record that is a value: equal to a record of its own class whose compared fields
    are equal, and hashed by them, as ``dataclass(unsafe_hash=True)`` would make it (the
    same hash, too). That is two methods fewer to compile for each class at every start:
    46 on a one-template run, about 2 ms. They cost a run no more than the compiled ones
    did: a run compares records seldom, and hashes one of a setting's values now and then.
    Such a record says ``eq=False`` to ``dataclass()``, so that it keeps these."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return compared(self) == compared(other)

    def __hash__(self) -> int:
        return hash(compared(self))


def compared(record: ValueRecord) -> tuple:
    """The values of ``record``'s compared fields, in order: what equality and the hash read."""
    return tuple([getattr(record, name) for name in _compared_names(record.__class__)])


@cache  # per class: a hostile template's value may hold a million records, each hashed
def _compared_names(cls: type) -> tuple[str, ...]:
    return tuple(field.name for field in fields(cls) if field.compare)
