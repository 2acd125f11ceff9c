"""Which part of a run this pytest process plays, in one place (pytest-xdist's convention: a
worker's config has `workerinput`): the controller of a run with workers, a worker, or the one
process of a run without. The controller and the one process report (the compliance report,
junit.xml, the console's summaries); workers run tests and hand their reports over."""

from __future__ import annotations

from typing import Any

__all__ = ["distributing", "is_worker", "reporting", "worker_input"]


def is_worker(config: Any) -> bool:
    """A pytest-xdist worker."""
    return hasattr(config, "workerinput")


def reporting(config: Any) -> bool:
    """The process that reports: the controller, or the one process of a run without
    workers."""
    return not is_worker(config)


def distributing(config: Any) -> bool:
    """The controller of a run with workers (-n N)."""
    return reporting(config) and bool(getattr(config.option, "numprocesses", None)) \
        and config.pluginmanager.hasplugin("xdist")


def worker_input(config: Any) -> dict[str, Any]:
    """What the controller gave this worker (nothing, elsewhere)."""
    return getattr(config, "workerinput", None) or {}
