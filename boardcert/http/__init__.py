"""One way to the server under test, and what an exchange is as evidence.

- `client`: `Client`, the one seam for HTTP (keep-alive httpx, every exchange recorded, the key
  masked, 429 honoured); `exchange`: `Exchange`, one request and its response as evidence;
  `evidence`: an exchange as text for every output; `redact`: the key masked as `***`;
- `api`: `Api`, the interface's operations by number with the profile's bodies;
- `at_once`: requests released at one moment (concurrent writers), not a speed device;
- `preflight`: before any test, does the target answer op 1 with JSON for the key.
Nothing here knows pytest.
"""

__all__ = ["api", "at_once", "client", "evidence", "exchange", "preflight", "redact"]
