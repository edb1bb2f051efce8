"""牌譜解析 in the browser (issue 36 item 3): from the match summary and from 戰績, 解析 on one's
own hand opens the replay with 大師's review beside it: its progress while the server computes
it, then the summary at the top, a mark per decision along the hand that jumps to it, and at
each decision the options with their values, the player's choice and 大師's marked. At phone
and desktop size, in Chinese and English.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_helpers import DESKTOP, PHONE, SKIP_REASON, WebServer, start_web_server

if SKIP_REASON:
    pytest.skip(SKIP_REASON, allow_module_level=True)

from test_web_client import HAND_DEADLINE, NEXT_FRAMES, Tab, assert_no_sideways_scroll, shot

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def review_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    db = tmp_path_factory.mktemp("web-review") / "duyun.db"
    # few deals per decision: the page, not the statistics, is under test here
    server = start_web_server(f"sqlite:///{db}", review_samples=4)
    yield server
    server.stop()


def _one_hand_match(tab: Tab) -> None:
    """A private one-hand match against three bots, played by 托管 to its match summary."""
    page = tab.page
    page.fill("#create-hands", "1")
    page.click("#create-btn")
    page.wait_for_selector("#table-code")
    tab.add_bots()
    page.click("#ready-btn")
    page.wait_for_selector("#tuoguan-btn")
    page.click("#tuoguan-btn")
    page.wait_for_selector("#settlement #show-summary", timeout=HAND_DEADLINE * 1000)
    page.click("#show-summary")
    page.wait_for_selector("#match-summary [data-do=review]")


def test_review_beside_the_replay_from_the_summary_and_the_history(
    browser: Any, review_server: WebServer, screenshots: Path
) -> None:
    tab = Tab(browser, review_server, PHONE)
    tab.goto()
    tab.guest()
    _one_hand_match(tab)
    hand_id = tab.page.get_attribute("#match-summary [data-do=review]", "data-hand")
    own = tab.app("app.seat")  # 解析 in the summary reviews one's own seat
    tab.page.click("#match-summary [data-do=review]")
    # the POST answers before any decision is reviewed: the progress shows until the next poll
    tab.page.wait_for_selector("#replay #review .review-progress")
    status = tab.page.text_content("#review-status") or ""
    assert "排隊中" in status or "大師正在解析" in status, status
    tab.page.wait_for_selector("#review-summary", timeout=120_000)
    review = tab.app("app.replay.review.review")
    decisions = review["decisions"]
    seat = tab.app("app.replay.review.seat")
    assert seat == review["seat"] == own
    marks = tab.page.eval_on_selector_all(
        "#review-timeline .review-mark", "ms => ms.map(m => [m.className, Number(m.dataset.step)])"
    )
    assert len(marks) == len(decisions) and decisions, (marks, review["summary"])
    for (classes, _), decision in zip(marks, decisions, strict=True):
        expected = (
            "mistake"
            if decision["mistake"]
            else "agree"
            if decision["chosen"] == decision["best"]
            else "differ"
        )
        assert expected in classes.split(), (classes, decision)
    summary = tab.page.text_content("#review-summary")
    assert summary is not None and str(review["summary"]["mistakes"]) in summary

    # a mark jumps to its decision: the replay shows the seat's hand then, the panel its options
    target = max(range(len(decisions)), key=lambda i: len(decisions[i]["options"]))
    step = marks[target][1]
    tab.page.click(f"#review-timeline .review-mark >> nth={target}")
    tab.page.wait_for_function("s => window.__duyun.replay.step === s", arg=step)
    tab.page.evaluate(NEXT_FRAMES)
    shown = tab.page.eval_on_selector_all(
        "#review-detail .review-decision",
        "ds => ds.map(d => Number(d.dataset.event))",
    )
    assert decisions[target]["event"] in shown
    event = decisions[target]["event"]
    options = tab.page.eval_on_selector_all(
        f"#review-detail .review-decision[data-event='{event}'] .review-option",
        "os => os.map(o => [o.classList.contains('mine'), o.classList.contains('best'),"
        " o.textContent])",
    )
    assert len(options) == len(decisions[target]["options"])
    assert sum(mine for mine, _, _ in options) == 1 and sum(best for _, best, _ in options) == 1
    mine_text = next(text for mine, _, text in options if mine)
    assert "你" in mine_text
    assert "R1" not in tab.page.text_content("#review")  # no rule numbers where players read
    assert_no_sideways_scroll(tab)
    tab.page.eval_on_selector("#review", "e => e.scrollIntoView()")  # below the board
    shot(tab, screenshots, "review-phone.png")

    # ] and [ step from decision to decision
    before = tab.app("app.replay.step")
    tab.page.keyboard.press("]")
    later = [s for _, s in marks if s > before]
    if later:
        tab.page.wait_for_function("s => window.__duyun.replay.step === s", arg=min(later))

    # from 戰績 (the page opened afresh): the stored review at once, the same one
    tab.page.click("#replay-close")
    tab.page.set_viewport_size(DESKTOP)
    tab.goto()
    tab.page.wait_for_selector("#history-card details")
    tab.page.click("#history-card details summary")
    tab.page.click(f"#history-card [data-do=review][data-hand='{hand_id}']")
    tab.page.wait_for_selector("#review-summary")
    assert tab.app("app.replay.review.review") == review
    panel = tab.page.eval_on_selector("#review", "e => e.getBoundingClientRect().toJSON()")
    main = tab.page.eval_on_selector(".replay-main", "e => e.getBoundingClientRect().toJSON()")
    assert panel["x"] >= main["x"] + main["width"] - 1, (panel, main)  # beside, not below
    tab.page.click(f"#review-timeline .review-mark >> nth={target}")
    tab.page.wait_for_function("s => window.__duyun.replay.step === s", arg=step)
    assert_no_sideways_scroll(tab)
    shot(tab, screenshots, "review-desktop.png")

    # English, at both sizes
    tab.page.click("#lang-switch [data-lang=en]")
    tab.page.wait_for_function(
        "() => document.querySelector('#review h3')?.textContent.includes('review')"
    )
    assert "you" in (tab.page.text_content("#review-detail") or "")
    assert_no_sideways_scroll(tab)
    shot(tab, screenshots, "review-desktop-en.png")
    tab.page.set_viewport_size(PHONE)
    tab.page.evaluate(NEXT_FRAMES)
    assert_no_sideways_scroll(tab)
    tab.page.eval_on_selector("#review", "e => e.scrollIntoView()")
    shot(tab, screenshots, "review-phone-en.png")
    assert not tab.errors, tab.errors
    tab.close()
