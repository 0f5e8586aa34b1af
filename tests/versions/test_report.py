"""`rag diff` for CI: text, Markdown and JSON reports, an ignore file, `--fail-on` exit codes, indexed versions
read without the embedder and no index created where there is none."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag.cli import main
from rag.versions.report import apply_ignores, read_ignore_file
from rag.versions.spec_diff import DiffError
from tests.versions.test_diff_checks import _del, _rename_schema, base, diff_of


def write_pair(tmp_path: Path, edit) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    old, new = base(), base()
    edit(new)
    (tmp_path / "old").mkdir(parents=True, exist_ok=True)
    (tmp_path / "new").mkdir(parents=True, exist_ok=True)
    (tmp_path / "old" / "pets.json").write_text(json.dumps(old))
    (tmp_path / "new" / "pets.json").write_text(json.dumps(new))
    return str(tmp_path / "old" / "pets.json"), str(tmp_path / "new" / "pets.json")


def test_fail_on_error_exits_1_on_a_removed_endpoint_and_0_on_an_equivalent_edit(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    removed = write_pair(tmp_path / "a", _del("paths|/pets/{petId}|delete"))
    assert main(["diff", *removed, "--fail-on", "error"]) == 1
    assert "ERROR" in capsys.readouterr().out
    assert main(["diff", *removed]) == 0  # without --fail-on: a report, never a failure
    renamed = write_pair(tmp_path / "b", _rename_schema)
    assert main(["diff", *renamed, "--fail-on", "error"]) == 0
    assert main(["diff", *renamed, "--fail-on", "warning"]) == 0


def test_fail_on_warning_fails_on_a_warning_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pair = write_pair(tmp_path, lambda s: s["paths"]["/pets"]["get"]["parameters"].pop(2))
    assert main(["diff", *pair, "--fail-on", "error"]) == 0
    assert main(["diff", *pair, "--fail-on", "warning"]) == 1


def test_markdown_is_a_changelog_and_json_carries_check_and_level(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    def edit(s):  # type: ignore[no-untyped-def]
        del s["paths"]["/pets/{petId}"]["delete"]
        s["paths"]["/owners"] = {"get": {"responses": {"200": {"description": "ok"}}}}
        s["components"]["schemas"]["Pet"]["properties"]["status"]["enum"].append("pending")

    pair = write_pair(tmp_path, edit)
    assert main(["diff", *pair, "--format", "markdown"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("## Pets: ")
    assert "### Breaking changes (1)" in text and "`DELETE /pets/{petId}` removed" in text
    assert "### Changes that may break clients (1)" in text and "`response-property-enum-value-added`" in text
    assert "New operations (1): `GET /owners`" in text
    assert main(["diff", *pair, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["summary"]["error"] == 1 and data["summary"]["warning"] == 1
    assert {(c["check"], c["level"]) for c in data["changes"]} >= {("api-removed-without-deprecation", "error")}


def test_an_ignore_file_leaves_changes_out_by_check_and_operation(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    pair = write_pair(tmp_path, _del("paths|/pets/{petId}|delete"))
    ignore = tmp_path / "ignore.txt"
    ignore.write_text("# accepted in review\napi-removed-without-deprecation delete /pets/{petId}\n")
    assert main(["diff", *pair, "--fail-on", "error", "--ignore", str(ignore)]) == 0
    ignore.write_text("api-removed-without-deprecation GET /pets\n")  # another operation: still fails
    assert main(["diff", *pair, "--fail-on", "error", "--ignore", str(ignore)]) == 1
    ignore.write_text("no-such-check\n")
    capsys.readouterr()
    assert main(["diff", *pair, "--ignore", str(ignore)]) == 2
    assert "no-such-check" in capsys.readouterr().err


def test_apply_ignores_takes_one_operation_off_a_shared_change(tmp_path: Path) -> None:
    def edit(s):  # type: ignore[no-untyped-def]
        s["components"]["schemas"]["Pet"]["properties"]["tag"]["nullable"] = True

    diff = diff_of(edit)
    ignore = tmp_path / "ignore"
    ignore.write_text("response-property-became-nullable GET /pets\n")
    kept = apply_ignores(diff, read_ignore_file(ignore))
    assert len(kept.changes) == 1 and "GET /pets" not in kept.changes[0].operations
    ignore.write_text("response-property-became-nullable oops\n")
    with pytest.raises(DiffError, match="not an operation"):
        read_ignore_file(ignore)


def test_indexed_versions_need_an_index_and_none_is_created(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "no-index"
    assert main(["diff", "pets@1", "pets@2", "--index-dir", str(missing)]) == 2
    assert "no index in" in capsys.readouterr().err
    assert not missing.exists()


def test_checks_are_listed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", "--checks"]) == 0
    out = capsys.readouterr().out
    assert "api-removed-without-deprecation" in out and "response-property-max-length-increased" in out
