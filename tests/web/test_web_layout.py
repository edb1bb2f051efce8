"""The table's layout at six screen sizes (issue 21 item 3, issue 31 item 3).

Phone upright (390×844 and a small Android phone, 360×740), phone sideways (844×390 and
667×375), tablet (1024×768) and desktop (1440×900). The page is given a late, busy hand of a
self-played engine game (long rivers, melds at several seats, a 報聽 player, a dealer streak, the
own seat to discard), folded by the client's own code as a live table folds the server's events
(``events_for`` of the own seat). Each size is photographed into
``test-artifacts/screenshots/layout-*.png`` and measured: no sideways scrolling, hand tiles at
least 40 px high on a phone (touch targets), river tiles readable, seat names at least 12 px and
never cut off, the compass's numbers labelled, melds and the 報聽 mark visible, and the seats,
rivers, compass and hand not overlapping one another; the own hand and the action bar fit on the
screen without scrolling.

In the same page (one browser context per size) the other screens a player meets are drawn and
measured from their element boxes (issue 31 item 3): fourteen tiles across the screen, as large
as the width allows; a claim offer (碰 on another seat's discard) whose bar covers neither the
offered tile nor the river's last tile; the settlement, its 下一局 and countdown on the screen
without any scrolling; the lobby. On the upright phone the opponents sit at their sides (left,
top, right), each by its river. On touch screens every control is at least 40 px both ways and
the keyboard help is not shown. The top bar's room name is never squeezed out by its buttons.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from web_helpers import SCREENSHOTS, SKIP_REASON, WebServer

from duyun.engine import ActionKind, Round, events_for, new_round
from duyun.tiles import tile_to_str

if SKIP_REASON:
    pytest.skip(SKIP_REASON, allow_module_level=True)

from test_web_client import NEXT_FRAMES

pytestmark = pytest.mark.slow

SIZES = {
    "phone": (390, 844),
    "phone-small": (360, 740),  # a small Android phone
    "phone-sideways": (844, 390),
    "phone-sideways-small": (667, 375),
    "tablet": (1024, 768),
    "desktop": (1440, 900),
    # English mode: longer labels and names must fit too
    "phone-sideways-en": (844, 390),
    "desktop-en": (1440, 900),
}
PHONES = {"phone", "phone-small", "phone-sideways", "phone-sideways-small", "phone-sideways-en"}
UPRIGHT = {"phone", "phone-small"}
#: the sizes drawn as touch screens (a tablet is one too)
TOUCH = PHONES | {"tablet"}
#: ten characters each: names this long show whole on every screen
NAMES = {"zh": ["長名字的玩家小明阿華", "阿梅"], "en": ["Alexandra1", "Mei_Lin_88"]}
#: a tap target's least size both ways on a touch screen
TOUCH_PX = 40


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
            # the seated people's names (the bots are named by seat)
            names = NAMES["zh"]
            return {"events": events_for(list(game.events), 0), "legal": legal, "names": names}
    raise AssertionError("no busy hand among the seeds tried")


def _claim_scene() -> dict[str, Any]:
    """A discard of another seat that the own seat (0) may claim (碰): the hand as seat 0
    sees it, the prompt's legal actions and the offered tile."""
    for seed in range(400):
        rng = random.Random(seed)
        game = new_round(seed=seed)
        while game.to_act:
            if 0 in game.to_act and game.wall_remaining <= 50:
                mine = list(game.legal_actions(0))
                if any(a.kind is ActionKind.PONG for a in mine):
                    offered = next(e for e in reversed(game.events) if e["type"] == "discard")
                    return {
                        "events": events_for(list(game.events), 0),
                        "legal": [{"action": a.kind.value} for a in mine],
                        "tile": offered["tile"],
                    }
            seat = game.to_act[0]
            legal = [a for a in game.legal_actions(seat) if a.kind is not ActionKind.HU]
            discards = [a for a in legal if a.kind is ActionKind.DISCARD]
            passes = [a for a in legal if a.kind is ActionKind.PASS]
            game.apply(rng.choice(discards) if discards else passes[0] if passes else legal[0])
    raise AssertionError("no pong offer among the seeds tried")


