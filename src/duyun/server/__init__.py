"""The online game server (`duyun serve`): FastAPI app, websocket protocol, tables, store.

Layers, each using only those below it: :mod:`duyun.server.api` (the REST routers and
their dependencies), :mod:`duyun.server.ws` (the websocket endpoint), :mod:`duyun.server.app`
(the wiring: state, lifespan, middleware, routes), :mod:`duyun.server.tables` (one asyncio task
per table driving the engine), :mod:`duyun.server.store` (accounts, coins, matches and event
logs in SQL). The protocol is described in docs/protocol.md and typed in
:mod:`duyun.server.protocol`.
"""
