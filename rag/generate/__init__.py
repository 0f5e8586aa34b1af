"""Answer generators: extractive (no LLM) and LLM-backed, behind one interface."""
