module "orders" {
  source  = "./modules/queue"
  name    = "orders"
  timeout = 60

  dlq_retention = 345600
}
