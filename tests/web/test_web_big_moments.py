"""Big moments at the table (issue 31 item 4): a win celebrated by its size, spoken calls, motion
that respects `prefers-reduced-motion`, and reactions as bubbles with a per-seat mute.

The page is a signed-in guest's, given a table and then crafted server messages through its own
socket handler (``app.session.onMessage``), as the server would send them: the snapshot that
starts each hand, then the hand's events. A 1-番 平胡 keeps the small flash; a 天胡 (R20, 18 番)
and a 清一色 (R20, 6 番, the banner's threshold) get the full-board banner with the pattern's
name, fan and coins won. The spoken calls are caught at ``HTMLMediaElement.play``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from web_helpers import DESKTOP, PHONE, SKIP_REASON, WebServer

from duyun.server import webapp

if SKIP_REASON:
    pytest.skip(SKIP_REASON, allow_module_level=True)

pytestmark = pytest.mark.slow

STATIC = webapp.STATIC_DIR
CALLS = ("pong", "kong", "hu", "zimo", "baoting")

#: every call the page starts playing, by its path; nothing is really played
SPY_AUDIO = """
window.__played = [];
HTMLMediaElement.prototype.play = function () {
    window.__played.push(new URL(this.currentSrc || this.src, location.href).pathname);
    return Promise.resolve();
};
"""

#: a seated player (seat 0) at a room table of stake 1, with two bots and another person
SEAT_AT_TABLE = """() => {
    const app = window.__duyun;
    const seat = (name, kind) => ({name, kind, balance: kind === 'bot' ? null : 1000,
        ready: true, connected: true, tuoguan: false, points: 0, coins: 0,
        bot: kind === 'bot' ? 'efficient' : null});
    app.rooms = [{id: 'r1', name: '新手場', stake: 1}];
    app.config = {turn_timer: 20};
    app.table = {code: '654321', kind: 'room', room: 'r1', stake: 1, hands: 8, hand_index: 0,
        status: 'playing', you: 0, host: 0, rules: {}, seats: [seat('小明', 'human'),
        seat('bot:efficient', 'bot'), seat('阿梅', 'human'), seat('bot:efficient', 'bot')]};
    app.seat = 0;
    app.route = 'table';
}"""

#: a new hand's snapshot (its `start` event), as the server sends at the start of every hand
DEAL = """([handId, dealer, own]) => {
    const app = window.__duyun;
    const hands = [own, '?', '?', '?'];
    app.session.onMessage({type: 'snapshot', hand_id: handId, hand_index: 0, seat: 0, view: {},
        prompt: null, events: [{type: 'start', dealer, streak: 0, rules: {}, hands, wall: 55}]});
}"""

MORE_EVENTS = """(events) => {
    const app = window.__duyun;
    app.session.onMessage({type: 'events', hand_id: app.handId, seq: app.eventCount, events});
}"""

RUNNING_ANIMATIONS = (
    "() => document.getAnimations().filter(a => a.playState === 'running')"
    ".map(a => a.animationName || (a.effect && a.effect.target && a.effect.target.className))"
)


def pay(payer: int, payee: int, fan: int, rule: str) -> dict[str, Any]:
    return {
        "type": "payment",
        "payer": payer,
        "payee": payee,
        "fan": fan,
        "points": fan * 6,
        "rule": rule,
        "reason": "",
    }


def win(
    seat: int, how: str, src: int | None, tile: str | None, pattern: str, fan: int, hand: str
) -> dict[str, Any]:
    return {
        "type": "win",
        "seat": seat,
        "how": how,
        "from": src,
        "tile": tile,
        "pattern": pattern,
        "fan": fan,
        "extras": [],
        "auto": False,
        "hand": hand,
    }


def open_table(browser: Any, server: WebServer, viewport: dict[str, int], **options: Any) -> Any:
    """A guest's page (its own socket, whose handler the test feeds) seated at the table."""
    context = browser.new_context(viewport=viewport, device_scale_factor=1, **options)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.add_init_script(SPY_AUDIO)
    page.goto(server.url + "/")
    page.wait_for_function("() => window.__duyun && window.__duyun.booted")
    page.click("#guest-btn")
    page.wait_for_function(
        "() => { const app = window.__duyun; return !!app.account && app.lobbyLoads === 0"
        " && !!app.session && app.session.ready && app.status === 'open'; }"
    )
    page.evaluate(SEAT_AT_TABLE)
    page.evaluate("async () => (await import('/static/js/main.js')).renderNow()")
    page.wait_for_selector("#board")
    return context, page, errors


