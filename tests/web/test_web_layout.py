"""The table's layout at five screen sizes (issue 21 item 3).

Phone upright (390×844), phone sideways (844×390 and 667×375), tablet (1024×768) and desktop
(1440×900). The page is given a late, busy hand of a self-played engine game (long rivers, melds
at several seats, a 報聽 player, a dealer streak, the own seat to discard), folded by the
client's own code as a live table folds the server's events (``events_for`` of the own seat).
Each size is photographed into ``test-artifacts/screenshots/layout-*.png`` and measured: no
sideways scrolling, hand tiles at least 40 px high on a phone (touch targets), river tiles
readable, seat names at least 12 px, the compass's numbers labelled, melds and the 報聽 mark
visible, and the seats, rivers, compass and hand not overlapping one another; the own hand and
the action bar fit on the screen without scrolling.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from web_helpers import SKIP_REASON, WebServer

from duyun.engine import ActionKind, Round, events_for, new_round
from duyun.tiles import tile_to_str

if SKIP_REASON:
    pytest.skip(SKIP_REASON, allow_module_level=True)

pytestmark = pytest.mark.slow

SIZES = {
    "phone": (390, 844),
    "phone-sideways": (844, 390),
    "phone-sideways-small": (667, 375),
    "tablet": (1024, 768),
    "desktop": (1440, 900),
    # English mode: longer labels and names must fit too
    "phone-sideways-en": (844, 390),
    "desktop-en": (1440, 900),
}
PHONES = {"phone", "phone-sideways", "phone-sideways-small", "phone-sideways-en"}


def _busy_hand(seed: int) -> tuple[Round, int] | None:
    """Self-play a hand eagerly (every pong, kong and 報聽 taken) and stop at the own seat's
    (0) turn once the rivers are long; None when the hand never gets there."""
    rng = random.Random(seed)
    game = new_round(seed=seed)
    while game.to_act:
        seat = game.to_act[0]
        legal = list(game.legal_actions(seat))
        discards = [a for a in legal if a.kind is ActionKind.DISCARD]
        if (
            seat == 0
            and discards
            and game.wall_remaining <= 20
            and sum(1 for s in range(4) if game.melds[s]) >= 3
            and game.melds[0]
            and any(game.baoting)
        ):
            return game, seed
        hu = [a for a in legal if a.kind is ActionKind.HU]
        if hu:  # keep the hand going: a win would end it
            legal = [a for a in legal if a.kind is not ActionKind.HU] or legal
        eager = [a for a in legal if a.kind.value.endswith(("pong", "kong", "baoting"))]
        if eager and (seat != 0 or rng.random() < 0.8):
            action = rng.choice(eager)
        elif discards:
            action = rng.choice(discards)
        else:
            action = next((a for a in legal if a.kind is ActionKind.PASS), rng.choice(legal))
        game.apply(action)
    return None


def _scene() -> dict[str, Any]:
    for seed in range(400):
        found = _busy_hand(seed)
        if found is not None and found[0].wall_remaining >= 8:
            game, _ = found
            legal = [
                {"action": a.kind.value, "tile": tile_to_str(a.tile)}
                for a in game.legal_actions(0)
                if a.kind is ActionKind.DISCARD and a.tile is not None
            ]
            return {"events": events_for(list(game.events), 0), "legal": legal}
    raise AssertionError("no busy hand among the seeds tried")


#: the client state of a seated player at a room table, then the table drawn
SHOW_SCENE = """async (scene) => {
    const main = await import('/static/js/main.js');
    const { foldEvents } = await import('/static/js/state.js');
    const app = main.app;
    const seat = (name, kind, balance) => ({name, kind, balance, ready: true, connected: true,
        tuoguan: false, points: 0, coins: 0, bot: kind === 'bot' ? 'efficient' : null});
    app.rooms = [{id: 'r1', name: '新手場', stake: 1}];
    app.config = {turn_timer: 20};
    app.table = {code: '123456', kind: 'room', room: 'r1', stake: 1, hands: 8, hand_index: 3,
        status: 'playing', you: 0, host: 0, rules: {}, seats: [
            seat('長名字的玩家小明', 'human', 1234), seat('bot:efficient', 'bot', null),
            {...seat('阿梅', 'human', 800), connected: false},
            seat('bot:efficient', 'bot', null)]};
    app.seat = 0;
    app.hand = foldEvents(scene.events);
    app.handId = 1;
    app.events = scene.events;
    app.eventCount = scene.events.length;
    app.prompt = {kind: 'turn', id: 1, legal: scene.legal, deadline: 20,
        deadlineAt: performance.now() + 20000};
    app.promptSent = false;
    app.route = 'table';
    main.renderNow();
}"""

#: boxes of the table's parts, and the facts the test checks
MEASURE = """() => {
    const box = (el) => { const r = el.getBoundingClientRect();
        return {x: r.left, y: r.top, w: r.width, h: r.height}; };
    const all = (sel) => [...document.querySelectorAll(sel)];
    const rivers = all('.river').filter(r => r.children.length).map(box);
    const plates = all('.plate').map(box);
    const riverTiles = all('.river .tile').map(box);
    return {
        scrollWidth: document.documentElement.scrollWidth,
        innerWidth: innerWidth, innerHeight: innerHeight,
        hand: box(document.getElementById('hand')),
        handTiles: all('#hand button.tile').map(box),
        actionBar: box(document.getElementById('action-bar')),
        compass: box(document.getElementById('compass')),
        board: box(document.getElementById('board')),
        rivers, plates,
        // a side river's tiles are turned: their box is as wide as a tile is high
        riverTileMin: Math.min(...riverTiles.map(b => Math.min(Math.min(b.w, b.h),
                                                            Math.max(b.w, b.h) / 1.333))),
        nameSizes: all('.plate .name').map(e => parseFloat(getComputedStyle(e).fontSize)),
        names: all('.plate .name').map(e => ({clipped: e.scrollWidth > e.clientWidth + 1})),
        melds: all('.plate .melds .meld, .my-melds .meld').map(box),
        baoting: all('.plate .badge.bt').map(box),
        compassLabels: all('#compass .sub, #compass .timer-label').map(e => e.textContent.trim()),
    };
}"""


def _overlap(a: dict[str, float], b: dict[str, float]) -> float:
    """The area two boxes share (0 when they do not touch)."""
    w = min(a["x"] + a["w"], b["x"] + b["w"]) - max(a["x"], b["x"])
    h = min(a["y"] + a["h"], b["y"] + b["h"]) - max(a["y"], b["y"])
    return max(0.0, w) * max(0.0, h)


def _inside(inner: dict[str, float], outer: dict[str, float], slack: float = 1.0) -> bool:
    return (
        inner["x"] >= outer["x"] - slack
        and inner["y"] >= outer["y"] - slack
        and inner["x"] + inner["w"] <= outer["x"] + outer["w"] + slack
        and inner["y"] + inner["h"] <= outer["y"] + outer["h"] + slack
    )


@pytest.fixture(scope="module")
def scene() -> dict[str, Any]:
    return _scene()


@pytest.mark.parametrize("size", list(SIZES))
def test_table_layout_at_five_sizes_has_no_overlaps_and_large_enough_tiles(
    browser: Any, web_server: WebServer, screenshots: Path, scene: dict[str, Any], size: str
) -> None:
    width, height = SIZES[size]
    phone = size in PHONES
    context = browser.new_context(
        viewport={"width": width, "height": height},
        device_scale_factor=1,
        has_touch=phone,
        is_mobile=phone,
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    english = size.endswith("-en")
    page.add_init_script(f"localStorage.setItem('duyun.lang', '{'en' if english else 'zh'}')")
    page.goto(web_server.url + "/")
    page.wait_for_function("() => window.__duyun && window.__duyun.booted")
    page.evaluate(SHOW_SCENE, json.loads(json.dumps(scene)))
    page.wait_for_selector("#hand button.tile")
    page.wait_for_selector("#compass")
    # the last discard's arrival animation has ended before measuring
    page.wait_for_timeout(600)
    page.screenshot(path=str(screenshots / f"layout-{size}.png"))
    m = page.evaluate(MEASURE)
    assert not errors, errors
    assert m["scrollWidth"] <= m["innerWidth"], f"{m['scrollWidth']}px wide in {width}px"
    # the own hand: every tile on screen, tall enough to tap on a phone, fully visible
    tiles = m["handTiles"]
    assert len(tiles) in (11, 14) or len(tiles) % 3 == 2
    lowest = min(t["h"] for t in tiles)
    assert lowest >= (40 if phone else 44), f"hand tiles {lowest:.1f}px high"
    screen: dict[str, float] = {"x": 0, "y": 0, "w": width, "h": height}
    for t in tiles:
        assert _inside(t, screen), f"a hand tile is off screen: {t}"
    assert _inside(m["actionBar"], screen), m["actionBar"]
    # rivers readable: tiles at least 16 px wide (21 px high)
    assert m["riverTileMin"] >= 16, f"river tiles {m['riverTileMin']:.1f}px wide"
    assert min(m["nameSizes"]) >= 12, m["nameSizes"]
    assert all(not n["clipped"] for n in m["names"][1:]), "a bot's name is cut off"
    # the compass's numbers are labelled (wall count and the timer)
    labels = " ".join(m["compassLabels"])
    if english:
        assert "tiles left" in labels and "s" in labels, labels
    else:
        assert "剩" in labels and "秒" in labels, labels
    # the seat winds read in the page's language: E S W N in English, 東南西北 in Chinese
    badges = page.eval_on_selector_all("#compass .wind", "els => els.map(e => e.textContent)")
    seat_badges = page.eval_on_selector_all(".seat-wind", "els => els.map(e => e.textContent)")
    winds = ["E", "S", "W", "N"] if english else ["東", "南", "西", "北"]
    assert sorted(badges) == sorted(winds), badges
    assert len(seat_badges) == 4 and set(seat_badges) == set(winds), seat_badges
    # a dropped person is marked in the page's language, never in English on a Chinese page
    tags = page.eval_on_selector_all(".plate .tag", "els => els.map(e => e.textContent)")
    assert ("⚡offline" if english else "⚡斷線") in tags, tags
    # letters stay upright (a W turned to the far seat reads M); characters face their seats
    turns = page.eval_on_selector_all(
        "#compass .wind", "els => els.map(e => getComputedStyle(e).transform)"
    )
    upright = [t == "none" or t.startswith("matrix(1, 0, 0, 1,") for t in turns]
    assert all(upright) if english else upright.count(True) == 1, turns
    # melds of three seats (the own included) and the 報聽 mark are drawn on screen
    assert len(m["melds"]) >= 3 and all(_inside(b, screen) for b in m["melds"])
    assert m["baoting"] and all(_inside(b, screen) for b in m["baoting"])
    # nothing overlaps: seats, rivers, compass and the own hand
    parts = [("compass", m["compass"]), ("hand", m["hand"]), ("bar", m["actionBar"])]
    parts += [(f"river{i}", r) for i, r in enumerate(m["rivers"])]
    parts += [(f"plate{i}", p) for i, p in enumerate(m["plates"])]
    for i, (name_a, a) in enumerate(parts):
        for name_b, b in parts[i + 1 :]:
            shared = _overlap(a, b)
            assert shared < 4, f"{name_a} {a} overlaps {name_b} {b} ({shared:.0f} px²)"
    for name, part in parts:
        if name.startswith(("river", "plate")) or name == "compass":
            assert _inside(part, m["board"], slack=2), f"{name} {part} leaves the board"
    context.close()


def test_fourteen_tiles_fit_an_upright_phone_at_touch_size(
    browser: Any, web_server: WebServer, screenshots: Path, scene: dict[str, Any]
) -> None:
    """No melds: fourteen concealed tiles across 390 px, each at least 40 px high and 24 px
    wide, all on screen, and the 聽 button beside the action bar, not over the hand."""
    context = browser.new_context(
        viewport={"width": 390, "height": 844},
        device_scale_factor=1,
        has_touch=True,
        is_mobile=True,
    )
    page = context.new_page()
    page.goto(web_server.url + "/")
    page.wait_for_function("() => window.__duyun && window.__duyun.booted")
    page.evaluate(SHOW_SCENE, scene)
    page.evaluate(
        """async () => {
        const main = await import('/static/js/main.js');
        const st = main.app.hand;
        st.melds[0] = [];
        st.hands[0] = ['1m','2m','3m','4m','5m','6m','7p','8p','9p','1s','1s','5s','6s','7s'];
        st.drawn[0] = '7s';
        main.app.prompt.legal = st.hands[0].map(tile => ({action: 'discard', tile}));
        main.renderNow();
    }"""
    )
    page.wait_for_function("() => document.querySelectorAll('#hand button.tile').length === 14")
    page.screenshot(path=str(screenshots / "layout-phone-14-tiles.png"))
    boxes = page.eval_on_selector_all(
        "#hand button.tile",
        "bs => bs.map(b => { const r = b.getBoundingClientRect();"
        " return {x: r.left, y: r.top, w: r.width, h: r.height}; })",
    )
    screen: dict[str, float] = {"x": 0, "y": 0, "w": 390, "h": 844}
    assert min(b["h"] for b in boxes) >= 40 and min(b["w"] for b in boxes) >= 24, boxes
    assert all(_inside(b, screen) for b in boxes)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    toggle = page.eval_on_selector(
        "#tingpai-btn",
        "b => { const r = b.getBoundingClientRect(); return {x: r.left, y: r.top, w: r.width,"
        " h: r.height}; }",
    )
    hand = page.eval_on_selector(
        "#hand",
        "b => { const r = b.getBoundingClientRect(); return {x: r.left, y: r.top, w: r.width,"
        " h: r.height}; }",
    )
    assert _overlap(toggle, hand) == 0, (toggle, hand)
    context.close()
