"""Specs split over files (rag/ingest/bundle.py, uploads.py): a folder or a .zip in the shape of DigitalOcean's
public spec (tests/fixtures/split_spec/digitalocean) ingests as one API; a ref leaving the upload, a remote ref, a
cycle between files, a missing file or place each gets a message naming the file and the ref, and the index is
unchanged after a refused upload."""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from pathlib import Path

import pytest

from rag.errors import IngestError
from rag.index.build import expand_paths, ingest_paths
from rag.index.embedder import HashingEmbedder
from rag.index.store import Index
from rag.ingest.openapi import chunk_openapi
from rag.ingest.pipeline import parse_document, parse_path
from rag.ingest.spec import api_name_from_source
from tests.conftest import FIXTURES
from tests.ingest.test_openapi import check_coverage, check_metadata

SPLIT = FIXTURES / "split_spec" / "digitalocean"
OPERATIONS = {"/v2/droplets": {"get", "post"}, "/v2/droplets/{droplet_id}": {"get", "delete"},
              "/v2/account/keys": {"get", "post"}}


def zipped(folder: Path, top: str = "") -> bytes:
    """The files under `folder` as a zip (under a top folder `top` when given), made in memory."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                archive.write(path, f"{top}/{path.relative_to(folder)}" if top else str(path.relative_to(folder)))
    return buffer.getvalue()


def archive_of(files: dict[str, str]) -> bytes:
    """A zip of the given (path → text) files."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return buffer.getvalue()


@pytest.fixture
def split(tmp_path: Path) -> Path:
    """A copy of the split fixture spec, to break in one place."""
    return Path(shutil.copytree(SPLIT, tmp_path / "digitalocean"))


@pytest.fixture
def index(tmp_path: Path) -> Index:
    return Index(tmp_path / "index", HashingEmbedder())


def test_the_split_spec_is_bundled_into_one_document() -> None:
    parsed = parse_path(SPLIT / "openapi.yaml")
    assert (parsed.source, parsed.api, parsed.api_version) == ("digitalocean/openapi.yaml", "digitalocean", "2.0")
    assert parsed.notes == ("bundled from 20 files",)
    document = parsed.spec
    assert document is not None
    assert {path: set(item) for path, item in document["paths"].items()} == OPERATIONS
    assert set(document["components"]["schemas"]) == {"error", "droplet", "region", "links", "droplet_create",
                                                      "sshKeys"}
    assert document["info"]["description"].startswith("The DigitalOcean API allows you to manage Droplets")
    refs = [v for v in json.dumps(document).split('"$ref": "')[1:]]
    assert refs and all(ref.startswith("#/components/schemas/") for ref in refs)
    result = chunk_openapi(document, "digitalocean", parsed.source)
    check_coverage(document, result)
    check_metadata(document, result)
    assert result.unresolved_refs == []
    listing = next(c for c in result.smart if c.covers == ("digitalocean.paths./v2/droplets.get",))
    assert "- per_page (query, integer, optional): Number of items returned per page Default: 20." in listing.text
    assert "  - droplets (array of droplet, optional)" in listing.text
    assert "Security: bearer_auth (HTTP Bearer, scopes: droplet:read)" in listing.text


def test_a_schema_the_root_names_keeps_its_name_everywhere() -> None:
    document = parse_path(SPLIT / "openapi.yaml").spec
    assert document is not None
    unauthorized = document["paths"]["/v2/droplets"]["get"]["responses"]["401"]
    assert unauthorized["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/error"}
    assert document["components"]["schemas"]["error"]["required"] == ["id", "message"]


def test_a_folder_lists_the_root_and_not_its_parts() -> None:
    assert expand_paths([SPLIT]) == [SPLIT / "openapi.yaml"]  # description.yml is a part of it


def test_the_folder_ingests_as_one_api(index: Index) -> None:
    (report,) = ingest_paths(index, [SPLIT])
    assert report.status == "added" and report.api == "digitalocean" and "bundled from 20 files" in report.message
    assert [record.api for record in index.documents()] == ["digitalocean"]
    assert "digitalocean.paths./v2/account/keys.post" in index.structural_ids()
    assert "digitalocean.components.sshKeys" in index.structural_ids()


@pytest.mark.parametrize("top", ["", "digitalocean-openapi-main"])
def test_a_zip_of_the_folder_ingests_as_one_api(index: Index, top: str) -> None:
    parsed = parse_document("digitalocean.zip", zipped(SPLIT, top))
    assert (parsed.source, parsed.api) == ("digitalocean.zip", "digitalocean")
    from_folder = parse_path(SPLIT / "openapi.yaml")
    assert [c.covers for c in parsed.chunks] == [c.covers for c in from_folder.chunks]
    assert parsed.content_hash == from_folder.content_hash
    report = index.add(parsed)
    assert report.status == "added" and "bundled from 20 files" in report.message


