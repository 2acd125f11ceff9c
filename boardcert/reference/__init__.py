"""The bundled reference server: a real, in-memory Board Project Service.

It implements all 28 operations of the interface and imports nothing from the suite side of
boardcert, so that one misreading of the interface cannot hide itself in both. Where the
interface says "not shown", it chooses:

- Authentication: every operation demands the X-API-Key header, the 17 listed ones and also
  6, 14 and 20-28 (a secure default). A missing, empty or wrong key answers 401. A path that is
  not routed answers 404 and a routed path with another method 405, whatever the key.
- Names of projects, rows, columns and cards are strings of 1 to 25000 code points; the empty
  string is rejected (422), operation 16 included.
- Operation 7 takes the row name as ``name`` or ``rowName`` (both at once only if equal).
- Operation 18 takes ``{ids, afterCardId?, beforeCardId?, columnId?}``: ``ids`` a non-empty
  array of distinct card ids; the cards go right after ``afterCardId`` or right before
  ``beforeCardId`` in the project's card order (given both, ``afterCardId`` decides), keep
  their place without an anchor, and with ``columnId`` leave their columns for that one.
  An anchor must be a card of the project (else 404) and not one of the moved cards (422).
  Operation 19 takes ``{key, value?, afterCardId?, beforeCardId?, columnId?}`` and moves the
  cards whose metadata has that key (and value). Both answer the first moved Card.
- Metadata (op 21): ``{key, value}``; the entry's id is the key (1-1000 characters, no '/').
- Plugins: the only plugin is ``boardcert``; other plugin ids answer 404 (ops 23, 25-28).
- Exchange code (op 28): only ``boardcert-code`` is accepted, any number of times; any other
  code answers 422 ``invalid_code``. Each exchange answers a fresh ``userToken``.
- Errors: ``{"error": {"code", "message"}}`` with 400 (not JSON, or a required body missing),
  401 (key), 404 (unknown path or id), 405 (method), 413 (body over 1 MiB), 422 (a wrong shape
  or a broken rule). A rejected request changes nothing. The Content-Type is not checked.
- Deleting a row or a column takes it off every card; a card left in no column is deleted.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__all__ = ["RunningServer", "Store", "create_app", "launch", "serve", "start"]
_HOME = {"create_app": "app", "Store": "store", "RunningServer": "server", "launch": "server",
         "serve": "server", "start": "server"}


def __getattr__(name: str) -> Any:
    """Imported on first use: a suite that starts the server in a child process (server.py)
    imports neither the app nor its web framework."""
    if name in _HOME:
        return getattr(import_module(f"boardcert.reference.{_HOME[name]}"), name)
    raise AttributeError(f"module 'boardcert.reference' has no attribute {name!r}")
