"""End to end in a real browser: Debian's chromium driven by Playwright against the app's server (`python -m
webapp.serve`, as `make run` starts it).

The server runs on a free loopback port over a small index (hashing embedder, extractive generator; nothing is
downloaded). The tests ask a question with two configurations, upload a spec and ask about it, open the
evaluation page on a saved run; reproduce issue 13's crash sequence on the evaluation page (add a run, remove
the default one) (the screenshots of every page with 3 and 10 configurations: tests/app/test_browser_pages.py).
On StackOne's specs with the packaged model they click every example,
add a version and ask what changed, upload Spotify's spec, and time what a user waits for (issue 37).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.app.conftest import EVAL_RUN_FIXTURE, INVENTORY_SPEC, ROOT
from tests.conftest import FIXTURES
from tests.processes import free_port, load_allowance, stop_process
from webapp.request_view import REQUEST_LABEL

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = ROOT / "tests" / "artifacts"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update"]
TIMEOUT_MS = 90_000

# The marks of every browser test module (tests/app/test_browser*.py, test_conversation_browser.py).
BROWSER_MARKS = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is absent (apt-get install -y chromium)"),
]
pytestmark = BROWSER_MARKS


def screenshot(page, name: str) -> Path:  # type: ignore[no-untyped-def]
    """The whole page: Streamlit scrolls inside its main container, so grow the viewport to fit it first."""
    path = ARTIFACTS / name
    page.mouse.move(0, 0)  # no hover tooltip in the picture
    size = page.viewport_size or {"width": 1600, "height": 1100}
    height = page.evaluate(
        "() => Math.max(...Array.from(document.querySelectorAll("
        "'[data-testid=stMain], [data-testid=stAppViewContainer], [data-testid=stMainBlockContainer]'))"
        ".map(e => e.scrollHeight), document.body.scrollHeight)"
    )
    page.set_viewport_size({"width": size["width"], "height": max(size["height"], min(int(height) + 80, 16000))})
    page.wait_for_timeout(800)
    page.screenshot(path=str(path), full_page=True)
    page.set_viewport_size(size)
    return path


def wait_healthy(url: str, process: subprocess.Popen[bytes], log: Path, timeout: float = 90.0) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"streamlit exited with {process.returncode}:\n{log.read_text()[-4000:]}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.read().strip() == b"ok":
                    return
        except OSError:
            pass
        time.sleep(0.25)
    raise AssertionError(f"streamlit did not become healthy in {timeout:.0f} s:\n{log.read_text()[-4000:]}")


def start_server(tmp_path: Path, results: Path, specs: list[Path] | None = None,
                 embedding: str = "hashing", cache: Path | None = None) -> tuple[subprocess.Popen[bytes], str, Path]:
    """The app's server (`python -m webapp.serve`, as `make run` starts it) over a fresh index of `specs` (default:
    two fixture specs) embedded with `embedding` (the hashing embedder unless told; "" is the packaged model, whose
    vectors come from the embedding cache `cache` when given), reading saved runs from `results`."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "GROQ_API_KEY", "RAG_CONFIG_FILE")
    }
    (tmp_path / "eval_data").mkdir(exist_ok=True)
    env.update(
        RAG_INDEX_DIR=str(tmp_path / "index"),
        RAG_EMBEDDING_MODEL=embedding,
        RAG_LLM="extractive",
        RAG_EVAL_RESULTS_DIR=str(results),
        RAG_EVAL_DATA_DIR=str(tmp_path / "eval_data"),
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        ANONYMIZED_TELEMETRY="False",
        PYTHONUNBUFFERED="1",
    )
    if not embedding:
        env.pop("RAG_EMBEDDING_MODEL")  # the packaged all-MiniLM-L6-v2
        if cache is not None:
            env["RAG_CACHE_DIR"] = str(cache)  # embeddings already made are not made again
    built = subprocess.run(
        [sys.executable, "-m", "rag", "ingest",
         *[str(path) for path in specs or [FIXTURES / "specs" / "people-3.1.json",
                                           FIXTURES / "specs" / "shop-3.0.yaml"]]],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert built.returncode == 0, built.stderr
    port = free_port()
    log = tmp_path / "streamlit.log"
    with open(log, "wb") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "webapp.serve", "--server.port", str(port),  # as `make run` starts it
             "--server.address", "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false"],
            cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, process, log)
    except BaseException:
        stop_process(process)
        raise
    return process, url, log


