"""The screenshots of every page in a real browser, with 3 and with 10 configurations, over saved evaluation runs
(tests/artifacts/ for a person to look at). A file of its own so that it runs beside tests/app/test_browser.py's
other browser tests (the test processes take a file each)."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.app.conftest import ROOT
from tests.app.test_browser import (
    ARTIFACTS,
    BROWSER_MARKS,
    STACKONE_SPECS,
    ask,
    assert_no_exception,
    browser_page,
    choose,
    copy_saved_runs,
    screenshot,
    start_server,
    wait_idle,
)
from tests.conftest import FIXTURES
from tests.ingest.test_bundle import zipped
from tests.processes import stop_process

pytestmark = BROWSER_MARKS

SCREENSHOT_RUNS = ("dev-retrieval", "dev-extractive", "heldout-retrieval")  # 3, 3 and 10 configurations
ALL_CONFIGS = ("C0", "C1", "C2", "C3", "C4", "C5", "E2", "E3", "E4", "full")


@pytest.fixture
def showcase_server(tmp_path: Path) -> Iterator[dict[str, object]]:
    """The app as a stakeholder sees it: StackOne's specs (hashing embedder, when ../shared/specs/stackone is
    there; else the fixture specs), the project's saved runs with 3 and with 10 configurations, and the latest
    evaluation-suite table when one is saved."""
    results = tmp_path / "results"
    copy_saved_runs(results, SCREENSHOT_RUNS)
    suite = ROOT / "eval_data" / "results" / "suite" / "latest.json"
    if suite.is_file():
        (results / "suite").mkdir()
        shutil.copy(suite, results / "suite" / "latest.json")
    specs = sorted(STACKONE_SPECS.glob("*.json")) if STACKONE_SPECS.is_dir() else None
    process, url, log = start_server(tmp_path, results, specs)
    try:
        yield {"url": url, "log": log, "tmp": tmp_path}
    finally:
        stop_process(process)


def test_screenshots_of_every_page_with_3_and_10_configurations(showcase_server) -> None:  # type: ignore[no-untyped-def]
    """Saves tests/artifacts/{home,documents,evaluation}-*.png at 1600×1000 for a person to look at, and checks
    that no page shows an exception on the way."""
    from playwright.sync_api import expect

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    url = str(showcase_server["url"])
    errors: list[str] = []
    with browser_page(errors, 1000) as page:
        page.goto(url)
        page.get_by_role("heading", name="Ask & compare").wait_for()
        wait_idle(page)
        screenshot(page, "home-start.png")
        page.get_by_role("button", name=re.compile("create a course|weather in Berlin")).first.click()
        page.get_by_text("Overlap across configurations").wait_for()
        wait_idle(page)
        assert_no_exception(page)
        screenshot(page, "home-3-configs.png")

        page.get_by_role("button", name="New conversation").click()
        wait_idle(page)
        for name in ALL_CONFIGS:
            chip = page.get_by_role("button", name=f"Remove {name}", exact=True)
            if not chip.count():
                choose(page, "Configurations", name)
                expect(chip).to_have_count(1)
                wait_idle(page)
        expect(page.get_by_role("button", name=re.compile("^Remove (C|E|full)"))).to_have_count(10)
        ask(page, "How do I list employees in the HRIS API?")
        page.get_by_text("Overlap across configurations").wait_for()
        wait_idle(page)
        assert_no_exception(page)
        expect(page.get_by_role("tab")).to_have_count(10)
        screenshot(page, "home-10-configs.png")

        page.locator('[data-testid="stSidebarNav"] a', has_text="Documents").click()
        page.get_by_text("Showing the first chunk").wait_for()
        wait_idle(page)
        screenshot(page, "documents.png")
        # A file already indexed (the default choice rejects it) and a file that cannot be indexed: each gets
        # a message in the words on screen.
        tmp = Path(str(showcase_server["tmp"]))
        indexed = next(iter(sorted(STACKONE_SPECS.glob("*.json"))), None) if STACKONE_SPECS.is_dir() else None
        again = tmp / (indexed.name if indexed else "people-3.1.json")
        again.write_bytes((indexed or FIXTURES / "specs" / "people-3.1.json").read_bytes())
        binary = tmp / "setup.exe"
        binary.write_bytes(b"MZ\x90\x00")
        page.locator('input[type="file"]').set_input_files([str(again), str(binary)])
        page.get_by_role("button", name="Index 2 file(s)").click()
        page.get_by_text(re.compile("already indexed, so it was not added")).first.wait_for()
        refused = page.get_by_text(re.compile(r"setup\.exe: not indexed — \.exe files cannot be indexed"))
        expect(refused.first).to_be_visible()
        expect(page.get_by_text("on_duplicate")).to_have_count(0)
        wait_idle(page)
        screenshot(page, "documents-rejected.png")
        # A Swagger 2.0 spec and a spec split over files, zipped: each says how it was read.
        old = tmp / "petstore-v2.json"
        old.write_bytes((FIXTURES / "specs" / "swagger-2.0.json").read_bytes())
        split = tmp / "digitalocean.zip"
        split.write_bytes(zipped(FIXTURES / "split_spec" / "digitalocean"))
        page.locator('input[type="file"]').set_input_files([str(old), str(split)])
        page.get_by_role("button", name="Index 2 file(s)").click()
        page.get_by_text(re.compile("converted from Swagger 2.0 to OpenAPI 3.0")).first.wait_for()
        expect(page.get_by_text(re.compile(r"digitalocean\.zip → digitalocean: added.*bundled from 20 files"))
               .first).to_be_visible()
        expect(page.get_by_text("Add a spec by URL", exact=True)).to_be_visible()
        wait_idle(page)
        screenshot(page, "documents-swagger2-zip.png")

        page.locator('[data-testid="stSidebarNav"] a', has_text="Evaluation").click()
        page.get_by_role("heading", name="Per question").wait_for()
        wait_idle(page)
        runs = page.get_by_test_id("stMultiSelect").filter(has_text="Runs to compare").first
        held = runs.get_by_role("button", name=re.compile("^Remove heldout-retrieval"))
        dev = runs.get_by_role("button", name=re.compile("^Remove dev-extractive"))
        expect(held).to_have_count(1)  # the newest run is shown first
        held.click()
        expect(held).to_have_count(0)
        wait_idle(page)
        choose(page, "Runs to compare", re.compile(r"^dev-extractive \("))  # its role: suite or file name
        expect(dev).to_have_count(1)
        wait_idle(page)
        page.get_by_role("heading", name="Per question").wait_for()
        assert_no_exception(page)
        screenshot(page, "evaluation-3-configs.png")

        choose(page, "Runs to compare", re.compile(r"^heldout-retrieval \("))
        expect(held).to_have_count(1)
        wait_idle(page)
        dev.click()
        expect(dev).to_have_count(0)
        wait_idle(page)
        page.get_by_role("heading", name="Per question").wait_for()
        assert_no_exception(page)
        screenshot(page, "evaluation-10-configs.png")

        # Three runs at once: a metric at a time, a panel per run, one colour per configuration.
        for name in ("dev-extractive", "dev-retrieval"):
            choose(page, "Runs to compare", re.compile(rf"^{name} \("))
            wait_idle(page)
        expect(runs.get_by_role("button", name=re.compile("^Remove "))).to_have_count(3)
        page.get_by_role("heading", name="Per question").wait_for()
        expect(page.get_by_text("Chart metric")).to_be_visible()
        expect(page.get_by_text("Heatmap run")).to_be_visible()
        assert_no_exception(page)
        screenshot(page, "evaluation-3-runs.png")

        # StackOne's questions are about seven APIs: the heatmap's rows by API, then by category again.
        rows = page.get_by_test_id("stRadio").filter(has_text="Heatmap rows")
        rows.get_by_text("API", exact=True).click()
        wait_idle(page)
        expect(page.locator(".gtitle", has_text=re.compile(r"by API$"))).to_have_count(1)
        expect(page.get_by_role("img", name=re.compile("hris")).or_(page.locator(".ytick", has_text="hris")).first
               ).to_be_visible()
        assert_no_exception(page)
        screenshot(page, "evaluation-by-api.png")
        rows.get_by_text("category", exact=True).click()
        wait_idle(page)
        expect(page.locator(".gtitle", has_text=re.compile(r"by category$"))).to_have_count(1)
        assert_no_exception(page)
    assert not errors, errors
    log = Path(str(showcase_server["log"])).read_text()
    assert "Traceback" not in log, log[-4000:]


# ---------------------------------------------------------------------- the example buttons prove their claims
# What the page must show in each configuration's column after the button is clicked (see the claims under the
# buttons, webapp.asking.EXAMPLES; tests/app/test_examples.py checks the same claims on the engine).
