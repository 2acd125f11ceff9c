"""The workers' zygote (boardcert.speed.forked) started as the speed plugin loads, half a
second before the controller configures (a part of the speed plugin).

pytest loads this plugin first, before it imports the run's other plugins (xdist, allure,
Hypothesis, schemathesis): the 0.5 s from `boardcert run`'s choice of workers to the
controller's configuration. Started as the controller configured, the zygote then needed
0.9 s of CPU to import its 1,016 modules, and no worker could start before (critical_path.py
at 30 ms: ready 1.16 s into the controller's session). Where `boardcert run` handed over a
run with workers (boardcert.pytest.handover: pytest's arguments), the zygote starts here and
imports what is imported so far and AHEAD at once, beside pytest's own start; the
controller's configuration (forked.start) sends it the rest of what the controller imported,
or, where the run's plugins are not those it was started for, stops it and starts another.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence

from boardcert.speed import forked

# What such a zygote imports at once, the bulk of what the controller will have imported.
AHEAD = ("pytest", "hypothesis", "schemathesis", "execnet", "allure_commons",
         *forked.COLLECTION_IMPORTS)
EARLY: list[forked.Zygote] = []  # started here, until forked.start takes it or `stop`


def start(args: Sequence[str]) -> None:
    """The zygote started for a run with pytest arguments `args`, where they ask for workers
    and they could be forked (else forked.start says why)."""
    args = list(args)
    if (forked.why_not_here() or any(a.startswith("--tx") for a in args)
            or not forked.autoload_off(args) or not with_workers(args)):
        return
    plugins = forked.plugins_of(args)
    names = forked.libraries(plugins) + [n for n in AHEAD if not forked.within(n, plugins)]
    with contextlib.suppress(OSError):
        EARLY.append(forked.Zygote(names, sorted(plugins), more=True))


def adopted(plugins: list[str], names: list[str]) -> forked.Zygote | None:
    """The zygote started here, sent the rest of `names`, where it was started for these
    plugins and lives; else None (it stopped)."""
    if not EARLY:
        return None
    zygote = EARLY.pop()
    if zygote.plugins == plugins and zygote.rest(names):
        return zygote
    zygote.stop()
    return None


def stop() -> None:
    """The zygote started here, stopped where forked.start did not take it (no workers after
    all, or they could not be forked)."""
    while EARLY:
        EARLY.pop().stop()


def with_workers(args: Sequence[str]) -> bool:
    """Whether pytest's arguments ask for more than one xdist worker (the last of -n N, -nN,
    --numprocesses N or =N; `auto` and `logical` count)."""
    value = None
    for n, arg in enumerate(args):
        if arg in ("-n", "--numprocesses") and n + 1 < len(args):
            value = args[n + 1]
        elif arg.startswith("--numprocesses="):
            value = arg.split("=", 1)[1]
        elif arg.startswith("-n") and not arg.startswith("--") and len(arg) > 2:
            value = arg[2:]
    return value is not None and (not value.isdigit() or int(value) > 1)
