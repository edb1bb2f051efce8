"""The browser client follows a ``redirect`` to another server process (issue 24 item 1): its
websocket moves to the URL given, with the same token in ``hello``, and joins the table there
(or asks that process's quick match for the room)."""

from __future__ import annotations

from typing import Any

from web_helpers import WebServer


def test_a_redirect_moves_the_socket_and_joins_there(browser: Any, web_server: WebServer) -> None:
    page = browser.new_page()
    page.goto(web_server.url + "/")
    page.wait_for_function("() => window.__duyun && window.__duyun.booted")
    seen = page.evaluate(
        """async () => {
        const { followRedirect } = await import('/static/js/cluster.js');
        const out = [];
        const fake = () => ({
            url: null, connects: 0, closed: [],
            ws: { close(code, why) { this.owner.closed.push([code, why]); } },
            connect() { this.connects += 1; },
        });
        const app = { pendingJoin: null };
        const sent = [];
        const join = fake(); join.ws.owner = join;
        followRedirect(app, join, { type: 'redirect', url: 'wss://s2.example/ws', code: '483920',
            room: null, reason: 'join' }, (m) => sent.push(m));
        out.push([join.url, join.connects, join.closed.length, app.pendingJoin, sent.length]);
        const back = fake(); back.ws.owner = back; app.pendingJoin = null;
        followRedirect(app, back, { type: 'redirect', url: 'ws://s3.example:8003/ws',
            code: '111111', room: null, reason: 'reconnect' }, (m) => sent.push(m));
        out.push([back.url, back.connects, app.pendingJoin]);
        const room = fake(); room.ws.owner = room;
        followRedirect(app, room, { type: 'redirect', url: 'wss://s4.example/ws', code: null,
            room: 'novice', reason: 'quick_match' }, (m) => sent.push(m));
        out.push([room.url, JSON.stringify(sent)]);
        const bad = fake(); bad.ws.owner = bad;
        followRedirect(app, bad, { type: 'redirect', url: 'javascript:alert(1)', code: '1' },
            (m) => sent.push(m));
        out.push([bad.url, bad.connects]);
        return out;
    }"""
    )
    assert seen[0] == ["wss://s2.example/ws", 1, 1, "483920", 0]
    assert seen[1] == ["ws://s3.example:8003/ws", 1, None]  # the welcome there names the table
    assert seen[2] == ["wss://s4.example/ws", '[{"type":"quick_match","room":"novice"}]']
    assert seen[3] == [None, 0]  # only ws(s) URLs are followed
    page.close()
