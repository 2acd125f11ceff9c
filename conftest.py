"""Loads the boardcert pytest plugin for every run from the checkout."""

pytest_plugins = ["boardcert.pytest.plugin"]
