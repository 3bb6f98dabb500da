"""Property values as the rules see them: known (with where they came from) or unknown.

A template is not a running system. A value is ``Known`` when the template proves it
(a literal, an AWS default for an absent property, a parameter or variable default),
``Unknown`` when it depends on something we cannot see (an import, a parameter without
default, a module output), and ``OneOf`` when a condition picks between known values.

Rules never compare raw values: they ask ``verdict(predicate, *values)``, which is
``True`` only when the predicate holds for every combination of candidates. An unknown
value, or a condition whose branches disagree, gives ``None``: silence.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from fanout_lint.model.record import ValueRecord

if TYPE_CHECKING:
    from typing import Any, Callable

# Where a known value came from; the message of a finding says so when it matters.
LITERAL = "literal"
DEFAULT = "default"  # the AWS (or provider) default for an absent property
PARAMETER = "parameter"  # a CloudFormation parameter default
PASSED = "passed"  # a nested stack's parameter, as its parent stack passes it
VARIABLE = "variable"  # a Terraform variable default or tfvars value


# Made for almost every setting of every resource: slotted, hashable, never changed once
# made (not declared frozen: that costs three times as much to make).
@dataclass(slots=True, eq=False, repr=False)
class Known(ValueRecord):
    """A value the template proves, with where it came from."""

    value: Any
    origin: str = LITERAL
    detail: str = ""  # parameter or variable name, for the message
    # Where the template writes it (a site: ``entry()`` and ``value()`` give the spans), or None
    # for a value nobody wrote (an AWS default) or one built from several places.
    site: Any = field(default=None, compare=False, repr=False)


@dataclass(eq=False, repr=False)
class Unknown(ValueRecord):
    """A value the template does not prove; rules stay silent about it."""

    reason: str = "unknown"


@dataclass(eq=False, repr=False)
class OneOf(ValueRecord):
    """A value chosen by a condition (``Fn::If``, ``a ? b : c``)."""

    options: tuple[Known, ...]


Value = Known | Unknown | OneOf


def with_site(value: "Value", site: Any) -> "Value":
    """The value as written at ``site`` (each option of a choice that has no site yet)."""
    if site is None:
        return value
    if type(value) is Known:
        return value if value.site is not None else Known(value.value, value.origin, value.detail, site)
    if isinstance(value, OneOf):
        return OneOf(tuple(o if o.site is not None else Known(o.value, o.origin, o.detail, site)
                           for o in value.options))
    return value


def known(value: Any, origin: str = LITERAL, detail: str = "") -> Known:
    return Known(value, origin, detail)


def default(value: Any) -> Known:
    return Known(value, DEFAULT)


def candidates(value: Value) -> tuple[Known, ...] | None:
    """The known candidates of a value, or None when it is unknown."""
    if isinstance(value, Known):
        return (value,)
    if isinstance(value, OneOf):
        return value.options
    return None


def verdict(predicate: Callable[..., bool], *values: Value) -> bool | None:
    """True or False when every combination of candidates agrees, else None."""
    # The common case, no condition: rules ask this ~4 times a resource, so plain type
    # checks here instead of a generator.
    if len(values) == 1:
        if type(values[0]) is Known:
            return bool(predicate(values[0].value))
    else:
        for value in values:
            if type(value) is not Known:
                break
        else:
            return bool(predicate(*[value.value for value in values]))
    lists = []
    for value in values:
        options = candidates(value)
        if options is None:
            return None
        lists.append([o.value for o in options])
    results = {bool(predicate(*combo)) for combo in itertools.product(*lists)}
    if len(results) == 1:
        return results.pop()
    return None


def is_false(value: Value) -> bool:
    return verdict(bool, value) is False


def single(value: Value) -> Any:
    """The one known value, or None when unknown or when a condition chooses."""
    return value.value if isinstance(value, Known) else None


def combine(values: list[Value], merge: Callable[[list[Any]], Any]) -> Value:
    """Build a value from parts (Fn::Join, arithmetic); unknown if any part is."""
    lists = []
    for value in values:
        options = candidates(value)
        if options is None:
            reasons = [v.reason for v in values if isinstance(v, Unknown)]
            return Unknown(reasons[0] if reasons else "unknown")
        lists.append(options)
    results = []
    for combo in itertools.product(*lists):
        origin, detail = _weakest(combo)
        results.append(Known(merge([k.value for k in combo]), origin, detail))
        if len(results) > 16:  # a value chosen by many conditions is not worth tracking
            return Unknown("too many conditional combinations")
    return _dedupe(results)


def choice(options: list[Value]) -> Value:
    """The value of a conditional whose branches are ``options``."""
    flat: list[Known] = []
    for option in options:
        cands = candidates(option)
        if cands is None:
            return option if isinstance(option, Unknown) else Unknown("unknown")
        flat.extend(cands)
    return _dedupe(flat)


def _dedupe(options: list[Known]) -> Value:
    # Hashable values are told apart by a set (a scan of the kept ones per option is
    # quadratic, and conditions nested in a large template give thousands of options);
    # only lists, mappings and NaN are compared one by one, with the same test.
    unique: list[Known] = []
    seen: set = set()
    others: list[Known] = []
    for option in options:
        value = option.value
        key = (type(value), value)
        try:
            hash(key)
            hashable = not (isinstance(value, float) and value != value)
        except TypeError:
            hashable = False
        if hashable:
            if key in seen:
                continue
            seen.add(key)
        elif any(_same(value, o.value) for o in others):
            continue
        else:
            others.append(option)
        unique.append(option)
    if len(unique) == 1:
        return unique[0]
    return OneOf(tuple(unique))


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def _weakest(combo: tuple[Known, ...]) -> tuple[str, str]:
    # A value built from a parameter default rests on that default: say so.
    for k in combo:
        if k.origin in (PARAMETER, PASSED, VARIABLE):
            return k.origin, k.detail
    for k in combo:
        if k.origin == DEFAULT:
            return DEFAULT, ""
    return LITERAL, ""


def rests_on_input(value: Value) -> bool:
    """Some value ``value`` may be is a parameter's default or a variable's value: a deploy
    that sets it otherwise deploys something else, and a finding built on it says so."""
    options = candidates(value)
    return options is not None and any(o.origin in (PARAMETER, PASSED, VARIABLE) for o in options)


def describe(value: Value, unit: str = "") -> str:
    """Human text for a value, with its origin: ``30 s (default)``."""
    suffix = f" {unit}" if unit else ""
    options = candidates(value)
    if options is None:
        return "unknown"
    parts = []
    for option in options:
        text = _format(option.value) + suffix
        if option.origin == DEFAULT:
            text += " (default)"
        elif option.origin == PARAMETER:
            text += f" (default of parameter {option.detail})"
        elif option.origin == PASSED:
            text += f" (parameter {option.detail}, as the parent stack passes it)"
        elif option.origin == VARIABLE:
            text += f" (value of variable {option.detail})"
        parts.append(text)
    return " or ".join(parts)


def _format(raw: Any) -> str:
    if isinstance(raw, bool):
        return "true" if raw else "false"
    if isinstance(raw, int):
        return f"{raw:,}" if abs(raw) >= 10000 else str(raw)
    return str(raw)


def to_int(value: Value) -> Value:
    """Coerce numbers given as strings ("30") to int; anything else is unknown."""
    if type(value) is Known and type(value.value) is int:  # most: already one (_map would keep it)
        return value
    return _map(value, _int_or_none, "not a whole number")


def within(value: Value, low: int, high: int) -> Value:
    """``value`` when every whole number it may be lies in ``low..high``, else unknown: AWS
    refuses the setting, so the template proves nothing about what is deployed (and a fix
    computed from a 34-digit timeout would write a 35-digit one)."""
    if type(value) is Known:  # the common case
        raw = value.value
        return value if type(raw) is not int or low <= raw <= high else Unknown(_OUT_OF_RANGE)
    options = candidates(value)
    if options is not None and any(type(o.value) is int and not low <= o.value <= high for o in options):
        return Unknown(_OUT_OF_RANGE)
    return value


_OUT_OF_RANGE = "outside the range AWS accepts"


def to_bool(value: Value) -> Value:
    """Coerce "true"/"false" strings to bool; anything else is unknown."""
    if type(value) is Known and type(value.value) is bool:  # most: already one (_map would keep it)
        return value
    return _map(value, _bool_or_none, "not a boolean")


def _map(value: Value, convert: Callable[[Any], Any], reason: str) -> Value:
    if type(value) is Known:  # the common case: one known value
        if value.value is None:
            return value
        converted = convert(value.value)
        if converted is None:
            return Unknown(reason)
        return value if converted == value.value and type(converted) is type(value.value) else Known(
            converted, value.origin, value.detail, value.site
        )
    options = candidates(value)
    if options is None:
        return value
    out = []
    for option in options:
        if option.value is None:  # an absent setting stays absent
            out.append(option)
            continue
        converted = convert(option.value)
        if converted is None:
            return Unknown(reason)
        out.append(Known(converted, option.origin, option.detail, option.site))
    return _dedupe(out)


def _int_or_none(raw: Any) -> int | None:
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return raw
    if isinstance(raw, float) and raw.is_integer():
        return int(raw)
    if isinstance(raw, str):
        try:
            return int(raw.strip())
        except ValueError:
            try:
                as_float = float(raw)
            except ValueError:
                return None
            return int(as_float) if as_float.is_integer() else None
    return None


def _bool_or_none(raw: Any) -> bool | None:
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, str) and raw.strip().lower() in ("true", "false"):
        return raw.strip().lower() == "true"
    return None
