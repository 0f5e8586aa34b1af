"""SpecRAG Workbench: retrieval-augmented answers about API documentation, with the evidence."""

__version__ = "0.1.0"
