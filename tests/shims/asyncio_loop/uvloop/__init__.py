"""Put this folder first on PYTHONPATH to start ``duyun serve`` as it runs without uvloop
(Windows, or a server installed without its wheel): uvicorn's "auto" loop then falls back to
asyncio's own, whose behaviour the tests keep covering."""

raise ImportError("uvloop hidden by tests/shims/asyncio_loop: asyncio's own event loop")
