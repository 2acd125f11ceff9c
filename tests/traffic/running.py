"""Serving for the traffic tests, each on a free loopback port in a thread: the bundled server
watched (and varied) as `boardcert serve --client-report` runs it, the proxy, any ASGI app."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hostile.servers import Servers

from boardcert.reference.app import create_app
from boardcert.traffic import reports, serve
from boardcert.traffic.book import Book
from boardcert.traffic.proxy import Proxy
from boardcert.traffic.vary import Choices

KEY = "traffic-test-key-6f1c2d"


@contextmanager
def serving(app: Any) -> Iterator[str]:
    """The app served by uvicorn in a thread; yields its base URL."""
    with Servers() as servers:
        yield servers.asgi(app)


@contextmanager
def watched(choices: Choices | None = None, key: str = KEY) -> Iterator[tuple[str, Book]]:
    """The bundled server as `boardcert serve --client-report [--vary]` runs it."""
    book = Book(key=key)
    with serving(serve.app(key, book, choices)) as base_url:
        yield base_url, book


@contextmanager
def proxied(upstream: str) -> Iterator[tuple[str, Book]]:
    """The proxy in front of `upstream`."""
    book = Book(answers=True)
    with serving(Proxy(upstream, book)) as base_url:
        yield base_url, book


@contextmanager
def reference(key: str = KEY) -> Iterator[str]:
    with serving(create_app(key)) as base_url:
        yield base_url


def write(book: Book, directory: Path, base_url: str, source: str,
          choices: Choices | None = None, key: str | None = KEY) -> reports.Written:
    """The reports, as the command writes them when it stops."""
    vary = {"seed": choices.seed, "choices": choices.as_dict()} if choices else None
    return reports.write(book, directory, base_url, source, vary, key)
