"""Specs of more than one file: read from a folder or a `.zip` (`SpecFiles`, never extracted to disk), their root
document found, and the files of a folder that are only parts of another spec (see `rag.ingest.bundle`)."""

from __future__ import annotations

import io
import posixpath
import zipfile
from collections.abc import Iterable
from pathlib import Path

from rag.errors import IngestError
from rag.ingest.bundle import SpecFiles, file_refs, resolve_path
from rag.ingest.loader import SPEC_EXTENSIONS, decode_text, looks_like_openapi, parse_structured
from rag.ingest.validate import MAX_UPLOAD_BYTES

MAX_ARCHIVE_FILES = 10_000
MAX_ARCHIVE_BYTES = 64 * 1024 * 1024  # uncompressed, all files together
_MIB = 1024 * 1024


def folder_files(folder: Path) -> SpecFiles:
    """The files under a folder (read on demand; one that leaves it through a link is not in it)."""
    base = folder.resolve()

    def read(relative: str) -> bytes | None:
        path = (base / relative).resolve()
        if not path.is_relative_to(base) or not path.is_file():
            return None
        if path.stat().st_size > MAX_UPLOAD_BYTES:
            raise IngestError(f"{folder.name}/{relative}", f"the file is larger than the "
                                                          f"{MAX_UPLOAD_BYTES // _MIB} MB limit of a spec file")
        return path.read_bytes()

    return SpecFiles(folder.name, read)


def _member_path(name: str, archive: str) -> str:
    """A zip member's name as an upload path; IngestError for one that would leave the archive."""
    clean = name.replace("\\", "/")
    parts = clean.split("/")
    if clean.startswith("/") or ".." in parts or (parts and parts[0].endswith(":")):
        raise IngestError(archive, f"the zip holds {name!r}, a path outside the archive; not allowed")
    return posixpath.normpath(clean)


def zip_files(archive: str, data: bytes) -> SpecFiles:
    """The spec files of a zip (read on demand from its bytes), a single top folder left out of their paths.
    IngestError for a file that is not a zip, an encrypted one, more than MAX_ARCHIVE_FILES files or
    MAX_ARCHIVE_BYTES uncompressed, and a member path that leaves the archive."""
    try:
        opened = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as error:
        raise IngestError(archive, f"not a zip archive ({error}); upload a .zip made by zip or a file manager") \
            from None
    infos = [info for info in opened.infolist() if not info.is_dir()]
    if len(infos) > MAX_ARCHIVE_FILES:
        raise IngestError(archive, f"the zip holds {len(infos):,} files; the limit is {MAX_ARCHIVE_FILES:,}")
    total = sum(info.file_size for info in infos)
    if total > MAX_ARCHIVE_BYTES:
        raise IngestError(archive, f"the zip unpacks to {total / _MIB:.0f} MB; the limit is "
                                   f"{MAX_ARCHIVE_BYTES // _MIB} MB")
    if any(info.flag_bits & 0x1 for info in infos):
        raise IngestError(archive, "the zip is encrypted; upload one without a password")
    members = {_member_path(info.filename, archive): info for info in infos}
    tops = {path.split("/", 1)[0] for path in members}
    if len(tops) == 1 and all("/" in path for path in members):
        members = {path.split("/", 1)[1]: info for path, info in members.items()}

    def read(relative: str) -> bytes | None:
        info = members.get(relative)
        if info is None:
            return None
        with opened.open(info) as handle:
            content = handle.read(MAX_ARCHIVE_BYTES + 1)
        if len(content) > info.file_size:  # a member that unpacks to more than it declares
            raise IngestError(f"{archive}/{relative}", "the zip member is larger than it declares; not allowed")
        return content

    spec_paths = tuple(sorted(p for p in members if p.lower().endswith(SPEC_EXTENSIONS)))
    return SpecFiles(archive, read, spec_paths, archive=True)


def referenced_files(files: SpecFiles, starts: Iterable[str]) -> set[str]:
    """Every file the `starts` refer to, directly or through other files (their refs read without parsing);
    files that are missing or cannot be read are left out (bundling reports them)."""
    seen: set[str] = set()
    pending = list(starts)
    while pending:
        current = pending.pop()
        try:
            data = files.read(current)
        except IngestError:
            continue
        if data is None:
            continue
        for target in file_refs(data.decode("utf-8", "replace")):
            path = resolve_path(current, target)
            if path is not None and path not in seen:
                seen.add(path)
                pending.append(path)
    return seen


def _is_root(files: SpecFiles, path: str) -> bool:
    """Whether a file is a whole spec: `openapi` or `swagger` and `paths` at its top level."""
    data = files.read(path)
    if data is None:
        return False
    where = f"{files.name}/{path}"
    text = decode_text(where, data)
    if not looks_like_openapi(where, text):
        return False
    document = parse_structured(where, text)
    return isinstance(document, dict) and ("openapi" in document or "swagger" in document) and "paths" in document


def find_root(files: SpecFiles) -> tuple[str, str]:
    """The root document of an upload and why it was chosen ("" when it is the only whole spec): the files with
    `openapi`/`swagger` and `paths` at their top level that no other file refers to; among several, the only
    one at the shallowest level. IngestError naming them when there is none or no such one."""
    roots = [path for path in files.paths if _is_root(files, path)]
    if not roots:
        raise IngestError(files.name, f"no OpenAPI document found: none of its {len(files.paths)} .json/.yaml/.yml "
                                      "files has `openapi` (or `swagger`) and `paths` at its top level")
    parts = referenced_files(files, files.paths)
    roots = [path for path in roots if path not in parts] or roots
    if len(roots) == 1:
        return roots[0], ""
    depth = min(path.count("/") for path in roots)
    top = [path for path in roots if path.count("/") == depth]
    others = ", ".join(path for path in roots if path not in top[:1])
    if len(top) == 1:
        return top[0], f"root {top[0]}: the only whole spec at the top level (also found: {others}, not indexed)"
    raise IngestError(files.name, f"it holds {len(roots)} whole specs ({', '.join(roots)}) and none is the only one "
                                  "at the top level; upload one spec per zip (its root file and the files it refers "
                                  "to), or each as its own file")
