"""Against a server that misbehaves, a run completes and reports: each misbehaviour is a failing
test with its evidence (request, what arrived or the transport error, a curl line with the key
as ***), never a crashed run. An unreachable target stops the run at once with exit 3 and one
message. 429 is honoured with bounded retries; --rate-limit caps the request rate."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from email.utils import formatdate
from pathlib import Path

import pytest
from hostile import apps, raw
from hostile.servers import Servers

from boardcert import cli
from boardcert.errors import ExchangeError
from boardcert.http import client, preflight
from boardcert.http.client import BROKEN, TIMEOUT, TOO_LARGE, Client, retry_after
from boardcert.http.evidence import evidence_text
from boardcert.paths import ROOT, SUITES
from boardcert.settings.config import Target, load_profile

pytest_plugins = ["pytester", "hostile.fixtures"]
pytestmark = pytest.mark.usefixtures("no_target_from_the_environment")

KEY = "hostile-key-5e1c7d"  # distinctive, so that a leak anywhere is found
TIMEOUT_S = 0.5
CAP = 64 * 1024
USERS = str(SUITES / "test_users.py")
USERS_ME = '{"currentOrganization": {"id": "1"}, "currentProject": null, "organizations": []}'


def make_client(base_url: str, **settings) -> Client:
    settings = {"timeout": TIMEOUT_S, "max_body": CAP, **settings}
    return Client(Target(base_url, KEY, load_profile(), **settings))


# What each misbehaving server does, and what the client makes of it: a status the test
# sees (the server answered), or the kind of transport failure.
Start = Callable[[Servers], str]
MISBEHAVIOURS: dict[str, tuple[Start, int | str]] = {
    "not JSON": (lambda s: s.asgi(apps.fixed(200, "<html>ok</html>", "text/html")), 200),
    "wrong content type": (lambda s: s.asgi(apps.fixed(200, USERS_ME, "text/plain")), 200),
    "no content type": (lambda s: s.asgi(apps.fixed(200, USERS_ME, None)), 200),
    "5xx": (lambda s: s.asgi(apps.fixed(503, "upstream down", "text/plain")), 503),
    "redirect": (lambda s: s.asgi(apps.fixed(
        302, "", None, {"location": s.asgi(apps.fixed(200, USERS_ME))})), 302),
    "truncated body": (lambda s: s.raw(raw.truncated), BROKEN),
    "connection reset": (lambda s: s.raw(raw.reset), BROKEN),
    "closed without a word": (lambda s: s.raw(raw.silent_close), BROKEN),
    "not HTTP": (lambda s: s.raw(raw.not_http), BROKEN),
    "hangs": (lambda s: s.raw(raw.hang), TIMEOUT),
    "hangs after the headers": (lambda s: s.raw(raw.hang_after_headers), TIMEOUT),
    "body trickles": (lambda s: s.raw(raw.trickle), TIMEOUT),
    "oversized, declared": (lambda s: s.asgi(apps.oversized(4 * CAP, declared=True)),
                            TOO_LARGE),
    "oversized, chunked": (lambda s: s.asgi(apps.oversized(4 * CAP, declared=False)),
                           TOO_LARGE),
}


# --- the client, one request at a time --------------------------------------------------------

@pytest.mark.parametrize("name", MISBEHAVIOURS)
def test_client_turns_misbehaviour_into_evidence(servers, name):
    """Each misbehaviour is either a status the test sees (3xx never followed) or an
    ExchangeError (a test failure) with the request, the error and a curl line with ***,
    within the request timeout."""
    start, expected = MISBEHAVIOURS[name]
    http = make_client(start(servers))
    started = time.monotonic()
    if isinstance(expected, int):
        exchange = http.request("GET", "/users/me")
        assert exchange.status == expected
        text = exchange.evidence()
    else:
        with pytest.raises(ExchangeError) as raised:
            http.request("GET", "/users/me")
        assert isinstance(raised.value, AssertionError)  # a failing test, not an error
        assert http.log[-1].failure == expected
        assert raised.value.exchanges == [http.log[-1].as_dict()]  # the evidence, as data
        text = f"{raised.value}\n{evidence_text(raised.value.exchanges)}"
    assert time.monotonic() - started < TIMEOUT_S + 1.5
    assert "request: GET http://127.0.0.1:" in text
    assert "reproduce: curl -sS -X GET" in text and "'x-api-key: ***'" in text.lower()
    assert KEY not in text
    assert preflight.reachable(http) is None  # it answers, however badly: not "unreachable"
    http.close()


def test_redirect_is_not_followed(servers):
    """A 3xx is the status the test sees; its Location is never requested."""
    elsewhere = apps.Recorder(apps.fixed(200, USERS_ME))
    url = servers.asgi(apps.fixed(307, "", None, {"location": servers.asgi(elsewhere)}))
    assert make_client(url).request("GET", "/users/me").status == 307
    assert elsewhere.hits == []


def test_body_that_is_not_json_fails_the_test_with_evidence(servers):
    """Non-JSON and JSON nested past any parser's depth fail as assertions, with evidence."""
    for app in (apps.fixed(200, "<html>", "text/html"), apps.nested(20_000)):
        exchange = make_client(servers.asgi(app)).request("GET", "/users/me")
        with pytest.raises(AssertionError, match="response body is not JSON") as raised:
            exchange.json()
        assert raised.value.exchanges == [exchange.as_dict()]


