"""The REST API: `rag.rest.app.create_app` (FastAPI) and `rag.rest.serve` (`python -m rag serve`)."""
