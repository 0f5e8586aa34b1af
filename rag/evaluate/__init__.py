"""Evaluation: question sets, a template question generator, metrics, an LLM judge and a resumable runner."""
