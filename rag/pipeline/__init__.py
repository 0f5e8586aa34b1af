"""The question-answering pipeline: a typed state (state.py), the stages that take and return it (one module
per role), the features an ablation switches off (features.py) and the pipeline built once from a `Config`
(build.py)."""
