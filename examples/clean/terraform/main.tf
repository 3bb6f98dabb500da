# The same fan-out done right: a queue, a DLQ and a function per consumer, raw delivery,
# a queue policy scoped to the topic, partial batch failures.

locals {
  consumers = {
    tracking = 10
    billing  = 45
  }
}

resource "aws_sns_topic" "shipment_dispatched" {
  name = "shipment-dispatched"
}

resource "aws_sqs_queue" "tracking" {
  name                       = "tracking"
  visibility_timeout_seconds = 6 * local.consumers.tracking
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.tracking_dlq.arn
    maxReceiveCount     = 5
  })
}

resource "aws_sqs_queue" "tracking_dlq" {
  name                      = "tracking-dlq"
  message_retention_seconds = 1209600
}

resource "aws_sqs_queue" "billing" {
  name                       = "billing"
  visibility_timeout_seconds = 6 * local.consumers.billing
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.billing_dlq.arn
    maxReceiveCount     = 5
  })
}

resource "aws_sqs_queue" "billing_dlq" {
  name                      = "billing-dlq"
  message_retention_seconds = 1209600
}

resource "aws_sns_topic_subscription" "tracking" {
  topic_arn            = aws_sns_topic.shipment_dispatched.arn
  protocol             = "sqs"
  endpoint             = aws_sqs_queue.tracking.arn
  raw_message_delivery = true
}

resource "aws_sns_topic_subscription" "billing" {
  topic_arn            = aws_sns_topic.shipment_dispatched.arn
  protocol             = "sqs"
  endpoint             = aws_sqs_queue.billing.arn
  raw_message_delivery = true
}

data "aws_iam_policy_document" "sns_send" {
  statement {
    effect    = "Allow"
    actions   = ["sqs:SendMessage"]
    resources = [aws_sqs_queue.tracking.arn, aws_sqs_queue.billing.arn]
    principals {
      type        = "Service"
      identifiers = ["sns.amazonaws.com"]
    }
    condition {
      test     = "ArnEquals"
      variable = "aws:SourceArn"
      values   = [aws_sns_topic.shipment_dispatched.arn]
    }
  }
}

resource "aws_sqs_queue_policy" "tracking" {
  queue_url = aws_sqs_queue.tracking.id
  policy    = data.aws_iam_policy_document.sns_send.json
}

resource "aws_sqs_queue_policy" "billing" {
  queue_url = aws_sqs_queue.billing.id
  policy    = data.aws_iam_policy_document.sns_send.json
}

resource "aws_lambda_function" "tracking" {
  function_name = "tracking"
  role          = "arn:aws:iam::123456789012:role/tracking"
  handler       = "tracking.handler"
  runtime       = "python3.12"
  filename      = "tracking.zip"
  timeout       = local.consumers.tracking
}

resource "aws_lambda_function" "billing" {
  function_name = "billing"
  role          = "arn:aws:iam::123456789012:role/billing"
  handler       = "billing.handler"
  runtime       = "python3.12"
  filename      = "billing.zip"
  timeout       = local.consumers.billing
}

resource "aws_lambda_event_source_mapping" "tracking" {
  event_source_arn        = aws_sqs_queue.tracking.arn
  function_name           = aws_lambda_function.tracking.arn
  function_response_types = ["ReportBatchItemFailures"]
}

resource "aws_lambda_event_source_mapping" "billing" {
  event_source_arn        = aws_sqs_queue.billing.arn
  function_name           = aws_lambda_function.billing.arn
  function_response_types = ["ReportBatchItemFailures"]
}
