# Arguments replaced in place and added before the closing brace, indented as the
# other arguments; one-line blocks are opened up, as HCL allows one argument on one line.
resource "aws_sqs_queue" "orders" {
  name                       = "orders" # the queue
  visibility_timeout_seconds = 360
  redrive_policy = jsonencode({ deadLetterTargetArn = aws_sqs_queue.orders_dlq.arn, maxReceiveCount = 5 })

  tags = {
    team = "orders"
  }
  # trailing comment before the brace
}

resource "aws_sqs_queue" "orders_dlq" {
  message_retention_seconds = 1209600
}

resource "aws_sqs_queue" "audit" {
  name                       = "audit"
  visibility_timeout_seconds = 360
}

resource "aws_sqs_queue" "audit_dlq" {
	name = "audit-dlq"
	message_retention_seconds = 1209600
}

resource "aws_sqs_queue_redrive_policy" "audit" {
  queue_url      = aws_sqs_queue.audit.id
  redrive_policy = jsonencode({ deadLetterTargetArn = aws_sqs_queue.audit_dlq.arn, maxReceiveCount = 4 })
}

resource "aws_lambda_function" "worker" {
  function_name = "worker"
  timeout       = 60
}

resource "aws_lambda_event_source_mapping" "orders" {
  event_source_arn = aws_sqs_queue.orders.arn
  function_name    = aws_lambda_function.worker.arn
  scaling_config {
    maximum_concurrency = 2
  }
  function_response_types = ["ReportBatchItemFailures"]
}

resource "aws_lambda_event_source_mapping" "audit" {
  event_source_arn        = aws_sqs_queue.audit.arn
  function_name           = aws_lambda_function.worker.arn
  function_response_types = ["ReportBatchItemFailures"]
}

resource "aws_sns_topic" "orders" {}

resource "aws_sns_topic_subscription" "orders" {
  topic_arn            = aws_sns_topic.orders.arn
  protocol             = "sqs"
  endpoint             = aws_sqs_queue.orders.arn
  raw_message_delivery = "true"
}