def test_a_zip_with_two_whole_specs_chooses_the_top_one_and_says_why() -> None:
    files = {"openapi.yaml": "openapi: 3.0.0\ninfo: {title: A, version: '1'}\npaths: {/a: {get: {responses: "
             "{'200': {$ref: 'r.yaml#/ok'}}}}}\n", "r.yaml": "ok: {description: fine}\n",
             "old/openapi.yaml": "openapi: 3.0.0\ninfo: {title: A, version: '0'}\npaths: {}\n"}
    parsed = parse_document("pets.zip", archive_of(files))
    assert parsed.api == "pets" and parsed.spec_version == "1"
    assert any("the only whole spec at the top level (also found: old/openapi.yaml" in n for n in parsed.notes)
    files["b.yaml"] = files.pop("old/openapi.yaml")
    with pytest.raises(IngestError, match=r"holds 2 whole specs \(b.yaml, openapi.yaml\)"):
        parse_document("pets.zip", archive_of(files))


def test_a_root_referenced_by_another_is_a_part() -> None:
    files = {"shop.yaml": "openapi: 3.0.0\ninfo: {title: A, version: '1'}\npaths:\n  $ref: 'paths.yaml#/paths'\n",
             "paths.yaml": "openapi: 3.0.0\ninfo: {title: parts, version: '1'}\npaths:\n  /a: {get: {responses: "
             "{'200': {description: ok}}}}\n"}
    parsed = parse_document("api.zip", archive_of(files))
    assert parsed.api == "shop" and parsed.spec is not None and list(parsed.spec["paths"]) == ["/a"]


def test_schemas_of_other_files_may_refer_to_each_other(tmp_path: Path) -> None:
    (tmp_path / "models").mkdir()
    (tmp_path / "api.yaml").write_text("openapi: 3.1.0\ninfo: {title: T, version: '1'}\npaths:\n  /nodes:\n"
                                       "    get:\n      responses:\n        '200':\n          description: ok\n"
                                       "          content: {application/json: {schema: {$ref: 'models/node.yaml'}}}\n")
    (tmp_path / "models" / "node.yaml").write_text("type: object\nproperties:\n  edge: {$ref: 'edge.yaml'}\n")
    (tmp_path / "models" / "edge.yaml").write_text("type: object\nproperties:\n  to: {$ref: 'node.yaml'}\n")
    document = parse_path(tmp_path / "api.yaml").spec
    assert document is not None
    schemas = document["components"]["schemas"]
    assert schemas["node"]["properties"]["edge"] == {"$ref": "#/components/schemas/edge"}
    assert schemas["edge"]["properties"]["to"] == {"$ref": "#/components/schemas/node"}


def test_a_swagger2_split_spec_is_bundled_then_converted(tmp_path: Path) -> None:
    (tmp_path / "swagger.yaml").write_text(
        "swagger: '2.0'\ninfo: {title: Pets, version: '1'}\npaths:\n  /pets:\n    get:\n      summary: List pets\n"
        "      responses:\n"
        "        '200': {description: ok, schema: {$ref: 'pet.yaml'}}\n")
    (tmp_path / "pet.yaml").write_text("type: object\nproperties: {name: {type: string}}\n")
    parsed = parse_path(tmp_path / "swagger.yaml")
    assert parsed.notes == ("bundled from 2 files", "converted from Swagger 2.0 to OpenAPI 3.0")
    assert parsed.spec is not None and set(parsed.spec["components"]["schemas"]) == {"pet"}
    assert parsed.api == api_name_from_source(tmp_path.name)  # `swagger.yaml` says only "a spec"


# ---------------------------------------------------------------------- what is refused, and the index unchanged
BAD = {
    "leaves the upload": ("resources/droplets/droplets_get.yml", "'parameters.yml#/droplet_id'",
                          "'../../../outside.yml#/droplet_id'",
                          "$ref '../../../outside.yml#/droplet_id' points outside the upload (digitalocean)"),
    "remote": ("resources/droplets/droplets_get.yml", "'parameters.yml#/droplet_id'",
               "'https://api.example.com/params.yml#/droplet_id'",
               "$ref 'https://api.example.com/params.yml#/droplet_id' is remote; remote refs are never fetched"),
    "missing file": ("resources/ssh_keys/sshKeys_list.yml", "'responses.yml#/all_ssh_keys'",
                     "'responses_v2.yml#/all_ssh_keys'",
                     "$ref 'responses_v2.yml#/all_ssh_keys' names resources/ssh_keys/responses_v2.yml, which is "
                     "not in the upload"),
    "missing place": ("resources/ssh_keys/sshKeys_list.yml", "'responses.yml#/all_ssh_keys'",
                      "'responses.yml#/every_ssh_key'",
                      "$ref 'responses.yml#/every_ssh_key': resources/ssh_keys/responses.yml has no #/every_ssh_key"),
    "cycle": ("shared/headers.yml", "  schema:\n    type: integer\n    example: 5000",
              "  $ref: 'responses.yml#/unauthorized/headers/ratelimit-limit'",
              "$ref 'headers.yml#/ratelimit-limit' closes a cycle between files that cannot be bundled "
              "(shared/headers.yml#/ratelimit-limit → shared/responses.yml#/unauthorized/headers/ratelimit-limit → "
              "shared/headers.yml#/ratelimit-limit); only schemas may refer back to themselves"),
}
WHERE = {"leaves the upload": "digitalocean/resources/droplets/droplets_get.yml",
         "remote": "digitalocean/resources/droplets/droplets_get.yml",
         "missing file": "digitalocean/resources/ssh_keys/sshKeys_list.yml",
         "missing place": "digitalocean/resources/ssh_keys/sshKeys_list.yml",
         "cycle": "digitalocean/shared/responses.yml"}


