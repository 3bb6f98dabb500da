"""The HCL parser and the expressions it evaluates."""
