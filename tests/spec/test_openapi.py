"""spec/openapi.yaml states the interface: its operations, shapes, auth and links, and no more."""

from __future__ import annotations

import datetime
import json
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest
import schemathesis
import yaml
from openapi_spec_validator import validate
from openapi_spec_validator.validation import OpenAPIV31SpecValidator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

ROOT = Path(__file__).resolve().parents[2]
OPENAPI = ROOT / "spec" / "openapi.yaml"
PROFILE = ROOT / "spec" / "profiles" / "reference.yaml"
METHODS = ("get", "put", "post", "patch", "delete", "head", "options", "trace")

# Section 4 of the interface: number, method, path, operationId (and the tag this document gives).
OPERATIONS = [
    (1, "GET", "/users/me", "getCurrentUser", "users"),
    (2, "POST", "/organizations/{organizationId}/projects", "createProject", "projects"),
    (3, "GET", "/projects/{projectId}", "getProject", "projects"),
    (4, "DELETE", "/projects/{projectId}", "deleteProject", "projects"),
    (5, "PATCH", "/projects/{projectId}/rename", "renameProject", "projects"),
    (6, "GET", "/projects/{projectId}/rows", "listRows", "rows"),
    (7, "POST", "/projects/{projectId}/rows", "createRow", "rows"),
    (8, "PATCH", "/projects/{projectId}/order-rows", "orderRows", "rows"),
    (9, "DELETE", "/projects/{projectId}/rows/{rowId}", "deleteRow", "rows"),
    (10, "PATCH", "/projects/{projectId}/rows/{rowId}/rename", "renameRow", "rows"),
    (11, "POST", "/projects/{projectId}/rows/{rowId}/columns", "createColumn", "columns"),
    (12, "PATCH", "/projects/{projectId}/rows/{rowId}/order-columns", "orderColumns", "columns"),
    (13, "PATCH", "/projects/{projectId}/columns/{columnId}/rename", "renameColumn", "columns"),
    (14, "DELETE", "/projects/{projectId}/columns/{columnId}", "deleteColumn", "columns"),
    (15, "POST", "/projects/{projectId}/columns/{columnId}/cards", "createCard", "cards"),
    (16, "PATCH", "/projects/{projectId}/cards/{cardId}", "renameCard", "cards"),
    (17, "DELETE", "/projects/{projectId}/cards/{cardId}", "deleteCard", "cards"),
    (18, "PATCH", "/projects/{projectId}/cards/move", "moveCards", "cards"),
    (19, "PATCH", "/projects/{projectId}/cards/move-by-metadata", "moveCardsByMetadata", "cards"),
    (20, "POST", "/projects/{projectId}/cards/{cardId}/alias", "aliasCard", "cards"),
    (21, "POST", "/projects/{projectId}/cards/{cardId}/metadata", "addCardMetadata",
     "card-metadata"),
    (22, "DELETE", "/projects/{projectId}/cards/{cardId}/metadata/{key}", "removeCardMetadata",
     "card-metadata"),
    (23, "POST", "/projects/{projectId}/plugins/{pluginId}", "attachPlugin", "plugins"),
    (24, "DELETE", "/projects/{projectId}/plugins/{pluginId}", "removePlugin", "plugins"),
    (25, "PUT", "/plugins/{pluginId}/entities/{entityId}/data/{key}", "putPluginData",
     "plugin-data"),
    (26, "DELETE", "/plugins/{pluginId}/entities/{entityId}/data/{key}", "deletePluginData",
     "plugin-data"),
    (27, "GET", "/plugins/{pluginId}/data/{key}", "getPluginData", "plugin-data"),
    (28, "POST", "/plugins/{pluginId}/entities/{entityId}/exchange-code", "exchangeCode",
     "exchange-code"),
]

