"""What the stages know about the indexed corpus: its vocabulary (tokens, word forms), its paths and its profile.

A neutral home shared by retrieval, reranking, the gate and the write check, so that none of them
imports another stage (or the BM25 index) to tokenize a question.
"""
