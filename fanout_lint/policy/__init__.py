"""The policy stage: configuration, settings per directory, suppressions, baseline, fingerprints and the fail level."""
