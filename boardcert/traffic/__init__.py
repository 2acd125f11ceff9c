"""Judging requests and responses that boardcert did not send (issue 35).

- `boardcert serve --client-report DIR` runs the bundled reference server behind `watch.Watch`
  (an ASGI layer in this room: the server stays a stranger to the rest) and judges every
  request a client sends against the client rules of spec/client-rules.yaml; `--vary [SEED]`
  puts `vary.Vary` in between, which makes, where the interface is open, other choices than
  the reference's (the row-name property, refusal statuses, id and time forms, extra fields,
  compression), reproducibly from the seed.
- `boardcert proxy --upstream URL --report DIR` (`proxy.Proxy`) forwards any client's traffic
  to any server unchanged and judges both sides: the requests by the client rules, the answers
  by the same checks and requirement ids `boardcert run` uses (boardcert.workbench.checks, the
  removed paths of boardcert.interface.removed).

Nothing here adds a rule of its own: the requirements are spec/requirements.yaml's, the client
rules spec/client-rules.yaml's, the reports are written by boardcert.outputs (compliance.json
with `source: traffic`) and by `client_report` (client-compatibility.json, .md, .html and
junit.xml). The key is masked in every file written.

Its modules: `serve`, `proxy` (the two commands), `watch` (the ASGI layer), `upstream` (the
proxy's way to the server), `seen` (one exchange as traffic showed it), `sent` (a request by
the client rules, read by `rules`), `answered` (an answer by the run's checks), `boards` (what
the board model tells from traffic), `vary` and `varied` (the other choices), `book` (what the
traffic showed), `reports`, `client_report`, `compliance`, `junit` (what is written).
"""

from __future__ import annotations

__all__ = ["answered", "boards", "book", "client_report", "compliance", "junit", "proxy",
           "reports", "rules", "seen", "sent", "serve", "upstream", "varied", "vary", "watch"]
