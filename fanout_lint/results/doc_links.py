"""Where the project and its rule pages live; SARIF ``helpUri`` and docs links use these.

No release is tagged yet, so the rule pages are those of the default branch, the only
address that exists for every install (from a commit, a clone or an archive). From the
first release on, ``RULE_REF`` becomes the release's tag (``f"v{__version__}"``), so that
a finding links to the page of the rule that made it, not a newer one. ``--docs-url`` and
the ``docs-url`` setting point them elsewhere (a fork, an internal mirror, a commit).
"""

from __future__ import annotations

PROJECT_URL = "https://github.com/fanout-lint/fanout-lint"
RULE_REF = "main"  # the first release: f"v{__version__}"
# the generated rule pages, docs/rules/<rule name>.md
RULE_DOCS_URL = f"{PROJECT_URL}/blob/{RULE_REF}/docs/rules/"
# what to install while the package is not on PyPI: the repository itself
INSTALL_SOURCE = f"git+{PROJECT_URL}"


def rule_url(rule_name: str, docs_url: str | None = None) -> str:
    return f"{docs_url or RULE_DOCS_URL}{rule_name}.md"