def test_truncated_body_evidence_shows_what_arrived(servers):
    """A body cut short shows the status, the bytes that came and how it broke."""
    with pytest.raises(ExchangeError) as raised:
        make_client(servers.raw(raw.truncated)).request("PATCH", "/x", json={"name": KEY})
    text = f"{raised.value}\n{evidence_text(raised.value.exchanges)}"
    assert "response: 200 (application/json, 13 bytes" in text
    assert "received 13 bytes, expected 100" in text
    assert '--data-raw \'{"name": "***"}\'' in text and KEY not in text


def test_unreachable_is_only_a_refused_connection(servers):
    """reachable() names why a closed port cannot be reached; a hanging server is reachable."""
    assert "ConnectError" in preflight.reachable(make_client(servers.closed_port()))
    assert preflight.reachable(make_client(servers.raw(raw.hang))) is None


# --- 429 and the rate cap ------------------------------------------------------------------------

def test_429_twice_then_200_is_retried_after_retry_after(servers):
    """Two 429s with Retry-After 0.2 s, then 200: the client waits, retries and answers 200."""
    recorder = apps.Recorder(apps.Throttled(apps.fixed(200, USERS_ME), times=2,
                                            retry_after="0.2"))
    http = make_client(servers.asgi(recorder))
    exchange = http.request("GET", "/users/me")
    assert (exchange.status, exchange.attempt) == (200, 3)
    assert [e.status for e in http.log] == [429, 429, 200]
    gaps = [b.at - a.at for a, b in zip(recorder.hits, recorder.hits[1:], strict=False)]
    assert all(gap >= 0.18 for gap in gaps), gaps


def test_429_forever_is_retried_a_bounded_number_of_times(servers):
    """A server that always answers 429: MAX_RETRIES retries, then the 429 is what the test
    sees, and the evidence says it was retried."""
    throttled = apps.Throttled(apps.fixed(200, USERS_ME), times=None, retry_after="0")
    http = make_client(servers.asgi(throttled))
    exchange = http.request("GET", "/users/me")
    assert exchange.status == 429
    assert throttled.count == client.MAX_RETRIES + 1
    assert f"retry {client.MAX_RETRIES} of {client.MAX_RETRIES} after 429" in exchange.evidence()


def test_reproduction_scripts_honour_429_as_the_client_does(servers):
    """The request of the reproduction scripts and of `boardcert cleanup` (the standard
    library's, outside the client) waits out a 429 and sends again as often as the client,
    reading Retry-After alike; a 429 is the answer only when the retries are spent."""
    from boardcert.reproduce import answers

    def send(app):
        return answers.request(servers.asgi(app), "GET", "/users/me", {}, None, TIMEOUT_S, CAP)

    twice = apps.Throttled(apps.fixed(200, USERS_ME), times=2, retry_after="0.1")
    assert (send(twice).status, twice.count) == (200, 3)
    forever = apps.Throttled(apps.fixed(200, USERS_ME), times=None, retry_after="0")
    assert (send(forever).status, forever.count) == (429, client.MAX_RETRIES + 1)
    for value in ("2", "-5", "86400", "soon", None, "nan"):
        assert answers.retry_after(value) == retry_after(value), value


