"""The library's shape: `rag/` imports no UI package, has no import circle, and stages tokenize through
`rag.corpus`, never through the BM25 index."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIBRARY = ROOT / "rag"
UI_PACKAGES = ("streamlit", "plotly", "webapp")
# The question-answering stages: they share words and the corpus profile through `rag.corpus`.
STAGES = ("rag/rerank", "rag/abstain.py", "rag/retrieve", "rag/generate", "rag/write_check.py")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """Every module a file imports, at the top or inside functions; imports for type hints only (under
    `if TYPE_CHECKING:`) run never and are left out."""
    found: set[str] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    type_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"
        for statement in node.body
        for inner in ast.walk(statement)
    }
    for node in ast.walk(tree):
        if id(node) in type_only:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def library_graph() -> dict[str, set[str]]:
    modules = {module_name(p): p for p in LIBRARY.rglob("*.py")}
    return {name: {m for m in imports_of(path) if m in modules and m != name} for name, path in modules.items()}


def test_the_library_imports_no_ui_package() -> None:
    offenders = {
        module_name(path): sorted(m for m in imports_of(path) if m.split(".")[0] in UI_PACKAGES)
        for path in LIBRARY.rglob("*.py")
    }
    assert {name: found for name, found in offenders.items() if found} == {}


def test_the_library_has_no_import_circle() -> None:
    graph = library_graph()
    cycles: list[list[str]] = []

    def visit(node: str, trail: list[str], on_trail: set[str], done: set[str]) -> None:
        for target in sorted(graph[node]):
            if target in on_trail:
                cycles.append([*trail[trail.index(target):], target])
            elif target not in done:
                visit(target, [*trail, target], on_trail | {target}, done)
        done.add(node)

    finished: set[str] = set()
    for start in sorted(graph):
        if start not in finished:
            visit(start, [start], {start}, finished)
    assert cycles == []


def test_stages_tokenize_through_the_corpus_package_not_the_bm25_index() -> None:
    stage_files = [ROOT / s for s in STAGES if s.endswith(".py")]
    stage_files += [p for s in STAGES if not s.endswith(".py") for p in (ROOT / s).rglob("*.py")]
    offenders = {
        module_name(p): sorted(m for m in imports_of(p) if m.startswith("rag.index.bm25")) for p in stage_files
    }
    assert {name: found for name, found in offenders.items() if found} == {}
    tokenizers = {module_name(p) for p in LIBRARY.rglob("*.py") if "rag.corpus.vocabulary.tokenize" in imports_of(p)}
    assert "rag.rerank.structural" in tokenizers and "rag.abstain" in tokenizers


MAX_FUNCTION_LINES = 80
MAX_MODULE_LINES = 600


def test_functions_and_modules_stay_short() -> None:
    long_functions: set[str] = set()
    long_modules: set[str] = set()
    for path in LIBRARY.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if len(text.splitlines()) > MAX_MODULE_LINES:
            long_modules.add(module_name(path))
        for node in ast.walk(ast.parse(text)):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) or node.end_lineno is None:
                continue
            if node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES:
                long_functions.add(f"{module_name(path)}.{node.name}")
    assert long_functions == set()
    assert long_modules == set()


def test_query_state_is_carried_in_fields_not_text_markers() -> None:
    """Only `rag.query` renders the follow-up and glossary parts into text; no stage parses them back."""
    markers = ("REGARDING", "EXPANSION_OPEN", " (regarding: ", " (glossary: ", "current_question", "original_query")
    offenders = [
        f"{module_name(path)}: {marker}"
        for path in LIBRARY.rglob("*.py")
        if module_name(path) != "rag.query"
        for marker in markers
        if marker in path.read_text(encoding="utf-8")
    ]
    assert offenders == []
