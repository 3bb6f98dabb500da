# A shipment-dispatched fan-out in Terraform, with mistakes. `fanout-lint examples/` reports them.

resource "aws_sns_topic" "shipment_dispatched" {
  name = "shipment-dispatched"
}

# Tracking and billing share one queue: each shipment reaches only one of them.
resource "aws_sqs_queue" "dispatch" {
  name = "dispatch"
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.dispatch_dlq.arn
    maxReceiveCount     = 5
  })
}

resource "aws_sqs_queue" "dispatch_dlq" {
  name                      = "dispatch-dlq"
  message_retention_seconds = 1209600
}

resource "aws_sns_topic_subscription" "dispatch" {
  topic_arn            = aws_sns_topic.shipment_dispatched.arn
  protocol             = "sqs"
  endpoint             = aws_sqs_queue.dispatch.arn
  raw_message_delivery = true
}

# No queue policy lets SNS send to the dispatch queue: deliveries fail silently.

resource "aws_lambda_function" "tracking" {
  function_name = "tracking"
  role          = "arn:aws:iam::123456789012:role/tracking"
  handler       = "tracking.handler"
  runtime       = "python3.12"
  filename      = "tracking.zip"
  timeout       = 10
}

resource "aws_lambda_function" "billing" {
  function_name = "billing"
  role          = "arn:aws:iam::123456789012:role/billing"
  handler       = "billing.handler"
  runtime       = "python3.12"
  filename      = "billing.zip"
  timeout       = 45
}

resource "aws_lambda_event_source_mapping" "tracking" {
  event_source_arn        = aws_sqs_queue.dispatch.arn
  function_name           = aws_lambda_function.tracking.arn
  function_response_types = ["ReportBatchItemFailures"]
}

resource "aws_lambda_event_source_mapping" "billing" {
  event_source_arn        = aws_sqs_queue.dispatch.arn
  function_name           = aws_lambda_function.billing.function_name
  function_response_types = ["ReportBatchItemFailures"]
}
