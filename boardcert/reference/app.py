"""Starlette routes of the reference server: key check, JSON body, store call, JSON answer.

Each operation of the interface is one small handler registered with `@_operation`; the
handler turns the JSON body into typed values (rejecting wrong shapes with 4xx) and calls the
store, which checks the rules. `create_app` wires them to one `Store` and one API key.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from starlette.applications import Starlette
from starlette.datastructures import QueryParams
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from boardcert.reference import bodies
from boardcert.reference.bodies import ApiError
from boardcert.reference.store import JSON, Invalid, NotFound, Store, StoreError

MAX_BODY_BYTES = 1024 * 1024
_DRAIN_LIMIT = 16 * MAX_BODY_BYTES  # an over-long body is read (and dropped) up to this size

BodyMode = Literal["none", "optional", "required"]


def error_response(
    status: int, code: str, message: str, headers: Mapping[str, str] | None = None
) -> JSONResponse:
    """The JSON error body every refusal carries."""
    return JSONResponse(
        {"error": {"code": code, "message": message}}, status_code=status, headers=headers
    )


@dataclass(frozen=True)
class Call:
    """What a handler gets from the request: path parameters, JSON body, query."""

    params: Mapping[str, str]
    body: JSON
    query: QueryParams


Handler = Callable[[Store, Call], JSON]


@dataclass(frozen=True)
class _Operation:
    number: int
    method: str
    path: str
    body: BodyMode
    handler: Handler


OPERATIONS: list[_Operation] = []


def _operation(
    number: int, method: str, path: str, body: BodyMode = "none"
) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        OPERATIONS.append(_Operation(number, method, path, body, handler))
        return handler

    return register


# --- the 28 operations (literal paths before the parametrised ones they overlap) ----------


@_operation(1, "GET", "/users/me")
def _me(store: Store, call: Call) -> JSON:
    return store.me()


@_operation(2, "POST", "/organizations/{organizationId}/projects", "required")
def _create_project(store: Store, call: Call) -> JSON:
    return store.create_project(call.params["organizationId"], bodies.string(call.body, "name"))


@_operation(3, "GET", "/projects/{projectId}")
def _get_project(store: Store, call: Call) -> JSON:
    return store.get_project(call.params["projectId"])


@_operation(4, "DELETE", "/projects/{projectId}")
def _delete_project(store: Store, call: Call) -> JSON:
    return store.delete_project(call.params["projectId"])


@_operation(5, "PATCH", "/projects/{projectId}/rename", "required")
def _rename_project(store: Store, call: Call) -> JSON:
    return store.rename_project(call.params["projectId"], bodies.string(call.body, "name"))


@_operation(6, "GET", "/projects/{projectId}/rows")
def _list_rows(store: Store, call: Call) -> JSON:
    return store.list_rows(call.params["projectId"])


@_operation(7, "POST", "/projects/{projectId}/rows", "required")
def _create_row(store: Store, call: Call) -> JSON:
    return store.create_row(call.params["projectId"], bodies.row_name(call.body))


@_operation(8, "PATCH", "/projects/{projectId}/order-rows", "required")
def _order_rows(store: Store, call: Call) -> JSON:
    return store.order_rows(call.params["projectId"], bodies.string_list(call.body, "ids"))


@_operation(9, "DELETE", "/projects/{projectId}/rows/{rowId}")
def _delete_row(store: Store, call: Call) -> JSON:
    return store.delete_row(call.params["projectId"], call.params["rowId"])


@_operation(10, "PATCH", "/projects/{projectId}/rows/{rowId}/rename", "required")
def _rename_row(store: Store, call: Call) -> JSON:
    p = call.params
    return store.rename_row(p["projectId"], p["rowId"], bodies.string(call.body, "name"))


@_operation(11, "POST", "/projects/{projectId}/rows/{rowId}/columns", "required")
def _create_column(store: Store, call: Call) -> JSON:
    p = call.params
    return store.create_column(p["projectId"], p["rowId"], bodies.string(call.body, "name"))


@_operation(12, "PATCH", "/projects/{projectId}/rows/{rowId}/order-columns", "required")
def _order_columns(store: Store, call: Call) -> JSON:
    p = call.params
    return store.order_columns(p["projectId"], p["rowId"], bodies.string_list(call.body, "ids"))


@_operation(13, "PATCH", "/projects/{projectId}/columns/{columnId}/rename", "required")
def _rename_column(store: Store, call: Call) -> JSON:
    p = call.params
    return store.rename_column(p["projectId"], p["columnId"], bodies.string(call.body, "name"))


@_operation(14, "DELETE", "/projects/{projectId}/columns/{columnId}")
def _delete_column(store: Store, call: Call) -> JSON:
    return store.delete_column(call.params["projectId"], call.params["columnId"])


@_operation(15, "POST", "/projects/{projectId}/columns/{columnId}/cards", "required")
def _create_card(store: Store, call: Call) -> JSON:
    p = call.params
    return store.create_card(p["projectId"], p["columnId"], bodies.string(call.body, "name"))


@_operation(18, "PATCH", "/projects/{projectId}/cards/move", "required")
def _move_cards(store: Store, call: Call) -> JSON:
    ids = bodies.string_list(call.body, "ids")
    return store.move_cards(call.params["projectId"], ids, **bodies.anchors(call.body))


@_operation(19, "PATCH", "/projects/{projectId}/cards/move-by-metadata", "required")
def _move_cards_by_metadata(store: Store, call: Call) -> JSON:
    key, value = bodies.string(call.body, "key"), bodies.optional_string(call.body, "value")
    return store.move_cards_by_metadata(call.params["projectId"], key, value,
                                        **bodies.anchors(call.body))


@_operation(16, "PATCH", "/projects/{projectId}/cards/{cardId}", "required")
def _rename_card(store: Store, call: Call) -> JSON:
    p = call.params
    return store.rename_card(p["projectId"], p["cardId"], bodies.string(call.body, "name"))


@_operation(17, "DELETE", "/projects/{projectId}/cards/{cardId}")
def _delete_card(store: Store, call: Call) -> JSON:
    return store.delete_card(call.params["projectId"], call.params["cardId"])


@_operation(20, "POST", "/projects/{projectId}/cards/{cardId}/alias", "required")
def _alias_card(store: Store, call: Call) -> JSON:
    p = call.params
    return store.alias_card(p["projectId"], p["cardId"], bodies.string(call.body, "columnId"))


@_operation(21, "POST", "/projects/{projectId}/cards/{cardId}/metadata", "required")
def _set_card_metadata(store: Store, call: Call) -> JSON:
    p, key, value = call.params, bodies.string(call.body, "key"), bodies.string(call.body, "value")
    return store.set_card_metadata(p["projectId"], p["cardId"], key, value)


@_operation(22, "DELETE", "/projects/{projectId}/cards/{cardId}/metadata/{key}", "optional")
def _delete_card_metadata(store: Store, call: Call) -> JSON:
    p = call.params
    return store.delete_card_metadata(p["projectId"], p["cardId"], p["key"])


@_operation(23, "POST", "/projects/{projectId}/plugins/{pluginId}", "optional")
def _attach_plugin(store: Store, call: Call) -> JSON:
    return store.attach_plugin(call.params["projectId"], call.params["pluginId"])


@_operation(24, "DELETE", "/projects/{projectId}/plugins/{pluginId}")
def _detach_plugin(store: Store, call: Call) -> JSON:
    return store.detach_plugin(call.params["projectId"], call.params["pluginId"])


_DATA_PATH = "/plugins/{pluginId}/entities/{entityId}/data/{key}"


@_operation(25, "PUT", _DATA_PATH, "required")
def _put_plugin_data(store: Store, call: Call) -> JSON:
    if "value" not in call.body:
        raise bodies.invalid("missing_field", "value is required")
    p = call.params
    return store.put_plugin_data(p["pluginId"], p["entityId"], p["key"], call.body["value"])


@_operation(26, "DELETE", _DATA_PATH)
def _delete_plugin_data(store: Store, call: Call) -> JSON:
    p = call.params
    return store.delete_plugin_data(p["pluginId"], p["entityId"], p["key"])


@_operation(27, "GET", "/plugins/{pluginId}/data/{key}")
def _get_plugin_data(store: Store, call: Call) -> JSON:
    entity_id = call.query.get("entityId")
    if not entity_id:
        raise bodies.invalid("missing_field", "the query parameter entityId is required")
    return store.get_plugin_data(call.params["pluginId"], entity_id, call.params["key"])


@_operation(28, "POST", "/plugins/{pluginId}/entities/{entityId}/exchange-code", "required")
def _exchange_code(store: Store, call: Call) -> JSON:
    p = call.params
    return store.exchange_code(p["pluginId"], p["entityId"], bodies.string(call.body, "code"))


# --- request plumbing ------------------------------------------------------------------


def _check_key(request: Request, api_key: bytes) -> None:
    # Headers arrive as latin-1 text; compare the raw bytes in constant time.
    given = request.headers.get("x-api-key", "").encode("latin-1")
    if not given or not hmac.compare_digest(given, api_key):
        raise ApiError(401, "unauthorized", "a valid X-API-Key header is required")


async def _read_body(request: Request) -> bytes:
    declared = request.headers.get("content-length", "")
    too_large = declared.isdigit() and int(declared) > MAX_BODY_BYTES
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            too_large = True
        if size > _DRAIN_LIMIT:
            break
        if not too_large:
            chunks.append(chunk)
    if too_large:
        raise ApiError(413, "body_too_large", f"the body exceeds {MAX_BODY_BYTES} bytes")
    return b"".join(chunks)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _parse_json(raw: bytes) -> Any:
    """Strict JSON: UTF-8, no NaN/Infinity, and text that can be written back out as UTF-8."""
    try:
        value = json.loads(raw.decode("utf-8"), parse_constant=_reject_constant)
        json.dumps(value, ensure_ascii=False).encode("utf-8")  # lone surrogates fail here
    except (UnicodeError, ValueError, RecursionError) as exc:
        raise ApiError(400, "invalid_json", f"the body is not valid JSON: {exc}") from None
    return value


async def _json_body(request: Request, mode: BodyMode) -> JSON:
    if mode == "none":
        return {}
    raw = await _read_body(request)
    if not raw.strip():
        if mode == "optional":
            return {}
        raise ApiError(400, "invalid_json", "a JSON object body is required")
    body = _parse_json(raw)
    if not isinstance(body, dict):
        raise bodies.invalid("wrong_type", "the body must be a JSON object")
    return body


_STORE_STATUS = {NotFound: 404, Invalid: 422}


def _endpoint(operation: _Operation, store: Store, api_key: bytes) -> Callable[..., Any]:
    async def endpoint(request: Request) -> Response:
        try:
            _check_key(request, api_key)
            body = await _json_body(request, operation.body)
            call = Call(request.path_params, body, request.query_params)
            return JSONResponse(operation.handler(store, call))
        except ApiError as exc:
            return error_response(exc.status, exc.code, exc.message)
        except StoreError as exc:
            return error_response(_STORE_STATUS.get(type(exc), 422), exc.code, exc.message)
        except ClientDisconnect:
            return error_response(400, "client_disconnected", "the client went away")

    endpoint.__name__ = operation.handler.__name__.lstrip("_")
    return endpoint


_HTTP_CODES = {404: "not_found", 405: "method_not_allowed"}


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    code = _HTTP_CODES.get(exc.status_code, "http_error")
    message = f"{exc.detail}: {request.method} {request.url.path}"
    return error_response(exc.status_code, code, message, exc.headers)


async def _server_error(request: Request, exc: Exception) -> Response:
    # Starlette re-raises exc after this answer, so uvicorn logs the traceback.
    return error_response(500, "internal_error", "the server failed; this is a bug")


def create_app(api_key: str) -> Starlette:
    """The reference server as an ASGI app, with a fresh in-memory store."""
    if not api_key:
        raise ValueError("the API key must not be empty")
    store, key = Store(), api_key.encode("utf-8")
    routes = [Route(op.path, _endpoint(op, store, key), methods=[op.method]) for op in OPERATIONS]
    app = Starlette(
        routes=routes,
        exception_handlers={HTTPException: _http_error, Exception: _server_error},
    )
    app.router.redirect_slashes = False  # an unknown path is a 404, never a redirect
    app.state.store = store
    return app
