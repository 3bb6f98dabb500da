"""Where the project and its rule pages live; SARIF ``helpUri`` and docs links use these."""

from __future__ import annotations

PROJECT_URL = "https://github.com/fanout-lint/fanout-lint"
# the generated rule pages, docs/rules/<rule name>.md on the default branch
RULE_DOCS_URL = PROJECT_URL + "/blob/main/docs/rules/"


def rule_url(rule_name: str) -> str:
    return f"{RULE_DOCS_URL}{rule_name}.md"
