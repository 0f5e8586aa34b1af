"""SpecRAG Workbench — the app's entry point: names the pages in the navigation and runs the one chosen.

Run with `make run` (or `streamlit run app.py`). All logic lives in `rag/`; the pages only render.
"""

from __future__ import annotations

import streamlit as st

from webapp import ui

ui.page_setup("Ask & compare")
navigation = st.navigation(
    {
        ui.PRODUCT: [
            st.Page(ui.HOME_PAGE, title="Ask & compare", icon=":material/forum:", default=True),
            st.Page(ui.DOCUMENTS_PAGE, title="Documents", icon=":material/description:", url_path="Documents"),
            st.Page(ui.EVALUATION_PAGE, title="Evaluation", icon=":material/monitoring:", url_path="Evaluation"),
        ]
    }
)
navigation.run()
