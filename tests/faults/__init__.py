"""Variants of the reference server that prove the suite: faults it must flag, and conformant
variants it must certify (issue 7). See catalogue.py, conformant.py and harness.py."""

from __future__ import annotations

from .catalogue import FAULTS
from .conformant import CONFORMANT
from .harness import Certifier, Result, certify, serving
from .variant import Variant, combined

__all__ = ["CONFORMANT", "FAULTS", "Certifier", "Result", "Variant", "certify", "combined",
           "serving"]
