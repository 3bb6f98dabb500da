# Input of the topology snapshot tests: a Terraform unit with a registry module and a
# queue fed by a topic from another configuration.

module "events" {
  source  = "terraform-aws-modules/sns/aws"
  version = "~> 6.0"
  name    = "events"
}

resource "aws_sns_topic" "orders" {
  name = "orders"
}

resource "aws_sqs_queue" "orders" {
  for_each = toset(["email", "stock"])
  name     = "orders-${each.key}"
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.orders_dlq.arn
    maxReceiveCount     = 5
  })
}

resource "aws_sqs_queue" "orders_dlq" {
  name                      = "orders-dlq"
  message_retention_seconds = 1209600
}

resource "aws_sns_topic_subscription" "orders" {
  for_each             = aws_sqs_queue.orders
  topic_arn            = aws_sns_topic.orders.arn
  protocol             = "sqs"
  endpoint             = each.value.arn
  raw_message_delivery = true
}

resource "aws_sns_topic_subscription" "events" {
  topic_arn = module.events.topic_arn
  protocol  = "sqs"
  endpoint  = aws_sqs_queue.orders_dlq.arn
}

resource "aws_lambda_function" "worker" {
  function_name = "worker"
  role          = "arn:aws:iam::123456789012:role/worker"
  handler       = "index.handler"
  runtime       = "python3.12"
  filename      = "worker.zip"
  timeout       = 5
}

resource "aws_lambda_event_source_mapping" "worker" {
  event_source_arn        = aws_sqs_queue.orders["email"].arn
  function_name           = aws_lambda_function.worker.arn
  function_response_types = ["ReportBatchItemFailures"]
}
