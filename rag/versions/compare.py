"""Diffs of files, folders of specs and indexed versions (their reports are `rag.versions.report`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from rag.errors import IngestError
from rag.ingest.loader import SPEC_EXTENSIONS, load_openapi
from rag.ingest.spec import api_name_from_source
from rag.versions.diff import diff_documents
from rag.versions.spec_diff import DiffError, SpecDiff

_EMPTY: dict[str, Any] = {"openapi": "3.0.0", "info": {"title": ""}, "paths": {}}


def _title(document: dict[str, Any]) -> str:
    info = document.get("info")
    return str(info.get("title", "")) if isinstance(info, dict) else ""


def check_same_api(old_name: str, old: dict[str, Any], new_name: str, new: dict[str, Any]) -> None:
    """Raise DiffError when two documents are not versions of one API: neither their names (from the file
    names) nor their titles agree."""
    same_name = api_name_from_source(old_name) == api_name_from_source(new_name)
    same_title = bool(_title(old)) and _title(old) == _title(new)
    if not (same_name or same_title):
        raise DiffError(
            f"{old_name} ({_title(old) or 'untitled'}) and {new_name} ({_title(new) or 'untitled'}) are different "
            "APIs; compare two versions of one API (the same file name or the same info.title)"
        )


def diff_files(old_path: str | Path, new_path: str | Path) -> SpecDiff:
    """Diff two OpenAPI files (JSON or YAML); IngestError when one is not an OpenAPI document, DiffError when
    they are different APIs."""
    return diff_sides(str(old_path), str(new_path))


def diff_folders(old_dir: str | Path, new_dir: str | Path) -> list[SpecDiff]:
    """Diff two folders of specs, file by file (matched by API name); a spec only one folder has counts as
    every operation added or removed."""
    def specs(folder: Path) -> dict[str, Path]:
        files = sorted(p for p in folder.iterdir() if p.is_file() and p.name.lower().endswith(SPEC_EXTENSIONS))
        return {api_name_from_source(p.name): p for p in files}

    old_specs, new_specs = specs(Path(old_dir)), specs(Path(new_dir))
    if not old_specs and not new_specs:
        raise DiffError(f"no OpenAPI files (.json .yaml .yml) in {old_dir} or {new_dir}")
    diffs: list[SpecDiff] = []
    for api in sorted(set(old_specs) | set(new_specs)):
        old_file, new_file = old_specs.get(api), new_specs.get(api)
        old = load_openapi(old_file) if old_file else _EMPTY
        new = load_openapi(new_file) if new_file else _EMPTY
        diffs.append(diff_documents(old, new, api, str(old_file or f"{old_dir} (no {api})"),
                                    str(new_file or f"{new_dir} (no {api})")))
    return diffs


def _side(argument: str, index: Any) -> tuple[str, dict[str, Any], str]:
    """(name, document, label) of one side of a diff: a spec file, or `API@LABEL` of an indexed version."""
    from rag.index.versions import find_version, parse_pin

    path = Path(argument)
    if path.exists() or "@" not in argument or index is None:
        if not path.is_file():
            raise IngestError(argument, "no such file (nor API@LABEL of an indexed version)")
        if not path.name.lower().endswith(SPEC_EXTENSIONS):
            raise IngestError(argument, "not an OpenAPI document: expected a .json, .yaml or .yml spec")
        return path.name, load_openapi(path), argument
    api, label = parse_pin(argument)
    record = find_version(index.documents(), api, label)
    document = index.spec_of(record)
    if document is None:
        raise DiffError(f"{argument}: the spec of this version was indexed before versions were kept; ingest it again")
    return f"{api}.json", document, label


def diff_sides(old: str, new: str, index: Any = None) -> SpecDiff:
    """Diff two versions, each a spec file or (with an index) `API@LABEL` of an indexed version."""
    old_name, old_doc, old_label = _side(old, index)
    new_name, new_doc, new_label = _side(new, index)
    check_same_api(old_name, old_doc, new_name, new_doc)
    return diff_documents(old_doc, new_doc, api_name_from_source(new_name), old_label, new_label)


def diff_inputs(old: str, new: str, indexed: Callable[[], Any] | None = None) -> list[SpecDiff]:
    """The diffs of two files, two folders, or two indexed versions (`API@LABEL`, read from what `indexed()`
    opens); raises IngestError / DiffError / ConfigError naming the problem."""
    old_path, new_path = Path(old), Path(new)
    if old_path.is_dir() or new_path.is_dir():
        if not (old_path.is_dir() and new_path.is_dir()):
            raise DiffError(f"{old} and {new}: compare two folders, or two files, not a folder with a file")
        return diff_folders(old_path, new_path)
    wants_index = indexed is not None and any("@" in a and not Path(a).exists() for a in (old, new))
    return [diff_sides(old, new, indexed() if wants_index and indexed is not None else None)]
