"""A rule's documentation as text, from the one source: its module docstring and metadata.

``fanout-lint explain`` prints it; the generated pages in docs/rules/ use the same text.
"""

from __future__ import annotations

from fanout_lint.rule import Rule, _dedent


def render(rule: Rule) -> str:
    lines = [
        f"# {rule.name} ({rule.id})",
        "",
        f"Default severity: {rule.severity.value}",
        "",
        rule.summary + ".",
        "",
        _dedent(rule.doc),
        "",
    ]
    if rule.options:
        lines += ["## Options", ""]
        for option in rule.options:
            lines.append(f"- `{option.name}` (default `{option.default}`): {option.description}")
        lines.append("")
    return "\n".join(lines)
