"""IAM policy documents reduced to the statements the permission rules ask about.

Shared by the CloudFormation and Terraform loaders. A loader passes two callbacks:
``value_of(x) -> Value`` to evaluate a leaf (intrinsics, interpolations) and
``target_of(x) -> node id | None`` to follow a reference such as ``aws:SourceArn``.
A statement whose principal or action the template does not prove keeps ``None`` there,
so rules can stay silent about it.
"""

from __future__ import annotations

import json
from typing import Any, Callable

from fanout_lint.loaders.source import loc_of
from fanout_lint.model.nodes import Loc, Statement
from fanout_lint.model.values import Known, Unknown, Value

ValueOf = Callable[[Any], Value]
TargetOf = Callable[[Any, Loc], "str | None"]

SOURCE_KEYS = frozenset({"aws:sourcearn", "aws:sourceaccount", "aws:sourceowner"})


def parse_policy(document: Any, loc: Loc, value_of: ValueOf, target_of: TargetOf) -> Value:
    """``Known(tuple[Statement, ...])`` or ``Unknown`` for a whole policy document."""
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
        statements.append(_statement(item, item_loc, value_of, target_of))
    return Known(tuple(statements))


def _statement(item: dict, loc: Loc, value_of: ValueOf, target_of: TargetOf) -> Statement:
    effect = value_of(item.get("Effect"))
    effect_text = effect.value if isinstance(effect, Known) and isinstance(effect.value, str) else "?"
    keys: set[str] = set()
    source_arns: list[str] = []
    conditions = item.get("Condition")
    if isinstance(conditions, dict):
        for operator_block in conditions.values():
            if not isinstance(operator_block, dict):
                keys.add("?")
                continue
            for key, expected in operator_block.items():
                keys.add(str(key).lower())
                if str(key).lower() == "aws:sourcearn":
                    for one in expected if isinstance(expected, list) else [expected]:
                        target = target_of(one, loc)
                        if target:
                            source_arns.append(target)
    elif conditions is not None:
        keys.add("?")  # a condition we cannot read still restricts the statement
    return Statement(
        effect=effect_text,
        principals=_principals(item, value_of),
        # NotAction allows everything it does not list: not provable with a list of actions.
        actions=None if "NotAction" in item else _strings(item.get("Action"), value_of),
        condition_keys=frozenset(keys),
        loc=loc,
        source_arns=tuple(source_arns),
    )


def _principals(item: dict, value_of: ValueOf) -> tuple[str, ...] | None:
    if "NotPrincipal" in item:
        return None
    principal = item.get("Principal")
    if principal is None:
        return ()
    if isinstance(principal, dict) and not _is_intrinsic(principal):
        found: list[str] = []
        for kind, names in principal.items():
            strings = _strings(names, value_of)
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


def _is_intrinsic(node: dict) -> bool:
    return len(node) == 1 and next(iter(node)).startswith(("Fn::", "Ref"))


def allows(statement: Statement, principal: str, actions: tuple[str, ...]) -> bool | None:
    """Does the statement allow ``principal`` one of ``actions``? None when not proved."""
    if statement.effect != "Allow":
        return False if statement.effect == "Deny" else None
    if statement.principals is None or statement.actions is None:
        return None
    principal_ok = any(_principal_matches(p, principal) for p in statement.principals)
    action_ok = any(_action_matches(a, actions) for a in statement.actions)
    return principal_ok and action_ok


def _principal_matches(written: str, wanted: str) -> bool:
    if written == "*":
        return True
    # Opt-in Regions name the service with its Region: sns.ap-east-1.amazonaws.com.
    service = wanted.split(".")[0]
    return written == wanted or (
        written.startswith(service + ".") and written.endswith(".amazonaws.com")
    )


def _action_matches(written: str, actions: tuple[str, ...]) -> bool:
    written = written.lower()
    if written == "*":
        return True
    for action in actions:
        service = action.split(":")[0].lower()
        if written == action.lower() or written == f"{service}:*":
            return True
        if written.endswith("*") and action.lower().startswith(written[:-1]):
            return True
    return False
