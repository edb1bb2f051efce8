"""uvicorn's websocket protocol, pinging only connections that have been quiet.

Why. The websocket ping (config: every 20 s, 20 s to answer) is how a dead connection is
noticed (a player's grace and 托管, docs/protocol.md) and what keeps proxies from closing an
idle one. uvicorn pings every connection every 20 s whatever it carries: at 1,000 tables that
is 200 pings and 200 pongs a second, about one of each per decision, and the profile put a
tenth of the event loop's busy time in them (docs/deploy.md, "Pinging the quiet
connections"). A player at a table talks to the server every few seconds, and anything it
sends shows the connection alive just as a pong would; so here the ping goes only to a
connection the server has heard nothing from for the whole interval. The bound stays as it
was: a connection that goes dead is noticed at most interval + timeout (40 s) after the last
thing it sent. The frames, the pong check and the closing are uvicorn's own.
"""

from __future__ import annotations

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

#: the share of the interval a connection must have been quiet for to be pinged
QUIET_SHARE = 0.9


class PingWhenQuietProtocol(WebSocketsSansIOProtocol):
    """``ws=`` for ``uvicorn.Config`` (``duyun serve`` and the tests' servers use it)."""

    #: the event loop's clock when the peer last sent anything (a frame, a pong, a close)
    heard_at = float("-inf")
    #: keepalive pings this connection skipped because the peer had spoken since the last
    skipped_pings = 0

    def data_received(self, data: bytes) -> None:
        self.heard_at = self.loop.time()
        super().data_received(data)

    def send_keepalive_ping(self) -> None:
        interval = self.ping_interval
        quiet = self.loop.time() - self.heard_at
        # QUIET_SHARE: a pong is heard too, and uvicorn times the next ping from the pong
        # less the round trip, so a connection that only answers pings comes back here
        # a round trip short of the interval: that is quiet enough (and a ping sent early
        # never lengthens the time a dead connection goes unnoticed)
        if interval and quiet < interval * QUIET_SHARE and not self.close_sent:
            # heard from within the interval: alive, and the path is not idle; look again
            # when it will have been quiet for a whole interval
            self.skipped_pings += 1
            self.ping_timer = self.loop.call_later(interval - quiet, self.send_keepalive_ping)
            return
        super().send_keepalive_ping()