def _settlement_scene() -> dict[str, Any]:
    """A hand played to a discard win with beans paid on the way (a long settlement: the win,
    its payments, the beans, the others' hands): its events as seat 0 sees them and the
    ``hand_end`` message the server makes of it (tables/ending.py), at stake 1."""
    for seed in range(400):
        rng = random.Random(seed)
        game = new_round(seed=seed)
        while game.to_act:
            seat = game.to_act[0]
            legal = list(game.legal_actions(seat))
            hu = [a for a in legal if a.kind is ActionKind.HU]
            eager = [a for a in legal if a.kind.value.endswith(("pong", "kong"))]
            discards = [a for a in legal if a.kind is ActionKind.DISCARD]
            passes = [a for a in legal if a.kind is ActionKind.PASS]
            if hu:
                action = hu[0]
            elif eager:
                action = eager[0]
            else:
                action = rng.choice(discards) if discards else passes[0] if passes else legal[0]
            game.apply(action)
        result = game.result
        assert result is not None
        if result.result != "win" or len(result.payments) < 5 or result.winners == (0,):
            continue
        end = next(e for e in reversed(game.events) if e["type"] == "end")
        payments = [{**p.to_json(), "coins": p.points, "paid": p.points} for p in result.payments]
        hand_end = {
            "type": "hand_end",
            "hand_id": 2,
            "hand_index": 3,
            "result": result.result,
            "winners": list(result.winners),
            "win_kind": None if result.win_kind is None else result.win_kind.value,
            "loser": result.loser,
            "wins": [e for e in game.events if e["type"] == "win"],
            "hands": end["hands"],
            "left": [False] * 4,
            "payments": payments,
            "points": list(result.totals),
            "coins": list(result.totals),
            "balances": [1234 + result.totals[0], None, 800 + result.totals[2], None],
            "next_dealer": result.next_dealer,
            "next_streak": result.next_streak,
            "next_hand_in": 20,
        }
        return {"events": events_for(list(game.events), 0), "end": hand_end}
    raise AssertionError("no settled win with beans among the seeds tried")


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
            seat(scene.names[0], 'human', 1234), seat('bot:efficient', 'bot', null),
            {...seat(scene.names[1], 'human', 800), connected: false},
            seat('bot:efficient', 'bot', null)]};
    app.seat = 0;
    app.hand = foldEvents(scene.events);
    app.handEnd = null;
    app.matchEnd = null;
    app.handId = 1;
    app.events = scene.events;
    app.eventCount = scene.events.length;
    app.prompt = {kind: 'turn', id: 1, legal: scene.legal, deadline: 20,
        deadlineAt: performance.now() + 20000};
    app.promptSent = false;
    app.route = 'table';
    main.renderNow();
}"""

#: fourteen concealed tiles, no melds: the widest hand a player holds
FULL_HAND = """async () => {
    const main = await import('/static/js/main.js');
    const st = main.app.hand;
    st.melds[0] = [];
    st.hands[0] = ['1m','2m','3m','4m','5m','6m','7p','8p','9p','1s','1s','5s','6s','7s'];
    st.drawn[0] = '7s';
    main.app.prompt.legal = st.hands[0].map(tile => ({action: 'discard', tile}));
    main.renderNow();
}"""

#: another seat's discard offered to the own seat (碰 or 過)
SHOW_CLAIM = """async (scene) => {
    const main = await import('/static/js/main.js');
    const { foldEvents } = await import('/static/js/state.js');
    const app = main.app;
    app.hand = foldEvents(scene.events);
    app.handId = 3;
    app.events = scene.events;
    app.eventCount = scene.events.length;
    app.prompt = {kind: 'claim', id: 2, legal: scene.legal, claim_tile: scene.tile, deadline: 8,
        deadlineAt: performance.now() + 8000};
    app.promptSent = false;
    app.selected = null;
    main.renderNow();
}"""

#: the hand is over: its settlement over the table, waiting for 下一局
SHOW_SETTLEMENT = """async (scene) => {
    const main = await import('/static/js/main.js');
    const { foldEvents } = await import('/static/js/state.js');
    const app = main.app;
    app.hand = foldEvents(scene.events);
    app.handId = 4;
    app.events = scene.events;
    app.eventCount = scene.events.length;
    app.prompt = null;
    app.table = {...app.table, status: 'between', hand_index: 4,
        seats: app.table.seats.map(s => ({...s, ready: false}))};
    app.handEnd = {...scene.end, receivedAt: performance.now()};
    main.renderNow();
}"""

#: boxes of the table's parts, and the facts the test checks
#: whether an element's text is cut: wider than its box, or a line hidden below it (by the
#: line clamp). Fonts whose ascent and descent exceed the line height (Noto Sans CJK at 1.2)
#: make the box a pixel or two shorter than its lines' content areas without cutting any ink,
#: so only more than half a line past the box counts
CUT = (
    "e => e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight"
    " + (parseFloat(getComputedStyle(e).lineHeight)"
    " || parseFloat(getComputedStyle(e).fontSize) * 1.2) / 2"
)

MEASURE = (
    """() => {
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
        names: all('.plate .name').map(e => ({text: e.textContent, clipped: ("""
    + CUT
    + """)(e)})),
        melds: all('.plate .melds .meld, .my-melds .meld').map(box),
        baoting: all('.plate .badge.bt').map(box),
        seats: [0, 1, 2, 3].map(s => ({plate: box(document.getElementById(`plate-${s}`)),
            river: box(document.querySelector(`[data-river="${s}"]`))})),
        info: box(document.querySelector('.topbar .info')),
        infoClipped: (e => e.scrollWidth > e.clientWidth + 1)(
            document.querySelector('.topbar .info')),
        topButtons: all('.topbar button').map(box),
        kbdHelp: all('.kbd-help').filter(e => e.getClientRects().length).length,
        compassLabels: all('#compass .sub, #compass .timer-label').map(e => e.textContent.trim()),
    };
}"""
)


#: every control on the page that is shown (a check box by its label, the tap target); the
#: hand's tiles are measured apart (fourteen of them share the screen's width)
SMALL_CONTROLS = """(least) => {
    const shown = (e) => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden';
    return [...document.querySelectorAll('button, input, select, summary')]
        .filter(e => !e.closest('.tile') && e.type !== 'hidden' && shown(e))
        .map(e => e.matches('[type=checkbox], [type=radio]') && e.closest('label')
            ? e.closest('label') : e)
        .map(e => { const r = e.getBoundingClientRect();
            return {id: e.id || e.className || e.tagName, text: e.textContent.trim().slice(0, 20),
                    w: Math.round(r.width * 10) / 10, h: Math.round(r.height * 10) / 10}; })
        .filter(c => c.w < least || c.h < least);
}"""

#: the element is the topmost at its centre (nothing is drawn over it)
ON_TOP = """(sel) => { const e = document.querySelector(sel); const r = e.getBoundingClientRect();
    return e.contains(document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2)); }"""

BOX = """(el) => { const r = el.getBoundingClientRect();
    return {x: r.left, y: r.top, w: r.width, h: r.height}; }"""


def _small_controls(page: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = page.evaluate(SMALL_CONTROLS, TOUCH_PX - 0.5)
    return found


def _box(page: Any, selector: str) -> dict[str, float]:
    found: dict[str, float] = page.eval_on_selector(selector, BOX)
    return found


def _boxes(page: Any, selector: str) -> list[dict[str, float]]:
    found: list[dict[str, float]] = page.eval_on_selector_all(selector, f"els => els.map({BOX})")
    return found


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


@pytest.fixture(scope="module")
def claim_scene() -> dict[str, Any]:
    return _claim_scene()


@pytest.fixture(scope="module")
def settlement_scene() -> dict[str, Any]:
    return _settlement_scene()


def _check_busy_table(m: dict[str, Any], size: str) -> None:
    """The busy hand: what test_table_layout_... asserted at five sizes, and the seats' places
    and names (issue 31 item 3)."""
    width, height = SIZES[size]
    phone = size in PHONES
    english = size.endswith("-en")
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
    # every name shows whole (ten characters fit every plate; a long one takes two lines)
    assert not [n for n in m["names"] if n["clipped"]], m["names"]
    # the compass's numbers are labelled (wall count and the timer)
    labels = " ".join(m["compassLabels"])
    if english:
        assert "tiles left" in labels and "s" in labels, labels
    else:
        assert "剩" in labels and "秒" in labels, labels
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
    # the top bar: the room's name and the hand whole, beside (not under) the buttons
    assert not m["infoClipped"] and _inside(m["info"], screen), m["info"]
    for button in m["topButtons"]:
        assert _overlap(button, m["info"]) == 0, (button, m["info"])
    # the keyboard help: on a screen with a keyboard (the desktop's side panel), not on touch
    if size in TOUCH:
        assert m["kbdHelp"] == 0, "keyboard help on a touch screen"
    elif size.startswith("desktop"):
        assert m["kbdHelp"] == 1
    if size in UPRIGHT:
        _check_seats_at_their_sides(m)


def _check_seats_at_their_sides(m: dict[str, Any]) -> None:
    """Upright phone: the left player at the board's left edge beside the left river, the
    opposite player at the top above the top river, the right player at the right edge; each
    plate next to its own river (seat 0 is the own seat, so seat s sits at position s)."""
    board = m["board"]
    third = board["w"] / 3
    near = 40  # px between a plate and its river at most (its river one row deep)

    def centre(b: dict[str, float]) -> tuple[float, float]:
        return b["x"] + b["w"] / 2, b["y"] + b["h"] / 2

    right, top, left = (m["seats"][s] for s in (1, 2, 3))
    cx, cy = centre(left["plate"])
    river = left["river"]
    assert cx < board["x"] + third, ("left plate not at the left", left)
    assert left["plate"]["x"] + left["plate"]["w"] <= river["x"] + 2, ("left plate", left)
    assert river["x"] - (left["plate"]["x"] + left["plate"]["w"]) <= near, ("far", left)
    assert river["y"] <= cy <= river["y"] + river["h"], ("left plate not by its river", left)
    cx, cy = centre(right["plate"])
    river = right["river"]
    assert cx > board["x"] + 2 * third, ("right plate not at the right", right)
    assert right["plate"]["x"] >= river["x"] + river["w"] - 2, ("right plate", right)
    assert right["plate"]["x"] - (river["x"] + river["w"]) <= near, ("far", right)
    assert river["y"] <= cy <= river["y"] + river["h"], ("right plate not by its river", right)
    cx, cy = centre(top["plate"])
    river = top["river"]
    assert board["x"] + third < cx < board["x"] + 2 * third, ("top plate not centred", top)
    assert top["plate"]["y"] + top["plate"]["h"] <= river["y"] + 2, ("top plate", top)
    assert river["x"] <= cx <= river["x"] + river["w"], ("top plate not by its river", top)
    assert cy < board["y"] + board["h"] / 3, ("top plate not at the top", top)


def _check_full_hand(page: Any, size: str) -> None:
    """Fourteen concealed tiles across the screen, as large as its width allows: about a
    fifteenth of an upright phone's width each (fourteen and the drawn tile's gap), all on
    screen, the 聽 button not over the hand."""
    width, height = SIZES[size]
    screen: dict[str, float] = {"x": 0, "y": 0, "w": width, "h": height}
    page.evaluate(FULL_HAND)
    page.wait_for_function("() => document.querySelectorAll('#hand button.tile').length === 14")
    if size in UPRIGHT:
        page.screenshot(path=str(SCREENSHOTS / f"layout-{size}-14-tiles.png"))
    boxes = _boxes(page, "#hand button.tile")
    narrowest = min(b["w"] for b in boxes)
    if size in UPRIGHT:
        assert narrowest >= 0.9 * width / 15, f"{narrowest:.1f}px wide tiles in {width}px"
    elif size in PHONES:  # sideways: the height is what is short, the hand keeps one row
        assert narrowest >= 30, f"{narrowest:.1f}px wide tiles"
    else:
        assert narrowest >= min(0.9 * width / 15, 48), f"{narrowest:.1f}px wide tiles"
    assert min(b["h"] for b in boxes) >= 40, boxes
    assert all(_inside(b, screen) for b in boxes), boxes
    assert len({round(b["y"]) for b in boxes}) <= 2  # one row (the raised tile aside)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    toggle = _box(page, "#tingpai-btn")
    assert _overlap(toggle, _box(page, "#hand")) == 0, toggle


def _check_claim(page: Any, size: str, claim_scene: dict[str, Any]) -> None:
    """A 碰 offer: the offered tile in the bar and the river's last tile (the discard being
    offered) are covered by nothing: not the bar's buttons, not the 聽 button."""
    width, height = SIZES[size]
    screen: dict[str, float] = {"x": 0, "y": 0, "w": width, "h": height}
    page.evaluate(SHOW_CLAIM, claim_scene)
    page.wait_for_selector("#action-bar .act.pong")
    page.wait_for_timeout(400)  # the discard's arrival animation
    page.screenshot(path=str(SCREENSHOTS / f"layout-{size}-claim.png"))
    offered = _box(page, "#action-bar .prompt-text .tile")
    last = _box(page, ".river .tile.last")
    assert _inside(offered, screen) and _inside(last, screen), (offered, last)
    others = _boxes(page, "#part-me button, #part-me .timer-pill, #part-me .tingpai")
    covers = _boxes(page, "#part-me .action-bar, #part-me .notice, #part-me .tingpai")
    covers += _boxes(page, "#part-me .my-row, #part-me .tp-toggle")
    for other in others:
        assert _overlap(other, offered) == 0, ("the offered tile is covered", other, offered)
    for cover in covers:
        assert _overlap(cover, last) == 0, ("the river's last tile is covered", cover, last)
    # and nothing is drawn over the offered tile (it is the topmost element at its centre)
    hit = page.evaluate(ON_TOP, "#action-bar .prompt-text .tile")
    assert hit, "something is drawn over the offered tile"
    if size in TOUCH:
        assert not _small_controls(page), _small_controls(page)