@pytest.fixture
def server(tmp_path: Path) -> Iterator[dict[str, object]]:
    """The app over the fixture index, with a copy of the tiny saved run."""
    results = tmp_path / "results"
    shutil.copytree(EVAL_RUN_FIXTURE / "tiny-run", results / "tiny-run")
    process, url, log = start_server(tmp_path, results)
    try:
        yield {"url": url, "log": log, "tmp": tmp_path}
    finally:
        stop_process(process)


def copy_saved_runs(results: Path, names: tuple[str, ...]) -> None:
    """Copies of the project's saved runs `names` under `results`, each newer than the one before (the last is
    shown by default); the tiny fixture run stands in for a run the project does not have."""
    for offset, name in enumerate(names):
        source = ROOT / "eval_data" / "results" / name
        target = results / name
        shutil.copytree(source if (source / "metrics.json").is_file() else EVAL_RUN_FIXTURE / "tiny-run", target)
        stamp = time.time() - 100 + offset * 50
        for file in target.iterdir():
            os.utime(file, (stamp, stamp))


@pytest.fixture
def saved_runs_server(tmp_path: Path) -> Iterator[dict[str, object]]:
    """The app with copies of the project's saved runs `heldout-retrieval` (newest, so shown by default) and
    `dev-extractive`; the tiny fixture run stands in under those names when the project's runs are absent."""
    results = tmp_path / "results"
    copy_saved_runs(results, ("dev-extractive", "heldout-retrieval"))
    process, url, log = start_server(tmp_path, results)
    try:
        yield {"url": url, "log": log, "tmp": tmp_path}
    finally:
        stop_process(process)


