"""fanout-lint inside other tools (the cfn-lint plugin's engine)."""
