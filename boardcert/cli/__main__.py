"""`python -m boardcert.cli`: the `boardcert` command."""

from __future__ import annotations

from boardcert.cli import command

command()
