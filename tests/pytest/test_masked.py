"""boardcert.pytest.masked: the key is masked once, where text leaves a run, in every file the
run wrote: with pytest run alone as under `boardcert run`, and no file is corrupted."""

from __future__ import annotations

import json
import secrets
import xml.etree.ElementTree as ET
from pathlib import Path

from boardcert.outputs import report
from boardcert.reference.server import start

pytest_plugins = ["pytester", "hostile.fixtures"]
PLUGIN = ("-p", "boardcert.pytest.plugin", "-p", "no:cacheprovider")
FAILING = """
    import pytest

    @pytest.mark.requirement("USERS-ME-PROPERTIES")
    def test_fails(api, target):
        api.call(1)
        assert False, f"the server said {target.api_key!r} back"
"""


def written_with(path: Path, key: str) -> list[str]:
    return [str(p) for p in path.rglob("*") if p.is_file() and key.encode() in p.read_bytes()]


def test_a_key_in_a_message_is_masked_in_every_file_pytest_alone_wrote(pytester, tmp_path):
    """A failure whose message holds the key: the compliance report (still valid against its
    schema), junit.xml, its properties form and the Allure results show *** instead."""
    key = "masked-" + secrets.token_hex(8)
    pytester.makepyfile(FAILING)
    out, junit, allure = tmp_path / "out", tmp_path / "j" / "junit.xml", tmp_path / "allure"
    with start(api_key=key) as server:
        result = pytester.runpytest(*PLUGIN, "--base-url", server.base_url, "--api-key", key,
                                    f"--report-dir={out}", f"--junitxml={junit}",
                                    f"--alluredir={allure}")
    result.assert_outcomes(failed=1)
    assert (junit.parent / "junit-properties.xml").is_file() and list(allure.iterdir())
    assert written_with(tmp_path, key) == []
    built = report.load(out)  # validated against spec/compliance.schema.json
    assert "the server said '***' back" in json.dumps(built["tests"])
    assert "***" in ET.parse(junit).getroot().find(".//failure").get("message")


def test_the_bundled_servers_key_is_masked_too(pytester, tmp_path):
    """With no base URL the run starts the bundled server with a key of its own: a failure
    that shows it is masked in the report and in junit.xml like a key the user gave."""
    pytester.makepyfile(FAILING)
    out, junit = tmp_path / "out", tmp_path / "j" / "junit.xml"
    result = pytester.runpytest(*PLUGIN, f"--report-dir={out}", f"--junitxml={junit}")
    result.assert_outcomes(failed=1)
    assert "the server said '***' back" in json.dumps(report.load(out)["tests"])
    assert "the server said '***' back" in junit.read_text()