def break_file(folder: Path, case: str) -> None:
    """Replace one ref of the copied fixture with the case's bad one."""
    name, old, new, _ = BAD[case]
    path = folder / name
    text = path.read_text()
    assert old in text, (case, old)
    path.write_text(text.replace(old, new, 1))


def state(index: Index) -> tuple[object, ...]:
    """Everything a refused upload must leave as it was."""
    snapshot = index.snapshot()
    files = sorted(p.name for p in (index.directory / "specs").glob("*"))
    return (index.registry.generation(), [r.to_dict() for r in index.documents()], sorted(snapshot.chunks), files)


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_ref_is_refused_naming_the_file_and_ref_and_the_index_is_unchanged(
    case: str, split: Path, index: Index
) -> None:
    ingest_paths(index, [SPLIT])
    before = state(index)
    break_file(split, case)
    (report,) = ingest_paths(index, [split])
    assert report.status == "error"
    assert report.message.startswith(WHERE[case] + ": "), report.message
    assert BAD[case][3] in report.message, report.message
    assert state(index) == before
    with pytest.raises(IngestError) as refused:
        parse_document("digitalocean.zip", zipped(split))
    assert BAD[case][3].replace("(digitalocean)", "(digitalocean.zip)") in str(refused.value)


def test_a_lone_file_with_relative_refs_is_refused_with_what_to_do() -> None:
    data = (SPLIT / "openapi.yaml").read_bytes()
    with pytest.raises(IngestError) as refused:
        parse_document("openapi.yaml", data)
    assert refused.value.source == "openapi.yaml"
    assert "names description.yml, which is not in the upload" in refused.value.problem
    assert "upload a spec split over files as a .zip of its folder" in refused.value.problem


@pytest.mark.parametrize("ref", ["../policies.yaml", "policies.yaml", "./shared/policies.yaml#/x"])
def test_a_spec_whose_file_refs_only_dangle_is_read_as_one_file(tmp_path: Path, index: Index, ref: str) -> None:
    """A published spec with a leftover ref to a file it does not ship (Spotify's has `../policies.yaml`) is indexed
    as before: the ref reported unresolved, nothing read (the file outside the folder is never opened)."""
    (tmp_path / "policies.yaml").write_text("x: SHOULD NOT BE READ\n")
    (tmp_path / "api").mkdir()
    (tmp_path / "api" / "spotify.yaml").write_text(
        "openapi: 3.0.0\ninfo: {title: T, version: '1'}\npaths:\n  /me:\n    get:\n      x-policy: {$ref: '"
        + ref + "'}\n      responses: {'200': {description: ok}}\n")
    (report,) = ingest_paths(index, [tmp_path / "api"])
    assert report.status == "added" and report.source == "spotify.yaml"
    assert f"1 $ref(s) left unresolved (external refs are never fetched or read): {ref}" in report.message
    assert "a spec split over files is ingested as its folder or a .zip of it" in report.message


@pytest.mark.parametrize(("files", "problem"), [
    ({"../evil.yaml": "x: 1"}, "a path outside the archive"),
    ({"notes.txt": "hello"}, "no OpenAPI document found: none of its 0 .json/.yaml/.yml files"),
    ({"a.yaml": "name: service\n"}, "no OpenAPI document found"),
])
def test_a_bad_zip_is_refused_saying_why(files: dict[str, str], problem: str) -> None:
    with pytest.raises(IngestError, match=problem.replace("(", r"\(").replace(".", r"\.")):
        parse_document("bad.zip", archive_of(files))


def test_not_a_zip_is_refused() -> None:
    with pytest.raises(IngestError, match="not a zip archive"):
        parse_document("specs.zip", b"PK\x03\x04 but nothing else")
