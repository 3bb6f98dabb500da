"""Hypothesis's settings for the property tests, imported by each module that has them
(before its first ``@settings``, which reads the profile when it is made): CI runs them
with a fixed seed so that a landing is reproducible; local runs explore new examples
each time. Only those modules import Hypothesis (over a second), not every process the
suite starts."""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
