"""`boardcert proxy` between a client and a server: it forwards every request and answer as
they came, judges the client as `serve --client-report` does and the server with the checks
and requirement ids of `boardcert run` (compliance.json with `source: traffic`); a catalogue
fault is reported with its requirement id; garbage on either side is a finding, never a
crash; the key shows in no file."""

from __future__ import annotations

import contextlib
import json
import threading
from pathlib import Path

import httpx
import pytest
import xmlschema
from faults import FAULTS
from hostile import apps, raw
from hostile.servers import Servers

from boardcert.reference.app import create_app
from boardcert.traffic import client_report, vary
from boardcert.traffic.vary import Vary
from traffic import clients
from traffic.running import KEY, proxied, reference, serving, write

JUNIT_XSD = Path(__file__).parents[1] / "data" / "junit-10.xsd"
FAULT = {f.name: f for f in FAULTS}


def statuses(report: dict) -> dict[str, str]:
    return {r["id"]: r["status"] for r in report["requirements"]}


def no_key_in(directory: Path, key: str = KEY) -> None:
    for path in directory.rglob("*"):
        if path.is_file():
            assert key not in path.read_text(encoding="utf-8", errors="replace"), path


def test_between_a_current_client_and_the_bundled_server_all_is_clean(tmp_path):
    """The client is compatible, the server fails nothing; what the traffic showed passed
    (the response checks of the Project and Card answers among them), the rest is not
    assessed: traffic certifies nothing, so the verdict is incomplete."""
    with reference() as upstream, proxied(upstream) as (base_url, book):
        clients.current(base_url, KEY)
    written = write(book, tmp_path, upstream, "proxy", key=None)
    assert written.client["verdict"] == client_report.COMPATIBLE
    report = written.compliance
    assert report["source"] == "traffic" and report["verdict"] == "incomplete"
    found = statuses(report)
    assert "failed" not in found.values()
    for passed in ("PROJECT-TOP-LEVEL", "PROJECT-NOT-WRAPPED", "CARD-FIELD-TYPES",
                   "CARD-URL-FLAIR", "ROWS-PROPERTY-REQUIRED", "USERS-ME-PROPERTIES",
                   "USERS-ME-NO-ACCESS-TOKENS"):
        assert report["requirements"][list(found).index(passed)]["tests"], passed
    assert found["USERS-ME-NO-ACCESS-TOKENS"] == "passed"
    assert found["EXCHANGE-USER-TOKEN"] == "not assessed"
    assert report["verdict_reason"].startswith(f"From {book.requests} exchanges of traffic")
    for name in ("compliance.json", "compliance.md", "compliance.html",
                 "client-compatibility.json", "junit.xml"):
        assert (tmp_path / name).is_file(), name
    xmlschema.XMLSchema(str(JUNIT_XSD)).validate(str(tmp_path / "junit.xml"))
    no_key_in(tmp_path)


@pytest.mark.parametrize("fault, client, requirement", [
    ("project-wrapped", clients.current, "PROJECT-NOT-WRAPPED"),
    ("removed-row-path-creates", clients.former, "REMOVED-PATH-NOT-SERVED"),
    ("card-flair-missing", clients.current, "CARD-URL-FLAIR"),
])
def test_a_catalogue_fault_in_the_traffic_is_reported_with_its_requirement(
        fault, client, requirement, tmp_path):
    """Between a client and a fault of tests/faults/: the requirement the fault breaks fails
    in compliance.json (the server non-conformant), with the answers that show it."""
    with Servers() as servers:
        upstream = servers.asgi(FAULT[fault].app(KEY))
        # a client may well break on a faulty server: the report is the point
        with proxied(upstream) as (base_url, book), \
                contextlib.suppress(clients.ClientBroke, KeyError, TypeError):
            client(base_url, KEY)
    report = write(book, tmp_path, upstream, "proxy").compliance
    assert statuses(report)[requirement] == "failed", report["verdict_reason"]
    assert report["verdict"] == "non-conformant"
    [entry] = [r for r in report["requirements"] if r["id"] == requirement]
    failed = [t for t in report["tests"] if requirement in t["failed_requirements"]]
    assert failed and all(t["evidence"] for t in failed)
    assert entry["failures"]
    no_key_in(tmp_path)


