"""Terraform plan JSON (``terraform show -json``)."""
