"""The speed plugin's overhead cuts (boardcert.speed.patches, made in this process as the plugin
started): pytest's and Hypothesis's answers stay as they were."""

from __future__ import annotations

import inspect
import subprocess
import sys
from unittest import mock

from _pytest import fixtures

from boardcert.speed import patches

# made as the speed plugin configured this process; again here, so that this module says so
assert patches.request_argnames() is None and patches.lambda_descriptions() is None


def test_the_request_fixture_s_argument_names_are_known_without_its_signature():
    """pytest's definition of `request` gets no argument names, without a signature read; any
    other function's names are pytest's own."""
    request = mock.Mock()
    with mock.patch.object(inspect, "signature", side_effect=AssertionError("read")):
        definition = fixtures.RequestFixtureDef(request)
    assert definition.argnames == ()

    def fixture(api, ledger, *, extra=None):
        return api

    assert fixtures.getfuncargnames(fixture) == ("api", "ledger")
    assert fixtures.getfuncargnames(lambda request: request) == ("request",)


def test_httpx_s_command_line_client_is_not_imported():
    """boardcert's client imports httpx without its command-line client (click, rich)."""
    code = "import sys, boardcert.http.client; print(sorted({'click', 'rich'} & set(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert done.stdout.strip() == "[]", done.stdout + done.stderr


def test_hypothesis_describes_lambdas_without_their_source_and_rewrites_filters_as_before():
    """A strategy's text no longer names its lambdas by their source; Hypothesis still reads
    a lambda's source to rewrite a filter (positive integers stay bounded below)."""
    from hypothesis import strategies as st
    from hypothesis.internal.filtering import get_integer_predicate_bounds

    assert "<unknown>" in repr(st.integers().map(lambda x: x + 1))
    assert get_integer_predicate_bounds(lambda x: x > 0).constraints == {"min_value": 1}
