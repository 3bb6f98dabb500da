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
        f"Fixable: {rule.fixable.value}",
        "",
        rule.summary + ".",
        "",
        _dedent(rule.doc),
        "",
    ]
    if rule.options:
        lines += ["## Options", ""]
        for option in rule.options:
            accepted = f"; one of {', '.join(option.accepted)}" if option.accepted else ""
            lines.append(f"- `{option.name}` ({option.type.value}, default `{option.default}`{accepted}): "
                         f"{option.description}")
        lines.append("")
    return "\n".join(lines)
