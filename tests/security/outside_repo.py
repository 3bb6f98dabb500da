"""A repository's templates that name a queue only a file outside the checkout holds, for
the tests that put them behind a symbolic link, a hard link or a path that leaves the
repository (test_confinement.py, test_hostile_round2.py): nothing of them may be read,
so the queue's name must appear in no output."""

from __future__ import annotations

# What the command line says of a link it refuses to follow.
LINK = "(fanout-lint follows no symbolic link inside a repository)"
SECRET = "SecretQueueOutsideTheCheckout"

# FL202 (a safe fix) and FL204 on a queue read by a function.
TEMPLATE = f"""\
Resources:
  {SECRET}:
    Type: AWS::SQS::Queue
    Properties:
      VisibilityTimeout: 30
      RedrivePolicy: {{deadLetterTargetArn: !GetAtt DLQ.Arn, maxReceiveCount: 5}}
  DLQ:
    Type: AWS::SQS::Queue
    Properties:
      MessageRetentionPeriod: 1209600
  Worker:
    Type: AWS::Lambda::Function
    Properties:
      Timeout: 60
  Mapping:
    Type: AWS::Lambda::EventSourceMapping
    Properties:
      EventSourceArn: !GetAtt {SECRET}.Arn
      FunctionName: !Ref Worker
"""

MODULE = f"""\
resource "aws_sqs_queue" "{SECRET.lower()}" {{
  visibility_timeout_seconds = 30
}}

resource "aws_lambda_function" "worker" {{
  function_name = "worker"
  timeout       = 60
}}

resource "aws_lambda_event_source_mapping" "m" {{
  event_source_arn = aws_sqs_queue.{SECRET.lower()}.arn
  function_name    = aws_lambda_function.worker.arn
}}
"""
