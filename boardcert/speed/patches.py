"""Every internal of another library the speed plugin leans on, each checked against the
installed version as a run starts (`check_all`). A patch whose internal is gone or changed
stays off, and the run facts of every report say so ("speed: on; off: hypothesis lambda
descriptions (hypothesis 6.171: ...)"): the run is slower, never different. What the verdict
depends on is boardcert.compat's, which stops the run instead.

Each check returns None when the patch fits (and, for those made at once, took effect), else
why not. The patches made at once are made here; the others by the module that uses them, only
when their check passed (boardcert.speed.pytest_configure tells them).
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from boardcert.settings import roles

UNKNOWN_LAMBDA = "lambda: <unknown>"


@dataclass(frozen=True)
class Patch:
    name: str  # as the run facts say it
    library: str  # its distribution, whose version the facts give when it is off
    check: Callable[[], str | None]
    used: Callable[[Any], bool] | None = None  # whether a run (its pytest config) uses it


def _distributes(config: Any) -> bool:
    """The pytest-xdist controller of a run with workers (a serial run never imports xdist's
    schedulers: 15 ms)."""
    return bool(getattr(config.option, "numprocesses", None)) \
        and roles.reporting(config)


def _names(function: Any, *wanted: str) -> str | None:
    """None if the function's code reads every name in `wanted` (how it reaches what a patch
    replaces), else which it does not."""
    code = getattr(function, "__code__", None)
    missing = [name for name in wanted if code is None or name not in code.co_names]
    qualified = getattr(function, "__qualname__", function)
    return f"{qualified} no longer uses {', '.join(missing)}" if missing else None


def _attributes(owner: Any, *wanted: str) -> str | None:
    missing = [name for name in wanted if not hasattr(owner, name)]
    return f"{getattr(owner, '__qualname__', owner)} has no {', '.join(missing)}" \
        if missing else None


def _first(*found: str | None) -> str | None:
    return next((why for why in found if why), None)


# --- hypothesis: how long a failure is shrunk -----------------------------------------------

SHRINKING_SECONDS = 20  # Hypothesis's own: 300


def shrinking_time() -> str | None:
    """Hypothesis shrinks a failure for up to five minutes; against a server every attempt is
    requests (the board model's state machine replays a sequence of writes, each followed by
    a reading of the whole board: minutes against a faulty server). Twenty seconds: the
    failure and its verdict are the same, its sequence sometimes a step or two longer."""
    from hypothesis.internal.conjecture import engine

    if not isinstance(getattr(engine, "MAX_SHRINKING_SECONDS", None), int):
        return "engine.MAX_SHRINKING_SECONDS is not a number of seconds"
    why = _names(engine.ConjectureRunner.shrink_interesting_test_cases, "MAX_SHRINKING_SECONDS") \
        if hasattr(engine, "ConjectureRunner") else "engine.ConjectureRunner is gone"
    if why:
        return why
    engine.MAX_SHRINKING_SECONDS = min(engine.MAX_SHRINKING_SECONDS, SHRINKING_SECONDS)
    return None


# --- pytest: the `request` fixture's argument names ---------------------------------------

def request_argnames() -> str | None:
    """pytest's getfuncargnames answers () for RequestFixtureDef's own lambda without reading
    its signature (some ten times a test: 2% of a quick run's instructions)."""
    from _pytest import fixtures

    init = getattr(getattr(fixtures, "RequestFixtureDef", None), "__init__", None)
    lambdas = [c for c in getattr(getattr(init, "__code__", None), "co_consts", ())
               if getattr(c, "co_name", None) == "<lambda>" and c.co_argcount == 0]
    if len(lambdas) != 1:
        return "RequestFixtureDef's argument-less lambda is not found"
    why = _first(_attributes(fixtures, "getfuncargnames"),
                 _names(getattr(fixtures, "FixtureDef", None).__init__, "getfuncargnames"))
    if why:
        return why
    code, original = lambdas[0], fixtures.getfuncargnames
    if getattr(original, "__wrapped__", None) is not None:
        return None  # made already (another session of this process)

    @functools.wraps(original)
    def getfuncargnames(function: Any, *args: Any, **kwargs: Any) -> tuple[str, ...]:
        if getattr(function, "__code__", None) is code:
            return ()
        return original(function, *args, **kwargs)

    fixtures.getfuncargnames = getfuncargnames
    return None


# --- Hypothesis: descriptions of lambdas --------------------------------------------------

def lambda_descriptions() -> str | None:
    """Hypothesis describes a lambda (in the text of a strategy, computed for its notes and
    statistics whether shown or not) without parsing the module it is in: 1.6% of a quick
    run's instructions. Its filter rewriting, which changes what is drawn, reads lambdas
    through its own reference to the function: it must keep it, unchanged."""
    try:
        from hypothesis.internal import filtering, lambda_sources, reflection
    except ImportError as exc:
        return f"{exc}"
    current = getattr(lambda_sources, "lambda_description", None)
    own = getattr(filtering, "lambda_description", None)
    if current is None:
        return "lambda_sources.lambda_description is gone"
    if own is None or own is _unknown_lambda or (current is not _unknown_lambda
                                                  and own is not current):
        return "its filter rewriting no longer keeps its own lambda_description"
    lambda_sources.lambda_description = _unknown_lambda
    shown = reflection.get_pretty_function_description(lambda: None)
    if shown != UNKNOWN_LAMBDA:
        lambda_sources.lambda_description = own
        return f"a description still reads {shown!r}"
    return None


def _unknown_lambda(function: Any) -> str:
    return UNKNOWN_LAMBDA


# --- httpx ---------------------------------------------------------------------------------

def direct_transport() -> str | None:
    """boardcert.http.client hands each request to the transport httpx.Client.send would use
    (`Client._transport_for_url`), without send's auth, redirect, cookie and event-hook
    machinery (a fifth of a request's CPU, none of it used)."""
    import httpx

    why = _first(_attributes(httpx.Client, "_transport_for_url", "_send_single_request"),
                 _names(getattr(httpx.Client, "_send_single_request", None),
                        "_transport_for_url"))
    if why:
        return why
    given = httpx.MockTransport(lambda request: httpx.Response(204))
    with httpx.Client(transport=given) as client:
        found = client._transport_for_url(httpx.URL("http://127.0.0.1/"))
    return None if found is given else "_transport_for_url gives another transport than send's"


def send_direct(client: Any, request: Any) -> Any:
    """What boardcert.http.client sends through once `direct_transport` checked: the transport."""
    return client._transport_for_url(request.url).handle_request(request)


def lean_transport() -> str | None:
    """boardcert.speed.lean_http stands in for httpx's transport on http:// targets: what it
    uses of httpx (a transport, a byte stream, the Response built from them) and of http.client
    (a response read in chunks, its headers, whether it closes) is public; checked here all
    the same, and the one behaviour of http.client it leans on is tried: a response's begin()
    called again (headers cleared) reads the next head, which is how an informational answer
    (103) is passed over to the final one."""
    import http.client
    import io

    import httpx

    why = _first(_attributes(httpx, "BaseTransport", "SyncByteStream", "HTTPTransport"),
                 _attributes(http.client.HTTPResponse, "read1", "getheaders", "isclosed",
                             "begin"),
                 _attributes(http.client.HTTPConnection, "putrequest", "putheader",
                             "endheaders", "getresponse", "response_class"))
    if why:
        return why
    from boardcert.speed.lean_http import _Final

    answer = b"HTTP/1.1 103 Early Hints\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"
    sock = type("Answered", (), {"makefile": lambda self, mode: io.BytesIO(answer)})()
    response = _Final(sock)  # type: ignore[arg-type]
    try:
        response.begin()
    except http.client.HTTPException as exc:
        return f"an informational answer is not passed over ({exc})"
    if (response.status, response.read()) != (200, b"{}"):
        return f"after a 103, http.client read status {response.status}, not 200"
    return None


def httpx_command_line() -> str | None:
    """httpx imports its command-line client (click, rich, pygments: 1% of a quick run) unless
    that import fails: boardcert.__init__ makes it fail (sys.modules entry None)."""
    import httpx

    if sys.modules.get("httpx._main", ...) is not None or \
            getattr(httpx.main, "__module__", None) != "httpx":
        return "httpx imported its command-line client (httpx._main) all the same"
    return None


# --- allure-pytest ---------------------------------------------------------------------------

def allure_writer() -> str | None:
    """boardcert.speed.overhead.AllureWriter writes allure-pytest's result files in a process of
    its own, in place of AllureFileLogger._report_item: the same file names and the same JSON
    (checked here on a result with steps, labels and parameters)."""
    try:
        import attr
        from allure_commons.logger import AllureFileLogger
        from allure_commons.model2 import (
            Label,
            Parameter,
            TestResult,
            TestResultContainer,
            TestStepResult,
        )
    except ImportError as exc:
        return f"{exc}"
    why = _first(_names(AllureFileLogger.report_result, "_report_item"),
                 _names(AllureFileLogger.report_container, "_report_item"),
                 _names(AllureFileLogger.__init__, "_report_dir"),
                 _attributes(TestResult, "file_pattern"),
                 _attributes(TestResultContainer, "file_pattern"))
    if why:
        return why
    from boardcert.speed.allure_writer import _attributes as shown

    sample = TestResult(uuid="u", name="n", status="passed", start=1, stop=2,
                        labels=[Label("tag", "MUST")], parameters=[Parameter("op", "16")],
                        steps=[TestStepResult(name="GET /x -> 200", status="passed", steps=[])])
    theirs = json.dumps(attr.asdict(sample, filter=lambda _, v: v or v is False))
    ours = json.dumps(sample, default=shown)
    return None if ours == theirs else "its results' JSON is no longer what the writer makes"


def allure_listener() -> str | None:
    """boardcert.speed.allure_listener.LeanListener stands in for allure-pytest's listener
    (the class allure_pytest.plugin makes), reading pytest's and allure's bookkeeping."""
    try:
        import allure_pytest.plugin
        from _pytest import fixtures, python
        from allure_commons.reporter import AllureReporter
        from allure_pytest import compat, listener
    except ImportError as exc:
        return f"{exc}"
    return _first(
        _names(allure_pytest.plugin.pytest_configure, "AllureListener"),
        None if allure_pytest.plugin.AllureListener is listener.AllureListener
        else "allure_pytest.plugin.AllureListener is not its listener class",
        _attributes(listener.AllureListener, "_update_fixtures_children",
                    "pytest_fixture_setup", "pytest_runtest_setup", "pytest_runtest_call"),
        _names(listener.AllureListener.pytest_runtest_setup, "_update_fixtures_children"),
        _names(listener.AllureListener.__init__, "_cache", "allure_logger"),
        _attributes(listener.ItemCache(), "_items", "push", "get", "pop"),
        _attributes(compat, "getfixturedefs"),
        _names(AllureReporter.__init__, "_items"),
        _attributes(AllureReporter()._items, "thread_context"),
        _names(python.Function.__init__, "_fixtureinfo", "_initrequest"),
        _names(python.Function._initrequest, "_request"),
        _names(fixtures.FixtureRequest.__init__, "_fixture_defs"),
        _names(fixtures.pytest_sessionstart, "_fixturemanager"),
        _names(fixtures.FixtureDef.__init__, "_finalizers"))


# --- pytest-xdist ----------------------------------------------------------------------------

def xdist_scheduling() -> str | None:
    """boardcert.speed.scheduler.Longest: xdist's scheduling by scope with boardcert's units and
    order, overriding and reading its bookkeeping."""
    try:
        from xdist.scheduler.loadscope import LoadScopeScheduling
    except ImportError as exc:
        return f"{exc}"
    return _first(
        _attributes(LoadScopeScheduling, "_assign_work_unit", "_reschedule", "_split_scope",
                    "_pending_of", "schedule", "collection_is_completed", "nodes"),
        _names(LoadScopeScheduling.__init__, "workqueue", "assigned_work",
               "registered_collections", "collection", "numnodes", "config"),
        _names(LoadScopeScheduling.schedule, "_assign_work_unit", "_split_scope"),
        _names(LoadScopeScheduling.mark_test_complete, "_reschedule"))


# --- the property tests side by side -----------------------------------------------------------

def side_by_side() -> str | None:
    """boardcert.speed.side_by_side calls a property test's function itself, in threads: it
    reads the item's request and fixture names, mutes Hypothesis's output as schemathesis
    does, and while the tests run side by side replaces `ast.parse` (for the whole process:
    every thread's parse waits for the one before) with one that parses one at a time, so that
    Hypothesis, which parses the source of the lambdas it describes, does not meet CPython
    3.11's parser in two threads at once (#106905). Checked: Hypothesis looks `parse` up on
    the ast module when it parses, as the replacement needs."""
    try:
        from _pytest import python
        from schemathesis.generation.hypothesis.reporting import ignore_hypothesis_output
    except ImportError as exc:
        return f"{exc}"
    return _first(None if callable(ignore_hypothesis_output)
                  else "ignore_hypothesis_output is not a function",
                  _names(python.Function.__init__, "_fixtureinfo", "_initrequest"),
                  _names(python.Function._initrequest, "_request"),
                  _parses_through_ast())


def _parses_through_ast() -> str | None:
    import ast
    import importlib

    through = []
    for name in ("lambda_sources", "reflection", "filtering"):
        try:
            module = importlib.import_module(f"hypothesis.internal.{name}")
        except ImportError:
            continue
        if getattr(module, "parse", None) is not None:
            return f"hypothesis.internal.{name} holds a parse of its own"
        if getattr(module, "ast", None) is ast:
            through.append(name)
    return None if through else "Hypothesis does not parse lambdas through the ast module"


PATCHES = (
    Patch("pytest request argnames", "pytest", request_argnames),
    Patch("hypothesis shrinking time", "hypothesis", shrinking_time),
    Patch("hypothesis lambda descriptions", "hypothesis", lambda_descriptions),
    Patch("httpx direct transport", "httpx", direct_transport),
    Patch("lean http transport", "httpx", lean_transport),
    Patch("httpx command-line client left out", "httpx", httpx_command_line),
    Patch("allure writer", "allure-python-commons", allure_writer),
    Patch("allure listener", "allure-pytest", allure_listener),
    Patch("xdist scheduling", "pytest-xdist", xdist_scheduling, _distributes),
    Patch("property tests side by side", "schemathesis", side_by_side),
)


def check_all(patches: tuple[Patch, ...] = PATCHES, config: Any = None) -> dict[str, str]:
    """Each patch's check (the ones made at once made), but those this run (`config`) does
    not use: name -> why it is off, for those off. A check that raises is a patch off too,
    never a stopped run."""
    off: dict[str, str] = {}
    for patch in patches:
        if config is not None and patch.used is not None and not patch.used(config):
            continue
        try:
            why = patch.check()
        except Exception as exc:  # noqa: BLE001 - whatever changed, the patch stays off
            why = f"{type(exc).__name__}: {exc}"
        if why:
            off[patch.name] = f"{_version(patch.library)}: {why}"
    return off


def _version(name: str) -> str:
    try:
        return f"{name} {version(name)}"
    except PackageNotFoundError:
        return f"{name} not installed"
