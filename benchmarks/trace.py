"""A pytest plugin for benchmarks: where a run's time and requests go, per test and phase.

    pytest -p benchmarks.trace ...   (BOARDCERT_TRACE=FILE: one JSON line per test phase;
                                      BOARDCERT_TRACE_REQUESTS=FILE: one per request,
                                      in FILE.<worker>)

Counts the HTTP requests each test's set-up, call and teardown sent (httpx: boardcert's client;
requests: schemathesis and its checks) and their wall time, with the worker that ran it.
`benchmarks/parallel.py --trace` reads the lines back and sums them up. With
BOARDCERT_TRACE_REQUESTS each request is a line of its own (worker, test, phase, method,
path, when it left and when its answer was in): `benchmarks/critical_path.py` finds the
round trips each worker made one after another.
"""

from __future__ import annotations

import json
import os
import resource
import time
from typing import Any

import httpx
import pytest
import requests

COUNT = {"requests": 0, "waited": 0.0}
CURRENT = {"test": "", "when": ""}  # the test phase running in this process
REQUESTS: list[str] = []  # BOARDCERT_TRACE_REQUESTS's lines, written at the session's end


def _counted(send: Any) -> Any:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started, left = time.perf_counter(), time.time()
        try:
            return send(*args, **kwargs)
        finally:
            COUNT["requests"] += 1
            COUNT["waited"] += time.perf_counter() - started
            if os.environ.get("BOARDCERT_TRACE_REQUESTS"):
                request = args[1] if len(args) > 1 else kwargs.get("request")
                REQUESTS.append(json.dumps({
                    "worker": os.environ.get("PYTEST_XDIST_WORKER", "main"), **CURRENT,
                    "method": getattr(request, "method", "?"),
                    "path": str(getattr(getattr(request, "url", None), "path", "?")),
                    "start": left, "end": left + time.perf_counter() - started}))
    return wrapper


httpx.HTTPTransport.handle_request = _counted(  # type: ignore[method-assign]
    httpx.HTTPTransport.handle_request)  # where boardcert.http.client sends (not Client.send)
try:  # the speed plugin's transport of http:// targets (boardcert.speed.lean_http)
    from boardcert.speed.lean_http import LeanTransport
except ImportError:
    pass
else:
    LeanTransport.handle_request = _counted(  # type: ignore[method-assign]
        LeanTransport.handle_request)
requests.Session.send = _counted(requests.Session.send)  # type: ignore[method-assign]


def _write(record: dict[str, Any]) -> None:
    path = os.environ.get("BOARDCERT_TRACE")
    if path:
        with open(path, "a") as out:
            out.write(json.dumps(record) + "\n")


def _timed(when: str) -> Any:
    """A hook wrapper that writes what the test's `when` phase sent and took."""
    @pytest.hookimpl(wrapper=True)
    def hook(item: pytest.Item) -> Any:
        before = dict(COUNT)
        started, cpu = time.perf_counter(), _cpu()
        CURRENT.update(test=item.nodeid, when=when)
        try:
            return (yield)
        finally:
            CURRENT.update(test="", when="")
            _write({"test": item.nodeid, "when": when,
                    "worker": os.environ.get("PYTEST_XDIST_WORKER", "main"),
                    "start": time.time() - (time.perf_counter() - started),
                    "seconds": time.perf_counter() - started,
                    "requests": COUNT["requests"] - before["requests"],
                    "waited": COUNT["waited"] - before["waited"], "cpu": _cpu() - cpu})
    return hook


pytest_runtest_setup = _timed("setup")
pytest_runtest_call = _timed("call")
pytest_runtest_teardown = _timed("teardown")


def pytest_sessionstart(session: pytest.Session) -> None:
    _write({"test": "", "when": "sessionstart",
            "worker": os.environ.get("PYTEST_XDIST_WORKER", "main"), "start": time.time(),
            "seconds": 0, "requests": 0, "waited": 0, "cpu": _cpu()})


def pytest_collection_finish(session: pytest.Session) -> None:
    _write({"test": "", "when": "collected",
            "worker": os.environ.get("PYTEST_XDIST_WORKER", "main"), "start": time.time(),
            "seconds": 0, "requests": 0, "waited": 0, "cpu": _cpu()})


LAST = {"report": 0.0}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    LAST["report"] = time.time()


@pytest.hookimpl(wrapper=True)
def pytest_sessionfinish(session: pytest.Session) -> Any:
    """When the last report came in, and how long the end of the session took (clean-up,
    the report files, on the controller: xdist's workers stopping)."""
    started = time.time()
    try:
        return (yield)
    finally:
        path = os.environ.get("BOARDCERT_TRACE_REQUESTS")
        if path and REQUESTS:  # a file per process: FILE.gw0, FILE.main, ...
            worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
            with open(f"{path}.{worker}", "a") as out:
                out.write("".join(line + "\n" for line in REQUESTS))
        _write({"test": "", "when": "sessionfinish",
                "worker": os.environ.get("PYTEST_XDIST_WORKER", "main"), "start": started,
                "seconds": time.time() - started, "requests": 0, "waited": 0,
                "last_report": LAST["report"], "cpu": _cpu()})


def _cpu() -> float:
    """This process's CPU (user and system) so far, its threads' included."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime
