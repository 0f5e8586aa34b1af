"""The persistent index: Chroma collections per chunking strategy, BM25, and a document registry."""