def test_retry_after_is_read_and_bounded():
    """Retry-After in seconds or as an HTTP date, never negative, never above the bound."""
    assert retry_after("2") == 2.0
    assert retry_after("-5") == 0.0
    assert retry_after("86400") == client.MAX_RETRY_WAIT
    assert 1.0 < retry_after(formatdate(time.time() + 3, usegmt=True)) <= 3.0
    assert retry_after("soon") == retry_after(None) == 1.0


def test_rate_limit_spaces_requests(servers):
    """--rate-limit 20: 8 requests are 50 ms apart, never bunched."""
    recorder = apps.Recorder(apps.fixed(200, USERS_ME))
    http = make_client(servers.asgi(recorder), rate_limit=20)
    for _ in range(8):
        http.request("GET", "/users/me")
    # the first arrival also waits for the connection to open, so time from the second:
    # 7 paced requests take 6 intervals
    times = [hit.at for hit in recorder.hits]
    assert times[-1] - times[1] >= 6 * 0.05 - 0.01
    assert recorder.busiest(0.25) <= 5 + 1  # 20/s is 5 per 0.25 s (one more: jitter)


def test_read_only_client_sends_nothing_but_reads(servers):
    """Under --read-only any request but GET/HEAD/OPTIONS is refused before it is sent, and
    the test is not assessed."""
    from boardcert.settings.config import NotAssessed

    recorder = apps.Recorder(apps.fixed(200, USERS_ME))
    http = make_client(servers.asgi(recorder), read_only=True)
    for method in ("POST", "PATCH", "PUT", "DELETE"):
        with pytest.raises(NotAssessed, match=f"--read-only .*{method} /projects/1"):
            http.request(method, "/projects/1", json={})
    assert http.request("GET", "/users/me").status == 200
    assert [hit.method for hit in recorder.hits] == ["GET"]


# --- whole runs: the suites against hostile servers --------------------------------------------

def run_suites(pytester: pytest.Pytester, base_url: str, *args: str) -> pytest.RunResult:
    """pytest on the suites, in this process, against base_url."""
    return pytester.runpytest_inprocess(
        "-p", "boardcert.pytest.plugin", "-p", "no:cacheprovider", "--rootdir", str(ROOT),
        "--base-url", base_url, "--api-key", KEY, "--request-timeout", str(TIMEOUT_S),
        "--max-body", str(CAP), *args)


# One of each kind (the client tests above cover every misbehaviour), and 429 forever. Not
# "wrong content type": JSON labelled text/plain is JSON, which is what the users suite checks
# (the label is JSON-MEDIA-TYPE's, a SHOULD judged by test_general).
RUNS = {name: MISBEHAVIOURS[name] for name in (
    "not JSON", "5xx", "redirect", "truncated body", "connection reset", "hangs",
    "oversized, chunked")}
RUNS["429 forever"] = (lambda s: s.asgi(apps.Throttled(apps.fixed(200, USERS_ME), None)),
                       f"retry {client.MAX_RETRIES} of {client.MAX_RETRIES} after 429")
SEEN = {BROKEN: "request failed: ", TIMEOUT: "s timeout", TOO_LARGE: "byte cap"}