@contextmanager
def browser_page(errors: list[str], height: int = 1000) -> Iterator[Any]:
    """A 1600-pixel-wide page of Debian's chromium (headless) with the tests' timeout, whose script errors are
    collected in `errors`; the browser is closed when the block ends."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1600, "height": height})
            page.set_default_timeout(TIMEOUT_MS)
            page.on("pageerror", lambda error: errors.append(str(error)))
            yield page
        finally:
            browser.close()


def assert_no_exception(page) -> None:  # type: ignore[no-untyped-def]
    """No Streamlit exception box on the page."""
    from playwright.sync_api import expect

    expect(page.locator('[data-testid="stException"]')).to_have_count(0)


def choose(page, label: str, option: str | re.Pattern[str]) -> None:  # type: ignore[no-untyped-def]
    """Add `option` (its label, or a pattern of it) to the multiselect labelled `label`."""
    box = page.get_by_test_id("stMultiSelect").filter(has_text=label).first
    wanted = page.get_by_role("option", name=option, exact=isinstance(option, str) or None)
    for _ in range(3):  # a click that lands during a rerun does not open the list: open it again
        box.locator("input").click()
        try:
            wanted.wait_for(timeout=5000)
            break
        except Exception:
            page.keyboard.press("Escape")
            wait_idle(page)
    wanted.click()
    page.keyboard.press("Escape")


def ask(page, question: str) -> None:  # type: ignore[no-untyped-def]
    """Type a question in the box and press Ask."""
    page.get_by_placeholder(re.compile("Ask about the indexed APIs")).fill(question)
    page.get_by_role("button", name="Ask", exact=True).click()


def wait_idle(page) -> None:  # type: ignore[no-untyped-def]
    """Until Streamlit has finished the rerun the last interaction started."""
    page.wait_for_timeout(400)
    page.locator('[data-testid="stApp"][data-test-script-state="notRunning"]').wait_for()


def test_evaluation_page_survives_adding_then_removing_runs(saved_runs_server) -> None:  # type: ignore[no-untyped-def]
    """Issue 13: with the default run shown, add `dev-extractive`, then remove `heldout-retrieval` — this raised
    `TypeError: '>=' not supported between 'str' and 'int'` because the question picker kept a stale label."""
    from playwright.sync_api import expect

    url = str(saved_runs_server["url"])
    errors: list[str] = []
    with browser_page(errors, 1000) as page:
        page.goto(f"{url}/Evaluation")  # a fresh server opened on a page's URL: app.py's navigation all the same
        page.get_by_role("heading", name="Per question").wait_for()
        nav = page.locator('[data-testid="stSidebarNav"]')
        expect(nav.get_by_role("link")).to_have_count(3)
        expect(nav.get_by_role("link").first).to_have_accessible_name("Ask & compare")
        runs = page.get_by_test_id("stMultiSelect").filter(has_text="Runs to compare").first
        expect(runs.get_by_role("button", name="Remove heldout-retrieval (validation)")).to_have_count(1)
        assert_no_exception(page)

        choose(page, "Runs to compare", "dev-extractive (tuning)")
        expect(runs.get_by_role("button", name="Remove dev-extractive (tuning)")).to_have_count(1)
        wait_idle(page)
        page.get_by_role("heading", name="Per question").wait_for()
        assert_no_exception(page)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        screenshot(page, "evaluation-2-runs.png")  # labels are `run / config`: long names must stay readable

        runs.get_by_role("button", name="Remove heldout-retrieval (validation)").click()
        expect(runs.get_by_role("button", name="Remove heldout-retrieval (validation)")).to_have_count(0)
        wait_idle(page)
        page.get_by_role("heading", name="Per question").wait_for()
        assert_no_exception(page)
        expect(page.get_by_text("TypeError")).to_have_count(0)
        # the question picker shows a record of the run that is left, not the removed one
        picker = page.get_by_test_id("stSelectbox").filter(has_text="Question").last
        expect(picker).not_to_contain_text("held-")
    assert not errors, errors
    log = Path(str(saved_runs_server["log"])).read_text()
    assert "Traceback" not in log, log[-4000:]


def check_request_example(page, columns) -> None:  # type: ignore[no-untyped-def]
    """Under `full`'s answer about an operation, folded: its request as curl and as Python, each with a copy
    button; none under C0's (raw JSON chunks have no typed facts). Screenshot: home-request-example.png."""
    from playwright.sync_api import expect

    expect(columns.nth(0).get_by_text(REQUEST_LABEL)).to_have_count(0)
    folded = columns.nth(1).get_by_text(REQUEST_LABEL)
    expect(folded).to_be_visible()
    folded.click()
    shown = columns.nth(1).locator('[data-testid="stCode"]').filter(visible=True)
    expect(shown.first).to_contain_text('curl "https://api.shop.example/v2/orders')
    copy = columns.nth(1).get_by_role("button", name="Copy to clipboard").filter(visible=True)
    for _ in range(10):  # the copy button shows on hover; the opening expander can move the block from under the mouse
        page.mouse.move(0, 0)
        shown.first.hover()
        if copy.count():
            break
        page.wait_for_timeout(300)
    expect(copy).not_to_have_count(0)
    screenshot(page, "home-request-example.png")
    columns.nth(1).get_by_role("tab", name="Python").click()
    expect(shown.first).to_contain_text("import httpx")
    screenshot(page, "home-request-example-python.png")


