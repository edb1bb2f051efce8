"""Property (issue 20 "Tests"): for every REST endpoint of the app (enumerated from
``app.routes``), random and malformed paths, query strings, headers and bodies never yield a
5xx, a traceback or invalid JSON, and every refusal is the documented error body."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from duyun.server.app import create_app
from duyun.server.config import ServerConfig

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    folder: Path = tmp_path_factory.mktemp("rest-property")
    config = ServerConfig().with_overrides(
        guests_per_minute=0,
        registrations_per_minute=0,
        tables_per_minute=0,
        code_lookups_per_minute=0,
    )
    app = create_app(config, f"sqlite:///{folder}/duyun.db", store_config=fast_store())
    with TestClient(app, raise_server_exceptions=True) as test_client:
        yield test_client


def fast_store() -> Any:
    from duyun.server.store import StoreConfig

    return StoreConfig(argon2_time_cost=1, argon2_memory_cost=8)


def _routes() -> list[tuple[str, str]]:
    app = create_app(ServerConfig(), "sqlite:///:memory:")
    found = sorted(
        (method, route.path)
        for route in app.routes
        if isinstance(route, APIRoute)
        for method in route.methods
    )
    assert any(path == "/api/hands/{hand_id}/log" for _, path in found)
    return found


ROUTES = _routes()
PARAM = re.compile(r"\{(\w+)\}")

weird_text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40)
segment = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.sampled_from(["0", "-1", "1e999", "NaN", "000000", "999999", "1.5", "%00", "..", ""]),
    weird_text.map(lambda t: quote(t, safe="")),
)
json_value = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**40), max_value=10**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | weird_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(weird_text, inner, max_size=4),
    max_leaves=12,
)
known_fields = st.fixed_dictionaries(
    {},
    optional={
        "name": json_value,
        "password": json_value,
        "stake": json_value,
        "hands": json_value,
        "rules": json_value,
        "bots_allowed": json_value,
        "bot": json_value,
        "listed": json_value,
        "spectators": json_value,
        "everywhere": json_value,
    },
)
body = st.one_of(
    st.none(),
    known_fields.map(lambda d: json.dumps(d).encode()),
    json_value.map(lambda v: json.dumps(v).encode()),
    st.binary(max_size=200),
    st.just(b"{" * 3000),
    st.just(b'{"stake": NaN}'),
)
content_type = st.sampled_from(
    [None, "application/json", "application/json; charset=utf-8", "text/plain", "x/y"]
)
query = st.dictionaries(
    st.sampled_from(["limit", "code", "x", "limit[]", ""]) | weird_text, segment, max_size=3
)
authorization = st.sampled_from(["none", "valid", "garbage", "malformed"])


def _strict_json(text: str) -> Any:
    def refuse(constant: str) -> None:
        raise AssertionError(f"invalid JSON constant {constant}")

    return json.loads(text, parse_constant=refuse)


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    route=st.sampled_from(ROUTES),
    params=st.lists(segment, min_size=3, max_size=3),
    query_params=query,
    payload=body,
    media=content_type,
    auth=authorization,
)
def test_no_rest_input_yields_a_5xx_a_traceback_or_invalid_json(
    client: TestClient,
    route: tuple[str, str],
    params: list[str],
    query_params: dict[str, str],
    payload: bytes | None,
    media: str | None,
    auth: str,
) -> None:
    method, template = route
    values = iter(params)
    path = PARAM.sub(lambda _: next(values) or "x", template)
    headers: dict[str, str] = {}
    if media is not None:
        headers["Content-Type"] = media
    if auth == "valid":
        token = client.post("/api/guest").json()["token"]
        headers["Authorization"] = f"Bearer {token}"
    elif auth == "garbage":
        headers["Authorization"] = "Bearer " + "x" * 600
    elif auth == "malformed":
        headers["Authorization"] = "Basic Zm9vOmJhcg=="
    answer = client.request(method, path, params=query_params, content=payload, headers=headers)
    assert answer.status_code < 500, (method, path, answer.status_code, answer.text[:300])
    assert "Traceback" not in answer.text
    if path.startswith("/api/") or answer.status_code >= 400:
        data = _strict_json(answer.text)
        if answer.status_code >= 400:
            assert set(data) == {"error"}, data
            assert isinstance(data["error"]["code"], str) and data["error"]["code"]
            assert isinstance(data["error"]["message"], str) and data["error"]["message"]
