"""The table's drawing is a function of its state; what a change sets off happens apart
(issue 34 item 4).

``renderTable`` (js/table.js) only draws: given a state with an open claim prompt under
本局不碰槓 and a pong just made, drawing it sends nothing and plays nothing. The page's render
(``renderNow``) runs the effects layer (js/effects.js) around the drawing: the same state
then sends the automatic 過 and speaks the 碰. Statically, table.js imports neither the sound
nor the voice nor the screen-reader announcer: only effects.js and the modules of the big
moments do.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from test_web_big_moments import MORE_EVENTS, deal, open_table, played
from web_helpers import DESKTOP, SKIP_REASON, WebServer

from duyun.server import webapp

if SKIP_REASON:
    pytest.skip(SKIP_REASON, allow_module_level=True)

pytestmark = pytest.mark.slow

JS = webapp.STATIC_DIR / "js"

#: every message the page would send, caught before the socket
SPY_SEND = """() => {
    const app = window.__duyun;
    window.__sent = [];
    app.session.send = (message) => {
        window.__sent.push(message);
        return 'spy-' + window.__sent.length;
    };
}"""

#: 本局不碰槓 is on and a claim prompt (碰 or 過) is open, as the server sends it
CLAIM_UNDER_AUTO_PASS = """() => {
    const app = window.__duyun;
    app.autoPass = app.handId;
    app.session.onMessage({type: 'prompt', id: 41, hand_id: app.handId, kind: 'claim',
        deadline: 5, legal: [{action: 'pong'}, {action: 'pass'}], claim_tile: '5p', claim_from: 2});
}"""


def test_table_js_imports_no_sound_voice_or_announcer() -> None:
    source = (JS / "table.js").read_text(encoding="utf-8")
    imported = set(re.findall(r'from "\./([\w.]+)"', source))
    assert "state.js" in imported
    assert not imported & {"voice.js", "announce.js", "effects.js"}, imported
    assert not re.search(r"import \{[^}]*\bplay\b[^}]*\} from \"\./sound\.js\"", source)
    effects = (JS / "effects.js").read_text(encoding="utf-8")
    effect_imports = set(re.findall(r'from "\./([\w.]+)"', effects))
    assert {"voice.js", "announce.js", "sound.js"} <= effect_imports


def test_drawing_the_table_sends_and_plays_nothing_the_effects_do(
    browser: Any, web_server: WebServer
) -> None:
    context, page, errors = open_table(browser, web_server, DESKTOP)
    try:
        deal(page, 71, 0, "1m2m3m4m5m6m7m8m9m1p2p3p5p")
        page.evaluate(SPY_SEND)
        before = len(played(page))
        # in one task, so no frame's render (with its effects) runs in between: the pong and
        # the prompt arrive, and the table is drawn by hand
        drawn = page.evaluate(
            "async () => {"
            f" const moreEvents = {MORE_EVENTS}; const claim = {CLAIM_UNDER_AUTO_PASS};"
            " const table = await import('/static/js/table.js');"
            " moreEvents([{type: 'pong', seat: 1, tile: '9s', from: 3}]);"
            " claim();"
            " table.renderTable(document.getElementById('app'), window.__duyun);"
            " return {sent: [...window.__sent], played: window.__played.length,"
            " board: !!document.getElementById('board')}; }"
        )
        assert drawn == {"sent": [], "played": before, "board": True}
        # the page's own render, on the next frame, runs the effects around the drawing
        page.wait_for_function("() => window.__sent.length > 0")
        sent = page.evaluate("() => window.__sent")
        assert [m.get("action") for m in sent] == ["pass"] and sent[0]["prompt"] == 41
        assert played(page)[before:] == ["pong.mp3"]
        assert errors == []
    finally:
        context.close()
