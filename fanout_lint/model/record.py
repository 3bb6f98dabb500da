"""One ``__repr__`` for the package's records, instead of one compiled for each class."""

from __future__ import annotations

from dataclasses import fields


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
