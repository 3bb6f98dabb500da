"""Terraform and OpenTofu: HCL and JSON syntax, overrides, modules."""
