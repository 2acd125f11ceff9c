"""A run's settings, resolved once, and the part a process plays in it.

- `options`: every option, declared once (CLI and pytest); `config`: target and profile from
  flags and BOARDCERT_* variables; `budget`: budgets and the fixed seed; `workers`: how many
  pytest-xdist workers a target's round trip allows;
- `run`: the frozen `Run` everything reads; `collection`: the copy of its budget, seed and
  profile that modules read as pytest imports them; `roles`: controller, worker or alone;
- `run_facts`: what the reports record of the run besides its results.
"""

__all__ = ["budget", "collection", "config", "options", "roles", "run", "run_facts", "workers"]
