"""The engine's notices in a REAL game in the browser (issue 10 with the hardened engine).

Not injected events: a private table whose match seed is chosen (the server derives every deal
from it, ``duyun.server.tables.hand_seed``) so that the host, dealer in seat 0, may declare 報聽
on the first discard only with a hand that could then win only by self-draw (R17: a 平胡 without
a bean wins on a discard only from a 報聽 player, R27), and bots ("efficient", seeded by the same
match seed) later discard a tile it waits on. The page must warn before the declaration
(只能自摸, the prompt's ``baoting_self_draw_only``) and, when the frozen hand (R26) cannot take
the discard, show the engine's private ``win_refused`` notice with the reason (R17).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from web_helpers import DESKTOP, SKIP_REASON, WebServer

if SKIP_REASON:
    pytest.skip(SKIP_REASON, allow_module_level=True)

from test_web_client import HAND_DEADLINE, Tab, shot

from duyun.bots import make_bot
from duyun.engine import ActionKind, Round
from duyun.engine.round import deal_setup
from duyun.rules import DUYUN
from duyun.server.tables import hand_seed
from duyun.tiles import tile_to_str

pytestmark = pytest.mark.slow

#: the match seed: found by :func:`_hand_of_the_seed` (the first seed from 1 that qualifies)
MATCH_SEED = 275
BOT = "efficient"


def _hand_of_the_seed(match_seed: int) -> tuple[list[str], int]:
    """Replay the hand as the server will play it: seat 0 declares 報聽 with the first
    self-draw-only discard, then plays automatically (R26); the bots choose as the server's do
    (``make_bot(name, seed=hand_seed(seed, 1000 + seat))``). Returns the self-draw-only
    discards and how many wins the engine refused seat 0 (``win_refused``)."""
    game = Round(deal_setup(hand_seed(match_seed, 0), dealer=0, streak=0), DUYUN)
    only = sorted(game.baoting_self_draw_only(0))
    declare = [a for a in game.legal_actions(0) if a.kind is ActionKind.BAOTING]
    if not only or not declare:
        return [], 0
    game.apply(next(a for a in declare if a.tile == only[0]))
    bots = {seat: make_bot(BOT, seed=hand_seed(match_seed, 1000 + seat)) for seat in (1, 2, 3)}
    while game.to_act:
        seat = game.to_act[0]
        assert seat != 0, "after 報聽 the hand plays itself (R26)"
        game.apply(bots[seat].choose(game.view(seat)))
    refused = [e for e in game.events if e["type"] == "win_refused" and e["seat"] == 0]
    return [tile_to_str(t) for t in only], len(refused)


def test_baoting_self_draw_only_warning_and_refused_win_in_a_real_game(
    browser: Any, web_server: WebServer, screenshots: Path
) -> None:
    """R25, R17, R26, R27: the 只能自摸 warning on the 報聽 offer, then the engine's refusal of a
    win on a discard, both from the live server's prompt and events."""
    only, refusals = _hand_of_the_seed(MATCH_SEED)
    assert only and refusals >= 1  # the seed still gives the situation under test
    tab = Tab(browser, web_server, DESKTOP)
    tab.goto()
    tab.guest()
    tab.page.select_option("#create-bot", "normal")  # level normal = the efficient bot
    tab.page.fill("#create-hands", "1")
    tab.page.click("#create-btn")
    tab.page.wait_for_selector("#table-code")
    code = tab.page.text_content("#table-code").strip()
    assert tab.app("app.seat") == 0
    # the deal comes from the match seed (R4): set it before the match starts
    web_server.app.state.server.manager.tables[code].seed = MATCH_SEED
    tab.add_bots()
    tab.page.click("#ready-btn")

    # the dealer's first turn: 報聽 is offered, and the server says which discards leave a
    # hand that could win only by self-draw
    tab.page.wait_for_selector("#action-bar [data-do=bt-mode]")
    assert sorted(tab.app("app.prompt.baoting_self_draw_only")) == only
    tab.page.click("#action-bar [data-do=bt-mode]")
    notice = tab.page.wait_for_selector("#selfdraw-notice")
    assert "只能自摸" in notice.text_content()
    target = f"#hand button.tile.bt-ok[data-tile='{only[0]}']"
    hint = tab.page.text_content(f"{target} .hint")
    assert hint is not None and "只能自摸" in hint
    shot(tab, screenshots, "baoting-self-draw-only-desktop.png")
    tab.page.click(target)

    # the frozen hand plays itself (R26); a wait discarded by a player who has not declared
    # cannot be taken by a 平胡 without a bean (R17): the engine's private notice says why
    refused = tab.page.wait_for_selector("#refused-notice", timeout=HAND_DEADLINE * 1000)
    text = refused.text_content()
    assert "平胡" in text and "豆" in text and "R17" not in text, text  # words, not numbers
    event = tab.app("app.events.find(e => e.type === 'win_refused')")
    assert event["seat"] == 0 and event["reason"].startswith("R17")
    shot(tab, screenshots, "win-refused-desktop.png")
    # one hand: the match summary (大結算) follows the settlement at once
    tab.page.wait_for_selector("#settlement, #match-summary", timeout=HAND_DEADLINE * 1000)
    assert tab.app("app.events.filter(e => e.type === 'win_refused').length") == refusals
    tab.close()
