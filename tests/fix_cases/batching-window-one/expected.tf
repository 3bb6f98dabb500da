resource "aws_sqs_queue" "orders_dlq" {
  message_retention_seconds = 1209600
}

resource "aws_sqs_queue" "orders" {
  visibility_timeout_seconds = 300
  redrive_policy             = jsonencode({ deadLetterTargetArn = aws_sqs_queue.orders_dlq.arn, maxReceiveCount = 5 })
}

resource "aws_lambda_function" "orders" {
  function_name = "orders"
  timeout       = 30
}

resource "aws_lambda_event_source_mapping" "orders" {
  event_source_arn                   = aws_sqs_queue.orders.arn
  function_name                      = aws_lambda_function.orders.arn
  function_response_types            = ["ReportBatchItemFailures"]
  batch_size                         = 100
  maximum_batching_window_in_seconds = 1
}

resource "aws_lambda_event_source_mapping" "zero" {
  event_source_arn                   = aws_sqs_queue.orders.arn
  function_name                      = aws_lambda_function.orders.arn
  function_response_types            = ["ReportBatchItemFailures"]
  batch_size                         = 50
  maximum_batching_window_in_seconds = 1
}
