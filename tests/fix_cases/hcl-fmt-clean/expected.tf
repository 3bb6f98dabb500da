# A file terraform fmt leaves as it is: each added argument is lined up with the run of
# single-line arguments it ends, as fmt lines it up, and the file stays fmt-clean.
resource "aws_sqs_queue" "orders" {
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.orders_dlq.arn
    maxReceiveCount     = 4
  })
  name                       = "orders" # the queue
  delay_seconds              = 0        # no delay
  visibility_timeout_seconds = 360
}

resource "aws_sqs_queue" "orders_dlq" {
  name = "orders-dlq"
  # a comment-only line ends the run above it

  message_retention_seconds = 1209600
}

resource "aws_sqs_queue" "audit" {
  name = "audit"

  tags = {
    team = "audit"
  }
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.audit_dlq.arn
    maxReceiveCount     = 5
  })
  visibility_timeout_seconds = 360
}

resource "aws_sqs_queue" "audit_dlq" {
  name                      = "audit-dlq"
  message_retention_seconds = 1209600
}

resource "aws_lambda_function" "worker" {
  function_name = "worker"
  timeout       = 60
}

resource "aws_lambda_event_source_mapping" "orders" {
  event_source_arn        = aws_sqs_queue.orders.arn
  function_name           = aws_lambda_function.worker.arn
  function_response_types = ["ReportBatchItemFailures"]
}

resource "aws_lambda_event_source_mapping" "audit" {
  event_source_arn = aws_sqs_queue.audit.arn
  function_name    = aws_lambda_function.worker.arn
  scaling_config {
    maximum_concurrency = 2
  }
  function_response_types = ["ReportBatchItemFailures"]
}

resource "aws_sns_topic" "orders" {}

resource "aws_sns_topic_subscription" "orders" {
  topic_arn            = aws_sns_topic.orders.arn
  protocol             = "sqs"
  endpoint             = aws_sqs_queue.orders.arn
  raw_message_delivery = true
}
