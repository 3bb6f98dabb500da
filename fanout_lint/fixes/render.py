"""Values and entries as each syntax writes them, and the test for a value written literally.

YAML: ``360``, ``true``, ``[ReportBatchItemFailures]``; JSON: ``json.dumps``; HCL:
``360``, ``true``, ``["ReportBatchItemFailures"]``. A replaced value keeps its quotes: a
template that writes ``VisibilityTimeout: "30"`` gets ``"360"``.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

YAML, JSON, HCL = "yaml", "json", "hcl"

# A YAML plain scalar that reads back as the same string (no indicator, no number, no
# boolean or null word): anything else is written double-quoted, which is also JSON.
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_./-]*\Z")
_YAML_WORDS = {"true", "false", "yes", "no", "on", "off", "y", "n", "null", "~"}


def value(syntax: str, raw: Any) -> str:
    if isinstance(raw, bool):
        return "true" if raw else "false"
    if isinstance(raw, int):
        return str(raw)
    if isinstance(raw, (list, tuple)):
        return "[" + ", ".join(value(syntax, item) for item in raw) + "]"
    text = str(raw)
    if syntax == YAML and _PLAIN.match(text) and text.lower() not in _YAML_WORDS:
        return text
    quoted = json.dumps(text, ensure_ascii=False)
    if syntax == HCL:  # a template sequence would be evaluated
        quoted = quoted.replace("${", "$${").replace("%{", "%%{")
    return quoted


def key(syntax: str, name: str) -> str:
    return json.dumps(name) if syntax == JSON else name


def entry(syntax: str, name: str, written: str) -> str:
    """One setting: ``Key: value``, ``"Key": value``, ``key = value``."""
    if syntax == HCL:
        return f"{name} = {written}"
    return f"{key(syntax, name)}: {written}"


def replacement(syntax: str, raw: Any, old: str) -> str:
    """``raw`` written in place of the value ``old``, in the same quotes when it was a
    quoted scalar and the new value is a number or a boolean."""
    if old[:1] in ("'", '"') and old[-1:] == old[:1] and len(old) >= 2 and isinstance(raw, (int, bool)):
        return old[0] + value(YAML, raw) + old[0]
    return value(syntax, raw)


def is_literal(syntax: str, text: str, column: int) -> bool:
    """The value's text is a plain literal (a scalar or a list of scalars), so replacing it
    changes this setting alone. Not an intrinsic, a reference, an expression, a YAML
    anchor (its aliases would change with it) or an alias, a tag, or a block scalar."""
    stripped = text.strip()
    if not stripped or stripped[0] in "&*!|>":
        return False
    if syntax == YAML:
        return _yaml_literal(text, column)
    if syntax == HCL and ("${" in text or "%{" in text):
        return False
    try:
        parsed = json.loads(text)  # JSON literals, and HCL's simple ones (30, true, "30", ["a"])
    except ValueError:
        return False
    return _scalars(parsed)


# A plain scalar YAML reads as a string, boolean or null (a word: no number, date or
# indicator can start with a letter) or as an integer (digits alone): a literal, known
# without a YAML parser (PyYAML's, in Python, costs a fifth of a millisecond a value).
_PLAIN_WORD_OR_DIGITS = re.compile(r"[A-Za-z][A-Za-z0-9_-]*\Z|[0-9]+\Z")


def _yaml_literal(text: str, column: int) -> bool:
    if _PLAIN_WORD_OR_DIGITS.match(text):
        return True
    import yaml

    try:
        # the value as it sits in its line: a block sequence's items keep their indentation
        parsed = yaml.safe_load(" " * (column - 1) + text)
    except yaml.YAMLError:
        return False
    return _scalars(parsed)


def _scalars(parsed: Any) -> bool:
    if isinstance(parsed, list):
        return all(_scalar(item) for item in parsed)
    return _scalar(parsed)


def _scalar(item: Any) -> bool:
    return item is None or isinstance(item, (str, int, float, bool))