def deal(page: Any, hand_id: int, dealer: int, own: str) -> None:
    """A new hand, drawn before its events come (the table speaks only of what changed since
    the hand was on screen)."""
    page.evaluate(DEAL, [hand_id, dealer, own])
    page.wait_for_function("id => window.__duyun.handId === id", arg=hand_id)
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def played(page: Any) -> list[str]:
    return [Path(p).name for p in page.evaluate("() => window.__played")]


def test_spoken_call_files_are_shipped_small_licensed_and_cached() -> None:
    voice = (STATIC / "js" / "voice.js").read_text(encoding="utf-8")
    urls = webapp.shell_urls()
    for name in CALLS:
        path = STATIC / "sound" / f"{name}.mp3"
        data = path.read_bytes()
        assert data[:2] in (b"\xff\xfb", b"\xff\xf3", b"\xff\xf2") or data[:3] == b"ID3", name
        assert 500 < len(data) < 8_000, (name, len(data))
        assert f'"/static/sound/{name}.mp3"' in voice  # the page refers to it
        assert f"/static/sound/{name}.mp3" in urls  # the offline shell keeps it
    readme = (STATIC / "sound" / "README.md").read_text(encoding="utf-8")
    assert "CC0" in readme and "espeak" in readme.lower() and "tools/make_voice.py" in readme
    assert (Path(__file__).parents[2] / "tools" / "make_voice.py").is_file()


