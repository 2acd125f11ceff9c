"""Every report of the traffic, written at once when the server or the proxy stops: the
client report (client-compatibility.json, .md, .html), for the proxy the compliance report
(compliance.json with `source: traffic`, .md, .html, ...), and junit.xml; then the key masked
in each file (every key value the traffic carried, and the server's key when boardcert knows
it)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from boardcert.http.redact import Redactor
from boardcert.outputs import report
from boardcert.traffic import client_report, compliance, junit
from boardcert.traffic.book import Book


@dataclass
class Written:
    client: dict[str, Any]  # the client report
    compliance: dict[str, Any] | None  # the proxy's compliance report
    directory: Path


def write(book: Book, directory: Path, base_url: str, source: str,
          vary: dict[str, Any] | None = None, key: str | None = None) -> Written:
    """Write the reports of the traffic in `book` to `directory`."""
    finished = datetime.now(UTC)
    redactor = Redactor([key, *book.keys])
    client = client_report.build(book, base_url, source, redactor, vary, finished)
    client_report.write(client, directory)
    built, tests = None, []
    if book.answers:
        built, tests = compliance.build(book, base_url, redactor, finished)
        compliance.write(built, directory)
    junit.write(directory, client, tests)
    redactor.tree(directory, {report.JSON_NAME: report.schema(),
                              client_report.JSON_NAME: client_report.schema()})
    return Written(client, built, directory)
