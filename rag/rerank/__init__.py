"""Rerankers: structural (offline), cross-encoder (model name or path), LLM (one call)."""
