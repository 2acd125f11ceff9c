"""`boardcert serve --client-report DIR [--vary [SEED]]`: the bundled reference server, its
client's every request judged (`watch.Watch`), maybe with other choices where the interface
is open (`vary.Vary`); the reports written when it stops (Ctrl-C or SIGTERM)."""

from __future__ import annotations

import os
import secrets
import signal
import sys
from pathlib import Path
from typing import Any

from boardcert.reference.server import API_KEY_ENV
from boardcert.traffic import reports
from boardcert.traffic.book import Book
from boardcert.traffic.vary import Choices, Vary
from boardcert.traffic.watch import Watch


def app(api_key: str, book: Book, choices: Choices | None = None) -> Any:
    """The reference app behind the watching (and varying) layers."""
    from boardcert.reference import create_app

    inner = create_app(api_key)
    return Watch(Vary(inner, choices) if choices else inner, book.add)


def key(given: str | None) -> str:
    """The key to demand: given, else the reference server's variable, else a new one
    (printed, as the reference server prints it)."""
    found = given or os.environ.get(API_KEY_ENV)
    if not found:
        found = secrets.token_urlsafe(24)
        print(f"API key: {found}", flush=True)
    return found


def serve(host: str, port: int, api_key: str | None, directory: Path | None,
          choices: Choices | None) -> reports.Written | None:
    """Serve until Ctrl-C or SIGTERM, then write the reports to `directory` (if given)."""
    import uvicorn

    api_key = key(api_key)
    book = Book(key=api_key)
    base_url = f"http://{host if ':' not in host else f'[{host}]'}:{port}"
    say(f"serving the reference server on {base_url}"
        + (f", varied (seed {choices.seed})" if choices else "")
        + (f"; judging every request, the reports go to {directory} when it stops "
           "(Ctrl-C or SIGTERM)" if directory else ""))
    if choices:
        say("varied: " + "; ".join(f"{k} {v}" for k, v in choices.as_dict().items()))
    server = uvicorn.Server(uvicorn.Config(app(api_key, book, choices), host=host, port=port,
                                           log_level="warning", access_log=False,
                                           timeout_graceful_shutdown=2, lifespan="off"))
    with stopping_quietly():
        server.run()
    if directory is None:
        return None
    return reports.write(book, directory, base_url, "serve",
                         {"seed": choices.seed, "choices": choices.as_dict()} if choices
                         else None, api_key)


class stopping_quietly:
    """Ctrl-C and SIGTERM stop uvicorn (which catches them) and then come back to the
    handlers it found: these, which take note, so that the reports are written after."""

    def __enter__(self) -> None:
        self.previous = {s: signal.signal(s, self.noted) for s in (signal.SIGINT,
                                                                     signal.SIGTERM)}

    def noted(self, number: int, frame: Any) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        for number, handler in self.previous.items():
            signal.signal(number, handler)


def say(text: str) -> None:
    print(f"boardcert: {text}", file=sys.stderr, flush=True)