def _check_settlement(page: Any, size: str, settlement_scene: dict[str, Any]) -> None:
    """The settlement: 下一局 and its countdown on the screen as the panel opens, without any
    scrolling (the page's or the panel's), and on top (a tap there presses them)."""
    width, height = SIZES[size]
    screen: dict[str, float] = {"x": 0, "y": 0, "w": width, "h": height}
    page.evaluate(SHOW_SETTLEMENT, settlement_scene)
    page.wait_for_selector("#settlement #next-btn")
    page.screenshot(path=str(SCREENSHOTS / f"layout-{size}-settlement.png"))
    scrolled = page.evaluate(
        "() => [scrollY, document.getElementById('settlement').scrollTop,"
        " document.querySelector('#settlement .sheet').scrollTop]"
    )
    assert scrolled == [0, 0, 0], scrolled
    for selector in ("#next-btn", "#settle-countdown"):
        box = _box(page, selector)
        assert _inside(box, screen, slack=0), (selector, box)
        on_top = page.evaluate(ON_TOP, selector)
        assert on_top, f"{selector} is covered"
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    # the players' names show whole (on two lines where a line is too short)
    cut = page.eval_on_selector_all(
        "#settlement .total-card .name, #settlement .hands-list .label",
        f"els => els.filter({CUT}).map(e => e.textContent)",
    )
    assert not cut, cut
    if size in TOUCH:
        assert not _small_controls(page), _small_controls(page)