# Section 9: the former method+path pairs, removed by breaking changes.
REMOVED = [
    ("PATCH", "/card/{cardId}"),
    ("PATCH", "/cards/move-by-metadata"),
    ("PATCH", "/projects/{projectId}/cards/{cardId}/archive"),
    ("PATCH", "/projects/{projectId}/columns/{columnId}/archive"),
    ("DELETE", "/projects/{projectId}/columns/{columnId}/archive"),
    ("PATCH", "/projects/{projectId}/rows/{rowId}/archive"),
    ("DELETE", "/projects/{projectId}/rows/{rowId}/archive"),
    ("POST", "/projects/{projectId}/columns/{columnId}/card"),
    ("POST", "/projects/{projectId}/row"),
    ("POST", "/projects/{projectId}/rows/{rowId}/column"),
    ("PATCH", "/projects"),
    ("POST", "/projects/{projectId}/columns/{columnId}/cards/{cardId}/alias"),
    ("POST", "/exchange-code"),
]

AUTH_REQUIRED = {1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13, 15, 16, 17, 18, 19}  # section 5

RESPONSES = {  # the component schema of each 200 response; None: "not shown"
    **dict.fromkeys([2, 3, 5, 7, 8, 9, 10, 11, 12, 13, 14], "Project"),
    **dict.fromkeys([15, 16, 17, 18, 19, 20], "Card"),
    **dict.fromkeys([4, 21, 22, 25, 26, 27], None),
    1: "UsersMe",
    6: "RowsResponse",
    23: "PluginsResponse",
    24: "PluginsResponse",
    28: "ExchangeCodeResponse",
}

NO_BODY = {1, 3, 4, 6, 9, 14, 17, 24, 26, 27}
SHOWN_BODY = {7: "CreateRowBody", 16: "RenameCardBody", 18: "MoveCardsBody",
              19: "MoveCardsByMetadataBody"}
PROFILE_BODY = {  # body not shown: the profile key that supplies it
    2: "create_project", 5: "rename_project", 8: "order_rows", 10: "rename_row",
    11: "create_column", 12: "order_columns", 13: "rename_column", 15: "create_card",
    18: "move_cards", 19: "move_cards_by_metadata", 20: "alias_card", 21: "add_card_metadata",
    22: "remove_card_metadata", 23: "attach_plugin", 25: "put_plugin_data", 28: "exchange_code",
}

# Every `required` of the document (outside `not`), where it sits: nothing the interface lacks.
REQUIRED = {
    "Project": ["id", "name", "createdAt", "updatedAt", "rows", "cards", "plugins"],
    "Card": ["id", "name", "url", "createdFlair", "columns", "metadata", "plugins", "projects"],
    "Card/columns/items": ["id", "name"],
    "Card/metadata/items": ["id", "value"],
    "UsersMe": ["currentOrganization", "currentProject", "organizations"],
    "RowsResponse": ["rows"],
    "PluginsResponse": ["plugins"],
    "ExchangeCodeResponse": ["userToken"],
    "CreateRowBody/anyOf/0": ["name"],
    "CreateRowBody/anyOf/1": ["rowName"],
    "RenameCardBody": ["name"],
}

