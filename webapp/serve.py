"""`python -m webapp.serve [streamlit options]`: the app's server (`make run`), with the engine loaded and warmed
up from the start.

`streamlit run app.py` runs nothing until a browser opens a page, so the first visitor waited for the index, the
models and the warm-up. Here the engine is built and warmed in a background thread while Streamlit starts, in the
same process: the pages find it in `webapp.engine` (the first page renders at once; a question asked during the
warm-up shares what it has loaded). Options are Streamlit's (`--server.port 8501 --server.address 127.0.0.1`).
"""

from __future__ import annotations

import sys
from pathlib import Path

APP = Path(__file__).resolve().parent.parent / "app.py"


def main(argv: list[str] | None = None) -> None:
    """Start loading the engine, then run Streamlit's own command line on app.py with `argv`."""
    from rag.settings import load_dotenv_file
    from webapp.engine import preload

    load_dotenv_file()
    preload()
    sys.argv = ["streamlit", "run", str(APP), *(sys.argv[1:] if argv is None else argv)]
    from streamlit.web import cli

    cli.main()


if __name__ == "__main__":
    main()
