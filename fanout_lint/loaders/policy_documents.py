"""IAM policy documents reduced to the statements the permission rules ask about.

Shared by the CloudFormation and Terraform loaders. A loader passes
``value_of(x) -> Value`` to evaluate a leaf (intrinsics, interpolations). A statement whose principal or action the template does not prove keeps ``None`` there,
so rules can stay silent about it.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from fanout_lint.loaders.parsing.located import loc_of
from fanout_lint.model.nodes import Loc, Statement
from fanout_lint.model.permissions import ACCOUNT_PRINCIPAL, ACCOUNT_ROOT
from fanout_lint.model.values import Known, Unknown, Value

if TYPE_CHECKING:
    from typing import Any, Callable

if TYPE_CHECKING:
    ValueOf = Callable[[Any], Value]


def parse_policy(document: Any, loc: Loc, value_of: ValueOf, arn_principals: bool = False,
                 target_of: Any = None) -> Value:
    """``Known(tuple[Statement, ...])`` or ``Unknown`` for a whole policy document.

    ``arn_principals``: an ``AWS`` principal the template writes as an ARN it cannot
    evaluate (``!Sub "arn:aws:iam::${AWS::AccountId}:root"``) is kept as ``ACCOUNT_PRINCIPAL``,
    which names no service and is not ``*`` (key policies, where every statement has one).
    ``target_of(raw) -> node id | None`` resolves a ``Resource`` entry that is a reference."""
    if document is None:
        return Unknown("no policy document")
    if not isinstance(document, dict):
        text = value_of(document)
        if not isinstance(text, Known) or not isinstance(text.value, str):
            return Unknown("policy document is not known")
        try:
            document = json.loads(text.value)
        except (ValueError, RecursionError):
            return Unknown("policy document is not valid JSON")
        if not isinstance(document, dict):
            return Unknown("policy document is not an object")
    raw = document.get("Statement")
    if isinstance(raw, dict):
        raw = [raw]
    if not isinstance(raw, list):
        return Unknown("policy statements are not known")
    statements = []
    for index, item in enumerate(raw):
        item_loc = loc_of(raw, index, loc)
        if not isinstance(item, dict):
            return Unknown("a policy statement is not known")
        statements.append(_statement(item, item_loc, value_of, arn_principals, target_of))
    return Known(tuple(statements))


def _statement(item: dict, loc: Loc, value_of: ValueOf, arn_principals: bool = False,
               target_of: Any = None) -> Statement:
    effect = value_of(item.get("Effect"))
    effect_text = effect.value if isinstance(effect, Known) and isinstance(effect.value, str) else "?"
    keys: set[str] = set()
    conditions = item.get("Condition")
    if isinstance(conditions, dict):
        for operator_block in conditions.values():
            if not isinstance(operator_block, dict):
                keys.add("?")
                continue
            for key in operator_block:
                keys.add(str(key).lower())
    elif conditions is not None:
        keys.add("?")  # a condition we cannot read still restricts the statement
    return Statement(
        effect=effect_text,
        principals=_principals(item, value_of, arn_principals),
        # NotAction allows everything it does not list: not provable with a list of actions.
        actions=None if "NotAction" in item else _strings(item.get("Action"), value_of),
        condition_keys=frozenset(keys),
        loc=loc,
        resources=None if "NotResource" in item else _resources(item.get("Resource"), value_of, target_of),
        wildcard_keys=_wildcard_keys(conditions, value_of),
    )


def _principals(item: dict, value_of: ValueOf, arn_principals: bool = False) -> tuple[str, ...] | None:
    if "NotPrincipal" in item:
        return None
    principal = item.get("Principal")
    if principal is None:
        return ()
    if isinstance(principal, dict) and not _is_intrinsic(principal):
        found: list[str] = []
        for kind, names in principal.items():
            strings = _strings(names, value_of)
            if strings is None and arn_principals and kind == "AWS":
                strings = _arn_strings(names, value_of)
            if strings is None:
                return None
            if kind in ("AWS", "Service", "CanonicalUser", "Federated"):
                found.extend(strings)
        return tuple(found)
    return _strings(principal, value_of)


_MAX_NESTING = 32  # of lists in an Action or Principal; deeper is not a policy AWS takes


def _strings(raw: Any, value_of: ValueOf, depth: int = 0) -> tuple[str, ...] | None:
    """A string or list of strings, every one proved; None otherwise."""
    if raw is None:
        return ()
    if depth > _MAX_NESTING:
        return None
    items = raw if isinstance(raw, list) else [raw]
    out = []
    for item in items:
        value = value_of(item)
        if not isinstance(value, Known):
            return None
        if isinstance(value.value, str):
            out.append(value.value)
        elif isinstance(value.value, list):
            nested = _strings(value.value, value_of, depth + 1)
            if nested is None:
                return None
            out.extend(nested)
        else:
            return None
    return tuple(out)


# -- resources and wildcard conditions (failure paths) ---------------------------------

def _resources(raw: Any, value_of: ValueOf, target_of: Any) -> tuple[tuple[str, str], ...] | None:
    if raw is None:
        return ()
    out = []
    for item in (raw if isinstance(raw, list) else [raw])[:_MAX_RESOURCES]:
        value = value_of(item)
        if isinstance(value, Known) and isinstance(value.value, str):
            out.append(("text", value.value))
            continue
        node = target_of(item) if target_of is not None else None
        if not node:
            return None
        out.append(("ref", node))
    return tuple(out) if not isinstance(raw, list) or len(raw) <= _MAX_RESOURCES else None


_MAX_RESOURCES = 256  # entries of one Resource read; more is not proved
# Operators under which "*" in a value matches anything (IfExists and set prefixes aside).
_PATTERN_OPERATORS = ("arnlike", "arnequals", "stringlike")


def _wildcard_keys(conditions: Any, value_of: ValueOf) -> frozenset[str]:
    if not isinstance(conditions, dict):
        return frozenset()
    wildcard: set[str] = set()
    other: set[str] = set()
    for operator, block in conditions.items():
        if not isinstance(block, dict):
            return frozenset()
        base = str(operator).lower().split(":")[-1].removesuffix("ifexists")
        for key, raw in block.items():
            values = _strings(raw, value_of)
            matches_all = base in _PATTERN_OPERATORS and bool(values) and all(_matches_anything(v) for v in values)
            (wildcard if matches_all else other).add(str(key).lower())
    return frozenset(wildcard - other)


def _matches_anything(pattern: str) -> bool:
    """``*``, or an ARN pattern whose region, account and resource are all ``*`` or empty
    (``arn:aws:s3:::*``, ``arn:aws:sns:*:*:*``)."""
    if pattern == "*":
        return True
    parts = pattern.split(":", 5)
    return (len(parts) == 6 and parts[0] == "arn" and all(p in ("", "*") for p in parts[3:5])
            and parts[5] in ("*", "*/*"))


# -- principals written as ARNs the template cannot evaluate (key policies) ------------

# ACCOUNT_PRINCIPAL and ACCOUNT_ROOT live in the model (permissions.py): rules read them too.


def _arn_strings(raw: Any, value_of: ValueOf) -> tuple[str, ...] | None:
    items = raw if isinstance(raw, list) else [raw]
    out = []
    for item in items:
        value = value_of(item)
        if isinstance(value, Known) and isinstance(value.value, str):
            out.append(value.value)
        elif _proves_arn(item):
            out.append(ACCOUNT_ROOT if _ends_with_root(item) else ACCOUNT_PRINCIPAL)
        else:
            return None
    return tuple(out)


def _proves_arn(raw: Any) -> bool:
    """The raw form is an ARN or an account ID whatever it evaluates to: a ``Fn::Sub`` or
    ``Fn::Join`` whose text starts with ``arn:``, an ``Fn::GetAtt`` (an ARN attribute),
    ``Ref AWS::AccountId``, or a Terraform string interpolation that starts with ``arn:``."""
    if isinstance(raw, dict) and len(raw) == 1:
        key, body = next(iter(raw.items()))
        if key == "Fn::Sub":
            text = body[0] if isinstance(body, list) and body else body
            return isinstance(text, str) and text.startswith("arn:")
        if key == "Fn::Join":
            parts = body[1] if isinstance(body, list) and len(body) == 2 else None
            return isinstance(parts, list) and bool(parts) and isinstance(parts[0], str) and parts[0].startswith("arn:")
        if key == "Fn::GetAtt":
            return True
        return key == "Ref" and body == "AWS::AccountId"
    parts = getattr(raw, "parts", None)  # Terraform's Interpolated: text and references
    return isinstance(parts, tuple) and bool(parts) and isinstance(parts[0], str) and parts[0].startswith("arn:")


def _ends_with_root(raw: Any) -> bool:
    if isinstance(raw, dict):
        key, body = next(iter(raw.items()))
        if key == "Fn::Sub":
            text = body[0] if isinstance(body, list) and body else body
            return isinstance(text, str) and text.endswith(":root")
        parts = body[1] if key == "Fn::Join" and isinstance(body, list) and len(body) == 2 else None
        return isinstance(parts, list) and bool(parts) and isinstance(parts[-1], str) and parts[-1].endswith(":root")
    parts = getattr(raw, "parts", None)
    return isinstance(parts, tuple) and bool(parts) and isinstance(parts[-1], str) and parts[-1].endswith(":root")


def _is_intrinsic(node: dict) -> bool:
    return len(node) == 1 and next(iter(node)).startswith(("Fn::", "Ref"))
