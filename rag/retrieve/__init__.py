"""Retrieval stages: vector, BM25, hybrid fusion, API-intent filter, per-API k, candidate ordering."""
