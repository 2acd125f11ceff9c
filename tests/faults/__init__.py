"""Variants of the reference server that prove the suite: faults it must flag, and conformant
variants it must certify (issue 7). See catalogue.py, conformant.py and harness.py.

The names below are imported when first asked for: a certification's run loads plugins of
this package (`-p faults.settled`, ...), and importing the package must not import the
catalogue, the harness and uvicorn into every run (0.1 s of CPU each, some 300 runs in the
test command)."""

from __future__ import annotations

import importlib
from typing import Any

_FROM = {"FAULTS": "catalogue", "CONFORMANT": "conformant", "Certifier": "harness",
         "Result": "harness", "certify": "harness", "serving": "harness", "Variant": "variant",
         "combined": "variant"}

__all__ = sorted(_FROM)


def __getattr__(name: str) -> Any:
    if name not in _FROM:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_FROM[name]}"), name)
    globals()[name] = value
    return value
