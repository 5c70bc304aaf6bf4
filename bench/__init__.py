"""Benchmarks: measured against a baseline taken in the same run, never asserted in tests."""
