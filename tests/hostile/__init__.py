"""Small hostile servers on loopback, for the suite's robustness, clean-up and parallel tests.

- `apps`: ASGI apps and wrappers: fixed answers (not JSON, wrong content type, 5xx, 3xx,
  oversized), 429s, injected failures, latency, a request recorder;
- `raw`: raw-socket servers for what no ASGI server will do: truncated bodies, resets,
  hangs, bodies that trickle in, answers that are not HTTP;
- `servers`: `Servers`, which runs any of them on free ports (in threads) and stops them;
- `tripwire`: a pytest plugin noting each start of the bundled reference server, per process.
"""
