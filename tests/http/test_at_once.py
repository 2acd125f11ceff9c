"""boardcert.http.at_once: requests sent at the same moment, each through the client (issue 24,
CONCURRENT-CREATIONS-KEPT): they meet in flight at the server, each answer in its place, a
request without an answer is its ExchangeError, a bug in boardcert is raised."""

from __future__ import annotations

from functools import partial

import pytest
from samples import LATE_KEY, late_client

from boardcert.errors import ExchangeError
from boardcert.http.at_once import at_once


def test_requests_meet_in_flight_and_answer_in_order():
    """Four requests each 0.2 s late are all in flight at once; their exchanges come back in
    the order they were given, each in the client's log with the key masked."""
    client, most = late_client(0.2)
    answers = at_once([partial(client.request, "GET", f"/{n}") for n in range(4)])
    assert most[0] == 4
    assert [a.json()["path"] for a in answers] == ["/0", "/1", "/2", "/3"]
    assert len(client.log) == 4
    assert all(LATE_KEY not in str(e.request_headers) for e in client.log)


def test_a_request_without_an_answer_is_its_error():
    """A request that gets no answer takes its ExchangeError's place; the others answer."""
    client, _ = late_client(0.05)
    answers = at_once([partial(client.request, "GET", "/broken"),
                       partial(client.request, "GET", "/fine")])
    assert isinstance(answers[0], ExchangeError)
    assert answers[1].status == 200


def test_a_bug_is_raised_after_every_request_ends():
    """An exception other than a request's own error is boardcert's: raised to the caller."""
    client, _ = late_client(0.05)

    def broken() -> None:
        raise KeyError("a bug")

    with pytest.raises(KeyError):
        at_once([broken, partial(client.request, "GET", "/fine")])
