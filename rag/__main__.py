"""`python -m rag`."""

import sys

from rag.cli import main

sys.exit(main())
