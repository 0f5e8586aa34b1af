"""The request example under an answer: a curl command and a Python snippet (httpx) that call the operation the
answer is about, in tabs, each with Streamlit's copy button, folded so that the answer stays in front."""

from __future__ import annotations

import streamlit as st

from rag.request_example import curl_command, python_snippet
from rag.results import AnswerResult

REQUEST_LABEL = "Request example (curl, Python)"
REQUEST_NOTE = "Built from the spec: secrets are environment variables; replace each `<name>` with a value."


def render_request_example(result: AnswerResult) -> None:
    """The example in an expander (curl and Python tabs); nothing when the answer is about no operation."""
    example = result.request_example
    if example is None:
        return
    with st.expander(REQUEST_LABEL, icon=":material/terminal:", expanded=False):
        curl, python = st.tabs(["curl", "Python"])
        with curl:
            st.code(curl_command(example), language="bash", wrap_lines=True)
        with python:
            st.code(python_snippet(example), language="python")  # unwrapped: indentation reads as written
        st.caption(REQUEST_NOTE)
