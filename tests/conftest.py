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