def test_a_small_win_flashes_a_big_one_has_the_banner_and_calls_are_spoken(
    browser: Any, web_server: WebServer, screenshots: Path
) -> None:
    context, page, errors = open_table(browser, web_server, DESKTOP)
    # the browser decodes the shipped files (their type and codec), from this server only
    durations = page.evaluate(
        """(names) => Promise.all(names.map((name) => new Promise((done) => {
            const audio = new Audio(`/static/sound/${name}.mp3`);
            audio.onloadedmetadata = () => done(audio.duration);
            audio.onerror = () => done(-1);
        })))""",
        list(CALLS),
    )
    assert all(0.2 < d < 1.5 for d in durations), durations
    # hand 1: a 1-番 平胡 on seat 1's discard — the small flash, no banner; 胡 is said
    deal(page, 1, 1, "2344567p345789s")
    page.evaluate(
        MORE_EVENTS,
        [
            {"type": "discard", "seat": 1, "tile": "7p"},
            win(0, "discard", 1, "7p", "平胡", 1, "23445677p345789s"),
            pay(1, 0, 1, "R28"),
            {"type": "end", "result": "win"},
        ],
    )
    page.wait_for_selector(".fx[data-fx=win]")
    page.wait_for_function("() => window.__played.length === 1")
    assert page.query_selector(".big-moment") is None
    assert played(page) == ["hu.mp3"]

    # hand 2: the dealer's 天胡 (R20, 18 番): every other seat pays 18 × 6 = 108 coins
    deal(page, 2, 0, "11123777888999s")
    page.evaluate("() => document.querySelectorAll('.fx').forEach(e => e.remove())")
    page.evaluate(
        MORE_EVENTS,
        [
            win(0, "self_draw", None, None, "天胡", 18, "11123777888999s"),
            pay(1, 0, 18, "R29"),
            pay(2, 0, 18, "R29"),
            pay(3, 0, 18, "R29"),
            {"type": "end", "result": "win"},
        ],
    )
    page.wait_for_selector("#big-moment")
    assert page.text_content("#big-moment-pattern") == "天胡"
    assert "18" in (page.text_content("#big-moment .bm-fan") or "")
    assert (page.text_content("#big-moment-coins") or "").strip() == "+324"
    assert page.query_selector(".fx[data-fx=win]") is None  # the banner instead of the flash
    # coins fly from each payer's plate: five each, moving
    payers = page.eval_on_selector_all(".coin-flight", "els => els.map(e => e.dataset.payer)")
    assert sorted(set(payers)) == ["1", "2", "3"] and len(payers) == 15, payers
    assert page.evaluate(RUNNING_ANIMATIONS), "nothing moves"
    page.wait_for_function("() => window.__played.length === 2")
    assert played(page) == ["hu.mp3", "zimo.mp3"]
    page.wait_for_timeout(700)  # the coins halfway
    page.screenshot(path=str(screenshots / "big-moment-tianhu-desktop.png"))
    # a click closes it at once (play is never held)
    page.click("#big-moment")
    assert page.query_selector("#big-moment") is None

    # hand 3: 碰, 槓 and 報聽 are said as they happen
    deal(page, 3, 1, "1122334455667s")
    page.evaluate("() => { window.__played = []; }")
    page.evaluate(
        MORE_EVENTS,
        [
            {"type": "discard", "seat": 1, "tile": "9s"},
            {"type": "pong", "seat": 2, "tile": "9s", "from": 1},
        ],
    )
    page.wait_for_function("() => window.__played.length === 1")
    page.evaluate(
        MORE_EVENTS,
        [
            {"type": "discard", "seat": 2, "tile": "5m"},
            {"type": "kong", "seat": 3, "kind": "direct_kong", "tile": "5m", "from": 2},
        ],
    )
    page.wait_for_function("() => window.__played.length === 2")
    page.evaluate(
        MORE_EVENTS,
        [
            {"type": "baoting", "seat": 3, "tile": "1m"},
            {"type": "discard", "seat": 3, "tile": "1m", "baoting": True},
        ],
    )
    page.wait_for_function("() => window.__played.length === 3")
    assert played(page) == ["pong.mp3", "kong.mp3", "baoting.mp3"]
    # muted with the table's other sounds
    page.click("#mute-btn")
    page.wait_for_selector("#mute-btn[aria-pressed=true]")
    page.evaluate(
        MORE_EVENTS,
        [
            {"type": "discard", "seat": 0, "tile": "7s"},
            {"type": "pong", "seat": 1, "tile": "7s", "from": 0},
        ],
    )
    page.wait_for_selector(".plate[data-seat='1'] .melds .meld")
    assert played(page) == ["pong.mp3", "kong.mp3", "baoting.mp3"]

    # reactions: a bubble by the sender's plate
    react = "(m) => window.__duyun.session.onMessage({type: 'reaction', id: 'nice', ...m})"
    page.evaluate(react, {"seat": 2, "name": "阿梅", "text": "好牌！"})
    bubble = page.wait_for_selector(".reaction-bubble[data-seat='2']")
    assert bubble.text_content() == "好牌！"
    b, p = bubble.bounding_box(), page.query_selector("#plate-2").bounding_box()
    assert b is not None and p is not None
    assert p["x"] - 10 <= b["x"] + b["width"] / 2 <= p["x"] + p["width"] + 10
    gap = max(p["y"] - (b["y"] + b["height"]), b["y"] - (p["y"] + p["height"]))
    assert -2 <= gap <= 24, (b, p)
    page.screenshot(path=str(screenshots / "reaction-bubble-desktop.png"))
    # a tap on a plate opens its seat's menu; Escape closes it
    page.click("#plate-1 .name")
    page.wait_for_selector("#seat-menu[data-seat='1']")
    page.keyboard.press("Escape")
    page.wait_for_selector("#seat-menu", state="detached")
    assert page.evaluate("() => document.activeElement.id") == "seat-menu-btn-1"
    # the keyboard opens seat 2's menu from its plate's button and hides that seat's reactions
    page.focus("#seat-menu-btn-2")
    page.keyboard.press("Enter")
    page.wait_for_selector("#seat-menu[data-seat='2']")
    assert page.evaluate("() => document.activeElement.id") == "seat-mute-toggle"
    assert page.get_attribute("#seat-menu-btn-2", "aria-expanded") == "true"
    page.screenshot(path=str(screenshots / "seat-menu-desktop.png"))
    page.keyboard.press("Enter")
    page.wait_for_selector("#seat-menu", state="detached")
    page.wait_for_selector("#seat-menu-btn-2.off")
    assert page.evaluate("() => document.activeElement.id") == "seat-menu-btn-2"
    page.evaluate("() => document.querySelectorAll('.reaction-bubble').forEach(e => e.remove())")
    page.evaluate(react, {"seat": 2, "name": "阿梅", "text": "快點啦"})
    page.evaluate(react, {"seat": 1, "name": "bot:efficient", "text": "厲害"})
    page.wait_for_selector(".reaction-bubble[data-seat='1']")
    assert page.query_selector(".reaction-bubble[data-seat='2']") is None
    # the mute holds for the next hand of the match
    deal(page, 4, 2, "1122334455667s")
    page.wait_for_selector("#seat-menu-btn-2.off")
    # and for a page opened in the middle of it (a reload): its first table message finds the
    # seats hidden at this table in the tab's storage; another table's finds none
    table_again = """code => { const app = window.__duyun; const table = {...app.table, code};
        app.table = null; app.session.onMessage({type: 'table', table}); }"""
    page.evaluate(table_again, "654321")
    deal(page, 5, 3, "1122334455667s")
    page.wait_for_selector("#seat-menu-btn-2.off")
    page.evaluate(react, {"seat": 2, "name": "阿梅", "text": "快點啦"})
    page.evaluate(react, {"seat": 1, "name": "bot:efficient", "text": "厲害"})
    page.wait_for_selector(".reaction-bubble[data-seat='1']")
    assert page.query_selector(".reaction-bubble[data-seat='2']") is None
    page.evaluate(table_again, "765432")
    deal(page, 6, 0, "1122334455667s")
    page.wait_for_selector("#seat-menu-btn-2:not(.off)")
    assert not errors, errors
    context.close()


