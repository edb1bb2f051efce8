"""What the operator's tools ask: liveness, readiness, Prometheus metrics (docs/deploy.md)."""

from __future__ import annotations

import hmac
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from duyun.server.api.deps import Manager, State, presented_bearer, run_db
from duyun.server.api.errors import ApiError, refusals
from duyun.server.api.models import Health
from duyun.server.metrics import CONTENT_TYPE as METRICS_CONTENT_TYPE
from duyun.server.store import cluster as shared

router = APIRouter()


@router.get(
    "/healthz",
    response_model=Health,
    responses={
        **refusals(),
        503: {"model": Health, "description": '`{"status": "starting"}`: not started yet'},
    },
)
async def healthz(state: State, response: Response) -> dict[str, Any]:
    # alive and started; it says nothing of the database (that is /readyz)
    if state.ready:
        return {"status": "ok"}
    response.status_code = 503
    return {"status": "starting"}


@router.get("/metrics", include_in_schema=False)
async def metrics(request: Request, state: State, manager: Manager) -> Response:
    """Prometheus text format (issue 24 item 4; docs/deploy.md "Monitoring"), for the operator
    only: off unless ``metrics_token`` is set, and then only with that bearer token.

    The counters move with single people's moves: on a quiet process, polling
    ``duyun_decisions_total`` would show a seat's pass on a claim nobody else was offered, which
    says it holds a pair of the tile. Loopback is not trusted instead of a token: behind a proxy
    on the same host that does not send X-Forwarded-For, every stranger comes from 127.0.0.1."""
    expected = state.config.metrics_token
    if expected is None:
        raise ApiError(
            404,
            "not_found",
            "metrics are off on this server; the operator turns them on with metrics_token",
        )
    given = presented_bearer(request)
    if given is None or not hmac.compare_digest(
        given.encode("utf-8", "replace"), expected.encode("ascii")
    ):
        raise ApiError(
            401, "unauthorized", "GET /metrics needs 'Authorization: Bearer METRICS_TOKEN'"
        )
    return Response(manager.metrics.render(), media_type=METRICS_CONTENT_TYPE)


@router.get("/readyz", include_in_schema=False)
async def readyz(state: State) -> JSONResponse:
    """Ready for new players: started, the database answers, its migrations are at head
    and the process is not draining. /healthz says only that the process is alive."""
    why: str | None = "starting"
    if state.ready and state.manager is not None and state.store is not None:
        why = await run_db(state.manager, shared.schema_ready, state.store)
    if why is None and state.draining:
        why = "draining"
    if why is not None:
        return JSONResponse({"ready": False, "reason": why}, status_code=503)
    return JSONResponse({"ready": True})


__all__ = ["router"]
