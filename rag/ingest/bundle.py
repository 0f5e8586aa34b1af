"""Multi-file specs: a root document whose files refer to each other by relative `$ref` (`./schemas/Pet.yaml`,
`../common.yaml#/components/parameters/Limit`) bundled into one document before chunking.

Refs are resolved inside the upload only (a folder or a zip, read through `SpecFiles`): a ref that leaves it, a
remote one (`https://…`, never fetched), one to a missing file or to a place its file does not have, and a cycle
between files that cannot be bundled are each refused with a message naming the file and the ref. A schema from
another file becomes a component schema (named after its pointer's last token, else its file; the name a root
gives it in its own `components.schemas` wins), so schema names survive and schemas may refer to themselves;
everything else (operations, parameters, responses, examples) is copied where it is referenced. Refs inside the
root stay as they are. Swagger 2.0 roots get their schemas under `definitions`.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from rag.errors import IngestError
from rag.ingest.loader import MAX_EXPANDED_NODES, decode_text, parse_structured
from rag.ingest.refs import MISSING, escape_pointer_token, follow_pointer, unescape_pointer_token

MAX_INLINE_DEPTH = 64  # files copied into each other, one inside the next
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_NAME_CHARS = re.compile(r"[^A-Za-z0-9._-]+")
_REF_VALUE = re.compile(r"""["']?\$ref["']?\s*:\s*["']?([^"'\s,}\]]+)""")


@dataclass(frozen=True)
class SpecFiles:
    """The files of one upload by relative POSIX path (`resources/pets/list.yml`): `read` returns a file's bytes
    or None when the upload has no such file; `name` is how messages call the upload (a folder or a zip); `paths`
    lists a zip's spec files."""

    name: str
    read: Callable[[str], bytes | None]
    paths: tuple[str, ...] = ()
    archive: bool = False  # a zip: uploaded as a spec split over files, so every relative ref must resolve


@dataclass
class Bundled:
    """A bundled document and the files it was made of (the root first)."""

    document: dict[str, Any]
    files: list[str] = field(default_factory=list)


def file_refs(text: str) -> list[str]:
    """The `$ref` values of a JSON or YAML text that name another file (relative paths), found without parsing it:
    what decides whether a spec needs bundling and which files of a folder are parts of another."""
    found = []
    for value in _REF_VALUE.findall(text):
        target = value.split("#", 1)[0]
        if target and not _SCHEME.match(target) and not target.startswith("//"):
            found.append(target)
    return found


def _names_a_file(node: Any) -> bool:
    """Whether a node is a `$ref` to another file (a relative path, not a remote URL)."""
    return isinstance(node, dict) and isinstance(node.get("$ref"), str) and bool(file_refs(f"$ref: {node['$ref']}"))


def is_split(document: Any, text: str, files: SpecFiles, root: str) -> bool:
    """Whether a spec is split over files, and so bundled (every ref then resolved, or refused): it comes in a zip,
    a relative ref of it names a file of its upload, or its paths or operations live in other files. A spec whose
    relative refs only dangle (an `x-policy: {$ref: ../policies.yaml}` its publisher left in) is read as one file:
    those refs are reported unresolved, and nothing is read."""
    if files.archive:
        return True
    for target in file_refs(text):
        path = resolve_path(root, target)
        if path is not None and files.read(path) is not None:
            return True
    paths = document.get("paths") if isinstance(document, dict) else None
    if _names_a_file(paths):
        return True
    items = paths.values() if isinstance(paths, dict) else ()
    return any(_names_a_file(item) or (isinstance(item, dict) and any(_names_a_file(op) for op in item.values()))
               for item in items)


def resolve_path(current: str, target: str) -> str | None:
    """The upload path a relative ref names from the file `current` (None when it leaves the upload)."""
    target = unquote(target)
    if target.startswith("/") or "\\" in target:
        return None
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(current), target))
    return None if joined == ".." or joined.startswith("../") else joined


def bundle(files: SpecFiles, root: str) -> Bundled:
    """Bundle the spec whose root document is `root` (see the module docstring); IngestError names the file,
    the ref and what is allowed when a ref cannot be bundled."""
    return _Bundler(files, root).run()