# Declared links: (producer, link name) -> (target operationId, parameters).
LINKS = {
    ("createProject", "GetProject"): ("getProject", {"projectId": "$response.body#/id"}),
    ("createProject", "RenameProject"): ("renameProject", {"projectId": "$response.body#/id"}),
    ("createProject", "ListRows"): ("listRows", {"projectId": "$response.body#/id"}),
    ("createProject", "CreateRow"): ("createRow", {"projectId": "$response.body#/id"}),
    ("createProject", "OrderRows"): ("orderRows", {"projectId": "$response.body#/id"}),
    ("createProject", "AttachPlugin"): ("attachPlugin", {"projectId": "$response.body#/id"}),
    ("createProject", "DeleteProject"): ("deleteProject", {"projectId": "$response.body#/id"}),
    ("renameProject", "GetProject"): ("getProject", {"projectId": "$response.body#/id"}),
    ("createRow", "ListRows"): ("listRows", {"projectId": "$response.body#/id"}),
    **{
        ("createRow", name): (target, {"projectId": "$request.path.projectId",
                                       "rowId": "$response.body#/rows/0/id"})
        for name, target in [("CreateColumn", "createColumn"), ("RenameRow", "renameRow"),
                             ("OrderColumns", "orderColumns"), ("DeleteRow", "deleteRow")]
    },
    **{
        ("createColumn", name): (target, {"projectId": "$request.path.projectId",
                                          "columnId": "$response.body#/rows/0/columns/0/id"})
        for name, target in [("RenameColumn", "renameColumn"), ("CreateCard", "createCard"),
                             ("DeleteColumn", "deleteColumn")]
    },
    **{
        ("createCard", name): (target, {"projectId": "$request.path.projectId",
                                        "cardId": "$response.body#/id"})
        for name, target in [("RenameCard", "renameCard"), ("AliasCard", "aliasCard"),
                             ("AddCardMetadata", "addCardMetadata"), ("DeleteCard", "deleteCard")]
    },
    ("renameCard", "DeleteCard"): ("deleteCard", {"projectId": "$request.path.projectId",
                                                  "cardId": "$response.body#/id"}),
    ("addCardMetadata", "RemoveCardMetadata"): (
        "removeCardMetadata",
        {"projectId": "$request.path.projectId", "cardId": "$request.path.cardId",
         "key": "$request.body#/key"},
    ),
    ("attachPlugin", "RemovePlugin"): ("removePlugin", {"projectId": "$request.path.projectId",
                                                        "pluginId": "$request.path.pluginId"}),
    ("putPluginData", "GetPluginData"): (
        "getPluginData",
        {"pluginId": "$request.path.pluginId", "key": "$request.path.key",
         "query.entityId": "$request.path.entityId"},
    ),
    ("putPluginData", "DeletePluginData"): (
        "deletePluginData",
        {"pluginId": "$request.path.pluginId", "entityId": "$request.path.entityId",
         "key": "$request.path.key"},
    ),
}

PROJECT = {"id": "p1", "name": "Board", "createdAt": "2024-05-19T00:00:00Z",
           "updatedAt": "2024-05-19T00:00:00Z", "rows": [], "cards": [], "plugins": []}
CARD = {"id": "c1", "name": "Card", "url": "https://example.invalid/c1", "createdFlair": "new",
        "columns": [{"id": "k1", "name": "Todo"}], "metadata": [{"id": "m", "value": "v"}],
        "plugins": [], "projects": []}
USERS_ME = {"currentOrganization": {"id": "o1"}, "currentProject": None, "organizations": []}
VALID = {
    "Project": PROJECT,
    "Card": CARD,
    "UsersMe": USERS_ME,
    "RowsResponse": {"rows": []},
    "PluginsResponse": {"plugins": []},
    "ExchangeCodeResponse": {"userToken": "t"},
    "CreateRowBody": {"name": "Row"},
    "RenameCardBody": {"name": "New name"},
    "MoveCardsBody": {"ids": ["c1"], "afterCardId": "c2"},
    "MoveCardsByMetadataBody": {"beforeCardId": "c2"},
}


# --- reading the document ----------------------------------------------------------------------

