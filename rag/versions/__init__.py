"""Versions of an API: the structural diff of two OpenAPI documents, the change chunks that let questions
about it be answered, and the order of the versions an index keeps."""