def _check_lobby(page: Any, size: str, url: str) -> None:
    """The lobby on a touch screen, before and after signing in as a guest: every control at
    least 40 px both ways."""
    page.goto(url + "/")
    page.wait_for_function("() => window.__duyun && window.__duyun.booted")
    page.wait_for_selector("#guest-btn")
    assert not _small_controls(page), _small_controls(page)
    page.click("#guest-btn")
    page.wait_for_selector("#balance")
    page.wait_for_selector("#create-btn")
    # the session welcomed (the connection's dot green) and the lobby's loads drawn: the
    # picture shows the lobby a player looks at, not the moment before it settles
    page.wait_for_function(
        "() => { const app = window.__duyun; return app.status === 'open'"
        " && app.lobbyLoads === 0; }"
    )
    page.evaluate(NEXT_FRAMES)
    # (the viewport only: a whole-page picture is taken without the touch screen's media)
    page.screenshot(path=str(SCREENSHOTS / f"lobby-{size}.png"))
    assert not _small_controls(page), _small_controls(page)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= SIZES[size][0]
    help_shown = (
        "() => [...document.querySelectorAll('.kbd-help')].some(e => e.getClientRects().length)"
    )
    assert not page.evaluate(help_shown), "keyboard help on a touch screen"


@pytest.mark.parametrize("size", list(SIZES))
def test_every_screen_at_six_sizes_fits_without_overlaps_or_small_targets(
    browser: Any,
    web_server: WebServer,
    screenshots: Path,
    scene: dict[str, Any],
    claim_scene: dict[str, Any],
    settlement_scene: dict[str, Any],
    size: str,
) -> None:
    width, height = SIZES[size]
    touch = size in TOUCH
    context = browser.new_context(
        viewport={"width": width, "height": height},
        device_scale_factor=1,
        has_touch=touch,
        is_mobile=touch,
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    english = size.endswith("-en")
    page.add_init_script(f"localStorage.setItem('duyun.lang', '{'en' if english else 'zh'}')")
    page.goto(web_server.url + "/")
    page.wait_for_function("() => window.__duyun && window.__duyun.booted")
    page.evaluate(SHOW_SCENE, {**scene, "names": NAMES["en" if english else "zh"]})
    page.wait_for_selector("#hand button.tile")
    page.wait_for_selector("#compass")
    # the last discard's arrival animation has ended before measuring
    page.wait_for_timeout(600)
    page.screenshot(path=str(screenshots / f"layout-{size}.png"))
    m = page.evaluate(MEASURE)
    assert not errors, errors
    _check_busy_table(m, size)
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
    if touch:
        assert not _small_controls(page), _small_controls(page)
    _check_full_hand(page, size)
    _check_claim(page, size, claim_scene)
    _check_settlement(page, size, settlement_scene)
    assert not errors, errors
    if touch:
        _check_lobby(page, size, web_server.url)
    context.close()
