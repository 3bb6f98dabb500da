"""Where the repository's parts are, for a test module in any folder of tests/."""

from __future__ import annotations

import os

TESTS = os.path.dirname(os.path.abspath(__file__))  # tests/: fixtures/, fix_cases/, snapshots/, schemas/, tools/
ROOT = os.path.dirname(TESTS)
