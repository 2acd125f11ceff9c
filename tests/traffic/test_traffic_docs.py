"""docs/clients.md tells the truth: its table of client rules is the catalogue's, its example
findings are what the former client gets, and the commands it tells a client author to run
(serve judged, the client's tests, stop) work as written and give a compatible client a clean
report."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

from boardcert.paths import ROOT
from boardcert.reference.server import free_port
from boardcert.traffic import rules
from traffic import clients
from traffic.running import KEY, watched, write

PAGE = ROOT / "docs" / "clients.md"
TESTS = Path(__file__).resolve().parents[1]


def block_after(marker: str) -> str:
    """The first code block or table after `<!-- marker -->`."""
    text = PAGE.read_text(encoding="utf-8")
    after = text[text.index(f"<!-- {marker} -->"):]
    if after.split("\n", 2)[1].startswith("```"):
        return after.split("```", 2)[1].split("\n", 1)[1]
    return after.split("\n\n", 1)[0]


def test_the_table_of_rules_is_the_catalogue_s():
    """Every rule of spec/client-rules.yaml, in its order, with its level."""
    rows = re.findall(r"^\| `(CLIENT-[A-Z-]+)` \| (\w+) \|", block_after("client-rules"), re.M)
    assert rows == [(r.id, r.level) for r in rules.catalogue().values()]


def test_the_example_findings_are_what_the_former_client_gets(tmp_path):
    """The page's example: the rule, where, the sentence and what to do instead, as the
    report of tests/traffic/clients.py's former client says them."""
    with watched() as (base_url, book):
        clients.former(base_url, KEY)
    findings = write(book, tmp_path, base_url, "serve").client["findings"]
    text = PAGE.read_text(encoding="utf-8")
    example = text[text.index("```text"):].split("```", 2)[1]
    for finding in findings:
        if finding["where"] in ("former PATCH /projects",
                                "op 18 PATCH /projects/{projectId}/cards/move") \
                and finding["level"] == "MUST":
            assert f"{finding['rule']} at {finding['where']} (1 request)" in example
            assert f"{finding['detail']}.\nInstead: {finding['instead']}" in example


MY_CLIENT_TESTS = """\
import sys
sys.path.insert(0, {tests!r})
from traffic import clients
clients.current(sys.argv[1], sys.argv[2])
"""


def test_the_first_hour_runs_as_written(tmp_path):
    """The page's serve block in bash (on a free port, with a client's tests that use only
    current operations): exit 0, the four files, a compatible client."""
    port = str(free_port())
    script = block_after("clients-serve").replace("8080", port)
    (tmp_path / "my_client_tests.py").write_text(MY_CLIENT_TESTS.format(tests=str(TESTS)))
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(["bash", "-e", "-c", textwrap.dedent(script)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    report = tmp_path / "reports" / "client"
    assert {p.name for p in report.iterdir()} == {
        "client-compatibility.json", "client-compatibility.md", "client-compatibility.html",
        "junit.xml"}
    said = json.loads((report / "client-compatibility.json").read_text(encoding="utf-8"))
    assert said["verdict"] == "compatible", said["verdict_reason"]
    assert "boardcert: client: compatible" in done.stdout
