"""JSON documents held by CloudFormation properties: ``RedrivePolicy``, ``PolicyDocument``.

A ``Json`` property may be written as a mapping, as a string holding JSON, or as a
``Fn::Sub``/``Fn::Join`` that builds that string around references
(``"deadLetterTargetArn": "${DLQ.Arn}"``). All three decode to the same document; in the
last, each reference stays an intrinsic the loader follows like any other.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from fanout_lint.loaders.cloudformation.intrinsics import Intrinsics, sub_references
from fanout_lint.loaders.parsing.located import MAX_DEPTH
from fanout_lint.model.nodes import NONE
from fanout_lint.model.values import Known, Unknown, Value

if TYPE_CHECKING:
    from typing import Any


def json_property(x: Intrinsics, raw: Any) -> Value:
    """A CloudFormation ``Json`` property: an object, or a string holding JSON."""
    if raw is None:
        return NONE
    if isinstance(raw, dict) and not _is_intrinsic(raw):
        return Known(raw)
    text = x.value(raw)
    if isinstance(text, Known) and isinstance(text.value, str):
        try:
            parsed = json.loads(text.value)
        except (ValueError, RecursionError):
            return Unknown("not valid JSON")
        return Known(parsed) if isinstance(parsed, dict) else Unknown("not a JSON object")
    template = _json_template(raw)
    if template is not None:
        return _sub_json(x, *template)
    return text if not isinstance(text, Known) else Unknown("not a JSON object")


def _json_template(raw: Any) -> tuple[str, dict] | None:
    """A ``Fn::Sub`` or ``Fn::Join`` string as Sub text plus its variable map.

    A Join's non-string items become variables, so ``["{...", !GetAtt DLQ.Arn, "...}"]``
    reads like ``!Sub ["{...${v1}...}", {v1: !GetAtt DLQ.Arn}]``.
    """
    if not isinstance(raw, dict) or len(raw) != 1:
        return None
    (key, arg), = raw.items()
    if key == "Fn::Sub":
        if isinstance(arg, str):
            return arg, {}
        if isinstance(arg, list) and len(arg) == 2 and isinstance(arg[0], str) and isinstance(arg[1], dict):
            return arg[0], dict(arg[1])
        return None
    if key == "Fn::Join" and isinstance(arg, list) and len(arg) == 2:
        delimiter, items = arg
        if not isinstance(delimiter, str) or not isinstance(items, list):
            return None
        parts, variables = [], {}
        for index, item in enumerate(items):
            if isinstance(item, str):
                parts.append(item.replace("${", "${!"))
            else:
                name = f"fanout-lint-join-{index}"
                variables[name] = item
                parts.append("${%s}" % name)
        return delimiter.join(parts), variables
    return None


_REFERABLE = ("Arn", "QueueName", "TopicName", "QueueUrl", "TopicArn")
_LONGEST_REFERABLE = max(map(len, _REFERABLE))


def _sub_json(x: Intrinsics, text: str, variables: dict) -> Value:
    """A ``!Sub`` JSON string whose ``${X.Arn}`` names a resource: keep the reference."""
    pieces = []
    last = 0
    for start, end, name in _attribute_references(text):
        if name in x.resource_types:
            pieces.append(text[last:start])
            pieces.append("${%s}" % name)
            last = end
    pieces.append(text[last:])
    placeholder = "".join(pieces)
    pieces = []
    last = 0
    for start, end, name in sub_references(placeholder, literal_too=True):
        pieces.append(placeholder[last:start])
        pieces.append("@@" + name + "@@")
        last = end
    pieces.append(placeholder[last:])
    try:
        parsed = json.loads("".join(pieces))
    except (ValueError, RecursionError):
        return Unknown("Fn::Sub JSON with unresolved parts")
    try:
        return Known(_restore_refs(parsed, variables, 0))
    except _TooDeep:
        return Unknown("Fn::Sub JSON nested too deeply")


def _attribute_references(text: str) -> list[tuple[int, int, str]]:
    """The ``${Name.Arn}``-style spans of a Sub string (Arn, QueueName, ... only):
    (start, end, Name), as the pattern
    ``\\$\\{([^}!.][^}.]*)\\.(Arn|QueueName|TopicName|QueueUrl|TopicArn)\\}`` finds them.

    In one pass, remembering the next ``}`` and the next ``.``: the pattern would scan from
    every ``${`` to the end of a string that has neither.
    """
    spans: list[tuple[int, int, str]] = []
    find = text.find
    position = 0
    close = dot = -1
    while True:
        start = find("${", position)
        if start < 0:
            return spans
        position = start + 1
        if close < start + 2:
            close = find("}", start + 2)
            if close < 0:
                return spans
        if dot < start + 2:
            dot = find(".", start + 2)
            if dot < 0:
                return spans  # every span needs a dot
        if dot == start + 2 or dot > close or text[start + 2] == "!":
            continue
        if close - dot - 1 <= _LONGEST_REFERABLE and text[dot + 1:close] in _REFERABLE:
            spans.append((start, close + 1, text[start + 2:dot]))
            position = close + 1


class _TooDeep(Exception):
    pass


def _restore_refs(value: Any, variables: dict, depth: int) -> Any:
    if depth > MAX_DEPTH:
        raise _TooDeep
    if isinstance(value, dict):
        return {k: _restore_refs(v, variables, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_restore_refs(v, variables, depth + 1) for v in value]
    if isinstance(value, str) and value.startswith("@@") and value.endswith("@@") and "@@" not in value[2:-2]:
        name = value[2:-2]
        return variables.get(name, {"Ref": name})
    if isinstance(value, str) and "@@" in value:
        text = _marks_as_sub(value)
        return {"Fn::Sub": [text, variables] if variables else text}
    return value


def _marks_as_sub(text: str) -> str:
    """``@@name@@`` back to ``${name}``, as ``re.sub(r"@@([^@]+)@@", r"${\\1}", text)``,
    with ``str.find`` from a moving cursor."""
    pieces = []
    find = text.find
    last = position = 0
    while True:
        start = find("@@", position)
        if start < 0:
            break
        close = find("@", start + 2)
        if close < 0:
            break  # no later @@ can close either
        if close == start + 2 or not text.startswith("@@", close):
            position = start + 1
            continue
        pieces.append(text[last:start])
        pieces.append("${" + text[start + 2:close] + "}")
        last = position = close + 2
    pieces.append(text[last:])
    return "".join(pieces)


def _is_intrinsic(raw: dict) -> bool:
    return len(raw) == 1 and str(next(iter(raw))).startswith(("Fn::", "Ref"))
