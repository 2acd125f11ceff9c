"""Tests of boardcert.properties, one module per module of the package (helpers in servers.py)."""
