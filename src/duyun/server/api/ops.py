"""What the operator's tools ask: liveness, readiness, Prometheus metrics (docs/deploy.md)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response

from duyun.server.api.deps import Manager, State, run_db
from duyun.server.metrics import CONTENT_TYPE as METRICS_CONTENT_TYPE
from duyun.server.store import cluster as shared

router = APIRouter()


@router.get("/healthz")
async def healthz(state: State) -> JSONResponse:
    # alive and started; it says nothing of the database (that is /readyz)
    if state.ready:
        return JSONResponse({"status": "ok"})
    return JSONResponse({"status": "starting"}, status_code=503)


@router.get("/metrics", include_in_schema=False)
async def metrics(manager: Manager) -> Response:
    """Prometheus text format (issue 24 item 4; docs/deploy.md "Monitoring")."""
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
