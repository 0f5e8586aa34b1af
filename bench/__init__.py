"""Benchmarks (`make bench`): speed and memory targets are checked here, not in unit tests."""
