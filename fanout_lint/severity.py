"""How much a finding matters: part of the rule API (``fanout_lint.rule`` re-exports it).

It lives apart from the result records so that a rule names its level without reading
the output layer; ``fanout_lint.results.records`` imports it from here for the records.
"""

from __future__ import annotations

import enum


class Severity(enum.Enum):
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"

    @property
    def rank(self) -> int:
        return {"info": 0, "warning": 1, "error": 2}[self.value]

    @classmethod
    def parse(cls, text: str) -> Severity:
        try:
            return cls(text.strip().lower())
        except ValueError:
            raise ValueError(f"unknown severity {text!r} (use error, warning or info)") from None