def test_ask_upload_and_evaluate_in_a_real_browser(server) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    url = str(server["url"])
    spec = Path(str(server["tmp"])) / "inventory.yaml"
    spec.write_bytes(INVENTORY_SPEC)
    errors: list[str] = []
    with browser_page(errors, 1100) as page:
        # ---- home: two configurations answer side by side
        page.goto(url)
        page.get_by_role("heading", name="Ask & compare").wait_for()
        nav = page.locator('[data-testid="stSidebarNav"]')
        expect(nav).to_contain_text("SpecRAG Workbench")
        expect(nav.get_by_role("link").first).to_have_accessible_name("Ask & compare")
        box = page.get_by_placeholder(re.compile("Ask about the indexed APIs"))
        box.wait_for()
        page.get_by_role("button", name="Remove C3").click()
        expect(page.get_by_role("button", name="Remove C3")).to_have_count(0)
        too_long = ("How do I list orders? " * 230)[:4999] + "?"  # 5,000 characters: refused, and kept
        ask(page, too_long)
        expect(page.get_by_text(re.compile("Not asked: the question is 5,000 characters long"))).to_be_visible()
        expect(box).to_have_value(too_long)
        ask(page, "What is the page_size parameter of list orders?")
        page.get_by_text("Overlap across configurations").wait_for()
        columns = page.locator('[data-testid="stColumn"]').filter(has=page.locator("h3"))
        expect(columns).to_have_count(2)
        expect(columns.nth(0).locator("h3")).to_have_text("C0")
        expect(columns.nth(1).locator("h3")).to_have_text("full")
        for index in range(2):
            expect(columns.nth(index).get_by_text("Answer by extractive (no LLM)")).to_be_visible()
            expect(columns.nth(index).get_by_text(re.compile(r"\banswered$")).first).to_be_visible()
        expect(page.locator(".js-plotly-plot")).to_have_count(1)  # the overlap view
        screenshot(page, "home.png")
        check_request_example(page, columns)

        # ---- a reload keeps the conversation (its id is in the URL)
        assert "conversation=" in page.url
        page.reload()
        page.get_by_role("heading", name="Ask & compare").wait_for()
        wait_idle(page)
        asked = page.locator('[data-testid="stChatMessage"]').filter(has_text="page_size parameter of list orders")
        expect(asked.first).to_be_visible()
        expect(columns.nth(1).locator("h3")).to_have_text("full")
        screenshot(page, "home-after-reload.png")
        ask(page, "What's the weather in Paris today?")  # abstained: no request under it
        page.get_by_text("Overlap across configurations").wait_for()
        wait_idle(page)
        expect(page.get_by_text(REQUEST_LABEL).filter(visible=True)).to_have_count(0)

        # ---- documents: upload a spec, then it is askable on the home page
        page.locator('[data-testid="stSidebarNav"] a', has_text="Documents").click()
        page.get_by_role("heading", name="Documents", exact=True).wait_for()
        page.locator('input[type="file"]').set_input_files(str(spec))
        page.get_by_role("button", name="Index 1 file(s)").click()
        page.get_by_text("inventory.yaml → inventory: added").wait_for()
        page.get_by_text("Showing the first chunk").wait_for()
        screenshot(page, "documents.png")

        page.get_by_role("link", name="Ask about it on the home page").click()
        page.get_by_placeholder(re.compile("Ask about the indexed APIs")).wait_for()
        ask(page, "How do I get the stock levels of a warehouse?")
        page.get_by_text("Overlap across configurations").wait_for()
        # the configurations chosen before visiting the documents page are still the ones asked
        columns = page.locator('[data-testid="stColumn"]').filter(has=page.locator("h3")).filter(visible=True)
        expect(columns).to_have_count(2)
        expect(page.get_by_text("inventory.paths./warehouses/{id}/stock.get").filter(visible=True).first).to_be_visible()
        expect(page.get_by_text("GET /warehouses/{id}/stock").filter(visible=True).first).to_be_visible()  # cited
        screenshot(page, "home-after-upload.png")

        # ---- evaluation: charts of the saved run
        page.locator('[data-testid="stSidebarNav"] a', has_text="Evaluation").click()
        page.get_by_role("heading", name="Evaluation", exact=True).wait_for()
        page.get_by_role("heading", name="Per question").wait_for()
        expect(page.locator(".js-plotly-plot")).to_have_count(6)  # with full's reliability diagram
        screenshot(page, "evaluation.png")
    assert not errors, errors
    log = Path(str(server["log"])).read_text()
    assert "Traceback" not in log, log[-4000:]


STACKONE_SPECS = ROOT.parent / "shared" / "specs" / "stackone"
EXAMPLE_CLAIMS: dict[str, dict[str, tuple[str, ...]]] = {
    "Out of scope": {"full": ("abstained",)},
    "Missing endpoint": {"full": ("There is no endpoint to create course", "GET /unified/lms/courses")},
    "Cross-API": {"full": ("in the ATS API use GET /unified/ats/candidates", "in the HRIS API use GET "
                           "/unified/hris/employees", "hris.paths./unified/hris/employees.get",
                           "ats.paths./unified/ats/candidates.get")},
    "Authentication": {"full": ("The HRIS API uses HTTP Basic", "Authorization: Basic", "[1] HRIS API overview")},
    "Shared header": {"full": ("operations share the header", "x-account-id", "HRIS API conventions")},
}
# What must not be in a column: no contradicting write line, no arbitrary operation, no abstention where the
# baseline has no gate.
EXAMPLE_ABSENT: dict[str, dict[str, tuple[str, ...]]] = {
    "Out of scope": {"C0": ("abstained",), "C3": ("abstained",)},
    "Missing endpoint": {"full": ("POST /unified/lms/users",), "C0": ("There is no endpoint",)},
    "Cross-API": {},
    "Authentication": {"full": ("DELETE /unified", "Also relevant"), "C0": ("HTTP Basic",)},
    "Shared header": {"full": ("GET /unified/hris/benefits/{id}",)},
}


