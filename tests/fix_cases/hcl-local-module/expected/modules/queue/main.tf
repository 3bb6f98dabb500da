# A module's literal is fixed in the module's file; an argument that reads a variable
# is not (every caller passes its own value).
variable "name" {}
variable "timeout" {}
variable "dlq_retention" {}

resource "aws_sqs_queue" "this" {
  name                       = var.name
  visibility_timeout_seconds = 360
  redrive_policy             = jsonencode({ deadLetterTargetArn = aws_sqs_queue.dlq.arn, maxReceiveCount = 5 })
}

resource "aws_sqs_queue" "dlq" {
  name                      = "${var.name}-dlq"
  message_retention_seconds = var.dlq_retention
}

resource "aws_lambda_function" "worker" {
  function_name = var.name
  timeout       = var.timeout
}

resource "aws_lambda_event_source_mapping" "this" {
  event_source_arn        = aws_sqs_queue.this.arn
  function_name           = aws_lambda_function.worker.arn
  function_response_types = ["ReportBatchItemFailures"]
}
