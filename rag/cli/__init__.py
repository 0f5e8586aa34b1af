"""`python -m rag …`: a small command line over the library.

Exit codes: 0 success, 1 unexpected failure, 2 bad input or a problem the user must fix. The parser is
`rag.cli.parser`; the commands are in `rag.cli.index_commands`, `rag.cli.question_commands` and
`rag.cli.eval_commands`.
"""

from __future__ import annotations

from collections.abc import Sequence

from rag.cli.common import EXIT_FAILURE, EXIT_OK, EXIT_USAGE, Command, fail
from rag.cli.eval_commands import cmd_eval, cmd_make_questions, cmd_suite
from rag.cli.index_commands import (
    cmd_crawl,
    cmd_delete,
    cmd_diff,
    cmd_ensure_index,
    cmd_fetch_specs,
    cmd_ingest,
    cmd_stats,
)
from rag.cli.parser import build_parser
from rag.cli.question_commands import cmd_ask, cmd_configs, cmd_mcp, cmd_serve
from rag.errors import RagError

__all__ = ["EXIT_FAILURE", "EXIT_OK", "EXIT_USAGE", "main"]

COMMANDS: dict[str, Command] = {
    "ingest": cmd_ingest,
    "crawl": cmd_crawl,
    "stats": cmd_stats,
    "delete": cmd_delete,
    "fetch-specs": cmd_fetch_specs,
    "ensure-index": cmd_ensure_index,
    "diff": cmd_diff,
    "configs": cmd_configs,
    "ask": cmd_ask,
    "mcp": cmd_mcp,
    "serve": cmd_serve,
    "eval": cmd_eval,
    "suite": cmd_suite,
    "make-questions": cmd_make_questions,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except RagError as error:
        return fail(str(error))
    except KeyboardInterrupt:
        return fail("interrupted", EXIT_FAILURE)

