"""Everything the Streamlit app needs that is not drawing: tables, figures, badges, saved evaluation runs,
background jobs and the engine loader.

The modules here are pure (no Streamlit import) except `ui`, which holds the shared rendering helpers
and the `st.cache_resource` engine loader used by `app.py` and `pages/`.
"""
