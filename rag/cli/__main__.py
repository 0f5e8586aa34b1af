"""`python -m rag.cli` (the same command line as `python -m rag`)."""

import sys

from rag.cli import main

sys.exit(main())
