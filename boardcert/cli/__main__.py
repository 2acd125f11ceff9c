"""`python -m boardcert.cli`: the `boardcert` command."""

from __future__ import annotations

import sys

from boardcert.cli import main

sys.exit(main())
