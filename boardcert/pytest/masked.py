"""The key masked in every file a run wrote (pytest plugin module): once, at the very end, on
the xdist controller or the one process, after every writer (the compliance report, junit.xml
and its properties form, the Allure results of every worker), by the one Redactor of the run's
key (boardcert.http.redact.for_key), each file by its kind: compliance.json still validates.
Under `boardcert run`, the bundle and attestations are made from these files afterwards."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from boardcert.http.redact import for_key
from boardcert.outputs import report
from boardcert.pytest.stash import TARGET
from boardcert.settings import roles
from boardcert.settings.run import stash_key


@pytest.hookimpl(trylast=True)  # once the writers are configured
def pytest_configure(config: pytest.Config) -> None:
    config.stash[WRITTEN] = list(written(config))  # (pytest forgets junit.xml's at the end)


@pytest.hookimpl(trylast=True)  # after every plugin's own end
def pytest_unconfigure(config: pytest.Config) -> None:
    run = config.stash.get(stash_key(), None)
    if run is None or roles.is_worker(config):
        return
    target = config.stash.get(TARGET, None)  # once started: the bundled server's key too
    redactor = for_key(target.api_key if target is not None and target.api_key
                       else run.target.api_key)
    if not redactor:
        return
    schemas = {report.JSON_NAME: report.schema()}
    for path in config.stash.get(WRITTEN, []):
        if path.is_dir():
            redactor.tree(path, schemas)
        elif path.is_file():
            redactor.file(path, schemas.get(path.name))


WRITTEN = pytest.StashKey[list[Path]]()


def written(config: pytest.Config) -> Iterator[Path]:
    """Where the run writes: what each writer says (boardcert's own hook: the report
    directory, junit.xml and its properties form), and the Allure results."""
    for paths in config.hook.pytest_boardcert_files(config=config):
        yield from paths
    given = getattr(config.option, "allure_report_dir", None)
    if given:
        yield Path(given)
