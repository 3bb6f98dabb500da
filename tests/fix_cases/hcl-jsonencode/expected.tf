# maxReceiveCount inside jsonencode({...}): replaced where written, added after the last
# element otherwise, one-line or multi-line, with or without trailing commas.
resource "aws_sqs_queue" "one_line" {
  redrive_policy = jsonencode({ deadLetterTargetArn = aws_sqs_queue.dlq.arn, maxReceiveCount = 5 })
}

resource "aws_sqs_queue" "one_line_comma" {
  redrive_policy = jsonencode({ deadLetterTargetArn = aws_sqs_queue.dlq.arn, maxReceiveCount = 5, })
}

resource "aws_sqs_queue" "multi_line" {
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.dlq.arn # the DLQ
    maxReceiveCount     = 5
  })
}

resource "aws_sqs_queue" "multi_line_commas" {
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.dlq.arn,
    maxReceiveCount     = 5,
    // maxReceiveCount left out on purpose
  })
}

resource "aws_sqs_queue" "written" {
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.dlq.arn
    maxReceiveCount     = 3
  })
}

resource "aws_sqs_queue" "heredoc" {
  redrive_policy = <<-EOF
    {"deadLetterTargetArn": "arn:aws:sqs:eu-west-1:123456789012:dlq", "maxReceiveCount": 50}
  EOF
}

resource "aws_sqs_queue" "dlq" {
  message_retention_seconds = 1209600
}
