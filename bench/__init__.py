"""Benchmarks for citewise (run as ``python -m bench.<name>``)."""
