"""The question-answering pipeline: a typed state (state.py), the stages that take and return it and the
stage list built from a `Config` (stage_list.py)."""