@pytest.fixture
def stackone_server(tmp_path: Path, stackone_index) -> Iterator[dict[str, object]]:  # type: ignore[no-untyped-def]
    """The app over StackOne's 7 specs with the packaged embedder: the default corpus a stakeholder sees (its
    chunks' vectors come from a copy of the session index's embedding cache: StackOne's are not embedded twice,
    and what the app embeds never reaches the session's cache)."""
    if not STACKONE_SPECS.is_dir():
        pytest.fail(f"real specs not found at {STACKONE_SPECS}")
    results = tmp_path / "results"
    results.mkdir(exist_ok=True)
    cache = tmp_path / "cache"  # a copy: what the app embeds (an upload, a new version) is embedded for real
    cache.mkdir()
    source, copy = sqlite3.connect(stackone_index.embedder.cache_path), sqlite3.connect(cache / "embeddings.sqlite3")
    try:
        source.backup(copy)
    finally:
        copy.close()
        source.close()
    process, url, log = start_server(tmp_path, results, sorted(STACKONE_SPECS.glob("*.json")), "", cache)
    try:
        yield {"url": url, "log": log, "tmp": tmp_path}
    finally:
        stop_process(process)


def wait_until_nothing_is_set_aside(index: Path, timeout: float = 180.0) -> None:
    """Until the index's registry keeps no chunk set aside at ingest (the app has embedded and stored them all)."""
    deadline = time.time() + timeout
    while True:
        with sqlite3.connect(index / "registry.sqlite3", timeout=30) as registry:
            (waiting,) = registry.execute("SELECT COUNT(*) FROM deferred_chunks").fetchone()
        if not waiting:
            return
        assert time.time() < deadline, f"{waiting} chunks still set aside after {timeout:.0f} s"
        time.sleep(0.5)


def result_column(page, name: str):  # type: ignore[no-untyped-def]
    """The bordered column headed `name` (one per configuration)."""
    return page.locator('[data-testid="stColumn"]').filter(has=page.locator("h3", has_text=re.compile(f"^{name}$")))


