"""Where the project and its rule pages live; SARIF ``helpUri`` and docs links use these.

The rule pages are those of the release that runs: a rule's page on the default branch
may already describe a newer rule than the one that made the finding. ``--docs-url`` and
the ``docs-url`` setting point them elsewhere (a fork, an internal mirror).
"""

from __future__ import annotations

from fanout_lint import __version__

PROJECT_URL = "https://github.com/fanout-lint/fanout-lint"
RELEASE_TAG = f"v{__version__}"
# the generated rule pages, docs/rules/<rule name>.md at this release's tag
RULE_DOCS_URL = f"{PROJECT_URL}/blob/{RELEASE_TAG}/docs/rules/"


def rule_url(rule_name: str, docs_url: str | None = None) -> str:
    return f"{docs_url or RULE_DOCS_URL}{rule_name}.md"
