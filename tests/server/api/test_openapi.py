"""/openapi.json is the REST contract (issue 34 item 2; docs/protocol.md "REST").

schemathesis generates requests from the served schema, valid and invalid ones, sends them to
the app in-process (a fresh SQLite store, the per-address limits off) and holds every answer to
the schema with all of its default checks: no 5xx, only declared statuses, the declared body of
each (an error's ``code`` among those its status may carry), valid data accepted, invalid data
refused. Once with a guest's token on every request, once with none. The other tests read the
schema itself: every operation declares its answers and refusals and no ``422``, a token where
the route needs one, and integers that refuse ``8.0``.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from fastapi import FastAPI
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute, APIWebSocketRoute
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, Phase, assume, given, settings
from pydantic import BaseModel
from schemathesis.core import NotSet
from schemathesis.core.parameters import ParameterLocation
from schemathesis.generation.modes import GenerationMode
from schemathesis.python import asgi

from duyun.rules import DUYUN, RuleSet
from duyun.server.api.deps import bearer_token, optional_account
from duyun.server.api.models import Rules
from duyun.server.api.tables import RuleOptions
from duyun.server.app import create_app
from duyun.server.config import ServerConfig
from duyun.server.store import StoreConfig

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

ROOT = Path(__file__).resolve().parents[3]
#: generated cases per operation and run: two runs over 24 operations stay well under a minute
EXAMPLES = 12
#: the guard's refusals of every request, and of every POST (duyun.server.middleware)
ANY_REQUEST = {"400", "413"}
ANY_POST = ANY_REQUEST | {"403", "415"}
#: statuses an operation answers without refusing
SUCCESS = {"200", "201", "202"}


def build_app(folder: Path) -> FastAPI:
    config = ServerConfig().with_overrides(
        guests_per_minute=0,
        registrations_per_minute=0,
        tables_per_minute=0,
        code_lookups_per_minute=0,
        renames_per_minute=0,
        open_tables_per_account=0,
    )
    store = StoreConfig(argon2_time_cost=1, argon2_memory_cost=8)
    return create_app(config, f"sqlite:///{folder}/duyun.db", store_config=store)


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FastAPI]:
    yield build_app(tmp_path_factory.mktemp("openapi"))
    asgi.shutdown_lifespans()


@pytest.fixture(scope="module")
def client(app: FastAPI) -> Iterator[Any]:
    """schemathesis's own in-process client: it starts the app's lifespan once and keeps it
    for every request of schemathesis's (a second client would start a second store and
    tables, and the app's state would hold only one of them)."""
    with asgi.get_client(app) as session:  # type: ignore[arg-type]
        yield session


@pytest.fixture(scope="module")
def document(client: Any) -> dict[str, Any]:
    answer = client.get("/openapi.json")
    assert answer.status_code == 200
    found: dict[str, Any] = answer.json()
    return found


