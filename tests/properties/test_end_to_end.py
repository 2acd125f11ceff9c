"""suites/test_properties.py in both directions against real servers: the reference passes, a
faulty variant fails naming the requirement it breaks, and the API key never shows."""

from __future__ import annotations

import secrets
from concurrent.futures import ThreadPoolExecutor

import pytest

from boardcert.reference.server import start
from properties.servers import faulty_app, run_suite, serving

pytestmark = pytest.mark.xdist_group("test_end_to_end")  # one worker makes the module's runs


def _against_reference(key: str) -> str:
    with start(key) as server:
        return run_suite(server.base_url, key)


def _against_faulty(key: str) -> str:
    with serving(faulty_app(key)) as base_url:
        return run_suite(base_url, key, "-m", "op7 or op15 or op16")


@pytest.fixture(scope="module")
def runs() -> dict[str, tuple[str, str]]:
    """Both runs at once (each is mostly start-up): name -> (API key, output)."""
    keys = {"reference": "ref-" + secrets.token_urlsafe(16),
            "faulty": "faulty-" + secrets.token_urlsafe(16)}
    with ThreadPoolExecutor(2) as pool:
        futures = {"reference": pool.submit(_against_reference, keys["reference"]),
                   "faulty": pool.submit(_against_faulty, keys["faulty"])}
        return {name: (keys[name], future.result()) for name, future in futures.items()}


def test_the_reference_server_passes_the_property_tests(runs):
    """Against the conformant reference server nothing is reported (no false alarm)."""
    key, output = runs["reference"]
    assert output.startswith("exit 0"), output[-6000:]
    assert "30 passed" in output  # 28 operations, the stateful test in two parts (quick)
    assert key not in output


def test_a_faulty_server_fails_naming_the_requirements(runs):
    """Each bug fails the item of its operation with its requirement, the check, and a curl
    reproduction whose key is ***; the key itself appears nowhere."""
    key, output = runs["faulty"]
    assert output.startswith("exit 1"), output[-6000:]
    failed = {line for line in output.splitlines() if line.startswith("FAILED")}
    expected = {
        "POST /projects/{projectId}/rows]": "[NO-SERVER-ERROR] not_a_server_error",
        "POST /projects/{projectId}/columns/{columnId}/cards]":
            "[CARD-FIELD-TYPES] response_schema_conformance",
        "PATCH /projects/{projectId}/cards/{cardId}]":
            "[CARD-NAME-MAX-REJECTED] negative_data_rejection",
    }
    for item, message in expected.items():
        assert any(item in line for line in failed), (item, output[-6000:])
        assert message in output, (message, output[-6000:])
    assert "[CARD-FIELD-TYPES] boardcert_card_field_types" in output
    assert "reproduce: curl -sS -X PATCH -H 'x-api-key: ***'" in output  # as the client sent it
    assert key not in output

