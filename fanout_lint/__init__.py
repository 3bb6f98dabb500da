"""fanout-lint: a linter for SNS/SQS/Lambda fan-out topologies in CloudFormation and Terraform."""

__version__ = "0.1.0"

# Before any module of the package defines a dataclass: their generated methods are
# compiled once and kept, not compiled again at every start (see method_cache.py).
from fanout_lint import method_cache as _method_cache  # noqa: E402

_method_cache.install()
