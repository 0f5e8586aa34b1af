"""Rerankers: the learned ranker (offline, a model trained on labelled questions), cross-encoder (model name or
path), LLM (one call)."""