def test_every_example_proves_its_claim_in_a_real_browser(stackone_server) -> None:  # type: ignore[no-untyped-def]
    """Clicks every example on the default corpus and checks its claim in each column; each example starts a
    conversation of its own, the earlier ones are listed and reopen, a follow-up shows how it was read and a new
    topic does not; no request leaves the machine (the favicon is local). Screenshots: examples-*.png."""
    from playwright.sync_api import expect

    from webapp.asking import EXAMPLES

    assert set(EXAMPLE_CLAIMS) == {example.label for example in EXAMPLES}, "a claim to check for every example"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    url = str(stackone_server["url"])
    errors: list[str] = []
    outside: list[str] = []
    timings: dict[str, float] = {}
    with browser_page(errors, 1000) as page:
        page.on("request", lambda request: outside.append(request.url)
                if not request.url.startswith(("http://127.0.0.1", "data:", "blob:")) else None)
        started = time.perf_counter()  # the server has just started: its engine loads and warms meanwhile
        page.goto(url)
        expect(page.get_by_role("button", name=EXAMPLES[0].question, exact=True)).to_be_enabled(timeout=TIMEOUT_MS)
        timings["navigation → examples clickable"] = time.perf_counter() - started
        page.get_by_role("heading", name="Ask & compare").wait_for()
        wait_idle(page)
        for example in EXAMPLES:  # the question and the claim are on screen, not in a tooltip
            expect(page.get_by_role("button", name=example.question, exact=True)).to_be_visible()
            expect(page.get_by_text(example.reveals, exact=True)).to_be_visible()
        screenshot(page, "examples-0-home.png")
        # C0 searches the naive chunks `rag ingest` set aside, which the app embeds in the background: on a busy
        # machine (tests in two processes) that can outlast the page's start, and C0 would say "still indexing".
        wait_until_nothing_is_set_aside(Path(str(stackone_server["tmp"])) / "index")

        for number, example in enumerate(EXAMPLES, start=1):
            page.get_by_role("button", name=example.question, exact=True).click()
            page.get_by_text("Overlap across configurations").wait_for()
            wait_idle(page)
            assert_no_exception(page)
            expect(page.get_by_text(re.compile("^Earlier question"))).to_have_count(0)  # not chained
            for name in ("C0", "C3", "full"):
                column = result_column(page, name)
                expect(column).to_have_count(1)
                expect(column.get_by_text("Fell back")).to_have_count(0)  # the defaults run offline
                for text in EXAMPLE_CLAIMS[example.label].get(name, ()):
                    expect(column.get_by_text(text, exact=False).filter(visible=True).first).to_be_visible()
                for text in EXAMPLE_ABSENT[example.label].get(name, ()):  # what a reader sees (the folded
                    # pipeline notes name the ranker's first candidate, whatever the answer is about)
                    expect(column.get_by_text(text, exact=False).filter(visible=True)).to_have_count(0)
            expect(page.get_by_text("Read as a follow-up")).to_have_count(0)
            slug = re.sub(r"[^a-z]+", "-", example.label.lower()).strip("-")
            screenshot(page, f"examples-{number}-{slug}.png")

        # The earlier examples are recent conversations; the first reopens with its own question.
        recent = page.get_by_test_id("stSidebar").get_by_role("button", name=EXAMPLES[0].question, exact=True)
        expect(recent).to_have_count(1)
        recent.click()
        wait_idle(page)
        asked = page.locator('[data-testid="stChatMessage"]')
        expect(asked.filter(has_text=EXAMPLES[0].question).first).to_be_visible()
        expect(asked.filter(has_text=EXAMPLES[-1].question)).to_have_count(0)

        # A follow-up shows, folded, the question it was read as; a new topic after it shows none.
        page.get_by_role("button", name=next(e.question for e in EXAMPLES if e.label == "Authentication"),
                         exact=True).click()
        page.get_by_text("Overlap across configurations").wait_for()
        wait_idle(page)
        ask(page, "And where do I send it?")
        page.get_by_text("Overlap across configurations").wait_for()
        wait_idle(page)
        folded = page.get_by_text("Read as a follow-up")
        expect(folded).to_have_count(1)
        expect(page.get_by_text("earlier answer")).to_have_count(0)
        folded.click()
        expect(page.get_by_text(re.compile("continuing “How do I authenticate")).first).to_be_visible()
        screenshot(page, "examples-7-follow-up.png")
        ask(page, "What's the weather in Berlin?")
        page.get_by_text("Overlap across configurations").wait_for()
        wait_idle(page)
        expect(result_column(page, "full").get_by_text("abstained").first).to_be_visible()
        latest = page.locator('[data-testid="stChatMessage"]').filter(has_text="weather in Berlin").last
        expect(latest.get_by_text("Read as a follow-up")).to_have_count(0)
        screenshot(page, "examples-8-new-topic.png")

        add_old_lms_and_ask_what_changed(page, timings)
        upload_spotify(page, timings)
    assert not errors, errors
    assert not outside, f"requests left the machine: {outside[:5]}"
    log = Path(str(stackone_server["log"])).read_text()
    assert "Traceback" not in log, log[-4000:]
    check_timings(timings)


OLD_LMS = ROOT.parent / "shared" / "specs" / "stackone-2025-02" / "lms.json"
SPOTIFY = ROOT.parent / "shared" / "eval" / "restbench-spotify" / "spotify.json"
# Issue 37's targets on an idle machine (seconds), recorded in tests/artifacts/timings.json. Speed targets are
# benchmarks' to hold, not tests': the test fails only on a gross regression (over `GROSS` times the target, scaled
# by the run queue per core: `load_allowance`). Measured 2026-11-28: navigation → examples clickable 9.9 s, over
# its 5 s target since the learned ranker and the deferred naive chunks landed (an open regression).
GROSS = 3.0
TARGETS = {
    "navigation → examples clickable": 5.0,
    "first what-changed answer after a new version": 2.0,
    "upload of spotify.json": 25.0,
}


