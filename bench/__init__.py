"""Benchmark harness and synthetic corpus generator (see docs/benchmarks.md)."""
