"""Settlement, match end and the rules page in the browser (issue 21 items 4 and 5).

A real two-hand private table with three bots and a short wait between hands: the settlement of
the first hand stays on screen while the pointer rests on it (its countdown stands still and the
page does not press 下一局), and still after the server has dealt the next hand, until the
reader lets go; the last hand's settlement is shown before the match summary, which lists each
hand's pattern, fan and coins and fits a phone. The rules page (玩法說明) opens from the lobby
and the table, in Chinese and English, with the escape penalty of the server's rules; a refused
win is explained in words and links to its section; leaving mid-hand says what it costs.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_helpers import DESKTOP, PHONE, SKIP_REASON, WebServer, start_web_server

if SKIP_REASON:
    pytest.skip(SKIP_REASON, allow_module_level=True)

from test_web_client import NEXT_FRAMES, Tab, play_until_settlement, shot

pytestmark = pytest.mark.slow

#: the wait between hands of this module's server: short, so that the next hand is dealt while
#: the test still reads the first hand's settlement (the server's limit for an unpressed 下一局,
#: ``next_hand_limit``, is set to it)
NEXT_HAND_WAIT = 8.0

RULE_NUMBER = re.compile(r"\bR\d+\b")


@pytest.fixture(scope="module")
def web_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    db = tmp_path_factory.mktemp("web-settle") / "duyun.db"
    server = start_web_server(
        f"sqlite:///{db}", next_hand_wait=NEXT_HAND_WAIT, next_hand_limit=NEXT_HAND_WAIT
    )
    yield server
    server.stop()


def _private_table_with_bots(tab: Tab, hands: int) -> None:
    tab.goto()
    tab.guest()
    tab.page.fill("#create-hands", str(hands))
    tab.page.click("#create-btn")
    tab.page.wait_for_selector("#table-code")
    tab.add_bots()
    tab.page.click("#ready-btn")
    tab.page.wait_for_selector("#hand button.tile")


def test_settlement_waits_for_its_reader_and_the_last_one_comes_before_the_summary(
    browser: Any, web_server: WebServer, screenshots: Path
) -> None:
    tab = Tab(browser, web_server, PHONE)
    _private_table_with_bots(tab, hands=2)
    play_until_settlement(tab)
    tab.page.wait_for_selector("#settlement #settle-countdown")
    first = tab.app("app.handEnd.hand_id")
    # the reader rests the pointer on the panel: the countdown stands still, 下一局 is not
    # pressed by the page, and the server's next hand (after NEXT_HAND_WAIT) leaves it open
    tab.page.hover("#settlement h2")
    tab.page.wait_for_function(
        "() => document.querySelector('#settle-countdown')?.classList.contains('paused')"
    )
    # something that comes up over the panel under the resting pointer (a toast, a banner) is
    # not the reader leaving: the pointer moves onto it and the panel is still being read
    tab.page.evaluate(
        """() => { const h = document.querySelector('#settlement h2').getBoundingClientRect();
        const over = document.createElement('div'); over.id = 'test-over';
        over.style.cssText = `position:fixed;left:${h.left}px;top:${h.top}px;`
            + `width:${h.width}px;height:${h.height}px;z-index:99`;
        document.body.append(over); }"""
    )
    over = tab.page.query_selector("#test-over").bounding_box()
    tab.page.mouse.move(over["x"] + over["width"] / 2 + 1, over["y"] + over["height"] / 2)
    # (held: the panel stayed over the new hand; it shows 新的一局已經開始 until the reader
    # lets go, or closes at once when the new hand asks this player to act)
    tab.page.wait_for_function("() => window.__duyun.handEnd?.held === true", timeout=30_000)
    tab.page.evaluate("() => document.getElementById('test-over').remove()")
    assert tab.app("app.handEnd.hand_id") == first
    assert not tab.app("!!app.handEnd.pressed")
    assert tab.app("app.handId") != first  # the next hand is on underneath
    shot(tab, screenshots, "settlement-held-phone.png")
    # letting go closes it (the mouse leaves the panel)
    tab.page.mouse.move(2, 2)
    tab.page.wait_for_selector("#settlement", state="detached", timeout=15_000)
    # the last hand: its settlement first, then the summary on request
    play_until_settlement(tab)
    tab.page.wait_for_function("() => !!window.__duyun.matchEnd")
    tab.page.wait_for_selector("#settlement #show-summary")
    assert tab.page.query_selector("#match-summary") is None
    shot(tab, screenshots, "settlement-last-phone.png")
    ends = tab.app("[app.handEnd.hand_id, app.handEnd.wins]")
    tab.page.click("#show-summary")
    tab.page.wait_for_selector("#match-summary #summary-hands")
    shot(tab, screenshots, "match-summary-phone.png")
    rows = tab.page.query_selector_all("#summary-hands .sum-hand")
    assert len(rows) == 2
    last = tab.page.text_content(f"#summary-hands [data-hand-id='{ends[0]}']")
    for win in ends[1]:
        assert win["pattern"] in last and f"{win['fan']} " in last
    # every seat's coins of each hand are listed; the card fits the phone (no sideways
    # scrolling, the replay button inside the screen)
    coins = tab.page.eval_on_selector_all(
        "#summary-hands .sum-hand", "rs => rs.map(r => r.querySelectorAll('.sum-coin').length)"
    )
    assert coins == [4, 4]
    width = tab.page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= PHONE["width"]
    boxes = tab.page.evaluate(
        "() => [...document.querySelectorAll('#summary-hands [data-do=replay]')]"
        ".map(b => { const r = b.getBoundingClientRect(); return [r.left, r.right]; })"
    )
    assert boxes
    for box in boxes:
        assert box[0] >= 0 and box[1] <= PHONE["width"] and box[1] > box[0], box
    # and held sideways
    tab.page.set_viewport_size({"width": 844, "height": 390})
    tab.page.wait_for_function("() => document.documentElement.scrollWidth <= 844")
    shot(tab, screenshots, "match-summary-phone-sideways.png")
    # 再來一局: the same private table again, the same seat, the bots back; alone with bots,
    # pressing it is everyone's agreement, so the new match starts
    code, seat = tab.app("[app.table.code, app.seat]")
    tab.page.click("#match-summary #play-again")
    tab.page.wait_for_function(
        "([code, seat]) => { const app = window.__duyun; return !app.matchEnd && app.table"
        " && app.table.code === code && app.table.status !== 'ended' && app.seat === seat"
        " && app.table.seats.filter(s => s && s.kind === 'bot').length === 3; }",
        arg=[code, seat],
    )
    # the state changed; the page draws it at the next animation frame (render() is batched
    # there), which the predicate above may run just before: once in a CI dry run the summary
    # was still in the DOM between the two
    tab.page.evaluate(NEXT_FRAMES)
    assert tab.page.query_selector("#match-summary") is None
    assert not tab.errors, tab.errors
    tab.close()


#: a seated player at a room table whose rules the server sent (base 6, 16 units: R45 a)
SEATED = """async () => {
    const main = await import('/static/js/main.js');
    const { emptyHand } = await import('/static/js/state.js');
    const app = main.app;
    const seat = (name, kind) => ({name, kind, balance: kind === 'bot' ? null : 1000,
        ready: true, connected: true, tuoguan: false, points: 0, coins: 0});
    app.table = {code: '654321', kind: 'room', room: 'novice', stake: 2, hands: 8,
        hand_index: 0, status: 'playing', you: 0, host: 0,
        rules: {base_points: 6, escape_penalty_units: 16, pass_blocks_ron: false},
        seats: [seat('me', 'human'), seat('bot:x', 'bot'), seat('bot:x', 'bot'),
                seat('bot:x', 'bot')]};
    app.seat = 0;
    app.hand = emptyHand();
    app.hand.started = true;
    app.hand.phase = 'turn';
    app.hand.wall = 40;
    app.refused = {type: 'win_refused', seat: 0, tile: '5p', from: 3, reason: 'R17',
        pattern: '平胡'};
    app.route = 'table';
    main.renderNow();
}"""


def test_rules_page_from_lobby_and_table_explains_in_words_and_costs_the_escape(
    browser: Any, web_server: WebServer, screenshots: Path
) -> None:
    tab = Tab(browser, web_server, DESKTOP)
    tab.goto()
    rooms = tab.app("app.rooms")
    tab.page.click("#rules-btn")
    tab.page.wait_for_selector("#rules-page #rules-fan")
    assert len(tab.page.query_selector_all("#rules-fan tr")) == 13  # header + 12 patterns
    escape = tab.page.text_content("#rules-escape")
    for room in rooms:
        rules = room["rules"]
        each = rules["escape_penalty_units"] * rules["base_points"]
        assert f"{each * 3 * room['stake']} 金幣" in escape, (room, escape)
    body = tab.page.inner_text("#rules-page")
    # players read explanations, not rule numbers or the developers' rule book
    assert not RULE_NUMBER.search(body), RULE_NUMBER.findall(body)
    assert "rules.md" not in body
    shot(tab, screenshots, "rules-desktop.png")
    tab.page.click("#rules-close")
    tab.page.click("#lang-switch [data-lang=en]")
    tab.page.click("#rules-btn")
    assert "How to play" in tab.page.text_content("#rules-page h2")
    assert "escape" in tab.page.text_content("#rules-escape")
    tab.page.click("#rules-close")
    tab.page.click("#lang-switch [data-lang=zh-Hant]")

    # at the table: the refused win in words, linked to its section of the page
    tab.page.evaluate(SEATED)
    notice = tab.page.text_content("#refused-notice")
    assert "平胡" in notice and "豆" in notice and not RULE_NUMBER.search(notice), notice
    tab.page.click("#refused-rules-link")
    tab.page.wait_for_selector("#rules-page #rules-pinghu")
    assert tab.page.evaluate(
        "() => { const r = document.querySelector('#rules-pinghu').getBoundingClientRect();"
        " return r.top >= 0 && r.top < innerHeight; }"
    )
    table_escape = tab.page.text_content("#rules-escape")
    assert "288 分" in table_escape and "576 金幣" in table_escape  # 16 × 6 × 3, stake 2
    tab.page.click("#rules-close")
    # leaving mid-hand says what it costs now, in the page's own dialog: 288 points, 576
    # coins at stake 2
    tab.page.click("#leave-btn")
    said = tab.page.wait_for_selector("#confirm-dialog #confirm-body").text_content()
    assert said and "288" in said and "576" in said, said
    assert not RULE_NUMBER.search(said)
    tab.page.click("#confirm-dialog #confirm-cancel")
    tab.page.wait_for_selector("#confirm-dialog", state="detached")
    assert tab.app("app.route") == "table"  # dismissed: still seated
    tab.close()