def test_a_former_path_the_server_still_serves_is_said_to_the_client(tmp_path):
    """The client finding says that this server tolerates the former path."""
    with Servers() as servers:
        upstream = servers.asgi(FAULT["removed-row-path-creates"].app(KEY))
        with proxied(upstream) as (base_url, book):
            clients.former(base_url, KEY)
    report = write(book, tmp_path, upstream, "proxy").client
    [row] = [f for f in report["findings"] if f["where"] == "former POST /projects/{projectId}/row"]
    assert "this server still answered it 200" in row["detail"]


def raw_exchange(base_url: str, method: str, path: str, **kwargs) -> tuple:
    """Status, headers (those a proxy may not change) and the body's bytes as they came."""
    with httpx.Client(base_url=base_url, trust_env=False) as http:
        request = http.build_request(method, path, **kwargs)
        response = http.send(request, stream=True)
        try:
            body = b"".join(response.iter_raw())
        finally:
            response.close()
        headers = [(n, v) for n, v in response.headers.multi_items()
                   if n not in ("date", "server", "connection", "keep-alive", "transfer-encoding")]
        return response.status_code, headers, body


def test_requests_and_answers_pass_unchanged(tmp_path):
    """Through the proxy a varied server's answers (gzip, other statuses and bodies, its own
    headers) arrive byte for byte as they leave it, and the answer is judged inflated."""
    choices = next(c for c in map(vary.choose, range(100)) if c.gzip)
    with serving(Vary(create_app(KEY), choices)) as upstream, \
            proxied(upstream) as (base_url, book):
        key = {"X-API-Key": KEY, "Accept-Encoding": "gzip"}
        for method, path, kwargs in [("GET", "/users/me", {"headers": key}),
                                     ("GET", "/users/me", {}),
                                     ("GET", "/projects/none", {"headers": key}),
                                     ("POST", "/organizations/x/projects",
                                      {"headers": key, "content": b"{not json"}),
                                     ("DELETE", "/nowhere", {"headers": key})]:
            direct = raw_exchange(upstream, method, path, **kwargs)
            assert raw_exchange(base_url, method, path, **kwargs) == direct, (method, path)
    assert direct[0] == 404
    report = write(book, tmp_path, upstream, "proxy").compliance
    assert statuses(report)["USERS-ME-PROPERTIES"] == "passed"  # read through gzip


def test_garbage_from_the_client_is_a_finding(tmp_path):
    """Bytes that are not JSON, not UTF-8, a huge body, a path of no operation: forwarded,
    judged, no crash."""
    with reference() as upstream, proxied(upstream) as (base_url, book), \
            httpx.Client(base_url=base_url, headers={"X-API-Key": KEY}) as http:
        assert http.patch("/projects/1/cards/2", content=b"\xff\xfe{").status_code == 400
        assert http.post("/organizations/1/projects",
                         content=b"x" * (6 * 2**20)).status_code == 413
        assert http.get("/%ff%00/..").status_code == 404
    report = write(book, tmp_path, upstream, "proxy").client
    assert {f["rule"] for f in report["findings"]} == {"CLIENT-BODY-JSON",
                                                        "CLIENT-UNKNOWN-OPERATION"}
    assert report["boardcert_errors"] == []


@pytest.mark.parametrize("handler", [raw.not_http, raw.reset, raw.silent_close])
def test_a_server_that_does_not_answer_gets_the_client_a_502(handler, tmp_path):
    """An upstream that answers garbage, resets or closes: the client gets 502 with a JSON
    body saying so, the reports count the request unanswered, the proxy goes on."""
    with Servers() as servers:
        upstream = servers.raw(handler)
        with proxied(upstream) as (base_url, book):
            for _ in range(2):
                answer = httpx.get(f"{base_url}/users/me", headers={"X-API-Key": KEY})
                assert answer.status_code == 502
                assert "did not answer" in answer.json()["error"]["message"]
    written = write(book, tmp_path, upstream, "proxy")
    assert written.client["counts"]["unanswered"] == 2
    assert written.compliance["boardcert_errors"] == []


