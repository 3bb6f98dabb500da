"""fanout-lint: a linter for SNS/SQS/Lambda fan-out topologies in CloudFormation, Serverless Framework,
Terraform and OpenTofu."""

__version__ = "0.1.0"

