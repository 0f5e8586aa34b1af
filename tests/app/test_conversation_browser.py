"""Issue 45's conversation in a real browser: the five questions of `CONVERSATION` (tests/test_integration_stackone.py)
typed one after another into the Ask & compare page, as a user would (each continues the conversation: the app reads
a follow-up with the earlier turns), on StackOne's specs with the packaged embedder and `full` alone; each answer's
opening is read from the page and must be the one the engine test asserts. Screenshots: conversation-*.png.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from tests.app.test_browser import (  # noqa: F401  (stackone_server is a fixture)
    ARTIFACTS,
    BROWSER_MARKS,
    ask,
    assert_no_exception,
    browser_page,
    result_column,
    screenshot,
    stackone_server,
    wait_idle,
)
from tests.test_integration_stackone import CONVERSATION

pytestmark = BROWSER_MARKS


def keep_only(page, name: str) -> None:  # type: ignore[no-untyped-def]
    """Leave only configuration `name` chosen in the Configurations box (each other chip's × removes it)."""
    box = page.get_by_test_id("stMultiSelect").filter(has_text="Configurations").first
    box.get_by_role("button", name=f"Remove {name}", exact=True).filter(visible=True).wait_for()
    remove = box.get_by_role("button", name=re.compile(r"^Remove (?!" + re.escape(name) + "$)")).filter(visible=True)
    while remove.count():
        remove.first.click()
        wait_idle(page)


def answer_opening(page) -> str:  # type: ignore[no-untyped-def]
    """The opening of the latest `full` answer as a reader sees it (rendered Markdown: no backticks): the first
    paragraph after its "Answer by" caption, the lead sentence and the facts line under it."""
    caption = result_column(page, "full").last.get_by_text(re.compile("^Answer by ")).first
    answer = caption.locator('xpath=following::*[@data-testid="stMarkdownContainer"][1]')
    return answer.inner_text().strip().splitlines()[0]


def test_a_conversation_that_changes_topic_reads_right_at_every_turn(request: pytest.FixtureRequest) -> None:
    """Each turn's answer opens with the engine test's lead: HRIS employees, then ATS candidates, the missing
    DELETE, the candidate's update and what it returns; every follow-up after the first is shown as read."""
    from playwright.sync_api import expect

    server = request.getfixturevalue("stackone_server")  # test_browser.py's: StackOne's specs, the packaged model
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    openings: list[str] = []
    started = time.perf_counter()
    with browser_page(errors, 1000) as page:
        page.goto(str(server["url"]))
        page.get_by_role("heading", name="Ask & compare").wait_for()
        wait_idle(page)
        keep_only(page, "full")
        expect(page.get_by_role("button", name=re.compile("^Remove ")).filter(visible=True)).to_have_count(1)
        for number, (question, lead, _) in enumerate(CONVERSATION, start=1):
            ask(page, question)
            expect(page.locator('[data-testid="stChatMessage"]').filter(has_text=question).last).to_be_visible()
            wait_idle(page)
            assert_no_exception(page)
            expect(result_column(page, "full")).to_have_count(number)  # the earlier turns', folded, and this one
            opening = answer_opening(page)
            openings.append(opening)
            screenshot(page, f"conversation-{number}.png")
            assert opening.startswith(lead.replace("`", "")), (question, opening)
            assert question == CONVERSATION[0][0] or "/hris/" not in opening, (question, opening)
        expect(page.get_by_text(re.compile("^Earlier question"))).to_have_count(len(CONVERSATION) - 1)
    print(f"five turns in the browser: {time.perf_counter() - started:.1f} s; openings: {openings}")
    assert not errors, errors
    log = Path(str(server["log"])).read_text()
    assert "Traceback" not in log, log[-4000:]