class _Bundler:
    """One bundling: the files parsed so far, where each hoisted schema went, the chain of files being copied."""

    def __init__(self, files: SpecFiles, root: str) -> None:
        self.files = files
        self.root = root
        self.parsed: dict[str, Any] = {}
        self.order: list[str] = []
        self.names: dict[tuple[str, str], str] = {}  # (file, pointer) → component schema name
        self.hoisted: dict[str, Any] = {}
        self.inlining: list[tuple[str, str]] = []
        self.nodes = 0
        self.section: tuple[str, ...] = ("components", "schemas")
        self.taken: set[str] = set()

    def run(self) -> Bundled:
        document = self.load(self.root, self.root)
        if not isinstance(document, dict):
            raise IngestError(self.where(self.root), "the root of a spec must be an object")
        if "swagger" in document and "openapi" not in document:
            self.section = ("definitions",)
        own = _at(document, self.section)
        taken = set(own) if isinstance(own, dict) else set()
        self.taken = taken
        self.claim_root_schemas(own if isinstance(own, dict) else {})
        bundled = self.copy(document, self.root, False, ())
        if self.hoisted:
            section = bundled
            for key in self.section:
                section = section.setdefault(key, {})
            section.update(self.hoisted)
        return Bundled(bundled, self.order)

    def where(self, path: str) -> str:
        """How a message names a file of the upload: `upload/path`."""
        return f"{self.files.name}/{path}" if self.files.name else path

    def load(self, path: str, referrer: str, ref: str = "") -> Any:
        """A file's parsed document (read and parsed once)."""
        if path in self.parsed:
            return self.parsed[path]
        data = self.files.read(path)
        if data is None:
            raise IngestError(self.where(referrer), f"$ref {ref!r} names {path}, which is not in the upload; allowed: "
                                                   "files inside it (upload a spec split over files as a .zip of "
                                                   "its folder, or ingest the folder)")
        text = decode_text(self.where(path), data)
        self.parsed[path] = parse_structured(self.where(path), text)
        self.order.append(path)
        return self.parsed[path]

    def claim_root_schemas(self, own: dict[str, Any]) -> None:
        """A root component schema that is only a ref to another file keeps its name for that file's schema."""
        for name, value in own.items():
            if isinstance(value, dict) and set(value) == {"$ref"} and isinstance(value["$ref"], str):
                target = self.locate(value["$ref"], self.root)
                if target[0] != self.root:
                    self.names.setdefault(target, str(name))

    def locate(self, ref: str, current: str) -> tuple[str, str]:
        """(file, JSON pointer) a ref names from the file `current`; IngestError for a remote ref or one that
        leaves the upload."""
        target, _, fragment = ref.partition("#")
        if _SCHEME.match(target) or target.startswith("//"):
            raise IngestError(self.where(current), f"$ref {ref!r} is remote; remote refs are never fetched: allowed "
                                                   "are refs to files inside the upload, by a relative path")
        if not target:
            return current, unquote(fragment)
        path = resolve_path(current, target)
        if path is None:
            raise IngestError(self.where(current), f"$ref {ref!r} points outside the upload ({self.files.name}); "
                                                   "allowed: files inside it, by a relative path")
        return path, unquote(fragment)

    def node_at(self, path: str, pointer: str, ref: str, current: str) -> Any:
        """The node a pointer names in a file; IngestError when the file has no such place."""
        node = follow_pointer(self.load(path, current, ref), pointer if pointer.strip("/") else "")
        if node is MISSING:
            raise IngestError(self.where(current), f"$ref {ref!r}: {path} has no #{pointer}")
        return node

    def copy(self, node: Any, current: str, schema: bool, trail: tuple[str, ...]) -> Any:
        """A copy of `node` (from the file `current`) with every ref bundled; `schema` says whether it is a
        schema (its refs then name component schemas), `trail` is its place in the root (near the top only)."""
        self.nodes += 1
        if self.nodes > MAX_EXPANDED_NODES:
            raise IngestError(self.where(self.root), f"the bundled spec would have more than {MAX_EXPANDED_NODES:,} "
                                                     "nodes (a file copied into many places?); not allowed")
        if isinstance(node, list):
            return [self.copy(item, current, schema, ()) for item in node]
        if not isinstance(node, dict):
            return node
        if isinstance(node.get("$ref"), str):
            return self.follow(node, current, schema, trail)
        out: dict[str, Any] = {}
        for key, value in node.items():
            place = (*trail, str(key)) if current == self.root and len(trail) < len(self.section) + 1 else ()
            in_schema = schema or key == "schema" or place[:-1] == self.section
            out[key] = self.copy(value, current, in_schema, place)
        return out

    def follow(self, node: dict[str, Any], current: str, schema: bool, trail: tuple[str, ...]) -> Any:
        """A ref: kept when it points into the root, a component schema ref for a schema of another file, else
        the copied target (with the ref's siblings over it)."""
        ref = node["$ref"]
        siblings = {k: self.copy(v, current, schema, ()) for k, v in node.items() if k != "$ref"}
        path, pointer = self.locate(ref, current)
        if path == self.root:
            if current != self.root:  # a broken ref inside the root is the chunker's to report, as in any spec
                self.node_at(path, pointer, ref, current)
            return {"$ref": "#" + pointer, **siblings}
        key = (path, pointer)
        named = self.names.get(key)
        if schema and not (named and trail[:-1] == self.section and trail[-1:] == (named,)):
            return {"$ref": "#/" + "/".join(map(escape_pointer_token, self.section)) + "/" +
                    escape_pointer_token(named or self.hoist(key, ref, current)), **siblings}
        if key in self.inlining:
            loop = [*self.inlining[self.inlining.index(key):], key]
            chain = " → ".join(f"{p}#{q}" if q else p for p, q in loop)
            raise IngestError(self.where(current), f"$ref {ref!r} closes a cycle between files that cannot be "
                                                   f"bundled ({chain}); only schemas may refer back to themselves")
        if len(self.inlining) >= MAX_INLINE_DEPTH:
            raise IngestError(self.where(current), f"$ref {ref!r}: files are copied into each other more than "
                                                   f"{MAX_INLINE_DEPTH} levels deep; not allowed")
        self.inlining.append(key)
        copied = self.copy(self.node_at(path, pointer, ref, current), path, schema, ())
        self.inlining.pop()
        return {**copied, **siblings} if isinstance(copied, dict) and siblings else copied

    def hoist(self, key: tuple[str, str], ref: str, current: str) -> str:
        """Make a schema of another file a component schema (named before it is copied, so that it may refer to
        itself) and return its name."""
        path, pointer = key
        target = self.node_at(path, pointer, ref, current)
        name = self.unique_name(path, pointer)
        self.names[key] = name
        self.hoisted[name] = None  # its place, taken before its own refs are followed
        self.hoisted[name] = self.copy(target, path, True, ())
        return name

    def unique_name(self, path: str, pointer: str) -> str:
        """A component name for a schema of another file: its pointer's last token, else the file's name
        (`models/pet.yml` → `pet`), with its folder before it, then a number, when taken."""
        stem = posixpath.splitext(posixpath.basename(path))[0]
        last = unescape_pointer_token(pointer.rstrip("/").rsplit("/", 1)[-1]) if pointer.strip("/") else stem
        base = _NAME_CHARS.sub("_", last).strip("_") or "schema"
        folder = _NAME_CHARS.sub("_", posixpath.basename(posixpath.dirname(path))).strip("_")
        candidates = [base] + ([f"{folder}_{base}"] if folder else [])
        used = self.taken | set(self.hoisted) | set(self.names.values())
        for candidate in candidates:
            if candidate not in used:
                return candidate
        number = 2
        while f"{candidates[-1]}_{number}" in used:
            number += 1
        return f"{candidates[-1]}_{number}"


def _at(document: dict[str, Any], keys: tuple[str, ...]) -> Any:
    """The node at a path of keys (None when a key is missing)."""
    node: Any = document
    for key in keys:
        node = node.get(key) if isinstance(node, dict) else None
    return node