def test_an_answer_cut_short_reaches_the_client_cut_short(tmp_path):
    """Headers then half the body: the client sees the answer break as it would without the
    proxy, and the report keeps the request with what broke."""
    with Servers() as servers:
        upstream = servers.raw(raw.truncated)
        with proxied(upstream) as (base_url, book), pytest.raises(httpx.RemoteProtocolError):
            httpx.get(f"{base_url}/users/me", headers={"X-API-Key": KEY})
    [used] = book.used.values()
    assert used.requests == 1
    written = write(book, tmp_path, upstream, "proxy")
    assert written.compliance["boardcert_errors"] == []


def test_garbage_from_the_server_is_a_failure_of_its_requirement(tmp_path):
    """200 with HTML, JSON nested past any parser's depth: JSON-RESPONSES fails; a 500 fails
    NO-SERVER-ERROR; none is a crash."""
    with Servers() as servers:
        for app, requirement in [(apps.fixed(200, "<html>", "text/html"), "JSON-RESPONSES"),
                                 (apps.nested(200_000), "JSON-RESPONSES"),
                                 (apps.fixed(500, "oops"), "NO-SERVER-ERROR")]:
            upstream = servers.asgi(app)
            with proxied(upstream) as (base_url, book):
                httpx.get(f"{base_url}/users/me", headers={"X-API-Key": KEY})
            report = write(book, tmp_path / requirement, upstream, "proxy").compliance
            assert statuses(report)[requirement] == "failed"
            assert report["boardcert_errors"] == []


def test_the_proxy_keeps_only_the_evidence_it_needs():
    """Many requests of one kind keep one first request and a count, not every body."""
    with reference() as upstream, proxied(upstream) as (base_url, book), \
            httpx.Client(base_url=base_url, headers={"X-API-Key": KEY}) as http:
        for n in range(50):
            http.post("/projects/1/row", json={"name": f"row {n}"})
    [broken] = book.broken.values()
    assert broken.count == 50 and json.loads(broken.first.request_body) == {"name": "row 0"}
    assert all(len(j.evidence) <= 3 for j in book.judged.values())


def test_concurrent_clients_are_all_judged(tmp_path):
    """Four clients at once through one proxy: every request is counted."""
    with reference() as upstream, proxied(upstream) as (base_url, book):
        threads = [threading.Thread(target=clients.current, args=(base_url, KEY))
                   for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
    assert book.requests == 4 * 12 and book.errors == []


def test_an_error_inside_boardcert_is_boardcert_s_and_the_traffic_goes_on(tmp_path,
                                                                          monkeypatch):
    """A judge that raises: the answer still reaches the client, both reports name the error
    as boardcert's, and nothing is held against the client or the server for it."""
    from boardcert.traffic import sent

    def broken(seen, key=None):  # type: ignore[no-untyped-def]
        raise RuntimeError("a bug in a judge")
    monkeypatch.setattr(sent, "judge", broken)
    with reference() as upstream, proxied(upstream) as (base_url, book):
        assert httpx.get(f"{base_url}/users/me", headers={"X-API-Key": KEY}).status_code == 200
    written = write(book, tmp_path, upstream, "proxy")
    assert "RuntimeError: a bug in a judge" in written.client["boardcert_errors"][0]
    assert written.compliance["boardcert_errors"][0]["test"] == "traffic::judging"
    assert written.client["findings"] == [] and failed_requirements(written.compliance) == []


def failed_requirements(report: dict) -> list[str]:
    return [r["id"] for r in report["requirements"] if r["status"] == "failed"]