def operations(document: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, methods in document["paths"].items():
        for method, operation in methods.items():
            yield method.upper(), path, operation


def resolve(document: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


# ------------------------------------------------------------------ the schema itself


def test_no_operation_declares_the_422_that_is_never_sent(document: dict[str, Any]) -> None:
    for method, path, operation in operations(document):
        assert "422" not in operation["responses"], (method, path)
    assert "HTTPValidationError" not in document["components"]["schemas"]


def test_every_operation_declares_its_answer_and_the_guards_refusals(
    document: dict[str, Any],
) -> None:
    for method, path, operation in operations(document):
        responses = operation["responses"]
        declared = set(responses)
        assert declared & SUCCESS, (method, path)
        assert (ANY_POST if method == "POST" else ANY_REQUEST) <= declared, (method, path)
        for status in declared & SUCCESS:
            schema = responses[status]["content"]["application/json"]["schema"]
            answer = resolve(document, schema.get("items", schema))
            # a model of the answer, not a bare object
            assert answer.get("properties"), (method, path, status)
            assert answer.get("additionalProperties") is False, (method, path, status)


def test_every_refusal_declares_the_error_body_and_its_documented_codes(
    document: dict[str, Any],
) -> None:
    """Each error status's body is ``{"error": {"code", "message"}}`` with ``code`` one of the
    codes that status carries, and each code is one of docs/protocol.md's "REST errors"."""
    protocol = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    table = protocol.split("### REST errors", 1)[1].split("###", 1)[0]
    seen: set[str] = set()
    for method, path, operation in operations(document):
        for status, response in operation["responses"].items():
            if status in SUCCESS or (path == "/healthz" and status == "503"):
                continue
            body = resolve(document, response["content"]["application/json"]["schema"])
            assert body["required"] == ["error"], (method, path, status)
            detail = resolve(document, body["properties"]["error"])
            assert {"code", "message"} <= set(detail["required"]), (method, path, status)
            code_schema = detail["properties"]["code"]
            codes = code_schema["enum"] if "enum" in code_schema else [code_schema["const"]]
            for code in codes:
                assert re.search(rf"`{status} [^|]*`{code}`|`{status} {code}`", table), (
                    f"{method} {path}: {status} {code} is not in docs/protocol.md REST errors"
                )
                assert code in response["description"], (method, path, status, code)
            seen.update(codes)
    assert {"name_taken", "rate_limited", "unauthorized", "hand_not_found"} <= seen


def _calls(dependant: Dependant) -> Iterator[Any]:
    for sub in dependant.dependencies:
        yield sub.call
        yield from _calls(sub)


def _runs_on_the_loop(call: Any) -> bool:
    """What FastAPI awaits in place; it runs anything else on a worker thread."""
    if inspect.isroutine(call):
        return inspect.iscoroutinefunction(call)
    return inspect.iscoroutinefunction(type(call).__call__)


def test_no_route_or_dependency_hops_to_a_thread(app: FastAPI) -> None:
    """Every handler and every dependency of every route, the websocket's included, is a
    coroutine: FastAPI runs a plain ``def`` on a worker thread, a hop and a wait for the GIL
    back on each request and on each of a crowd's websockets (docs/deploy.md)."""
    checked, threaded = 0, []
    for route in app.routes:
        if isinstance(route, APIRoute | APIWebSocketRoute):
            for call in (route.dependant.call, *_calls(route.dependant)):
                checked += 1
                if not _runs_on_the_loop(call):
                    threaded.append((route.path, getattr(call, "__name__", repr(call))))
    assert checked > 40 and threaded == []


def test_operations_that_need_a_token_declare_bearer_security(
    app: FastAPI, document: dict[str, Any]
) -> None:
    """The routes that depend on the token (:func:`bearer_token`) require the ``bearer``
    scheme; register, which reads a token when one is sent, makes it optional; no other."""
    assert document["components"]["securitySchemes"]["bearer"] == {
        "type": "http",
        "scheme": "bearer",
        "description": "the token of POST /api/guest, /api/register or /api/login",
    }
    needs, optional = set(), set()
    for route in app.routes:
        if isinstance(route, APIRoute) and route.include_in_schema:
            calls = set(_calls(route.dependant))
            for method in route.methods or ():
                if bearer_token in calls:
                    needs.add((method, route.path))
                elif optional_account in calls:
                    optional.add((method, route.path))
    assert ("GET", "/api/me") in needs and optional == {("POST", "/api/register")}
    for method, path, operation in operations(document):
        security = operation.get("security")
        if (method, path) in needs:
            assert security == [{"bearer": []}], (method, path)
            assert "401" in operation["responses"], (method, path)
        elif (method, path) in optional:
            assert security == [{"bearer": []}, {}], (method, path)
        else:
            assert security is None, (method, path)


def _integers(document: dict[str, Any], schema: Any, where: str) -> Iterator[tuple[str, Any]]:
    if isinstance(schema, dict):
        if schema.get("type") == "integer":
            yield where, schema
        for key, value in schema.items():
            yield from _integers(document, value, f"{where}.{key}")
    elif isinstance(schema, list):
        for index, value in enumerate(schema):
            yield from _integers(document, value, f"{where}[{index}]")


def test_every_integer_of_a_body_refuses_8_point_0_and_says_so(
    client: Any, document: dict[str, Any]
) -> None:
    """JSON Schema counts 8.0 as an integer; the server does not, and ``x-strict`` says so."""
    found = list(_integers(document, document["components"]["schemas"], "components"))
    assert len(found) > 50
    for where, schema in found:
        assert schema.get("x-strict") is True, where
    token = client.post("/api/guest").json()["token"]
    for body in ({"hands": 8.0}, {"stake": 1.0}, {"rules": {"base_points": 6.0}}):
        answer = client.post("/api/tables", json=body, headers={"Authorization": f"Bearer {token}"})
        assert answer.status_code == 400 and answer.json()["error"]["code"] == "bad_request"


@pytest.mark.parametrize("model", [Rules, RuleOptions])
def test_the_rules_models_have_the_rule_options_of_ruleset(model: type[BaseModel]) -> None:
    """The rules of an answer (every option) and of POST /api/tables (each optional, the
    Duyun default otherwise) are RuleSet's options, of its types and defaults."""
    hints = typing.get_type_hints(RuleSet)
    options = {f.name: hints[f.name] for f in dataclasses.fields(RuleSet)}
    assert list(model.model_fields) == list(options)
    properties = model.model_json_schema()["properties"]
    for name, kind in options.items():
        assert properties[name].get("type", "boolean") == ("boolean" if kind is bool else "integer")
        if model is RuleOptions:
            assert model.model_fields[name].default == getattr(DUYUN, name), name


# ------------------------------------------------------------------ the limits (item 2)


def test_a_refused_registration_or_rename_is_not_counted(tmp_path: Path) -> None:
    """docs/protocol.md "REST and account limits": a refused request is not counted, a
    ``409 name_taken`` included."""
    config = ServerConfig().with_overrides(registrations_per_minute=2, renames_per_minute=1)
    store = StoreConfig(argon2_time_cost=1, argon2_memory_cost=8)
    app = create_app(config, f"sqlite:///{tmp_path}/duyun.db", store_config=store)
    with TestClient(app) as http:
        body = {"name": "meimei", "password": "long enough pw"}
        assert http.post("/api/register", json=body).status_code == 200
        for _ in range(4):
            taken = http.post("/api/register", json=body)
            assert taken.json()["error"]["code"] == "name_taken"
        assert http.post("/api/register", json={**body, "name": "lanlan"}).status_code == 200
        limited = http.post("/api/register", json={**body, "name": "fangfang"})
        assert limited.status_code == 429, limited.text

        guest = {"Authorization": f"Bearer {http.post('/api/guest').json()['token']}"}
        for _ in range(3):
            taken = http.post("/api/name", json={"name": "lanlan"}, headers=guest)
            assert taken.json()["error"]["code"] == "name_taken"
        assert http.post("/api/name", json={"name": "xiaoyu"}, headers=guest).status_code == 200
        limited = http.post("/api/name", json={"name": "xiaoyun"}, headers=guest)
        assert limited.status_code == 429, limited.text


# ------------------------------------------------------------------ schemathesis


@pytest.fixture(scope="module")
def contract(client: Any) -> Any:
    """The served schema, loaded by schemathesis from the running app."""
    config = schemathesis.config.SchemathesisConfig.from_dict(
        {
            # a name or password the schema allows can still break the name rules, which are
            # more than a JSON Schema says (one script, lookalikes of reserved names, not the
            # name as the password): these two may refuse valid data as 400 bad_account
            "operations": [
                {
                    "include-path-regex": "^/api/(register|name)$",
                    "checks": {
                        "positive_data_acceptance": {
                            "expected-statuses": ["2xx", "400", "401", "403", "409", "429"]
                        }
                    },
                }
            ],
        }
    )
    return schemathesis.openapi.from_asgi("/openapi.json", client.app, config=config)


def _labels() -> list[str]:
    """Every operation of the schema (of an app that is not started: the schema is static)."""
    document = create_app(ServerConfig(), "sqlite:///:memory:").openapi()
    return [f"{method} {path}" for method, path, _ in operations(document)]


LABELS = _labels()


def spelled_as_integers(body: Any) -> Any:
    """A valid body with every whole float written as an integer (``8.0`` as ``8``).

    JSON Schema 2020-12, the dialect of OpenAPI 3.1, counts ``8.0`` as an integer, and
    schemathesis sends it so; no schema of that dialect can say otherwise, since to it the two
    are one value. The server refuses it (issue 20 item 8) and says so with ``x-strict`` on
    each integer; request bodies here have no number that is not such an integer (the test
    above), so a valid body has no whole float that is not one. That ``8.0`` is refused is
    tested on its own (test_every_integer_of_a_body_refuses_8_point_0_and_says_so)."""
    if isinstance(body, float) and body.is_integer():
        return int(body)
    if isinstance(body, dict):
        return {key: spelled_as_integers(value) for key, value in body.items()}
    if isinstance(body, list):
        return [spelled_as_integers(value) for value in body]
    return body


def exercise(contract: Any, label: str, token: Callable[[], str] | None) -> list[int]:
    """``EXAMPLES`` valid and ``EXAMPLES`` invalid requests of one operation, each answer held
    to the schema by every default check; the statuses answered."""
    method, path = label.split(" ", 1)
    operation = contract[path][method]
    modes = [GenerationMode.POSITIVE]
    if operation.definition.raw.get("parameters") or operation.body:
        modes.append(GenerationMode.NEGATIVE)  # nothing to send wrong otherwise
    statuses: list[int] = []
    for mode in modes:
        send(operation, mode, token, statuses)
    return statuses


def send(operation: Any, mode: GenerationMode, token: Any, statuses: list[int]) -> None:
    """schemathesis writes a made-up ``Authorization`` into each request of an operation with
    security, and leaves it out or spoils it where it means the headers to be wrong;
    ``token()``, when given, replaces a made-up one with a real token in the other requests."""

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
        # a failure is reported as found: shrinking can turn an invalid request into a valid
        # one that schemathesis still reports as invalid (its issue 4332)
        phases=(Phase.explicit, Phase.generate),
    )
    @given(operation.as_strategy(generation_mode=mode))
    def run(case: Any) -> None:
        if mode is GenerationMode.POSITIVE:
            case.body = spelled_as_integers(case.body)
        body = case.meta.components.get(ParameterLocation.BODY) if case.meta else None
        # schemathesis sometimes leaves out a body that is not required and still counts the
        # body as the invalid part (POST /api/logout): such a request is valid, not a test
        # of refusing invalid data
        assume(
            not (
                body is not None
                and body.mode is GenerationMode.NEGATIVE
                and isinstance(case.body, NotSet)
                and not operation.definition.raw.get("requestBody", {}).get("required")
            )
        )
        sent = (case.headers or {}).get("Authorization")
        headers = case.meta.components.get(ParameterLocation.HEADER) if case.meta else None
        made_wrong = headers is not None and headers.mode is GenerationMode.NEGATIVE
        if token is not None and isinstance(sent, str) and not made_wrong:
            case.headers["Authorization"] = f"Bearer {token()}"
        statuses.append(case.call_and_validate().status_code)

    run()


@pytest.mark.parametrize("label", LABELS)
def test_the_app_answers_as_its_schema_says_with_a_token(
    contract: Any, client: Any, label: str
) -> None:
    guest: str = client.post("/api/guest").json()["token"]

    def token() -> str:
        # logging out revokes the token it is sent with: each logout gets a token of its own
        if label.endswith("/logout"):
            fresh: str = client.post("/api/guest").json()["token"]
            return fresh
        return guest

    statuses = exercise(contract, label, token)
    # the token was sent and taken: not every answer is "who are you?"
    assert any(status != 401 for status in statuses), statuses


@pytest.mark.parametrize("label", LABELS)
def test_the_app_answers_as_its_schema_says_without_a_token(contract: Any, label: str) -> None:
    exercise(contract, label, None)