def check_timings(timings: dict[str, float]) -> None:
    """Save the measured waits (tests/artifacts/timings.json), print those over target, fail on a gross regression."""
    allowance = load_allowance()
    (ARTIFACTS / "timings.json").write_text(json.dumps({"seconds": timings, "allowance": allowance}, indent=2))
    print(f"waits (s): {timings}; targets {TARGETS} × {allowance:.2f} (load per core)")
    over = {name: seconds for name, seconds in timings.items() if seconds > TARGETS[name] * allowance}
    if over:
        print(f"over target × {allowance:.2f}: {over}")
    slow = {name: seconds for name, seconds in over.items() if seconds > TARGETS[name] * allowance * GROSS}
    assert not slow, f"over {GROSS:.0f}× target × {allowance:.2f}: {slow}"


def add_old_lms_and_ask_what_changed(page, timings: dict[str, float]) -> None:  # type: ignore[no-untyped-def]
    """Issue 22: uploading February's `lms.json` offers "add as a new version", then shows the diff at once (counts,
    a filterable table) and a link that asks what changed; issue 37: that first answer comes at once."""
    from playwright.sync_api import expect

    page.locator('[data-testid="stSidebarNav"] a', has_text="Documents").click()
    page.get_by_role("heading", name="Documents", exact=True).wait_for()
    page.locator('input[type="file"]').set_input_files(str(OLD_LMS))
    page.get_by_text(re.compile("the API lms is already indexed")).wait_for()
    label = page.get_by_label("Version label", exact=True).and_(page.get_by_test_id("stTextInputField"))
    label.fill("2025-02")
    label.press("Enter")
    wait_idle(page)
    page.get_by_role("button", name="Add as a new version").click()
    page.get_by_text("What changed in lms: 2025-02 → 1.0.0").wait_for()
    diff = page.locator(".st-key-version_diff")
    expect(diff.get_by_test_id("stMetric").filter(has_text="Operations removed")).to_contain_text("4")
    expect(diff.get_by_test_id("stDataFrame")).to_have_count(1)
    # One finding per change with its operations (issue 36): 89 changes, 21 of them errors (was 250 lines, 64
    # "breaking", before the checks were classed as oasdiff does).
    page.get_by_text(re.compile(r"^89 of 89 change\(s\)$")).wait_for()
    screenshot(page, "documents-new-version-diff.png")
    diff.get_by_text("Errors only").click()
    page.get_by_text(re.compile(r"^21 of 89 change\(s\)$")).wait_for()
    assert_no_exception(page)
    screenshot(page, "documents-new-version-breaking.png")
    wait_idle(page)
    started = time.perf_counter()
    page.get_by_role("button", name=re.compile("Ask: What changed in the LMS API since the 2025-02")).click()
    page.get_by_text(re.compile(r"^1 configuration\(s\) answered in")).wait_for()  # `full` has answered
    timings["first what-changed answer after a new version"] = time.perf_counter() - started
    expect(page.get_by_text(re.compile(r"lms\.changes")).first).to_be_visible()
    assert_no_exception(page)
    screenshot(page, "home-what-changed.png")


def upload_spotify(page, timings: dict[str, float]) -> None:  # type: ignore[no-untyped-def]
    """Issue 37: Spotify's spec uploaded beside StackOne's (parse, chunk, embed with progress) within its target."""
    page.locator('[data-testid="stSidebarNav"] a', has_text="Documents").click()
    page.get_by_role("heading", name="Documents", exact=True).wait_for()
    page.locator('input[type="file"]').set_input_files(str(SPOTIFY))
    wait_idle(page)
    started = time.perf_counter()
    page.get_by_role("button", name="Index 1 file(s)").click()
    page.get_by_text(re.compile(r"spotify\.json → spotify: added")).wait_for()
    timings["upload of spotify.json"] = time.perf_counter() - started
    assert_no_exception(page)

