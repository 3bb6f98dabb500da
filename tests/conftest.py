import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

# CI runs the property tests with a fixed seed so that a landing is reproducible; local
# runs explore new examples each time.
try:
    from hypothesis import settings as _hypothesis_settings

    _hypothesis_settings.register_profile("ci", derandomize=True, print_blob=True)
    if os.environ.get("CI"):
        _hypothesis_settings.load_profile("ci")
except ImportError:  # hypothesis is a test extra
    pass


import pytest


@pytest.fixture(autouse=True)
def _private_cache_dir(tmp_path_factory, monkeypatch):
    """Each test's runs cache parsed files in a directory of their own, never the user's:
    tests stay hermetic, and a cache left by one test cannot decide another."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg-cache")))
