"""fanout-lint: a linter for SNS/SQS/Lambda fan-out topologies in CloudFormation and Terraform."""

__version__ = "0.1.0"

