"""Reliability, security and scale: bad input, faults, concurrency, a Chroma server."""
