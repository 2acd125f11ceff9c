"""The boardcert pytest plugin: `plugin` registers the rest (pytest11 entry point).

- `handover`: the run's settings (`boardcert.settings.run.Run`) into the stash, from
  `boardcert run`, an xdist controller or pytest's own options; `target`: the server under
  test (the bundled one started in one place); `stash`: the shared stash keys;
- `fixtures`, `markers`, `cleanup`, `early`, `quiet`, `together`: what the suites use (the
  fixtures, requirement markers, the ledger's clean-up, set-ups made early, a moment alone,
  what may go side by side);
- `failures`: a test's end as a `Record`; `results`: the records into the reports;
  `console`, `allure`, `masked`: what the console and Allure show, the key masked at the end;
- `hookspecs`: boardcert's own hooks; `plan`: `--plan`; `suites`: where the tests come from.
"""

__all__ = [
    "allure",
    "cleanup",
    "console",
    "early",
    "failures",
    "fixtures",
    "handover",
    "hookspecs",
    "markers",
    "masked",
    "plan",
    "plugin",
    "quiet",
    "results",
    "stash",
    "suites",
    "target",
    "together",
]
