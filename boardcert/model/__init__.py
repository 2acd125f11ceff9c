"""The board as the interface says it must be, and the server's board read into the same shape.

`board` is the model (pure: no I/O): projects, rows in order, columns in order per row, cards
per column, card names, metadata per card, plugins per project, plugin data per (plugin,
entity, key); one method per write, each rule citing its words. `observe` reads a server's
board (ops 3, 6, the Card records, op 27) into the model's facts; `compare` words the
differences and the requirement each breaks; `oracle` ties them together for a test: after
every write, the whole observable board against the model.
"""

from __future__ import annotations

from boardcert.model.board import ABSENT, OPEN, OTHERS, Act, Board
from boardcert.model.compare import Difference, Vision
from boardcert.model.observe import Observer, Sight
from boardcert.model.oracle import Oracle

__all__ = ["ABSENT", "OPEN", "OTHERS", "Act", "Board", "Difference", "Observer", "Oracle",
           "Sight", "Vision"]
