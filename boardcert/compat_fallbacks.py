"""The internals of other libraries that only change how a run goes, never what it finds: each
checked once, and when it does not fit the installed version the run takes the plain way and
its run facts name it (`fallbacks`, in compliance.json's `run.fallbacks` and the console's
header). What the verdict depends on is boardcert.compat's, which stops the run instead; what
only makes a run faster, boardcert.speed's.

- allure-pytest's reporter of the running test (`allure_reporter`): boardcert's labels,
  parameters and steps on each result (boardcert.pytest.allure); else allure-pytest's results
  as they are.
- pytest's fixture request of a test (`fixture_request`): set-ups made at the first test
  (boardcert.pytest.early); else made when the test that judges them asks (it then waits up
  to a second).
- CPython's exit functions (`leave`): out without the interpreter's teardown (a quarter to
  half a second); else `sys.exit`.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Callable
from functools import cache
from inspect import signature
from typing import Any, NoReturn

from boardcert.compat import version_of


def fallbacks() -> dict[str, str]:
    """What the run does the plain way, because an internal does not fit: what -> why (the
    library and its version). In the run facts of every report (boardcert.settings.run_facts)."""
    found = {}
    for what, library, misfit in _SOFT:
        why = _why(misfit)
        if why:
            found[what] = f"{version_of(library)}: {why}"
    return found


@cache
def _why(misfit: Callable[[], str | None]) -> str | None:
    try:
        return misfit()
    except Exception as exc:  # noqa: BLE001 - whatever changed, the plain way is taken
        return f"{type(exc).__name__}: {exc}"


def _allure_misfit() -> str | None:
    from allure_commons import model2, types, utils
    from allure_commons.reporter import AllureReporter
    from allure_pytest.listener import AllureListener

    if "allure_logger" not in AllureListener.__init__.__code__.co_names:
        return "its listener keeps no allure_logger"
    for owner, names in ((model2, ("Label", "Parameter", "TestStepResult")),
                         (utils, ("represent", "now")), (types.AttachmentType, ("TEXT",)),
                         (AllureReporter, ("get_test", "start_step", "stop_step"))):
        missing = [name for name in names if not hasattr(owner, name)]
        if missing:
            return f"{owner.__name__} has no {', '.join(missing)}"
    if not {"name", "attachment_type", "parent_uuid"} <= set(
            signature(AllureReporter.attach_data).parameters):
        return "AllureReporter.attach_data takes other arguments"
    found: list[str | None] = []

    def keeps_its_test() -> None:  # the reporters of a thread share their items: not this one's
        try:
            reporter, test = AllureReporter(), model2.TestResult(uuid="check")
            reporter.schedule_test("check", test)
            step = model2.TestStepResult(name="step")
            reporter.start_step(None, "step", step)
            reporter.stop_step("step")
            kept = reporter.get_test(None) is test and test.steps == [step]
            reporter.drop_test("check")
            found.append(None if kept else "its reporter keeps the running test otherwise")
        except Exception as exc:  # noqa: BLE001 - whatever changed, the plain way is taken
            found.append(f"{type(exc).__name__}: {exc}")

    aside = threading.Thread(target=keeps_its_test, name="boardcert-allure-check")
    aside.start()
    aside.join()
    return found[0] if found else "its reporter could not be tried"


def allure_reporter(listener: Any) -> Any | None:
    """allure-pytest's reporter of the running test (its listener's `allure_logger`), where
    boardcert.pytest.allure puts labels, parameters and steps; None without allure, or when it
    does not fit (the results are allure-pytest's own)."""
    if listener is None or _why(_allure_misfit):
        return None
    return listener.allure_logger


def _request_misfit() -> str | None:
    from _pytest import python

    init = python.Function._initrequest
    if "_request" not in init.__code__.co_names:
        return "a test keeps its fixture request elsewhere than Function._request"
    return None


def fixture_request(item: Any) -> Any | None:
    """pytest's fixture request of a test (`item._request`), with which a hook sets up a
    fixture before the test that uses it asks; None when it does not fit."""
    return None if _why(_request_misfit) else getattr(item, "_request", None)


def _exit_misfit() -> str | None:
    import atexit

    return None if callable(getattr(atexit, "_run_exitfuncs", None)) \
        else "atexit._run_exitfuncs is gone"


def leave(code: int) -> NoReturn:
    """Out of the process: what the interpreter does at exit (atexit: logging, thread pools,
    ...), the streams flushed, then at once, without the interpreter's teardown (freeing every
    module and the heap: a quarter to half a second; all files are closed by then)."""
    if _why(_exit_misfit):
        sys.exit(code)
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe (`| head`)
            stream.flush()
    os._exit(code)


_SOFT = (("Allure labels, parameters and steps", "allure-pytest", _allure_misfit),
         ("set-ups made at the first test", "pytest", _request_misfit),
         ("exit without the interpreter's teardown", "python", _exit_misfit))
