"""Fixtures of the tests against hostile servers, as a pytest plugin: a test module names it in
`pytest_plugins` and asks for `no_target_from_the_environment` with
`pytestmark = pytest.mark.usefixtures(...)` (an autouse fixture here would reach every test
of the session)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from boardcert.settings.config import ENV
from hostile.servers import Servers


@pytest.fixture
def servers() -> Iterator[Servers]:
    """Hostile servers started by the test, stopped at its end."""
    with Servers() as running:
        yield running


@pytest.fixture
def no_target_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No BOARDCERT_* variable of the machine's reaches the runs the test starts."""
    for name in ENV.values():
        monkeypatch.delenv(name, raising=False)