@pytest.mark.parametrize("name", RUNS)
def test_run_against_misbehaving_server_fails_with_evidence(pytester, servers, name, tmp_path):
    """The users suite against a misbehaving server (past the preflight, which would stop
    most of them): it completes, writes its report, and every test fails (none errors) with
    its exchanges and a curl line showing ***."""
    start, expected = RUNS[name]
    report = tmp_path / "report"
    result = run_suites(pytester, start(servers), USERS, f"--report-dir={report}", "-rf",
                        "--no-preflight")
    output = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in output
    # Nothing answers in time: after 3 in a row (discovery's GET /users/me among them) the
    # target is gone and the run stops after the first test.
    result.assert_outcomes(failed=1 if expected == TIMEOUT else 2)
    written = json.loads((report / "compliance.json").read_text())
    assert {t["outcome"] for t in written["tests"]} == {"failed"}
    assert all(t["evidence"][-1]["curl"].startswith("curl -sS -X GET") for t in written["tests"])
    assert KEY not in output
    if expected == TIMEOUT:
        assert result.ret == 3 and "stopped answering during the run" in output
        assert str(SEEN[expected]) in json.dumps(written["tests"])  # pytest shows no failures
        return
    assert output.count("boardcert: evidence") == 2
    assert "reproduce: curl -sS -X GET" in output and "'x-api-key: ***'" in output.lower()
    assert str(SEEN.get(expected, expected)) in output
    assert KEY not in (report / "compliance.json").read_text()


def test_unreachable_target_stops_the_run_with_exit_3(pytester, servers):
    """Nothing listening: exit 3 within seconds, one message, no wall of failures."""
    url = servers.closed_port()
    started = time.monotonic()
    result = run_suites(pytester, url, USERS, str(SUITES / "test_cards.py"))
    assert result.ret == 3
    assert time.monotonic() - started < 10
    output = result.stdout.str() + result.stderr.str()
    assert output.count(f"target {url} cannot be reached: ConnectError") == 1
    assert "FAILED" not in output and "ERROR " not in output


def test_unreachable_target_under_xdist_exits_3_once(pytester, servers):
    """The same under -n 2: each worker finds it unreachable; the run says so once, exit 3."""
    url = servers.closed_port()
    result = run_suites(pytester, url, USERS, str(SUITES / "test_cards.py"), "-n", "2")
    assert result.ret == 3
    output = result.stdout.str() + result.stderr.str()
    assert f"target {url} cannot be reached" in output
    assert "FAILED" not in output and output.count("cannot be reached") <= 2


def test_unreachable_target_through_boardcert_run(servers, capsys, tmp_path):
    """`boardcert run` against nothing: exit 3, one clear error line, no report written."""
    url = servers.closed_port()
    code = cli.main(["run", "--base-url", url, "--api-key", KEY, "--request-timeout", "0.5",
                     "--output", str(tmp_path / "out")])
    captured = capsys.readouterr()
    assert code == 3
    lines = [line for line in captured.err.splitlines() if line.strip()]
    assert lines == [f"boardcert: error: the target {url} cannot be reached: "
                     f"ConnectError: [Errno 111] Connection refused"]
    assert not Path(tmp_path / "out").exists()


def test_rate_limit_holds_for_a_whole_run(pytester, servers):
    """--rate-limit 10 through the plugin: the server sees requests 0.1 s apart."""
    recorder = apps.Recorder(apps.fixed(200, USERS_ME))
    result = run_suites(pytester, servers.asgi(recorder), USERS, "--rate-limit", "10",
                        "--no-preflight")
    result.assert_outcomes(passed=2)
    times = [hit.at for hit in recorder.hits]
    assert len(times) >= 3  # the reachability probe, discovery's probes, one request per test
    # Paced 0.1 s apart as sent; each arrives a little late (the first opens the connection).
    assert times[-1] - times[0] >= 0.085 * (len(times) - 1)


def test_target_lost_during_the_run_stops_it_with_exit_3(pytester, servers):
    """The server goes away mid-run: the run stops after the test that found it, with exit 3
    and one message, instead of failing every test that follows."""
    from boardcert.reference.app import create_app

    dying = apps.Dying(create_app(KEY), after=40, die=lambda: servers.stop(url))
    url = servers.asgi(dying)
    result = run_suites(pytester, url, str(SUITES / "test_cards.py"))
    assert result.ret == 3
    output = result.stdout.str() + result.stderr.str()
    assert output.count(f"target {url} stopped answering during the run: ConnectError") == 1
    assert result.parseoutcomes().get("failed", 0) <= 2