@cache
def document() -> dict[str, Any]:
    with OPENAPI.open(encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def operations() -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in document()["paths"].items():
        for method in METHODS:
            if method in item:
                yield method.upper(), path, item[method]


def operation(number: int) -> dict[str, Any]:
    (found,) = [op for _, _, op in operations() if op["x-operation"] == number]
    return found


def deref(node: dict[str, Any]) -> dict[str, Any]:
    """Follow a local `$ref` of the document (responses, request bodies, parameters)."""
    while "$ref" in node:
        target: Any = document()
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node


def response_200(number: int) -> dict[str, Any]:
    return deref(operation(number)["responses"]["200"])


def schema_name(schema: dict[str, Any]) -> str:
    return schema["$ref"].removeprefix("#/components/schemas/")


@cache
def registry() -> Registry:
    resource = Resource.from_contents(document(), default_specification=DRAFT202012)
    return Registry().with_resource("urn:openapi", resource)


def errors(name: str, instance: Any) -> list[str]:
    """Violations of a component schema, `#/components/...` refs resolved in the document."""
    validator = jsonschema.Draft202012Validator(
        {"$ref": f"urn:openapi#/components/schemas/{name}"}, registry=registry()
    )
    return [e.message for e in validator.iter_errors(instance)]


def walk(node: Any, where: str = "") -> Iterator[tuple[str, Any]]:
    yield where, node
    if isinstance(node, dict):
        for key, value in node.items():
            yield from walk(value, f"{where}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from walk(value, f"{where}/{i}")


@cache
def schemathesis_schema() -> Any:
    schema = schemathesis.openapi.from_path(str(OPENAPI))
    schema.config.update(base_url="http://server.invalid")
    return schema


# --- the document as a whole -------------------------------------------------------------------

def test_document_is_valid_openapi_3_1():
    """openapi-spec-validator accepts the document as OpenAPI 3.1."""
    assert document()["openapi"] == "3.1.0"
    validate(document(), cls=OpenAPIV31SpecValidator)


def test_info_names_the_interface_and_its_version():
    """info carries the interface's title and version label 0.0.1; no servers are fixed."""
    assert document()["info"]["title"] == "Board Project Service Interface"
    assert document()["info"]["version"] == "0.0.1"
    assert "servers" not in document()


def test_unshown_parts_of_the_interface_carry_notes():
    """States, events, errors and limits, all "not shown", are noted at the document level."""
    notes = document()["info"]["x-note"]
    assert "Events: not shown" in notes["events"]
    assert "Error statuses, codes and bodies: not shown" in notes["errors"]
    assert "Transitions: not shown" in notes["states"]
    assert "other limits: not shown" in notes["limits"]


# --- operations --------------------------------------------------------------------------------

def test_exactly_the_28_operations_of_section_4():
    """Method, path and operationId of every operation are those of section 4, numbered 1..28."""
    found = sorted((op["x-operation"], m, p, op["operationId"]) for m, p, op in operations())
    assert found == [(n, m, p, i) for n, m, p, i, _ in OPERATIONS]


@pytest.mark.parametrize(("number", "method", "path", "operation_id", "tag"), OPERATIONS,
                         ids=[row[3] for row in OPERATIONS])
def test_operation_is_described(number, method, path, operation_id, tag):
    """Each operation has an integer x-operation, a summary and its tag."""
    op = document()["paths"][path][method.lower()]
    assert type(op["x-operation"]) is int and op["x-operation"] == number
    assert op["summary"].strip()
    assert op["tags"] == [tag]
    assert tag in {t["name"] for t in document()["tags"]}


@pytest.mark.parametrize(("method", "path"), REMOVED, ids=[f"{m} {p}" for m, p in REMOVED])
def test_removed_path_is_absent(method, path):
    """No former method+path of section 9 is an operation, whatever its parameter names."""
    def shape(template: str) -> str:
        return "/".join("{}" if s.startswith("{") else s for s in template.split("/"))

    assert (method, shape(path)) not in {(m, shape(p)) for m, p, _ in operations()}


@pytest.mark.parametrize("number", range(1, 29))
def test_security_is_required_exactly_where_section_5_lists_it(number):
    """X-API-Key is required on ops 1-5, 7-13, 15-19 and optional (with a note) elsewhere."""
    op = operation(number)
    if number in AUTH_REQUIRED:
        assert op["security"] == [{"ApiKey": []}]
    else:
        assert op["security"] == [{}, {"ApiKey": []}]
        assert "Authentication of all other operations" in op["x-note"]
    assert "security" not in document()


def test_api_key_scheme_is_the_x_api_key_header():
    """The one security scheme is an API key in the X-API-Key header."""
    scheme = document()["components"]["securitySchemes"]["ApiKey"]
    assert {k: scheme[k] for k in ("type", "in", "name")} == {
        "type": "apiKey", "in": "header", "name": "X-API-Key"}
    assert "How an API key is obtained: not shown" in scheme["x-note"]


# --- parameters --------------------------------------------------------------------------------

@pytest.mark.parametrize(("number", "path"), [(n, p) for n, _, p, _, _ in OPERATIONS])
def test_path_parameters_are_strings(number, path):
    """Every path parameter is declared, a string; all but projectId and cardId note the type."""
    params = [deref(p) for p in operation(number).get("parameters", [])]
    in_path = {p["name"]: p for p in params if p["in"] == "path"}
    assert sorted(in_path) == sorted(s[1:-1] for s in path.split("/") if s.startswith("{"))
    for name, param in in_path.items():
        assert param["required"] is True
        assert param["schema"] == {"type": "string"}
        if name not in ("projectId", "cardId"):
            assert "Type of every other path parameter: not shown" in param["x-note"]


def test_op_27_entity_id_is_an_optional_query_parameter_with_a_note():
    """Op 27's entityId, whose position is not shown, is an optional string query parameter."""
    params = [deref(p) for p in operation(27)["parameters"]]
    (entity,) = [p for p in params if p["name"] == "entityId"]
    assert entity["in"] == "query" and entity["required"] is False
    assert entity["schema"] == {"type": "string"}
    assert "position is not shown" in entity["x-note"]


# --- request bodies ----------------------------------------------------------------------------

@pytest.mark.parametrize("number", range(1, 29))
def test_request_body_is_what_the_interface_shows(number):
    """No body where none is shown; shown bodies are required; unshown bodies are open."""
    op = operation(number)
    if number in NO_BODY:
        assert "requestBody" not in op
        return
    body = deref(op["requestBody"])
    schema = body["content"]["application/json"]["schema"]
    if number in SHOWN_BODY:
        assert body["required"] is True
        assert schema_name(schema) == SHOWN_BODY[number]
    else:
        assert body["required"] is False
        assert "not shown" in body["x-note"]
        constraints = {k for k in deref(schema) if not k.startswith("x-")}
        assert constraints == set(), f"an unshown body is constrained by {constraints}"


def test_profile_bodies_are_named_by_their_operations():
    """Each op whose body is not shown names, in x-profile-body, a body of the reference profile."""
    named = {n: operation(n).get("x-profile-body") for n in range(1, 29)}
    assert {n: key for n, key in named.items() if key} == PROFILE_BODY
    profile = yaml.safe_load(PROFILE.read_text(encoding="utf-8"))
    assert set(PROFILE_BODY.values()) == set(profile["bodies"])


@pytest.mark.parametrize(("name", "length"), [("x", 25000), ("é", 25000), ("😀", 25000)])
def test_card_name_of_25000_characters_is_accepted(name, length):
    """Op 16's name may be 25000 characters long, counted as code points."""
    assert errors("RenameCardBody", {"name": name * length}) == []


@pytest.mark.parametrize("body", [
    {"name": "x" * 25001}, {"name": "é" * 25001}, {}, {"name": None}, {"name": 5},
    {"name": ["x"]}, {"name": {"x": 1}}, {"title": "x"}, [], "x",
], ids=["25001", "25001-e-acute", "missing", "null", "number", "array", "object", "other-key",
        "list-body", "string-body"])
def test_card_name_that_op_16_forbids_is_rejected(body):
    """Op 16's name is required, a string, at most 25000 characters."""
    assert errors("RenameCardBody", body)


def test_row_name_is_name_or_row_name():
    """Op 7 takes the row name as name or rowName (either, or both), as a string."""
    assert errors("CreateRowBody", {"name": "Row"}) == []
    assert errors("CreateRowBody", {"rowName": "Row"}) == []
    assert errors("CreateRowBody", {"name": "Row", "rowName": "Row"}) == []
    assert errors("CreateRowBody", {})
    assert errors("CreateRowBody", {"title": "Row"})
    assert errors("CreateRowBody", {"name": 5})


@pytest.mark.parametrize(("name", "properties"), [
    ("MoveCardsBody", {"ids", "afterCardId", "beforeCardId"}),
    ("MoveCardsByMetadataBody", {"afterCardId", "beforeCardId"}),
])
def test_move_bodies_name_their_properties_without_types(name, properties):
    """The move bodies have the properties shown, untyped and none of them required."""
    schema = document()["components"]["schemas"][name]
    assert set(schema["properties"]) == properties
    for prop in schema["properties"].values():
        assert {k for k in prop if not k.startswith("x-")} == set()
        assert "not shown" in prop["x-note"]
    assert "required" not in schema
    assert errors(name, {}) == []
    assert errors(name, {"ids": 1, "afterCardId": None, "beforeCardId": [2], "key": "k"}) == []


# --- responses ---------------------------------------------------------------------------------

@pytest.mark.parametrize("number", range(1, 29))
def test_200_response_is_the_record_of_section_4(number):
    """The 200 response is the JSON record section 4 lists, or has no content when not shown."""
    response = response_200(number)
    if RESPONSES[number] is None:
        assert "content" not in response
        assert "Response: not shown" in response["x-note"]
    else:
        assert list(response["content"]) == ["application/json"]
        assert schema_name(response["content"]["application/json"]["schema"]) == RESPONSES[number]


@pytest.mark.parametrize("number", range(1, 29))
def test_error_statuses_are_open(number):
    """4XX and 5XX are documented without content, 200 is the only success; no default."""
    responses = operation(number)["responses"]
    assert set(responses) == {"200", "4XX", "5XX"}
    for code in ("4XX", "5XX"):
        error = deref(responses[code])
        assert "content" not in error
        assert "Error statuses, codes and bodies: not shown" in error["x-note"]


def test_project_passes_flat_and_fails_wrapped():
    """A Project has its fields at the top level; the removed inner-project shape fails."""
    assert errors("Project", PROJECT) == []
    assert errors("Project", {"project": PROJECT})
    assert errors("Project", {"data": PROJECT, "id": "p1"})


@pytest.mark.parametrize("field", REQUIRED["Project"])
def test_project_missing_a_field_fails(field):
    """Each of the seven Project fields is required."""
    assert errors("Project", {k: v for k, v in PROJECT.items() if k != field})


def test_project_field_types_are_open():
    """Project field types are not shown: numbers, nulls and objects pass."""
    odd = {"id": 1, "name": None, "createdAt": 1716076800, "updatedAt": {"t": 1},
           "rows": {}, "cards": "none", "plugins": None}
    assert errors("Project", odd) == []


@pytest.mark.parametrize("change", [
    {"url": None}, {"createdFlair": None}, {"id": 1}, {"name": None},
    {"columns": [{"id": "k1"}]}, {"columns": [{"id": 1, "name": "Todo"}]},
    {"metadata": [{"id": "m", "value": 1}]}, {"metadata": [{"value": "v"}]},
    {"columns": None}, {"metadata": {"m": "v"}},
], ids=["url-null", "flair-null", "id-number", "name-null", "column-without-name",
        "column-id-number", "metadata-value-number", "metadata-without-id", "columns-null",
        "metadata-object"])
def test_card_with_a_wrong_field_fails(change):
    """Card fields have the types section 2 gives."""
    assert errors("Card", {**CARD, **change})


@pytest.mark.parametrize("field", REQUIRED["Card"])
def test_card_missing_a_field_fails(field):
    """Each Card field of section 2 is required."""
    assert errors("Card", {k: v for k, v in CARD.items() if k != field})


def test_card_carries_projects_and_plugins_of_any_shape():
    """A correct Card passes; card responses carry plugins and projects (section 2), whose
    shapes are not shown: any value passes, a missing one fails."""
    assert errors("Card", CARD) == []
    assert errors("Card", {**CARD, "plugins": [1], "projects": {"p": None}}) == []
    for name in ("plugins", "projects"):
        assert errors("Card", {k: v for k, v in CARD.items() if k != name})


@pytest.mark.parametrize(("instance", "ok"), [
    ({"rows": []}, True), ({"rows": [{"id": "r"}]}, True), ([], False), ([{"id": "r"}], False),
    ({"items": []}, False), ({}, False),
], ids=["empty", "one-row", "bare-empty-list", "bare-list", "items-key", "no-rows"])
def test_rows_response_requires_rows(instance, ok):
    """Op 6 answers an object with the required property rows."""
    assert (errors("RowsResponse", instance) == []) is ok


@pytest.mark.parametrize(("instance", "ok"), [
    (USERS_ME, True),
    ({**USERS_ME, "user": {"id": "u1", "name": "Ada"}}, True),
    ({**USERS_ME, "accessTokens": []}, False),
    ({**USERS_ME, "user": {"id": "u1", "accessTokens": []}}, False),
    ({"currentProject": None, "organizations": []}, False),
], ids=["plain", "with-user", "top-level-access-tokens", "user-access-tokens",
        "no-current-organization"])
def test_users_me_has_its_properties_and_no_access_tokens(instance, ok):
    """/users/me has its three properties and no accessTokens, at the top or in user."""
    assert (errors("UsersMe", instance) == []) is ok


@pytest.mark.parametrize(("instance", "ok"), [
    ({"userToken": "t"}, True), ({"userToken": "t", "accessToken": "a"}, False),
    ({"accessToken": "a"}, False), ({"userToken": 5}, True), ({"userToken": {"t": 1}}, True),
    ({"userToken": None}, False), ({}, False),
], ids=["user-token", "also-access-token", "access-token-only", "number", "object", "null",
        "empty"])
def test_exchange_code_answers_a_user_token_and_no_access_token(instance, ok):
    """Exchange-code answers userToken, of any type but null, and no longer accessToken."""
    assert (errors("ExchangeCodeResponse", instance) == []) is ok


def test_plugins_response_requires_plugins():
    """Ops 23 and 24 answer an object with a plugins property."""
    assert errors("PluginsResponse", {"plugins": []}) == []
    assert errors("PluginsResponse", {"id": "p1"})


@pytest.mark.parametrize("name", sorted(VALID))
def test_extra_fields_pass(name):
    """Undocumented fields are allowed everywhere, at the top and inside items."""
    instance = {**VALID[name], "extra": {"anything": [1, None]}}
    if name == "Card":
        instance["columns"] = [{"id": "k1", "name": "Todo", "position": 1}]
        instance["metadata"] = [{"id": "m", "value": "v", "createdAt": 0}]
    assert errors(name, VALID[name]) == []
    assert errors(name, instance) == []


def test_nothing_is_required_that_the_interface_does_not_state():
    """The document's `required` lists (outside prohibitions) are exactly the interface's."""
    schemas = document()["components"]["schemas"]
    found = {}
    for where, node in walk(schemas):
        if isinstance(node, dict) and "required" in node and not where.endswith("/not"):
            found[where.lstrip("/").replace("/properties/", "/")] = node["required"]
    assert found == REQUIRED


def test_additional_properties_are_never_forbidden():
    """additionalProperties is never false: extra fields never fail."""
    for where, node in walk(document()):
        assert not (isinstance(node, dict) and node.get("additionalProperties") is False), where


# --- links and schemathesis --------------------------------------------------------------------

def test_links_chain_create_read_change_delete():
    """The declared links are those that chain project, row, column, card and metadata."""
    declared = {}
    for _, _, op in operations():
        for name, link in response_200(op["x-operation"]).get("links", {}).items():
            declared[(op["operationId"], name)] = (link["operationId"], link["parameters"])
    assert declared == LINKS


@pytest.mark.parametrize(("producer", "name"), sorted(LINKS))
def test_link_expressions_point_at_real_parameters(producer, name):
    """Each link fills parameters of its target from the producer's path, body or response."""
    ops = {op["operationId"]: (path, op) for _, path, op in operations()}
    target_path, target = ops[LINKS[(producer, name)][0]]
    producer_path, _ = ops[producer]
    target_params = {(deref(p)["in"], deref(p)["name"]) for p in target.get("parameters", [])}
    for parameter, expression in LINKS[(producer, name)][1].items():
        where, _, param = parameter.rpartition(".")
        assert (where or "path", param) in target_params
        if expression.startswith("$request.path."):
            assert "{" + expression.removeprefix("$request.path.") + "}" in producer_path
        else:
            assert expression.startswith(("$response.body#/", "$request.body#/"))


def test_schemathesis_builds_a_state_machine_with_the_links():
    """schemathesis 4 loads the document and builds its stateful test from the links."""
    machine = schemathesis.openapi.from_path(str(OPENAPI)).as_state_machine()
    rules = {r for r in dir(machine) if "___200_" in r}
    for producer, name in LINKS:
        assert any(f"___200_{name}__" in r for r in rules), (producer, name)


# --- how schemathesis judges responses (no network: responses are built in memory) -------------

def judge(operation_id: str, status: int, body: bytes = b"", content_type: str | None = None,
          checks: tuple = (status_code_conformance, content_type_conformance,
                           response_schema_conformance)) -> list[str]:
    """The names of the failures schemathesis reports for one response to one operation."""
    op = schemathesis_schema().find_operation_by_id(operation_id)
    names = [s[1:-1] for s in op.path.split("/") if s.startswith("{")]
    case = op.Case(path_parameters=dict.fromkeys(names, "1"))
    headers = {"content-type": content_type} if content_type else {}
    request = httpx.Request(op.method.upper(), f"http://server.invalid{op.path}")
    response = httpx.Response(status, headers=headers, content=body, request=request)
    response.elapsed = datetime.timedelta(0)
    try:
        case.validate_response(response, checks=list(checks))
    except schemathesis.errors.FailureGroup as group:
        return [type(failure).__name__ for failure in group.exceptions]
    return []


@pytest.mark.parametrize(("status", "body", "content_type"), [
    (400, b'{"error": "bad name"}', "application/json"), (401, b"", None),
    (404, b"<h1>Not Found</h1>", "text/html"), (405, b"Method Not Allowed", "text/plain"),
    (410, b"", None), (422, b"[]", "application/json"), (429, b"slow down", "text/plain"),
], ids=["400-json", "401-empty", "404-html", "405-text", "410", "422", "429"])
def test_any_rejection_is_no_false_alarm(status, body, content_type):
    """Any 4xx, with any body or none, passes status, content-type and schema conformance."""
    assert judge("renameCard", status, body, content_type) == []


def test_server_error_is_judged_once_as_a_server_error():
    """A 5xx is not an undocumented status; not_a_server_error alone reports it."""
    assert judge("getProject", 500, b"oops", "text/plain") == []
    assert judge("getProject", 500, b"oops", "text/plain",
                 checks=(not_a_server_error,)) == ["ServerError"]


@pytest.mark.parametrize("status", [201, 202, 204, 302])
def test_success_other_than_200_is_an_undocumented_status(status):
    """Success is status 200: a 201, 202, 204 or redirect is flagged."""
    assert judge("createProject", status, b"{}", "application/json") == ["UndefinedStatusCode"]


@pytest.mark.parametrize("operation_id", ["deleteProject", "addCardMetadata",
                                          "removeCardMetadata", "putPluginData",
                                          "deletePluginData", "getPluginData"])
def test_unshown_response_accepts_any_body_or_none(operation_id):
    """A 200 whose response is not shown passes empty, as JSON or as text."""
    assert judge(operation_id, 200) == []
    assert judge(operation_id, 200, b'{"ok": true}', "application/json") == []
    assert judge(operation_id, 200, b"OK", "text/plain") == []


def test_shown_response_is_judged_by_its_schema():
    """A wrapped Project or an empty 200 on a Project operation is reported."""
    assert judge("getProject", 200, b'{"project": {"id": "p1"}}', "application/json") == [
        "JsonSchemaError"]
    assert judge("getProject", 200, b"", None)
    assert judge("getProject", 200, json.dumps(PROJECT).encode(), "application/json") == []
