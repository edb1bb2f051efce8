"""Rough edges and what players expect, in the browser (issue 21 items 6 and 7).

Against the real server: the host of a private table with three bots starts it without pressing
準備 first, and an invite link to a table that has started says which table it is and offers to
watch it (no raw English server error). On a drawn table (the busy self-played hand of
test_web_layout): every server error code reads as words in Chinese and English, sounds follow
the table (discard, claim, win, own turn) and the mute switch is remembered, a turn that ran out
says so, and 本局不碰槓 passes this hand's claim offers by itself.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from web_helpers import DESKTOP, PHONE, SKIP_REASON, WebServer

from payment_rows import every_kind_of_payment_row

if SKIP_REASON:
    pytest.skip(SKIP_REASON, allow_module_level=True)

from test_web_client import Tab, press
from test_web_layout import SHOW_SCENE, _scene

pytestmark = pytest.mark.slow

TOASTS = "() => [...document.querySelectorAll('#toasts .toast')].map(e => e.textContent)"


def test_host_starts_with_bots_unready_and_an_invite_to_a_started_table_offers_to_watch(
    browser: Any, web_server: WebServer
) -> None:
    host = Tab(browser, web_server, DESKTOP)
    host.goto()
    host.guest()
    host.page.fill("#create-hands", "1")
    host.page.check("#create-spectators")
    host.page.click("#create-btn")
    host.page.wait_for_selector("#table-code")
    code = host.page.text_content("#table-code").strip()
    host.add_bots()
    assert not host.app("app.table.seats[app.seat].ready")
    host.page.click("#start-btn")  # 開始 without 準備: the page readies the host first
    host.page.wait_for_selector("#hand button.tile")
    assert not [m for m in host.page.evaluate(TOASTS) if "ready" in m]

    guest = Tab(browser, web_server, PHONE)
    guest.goto(f"/t/{code}")
    guest.page.wait_for_selector("#invite-card #invite-watch")
    card = guest.page.text_content("#invite-card")
    assert code in card and "已經開始" in card, card
    assert guest.page.query_selector("#invite-join") is None
    guest.page.click("#invite-watch")  # makes a guest account, then watches
    guest.page.wait_for_selector("#board")
    guest.page.wait_for_function("() => window.__duyun.table && window.__duyun.seat === null")
    toasts = guest.page.evaluate(TOASTS)
    assert not [m for m in toasts if "already started" in m or "spectate it" in m], toasts
    guest.close()
    host.close()


def _show_scene(browser: Any, server: WebServer, scene: dict[str, Any] | None = None) -> Any:
    """The drawn table of ``scene`` (test_web_layout's busy hand by default) on a page whose
    connection is a stand-in that records what the page sends (``window.__sent``)."""
    context = browser.new_context(viewport=DESKTOP, device_scale_factor=1)
    page = context.new_page()
    page.goto(server.url + "/")
    page.wait_for_function("() => window.__duyun && window.__duyun.booted")
    page.evaluate("() => localStorage.removeItem('duyun.muted')")
    page.evaluate(SHOW_SCENE, scene or _scene())
    page.wait_for_selector("#hand button.tile")
    # a stand-in connection that records what the page sends
    page.evaluate(
        "() => { window.__sent = []; window.__duyun.session ="
        " {send: (m) => (window.__sent.push(m), 1), stop() {}}; }"
    )
    return context, page


def test_server_errors_read_as_words_in_both_languages(browser: Any, web_server: WebServer) -> None:
    page = browser.new_page()
    page.goto(web_server.url + "/")
    page.wait_for_function("() => window.__duyun && window.__duyun.booted")
    texts = page.evaluate(
        """async () => {
        const { errorText } = await import('/static/js/errors.js');
        const { setLang } = await import('/static/js/i18n.js');
        const codes = ['bad_json', 'bad_message', 'unknown_type', 'too_large', 'too_many_tables',
            'version', 'unauthorized', 'bad_origin', 'replaced', 'not_seated', 'already_seated',
            'table_not_found', 'table_full', 'unknown_room', 'unknown_bot', 'unknown_reaction',
            'insufficient_balance', 'not_host', 'wrong_state', 'not_your_turn', 'illegal_action',
            'not_your_seat', 'too_late', 'table_moved', 'name_taken', 'bad_account', 'bad_login',
            'bad_request', 'not_a_player', 'hand_not_found', 'hand_not_finished', 'network',
            'no_spectators', 'table_elsewhere', 'draining'];
        const out = {};
        for (const lang of ['zh', 'en']) {
            setLang(lang);
            out[lang] = codes.map(code => [code, errorText({code, message: 'x'})]);
            out[lang + '_start'] = errorText({code: 'wrong_state',
                message: 'every player must be ready (準備) first'});
            out[lang + '_started'] = errorText({code: 'wrong_state',
                message: 'table 123456 has already started; spectate it'});
        }
        setLang('zh');
        return out;
    }"""
    )
    for lang in ("zh", "en"):
        for code, text in texts[lang]:
            assert text and text != f"err_{code}" and code not in text, (lang, code, text)
    assert all(any("\u4e00" <= ch <= "\u9fff" for ch in text) for _, text in texts["zh"])
    assert "準備" in texts["zh_start"] and "Ready" in texts["en_start"]
    assert "觀戰" in texts["zh_started"] and "watch" in texts["en_started"]
    # a code whose empty table its host closed to open another reads as that, not only as a
    # mistyped code (the friends holding the code are not told otherwise)
    assert "房主" in dict(texts["zh"])["table_not_found"]
    assert "host" in dict(texts["en"])["table_not_found"]
    page.close()


def _every_kind_of_payment_row() -> list[dict[str, object]]:
    return [row.to_json() for row in every_kind_of_payment_row()]


def test_every_payment_row_reads_in_the_page_language_r28_gang_shang_pao(
    browser: Any, web_server: WebServer
) -> None:
    """The settlement's words for each payment, in Traditional, Simplified and English: no
    English reason text in Chinese (the 槓上炮 transfer row's reason once came through as a
    fan list, "點炮 (the kong's income handed over 番)"), and each row says what it is."""
    rows = _every_kind_of_payment_row()
    assert {row["rule"] for row in rows} == {"R12", "R14", "R28", "R29", "R30", "R45"}
    page = browser.new_page()
    page.goto(web_server.url + "/")
    page.wait_for_function("() => window.__duyun && window.__duyun.booted")
    texts = page.evaluate(
        """async (rows) => {
        const { explainPayment } = await import('/static/js/rules.js');
        const { setLang } = await import('/static/js/i18n.js');
        const out = {};
        for (const lang of ['zh-Hant', 'zh-Hans', 'en']) {
            setLang(lang, false);
            out[lang] = rows.map(explainPayment);
        }
        setLang('zh-Hant', false);
        return out;
    }""",
        rows,
    )
    page.close()
    transfer = next(i for i, row in enumerate(rows) if str(row["reason"]).startswith("槓上炮"))
    assert texts["zh-Hant"][transfer] == "槓上炮：轉交槓的收入"
    assert texts["zh-Hans"][transfer] == "杠上炮：转交杠的收入"
    assert texts["en"][transfer] == "槓上炮: the kong's income handed over"
    for lang in ("zh-Hant", "zh-Hans"):
        for row, text in zip(rows, texts[lang], strict=True):
            assert text and not re.search("[A-Za-z]", text), (lang, row, text)
    for row, text in zip(rows, texts["en"], strict=True):
        assert re.search("[A-Za-z]{3}", text), (row, text)
    # a win row lists its fan items in words: the pattern, 報聽, the dealer's streak
    first_win = texts["zh-Hant"][0]
    assert first_win.startswith("點炮") and "對對胡" in first_win and "番" in first_win


def test_sounds_follow_the_table_and_the_mute_switch_is_remembered(
    browser: Any, web_server: WebServer
) -> None:
    context, page = _show_scene(browser, web_server)
    page.evaluate("() => { window.__duyunSounds = []; }")
    # a discard by the next seat, then a pong of it by another: a clack, then a knock
    page.evaluate(
        """async () => {
        const main = await import('/static/js/main.js');
        const { applyEvent } = await import('/static/js/state.js');
        const app = main.app;
        app.prompt = null;
        applyEvent(app.hand, {type: 'discard', seat: 1, tile: '9s'});
        main.renderNow();
        applyEvent(app.hand, {type: 'pong', seat: 2, tile: '9s', from: 1});
        main.renderNow();
    }"""
    )
    sounds = page.evaluate("() => window.__duyunSounds")
    assert sounds[:2] == ["discard", "say:pong"], sounds  # the pong is said (voice.js)
    assert page.query_selector(".plate[data-seat='2'] .melds.fresh") is not None  # moves in
    page.click("#mute-btn")
    page.wait_for_selector("#mute-btn[aria-pressed=true]")
    assert page.evaluate("() => localStorage.getItem('duyun.muted')") == "1"
    played = page.evaluate("async () => (await import('/static/js/sound.js')).play('win')")
    assert played is False
    page.reload()
    page.wait_for_function("() => window.__duyun && window.__duyun.booted")
    page.evaluate(SHOW_SCENE, _scene())
    page.wait_for_selector("#mute-btn[aria-pressed=true]")
    page.click("#mute-btn")
    page.wait_for_selector("#mute-btn[aria-pressed=false]")
    context.close()


def test_a_turn_that_ran_out_says_so_and_auto_pass_passes_claims_this_hand(
    browser: Any, web_server: WebServer
) -> None:
    context, page = _show_scene(browser, web_server)
    # the own turn is open; the server plays the drawn tile for it (the timer ran out)
    page.evaluate(
        """async () => {
        const main = await import('/static/js/main.js');
        const { applyEvent } = await import('/static/js/state.js');
        const app = main.app;
        const drawn = app.hand.drawn[app.seat] || app.hand.hands[app.seat].at(-1);
        applyEvent(app.hand, {type: 'discard', seat: app.seat, tile: drawn});
        app.prompt = null;
        main.renderNow();
    }"""
    )
    page.wait_for_function(
        "() => [...document.querySelectorAll('#toasts .toast')]"
        ".some(e => e.textContent.includes('時間到'))"
    )
    # a claim offer without a win: 本局不碰槓 passes it and every later one of this hand
    offer = """async (id) => {
        const main = await import('/static/js/main.js');
        const app = main.app;
        app.prompt = {kind: 'claim', id, claim_tile: '9s', legal: [{action: 'pong', tile: '9s'},
            {action: 'pass'}], deadline: 10, deadlineAt: performance.now() + 10000};
        app.promptSent = false;
        main.renderNow();
    }"""
    page.evaluate(offer, 41)
    page.click("#auto-pass-btn")
    page.wait_for_selector("#auto-pass-chip")
    page.evaluate(offer, 42)
    sent = page.evaluate("() => window.__sent")
    passes = [m["prompt"] for m in sent if m.get("type") == "act" and m.get("action") == "pass"]
    assert passes == [41, 42], sent
    context.close()


#: the own turn's prompt of the scene set aside, a claim offer (id 41) on screen instead
OFFER_CLAIM = """async () => {
    const main = await import('/static/js/main.js');
    const app = main.app;
    window.__turnLegal = app.prompt.legal;
    app.prompt = {kind: 'claim', id: 41, claim_tile: '9s', legal: [{action: 'pong', tile: '9s'},
        {action: 'pass'}], deadline: 10, deadlineAt: performance.now() + 10000};
    app.promptSent = false;
    main.renderNow();
}"""
#: the server's next messages, handed to the page: its own turn (prompt 42), then the refusal
#: of the claim's answer (rid 1), which the server sends once the claim window had closed
TURN_THEN_TOO_LATE = """() => {
    const app = window.__duyun;
    app.session.onMessage({type: 'prompt', kind: 'turn', id: 42, hand_id: app.handId,
        legal: window.__turnLegal, deadline: 20});
    app.session.onMessage({type: 'error', code: 'too_late', rid: 1,
        message: 'that prompt has closed'});
}"""


def test_a_late_refusal_of_an_earlier_answer_leaves_the_new_prompt_on_screen(
    browser: Any, web_server: WebServer
) -> None:
    """A claim answered as its window closed is refused (``too_late``, with the answer's rid)
    after the next prompt, the own turn, has arrived: the turn stays on screen to be played
    (not left to its timer). A refusal of the answer to the prompt on screen closes it."""
    tab = Tab(browser, web_server, DESKTOP)
    tab.goto()
    tab.guest()
    page = tab.page
    page.wait_for_function("() => window.__duyun.status === 'open'")
    # the page's own session, its socket closed: the test hands it the server's messages and
    # records what it sends (rids 1, 2, ...)
    page.evaluate(
        "() => { const s = window.__duyun.session; s.stop(); window.__sent = [];"
        " s.send = (m) => (window.__sent.push(m), window.__sent.length); }"
    )
    page.evaluate(SHOW_SCENE, _scene())
    page.evaluate(OFFER_CLAIM)
    # the page draws the offer at its next animation frame, not within the evaluate above
    page.wait_for_selector("#action-bar [data-action=pass]")
    assert press(page, "#action-bar [data-action=pass]")
    assert tab.app("[app.promptSent, app.promptRid]") == [True, 1]
    page.evaluate(TURN_THEN_TOO_LATE)
    assert tab.app("[app.prompt && app.prompt.id, app.promptSent]") == [42, False]
    page.wait_for_selector("#hand.can-discard")
    # the turn answered (rid 2) and refused as too late: that prompt is over
    assert press(page, "#hand.can-discard button.tile:not([aria-disabled]):last-child")
    sent = page.evaluate("() => window.__sent")
    assert [(m["action"], m["prompt"]) for m in sent] == [("pass", 41), ("discard", 42)]
    page.evaluate(
        "() => window.__duyun.session.onMessage({type: 'error', code: 'too_late', rid: 2,"
        " message: 'that prompt has closed'})"
    )
    assert tab.app("app.prompt") is None
    tab.close()
