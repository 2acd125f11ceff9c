"""boardcert.pytest.quiet: under pytest-xdist a test can have the server to itself for a moment
(op 2 and the op 1 that shows what it made): the other workers' requests in flight are answered
first, their next ones wait until it is done, and its own pass."""

from __future__ import annotations

import multiprocessing
import threading
from pathlib import Path
from typing import Any

import pytest

from boardcert.pytest import quiet

pytestmark = pytest.mark.skipif(quiet.fcntl is None, reason="no flock on this system")


def _worker(directory: str, name: str, marks: str, trying: Any, requests: int = 20) -> None:
    """A worker sending `requests` requests through its gate, each noted as it passes."""
    gate = quiet.Quiet(Path(directory))
    trying.set()
    for n in range(requests):
        with gate.request(), open(marks, "a") as out:
            out.write(f"{name} {n}\n")


def test_a_worker_alone_holds_the_others_back(tmp_path: Path):
    """While one worker is alone, another's requests wait: none passes inside the block, all
    pass after it."""
    marks = tmp_path / "marks"
    alone = quiet.Quiet(tmp_path)
    context = multiprocessing.get_context("spawn")
    trying = context.Event()
    with alone.alone():
        other = context.Process(target=_worker, args=(str(tmp_path), "other", str(marks), trying))
        other.start()
        assert trying.wait(60)
        other.join(0.3)  # time to get through, were it not held back
        with alone.request():  # its own pass
            marks.open("a").write("alone done\n")
    other.join(60)
    lines = marks.read_text().splitlines()
    assert lines[0] == "alone done"
    assert lines[1:] == [f"other {n}" for n in range(20)]


def test_alone_waits_for_the_requests_in_flight(tmp_path: Path):
    """A request another worker has in flight is answered before the block starts."""
    other, order = quiet.Quiet(tmp_path), []
    in_flight, answered = threading.Event(), threading.Event()

    def send() -> None:
        with other.request():
            in_flight.set()
            answered.wait(0.5)  # the block, if it did not wait, would start meanwhile
            order.append("request answered")

    sender = threading.Thread(target=send)
    sender.start()
    in_flight.wait(10)
    with quiet.Quiet(tmp_path).alone():
        order.append("alone")
    sender.join()
    assert order == ["request answered", "alone"]


def test_one_process_has_no_gate(pytestconfig: pytest.Config):
    """Outside a pytest-xdist worker there is nothing to hold back: no gate, and alone does
    nothing."""
    assert quiet.gate(pytestconfig) is None or hasattr(pytestconfig, "workerinput")
    with quiet.alone(pytestconfig):
        pass