def test_reduced_motion_gives_a_still_banner_and_no_flying_coins(
    browser: Any, web_server: WebServer, screenshots: Path
) -> None:
    context, page, errors = open_table(
        browser, web_server, PHONE, reduced_motion="reduce", has_touch=True, is_mobile=True
    )
    # a 清一色 (R20, 6 番: the banner's threshold) on seat 2's discard, by a 報聽 winner
    deal(page, 1, 1, "1113335557779s")
    page.evaluate(
        MORE_EVENTS,
        [
            {"type": "baoting", "seat": 0, "tile": "2s"},
            {"type": "discard", "seat": 0, "tile": "2s", "baoting": True},
            {"type": "discard", "seat": 2, "tile": "9s"},
            win(0, "discard", 2, "9s", "清一色", 6, "11133355577799s"),
            pay(2, 0, 12, "R28"),
            {"type": "end", "result": "win"},
        ],
    )
    page.wait_for_selector("#big-moment.still")
    assert page.text_content("#big-moment-pattern") == "清一色"
    assert (page.text_content("#big-moment-coins") or "").strip() == "+72"
    assert "報聽" in (page.text_content("#big-moment .bm-how") or "")
    assert page.query_selector(".coin-flight") is None
    # the settlement says 阿梅 had only 50 coins to give (R41): the banner shows what moved,
    # over the settlement that came as ever
    page.evaluate(
        """(w) => window.__duyun.session.onMessage({type: 'hand_end', hand_id: 1, hand_index: 0,
            result: 'win', winners: [0], win_kind: 'discard', loser: 2, wins: [w],
            hands: [w.hand, '', '', ''], left: [false, false, false, false],
            payments: [{payer: 2, payee: 0, fan: 12, points: 72, rule: 'R28',
                        reason: '點炮: 清一色 6 + 報聽 6', coins: 72, paid: 50}],
            points: [72, 0, -72, 0], coins: [50, 0, -50, 0], balances: [1050, null, 0, null],
            next_dealer: 0, next_streak: 0, next_hand_in: 15})""",
        win(0, "discard", 2, "9s", "清一色", 6, "11133355577799s"),
    )
    page.wait_for_selector("#settlement [role=dialog]")
    assert (page.text_content("#big-moment-coins") or "").strip() == "+50"
    page.evaluate(
        "(m) => window.__duyun.session.onMessage({type: 'reaction', id: 'nice', ...m})",
        {"seat": 1, "name": "bot:efficient", "text": "好牌！"},
    )
    page.wait_for_selector(".reaction-bubble[data-seat='1']")
    # two frames: whatever CSS would animate has started (and, reduced, already ended)
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    assert page.evaluate(RUNNING_ANIMATIONS) == []
    box = page.query_selector("#big-moment .bm-card").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    page.screenshot(path=str(screenshots / "big-moment-reduced-phone.png"))
    assert not errors, errors
    context.close()
