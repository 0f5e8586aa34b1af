"""Turning files (OpenAPI specs and documentation) into chunks."""
