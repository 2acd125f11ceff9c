"""boardcert.http.api: operations called by number, the profile's bodies marked, and the one rule
for a profile that does not fit the server (api.misfit)."""

from __future__ import annotations

import json

import httpx
import pytest

from boardcert.http.api import Api, find_named, ids_in_order, mentions, misfit, server_message
from boardcert.http.client import Client, Exchange
from boardcert.settings.config import NotAssessed, Target, load_profile

KEY = "api-key-for-tests"


def make_api(status: int = 200, body: object = None) -> tuple[Api, list[httpx.Request]]:
    seen: list[httpx.Request] = []

    def server(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(status, json=body if body is not None else {})

    profile = load_profile()
    client = Client(Target("http://server", KEY, profile), httpx.MockTransport(server))
    return Api(client, profile), seen


def test_call_sends_the_operation_with_quoted_path_parameters():
    """call(16, ...) sends PATCH to op 16's path, each parameter URL-quoted, with the key."""
    api, seen = make_api()
    api.call(16, projectId="p/1", cardId="c 1", json={"name": "n"})
    assert seen[0].method == "PATCH"
    assert seen[0].url.raw_path == b"/projects/p%2F1/cards/c%201"
    assert seen[0].headers["X-API-Key"] == KEY
    assert json.loads(seen[0].content) == {"name": "n"}


def test_call_marks_a_profile_body_and_a_refusal_is_a_misfit():
    """A profile body refused with 422 is NotAssessed naming the profile key to set."""
    api, _ = make_api(422, {"detail": "title is required"})
    exchange = api.call(15, projectId="p", columnId="c",
                        json=api.body("create_card", name="a card"))
    refused = misfit(exchange)
    assert isinstance(refused, NotAssessed)
    assert "bodies.create_card" in str(refused) and '"title is required"' in str(refused)


@pytest.mark.parametrize("status", [200, 404, 405, 500])
def test_other_answers_to_a_profile_body_are_the_servers(status: int):
    """2xx, 404/405 (not implemented) and 5xx to a profile body are judged, not excused."""
    api, _ = make_api(status)
    exchange = api.call(15, projectId="p", columnId="c", json=api.body("create_card", name="n"))
    assert misfit(exchange) is None


def test_a_body_discovery_proved_is_the_servers_fault():
    """Once discovery saw the server accept a body, a later refusal is not excused."""
    api, _ = make_api(422)
    body = api.body("create_card", name="n")
    body.proven = True
    assert misfit(api.call(15, projectId="p", columnId="c", json=body)) is None


def test_a_404_at_the_profiles_plugin_is_a_misfit_whatever_it_says():
    """A 404 at a path naming the profile's plugin (ops 23-28) says: set plugin_id (and, where
    the path names the entity or op 28 takes the code, entity_id or exchange_code), whether
    its message names the plugin or not; at a path of the run's own ids, or at another
    plugin, it is the server's."""
    api, _ = make_api()
    plugin = str(api.profile.get("plugin_id"))
    for said in (f"unknown plugin {plugin}", "Not Found"):
        api_404, _ = make_api(404, {"message": said})
        refused = misfit(api_404.call(23, projectId="p", pluginId=plugin))
        assert isinstance(refused, NotAssessed) and "set plugin_id in your profile" in str(refused)
        assert said in str(refused)
    api_404, _ = make_api(404, {"message": "Not Found"})
    data = misfit(api_404.call(25, path_params={"pluginId": plugin, "entityId": "e", "key": "k"}))
    assert "set plugin_id or entity_id in your profile" in str(data)
    code = misfit(api_404.call(28, pluginId=plugin, entityId="e", json={}))
    assert "set plugin_id or entity_id or exchange_code in your profile" in str(code)
    assert misfit(api_404.call(23, projectId="p", pluginId="another")) is None
    assert misfit(api_404.call(20, projectId="p", cardId="c", json={})) is None
    not_allowed, _ = make_api(405, {"message": "method not allowed"})
    assert misfit(not_allowed.call(26, path_params={"pluginId": plugin, "entityId": "e",
                                                    "key": "k"})) is None


def test_a_404_after_the_server_accepted_the_plugin_is_the_servers():
    """Once a request of the test got a 2xx with the profile's plugin (and entity), a 404 at
    a path of those values is the server's: a missing route or a lost datum, not a misfit;
    a value not seen accepted yet (op 28's code) is still the profile's to set."""
    answers = iter([200, 404, 404])

    def server(request: httpx.Request) -> httpx.Response:
        return httpx.Response(next(answers), json={"message": "Not Found"})

    profile = load_profile()
    client = Client(Target("http://server", KEY, profile), httpx.MockTransport(server))
    api, plugin = Api(client, profile), str(profile.get("plugin_id"))
    where = {"pluginId": plugin, "entityId": "e", "key": "k"}
    api.call(25, path_params=where, json={})
    assert misfit(api.call(26, path_params=where)) is None
    code = misfit(api.call(28, pluginId=plugin, entityId="e", json={}))
    assert "set exchange_code in your profile" in str(code)
    client.begin_test()  # the next test has seen nothing accepted
    answers = iter([404])
    assert "set plugin_id or entity_id" in str(misfit(api.call(26, path_params=where)))


def test_server_message_reads_the_usual_error_shapes():
    """The server's words: FastAPI's detail list, a message key, else the body's start."""
    def said(content: bytes) -> str:
        return server_message(Exchange("GET", "u", {}, None, status=400, content=content))

    fastapi = {"detail": [{"loc": ["body", "name"], "msg": "field required"}]}
    assert said(json.dumps(fastapi).encode()) == '"body.name: field required"'
    assert said(b'{"error": {"message": "bad"}}') == '"bad"'
    assert said(b"plain  text\n") == '"plain text"'
    assert said(b"") == ""


def test_find_named_ids_in_order_and_mentions():
    """Ids found by name anywhere, list orders read from ids or records, values searched."""
    body = {"rows": [{"id": 1, "name": "a", "columns": [{"id": "c9", "name": "b"}]}]}
    assert find_named(body, "b") == "c9" and find_named(body, "z") is None
    assert ids_in_order([{"id": 1}, "x"], "rows") == ["1", "x"]
    with pytest.raises(NotAssessed):
        ids_in_order({"id": 1}, "rows")
    assert mentions(body, "c9") and not mentions(body, "c")
