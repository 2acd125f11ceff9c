"""Reproductions of failed tests that work after the run (issue 27).

A failed test's evidence carries a recipe (`recipe`: `recipe.build`, on the test's process: what the
failing requests need, made again the way the run made it, the failing requests with the ids
put back, and the conditions that make the failure), kept in compliance.json; `script`
renders it as a self-contained Python script (standard library only) that the report directory
holds as `reproduce/<test>.py` and `boardcert reproduce` runs; `engine` and `answers` are the
code every script carries (they send its steps and compare its answers), `index` and `parts`
find which exchange made each id and the texts that hold it. Light to import."""

__all__ = ["answers", "engine", "index", "parts", "recipe", "script"]
