"""junit.xml of the traffic: a testsuite `client-compatibility` with one testcase per
operation (or former or unknown path) the client used, failed when a MUST or SHOULD client
rule was broken there; and, for the proxy, a testsuite `compliance` with one testcase per
requirement judged on an operation (the compliance report's traffic tests). The form is
junit.xml's of `boardcert run` (boardcert.outputs.junit: Jenkins' junit-10.xsd, each case's
data as `name: value` lines of its <system-out>, a failure's message one line naming the rule
or requirement)."""

from __future__ import annotations

import platform
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from boardcert.outputs.junit import MESSAGE_MAX, cap, escape
from boardcert.outputs.report import TestResult

NAME = "junit.xml"
FAILING = ("MUST", "SHOULD")


def write(directory: Path, client: dict[str, Any],
          compliance: Iterable[TestResult] = ()) -> Path:
    """junit.xml for a client report (and the traffic's compliance tests)."""
    root = ET.Element("testsuites", name="boardcert traffic")
    root.append(_suite("client-compatibility", [_client_case(o, client)
                                                for o in client["operations"]], client))
    tests = list(compliance)
    if tests:
        root.append(_suite("compliance", [_compliance_case(t) for t in tests], client))
    path = directory / NAME
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)
    return path


def _suite(name: str, cases: list[ET.Element], client: dict[str, Any]) -> ET.Element:
    failures = sum(case.find("failure") is not None for case in cases)
    skipped = sum(case.find("skipped") is not None for case in cases)
    suite = ET.Element("testsuite", name=name, tests=str(len(cases)), failures=str(failures),
                       errors="0", skipped=str(skipped), time=f"{client['duration_seconds']:.3f}",
                       timestamp=datetime.fromisoformat(client["started"]).astimezone(UTC)
                       .isoformat(), hostname=platform.node())
    suite.extend(cases)
    return suite


def _client_case(used: dict[str, Any], client: dict[str, Any]) -> ET.Element:
    case = ET.Element("testcase", classname="client-compatibility", name=escape(used["label"]),
                      time="0.000")
    mine = [f for f in client["findings"] if f["where"] == used["label"]]
    failing = [f for f in mine if f["level"] in FAILING]
    if failing:
        first = failing[0]
        node = ET.SubElement(case, "failure", message=_line(f"[{first['rule']}] {first['detail']}"))
        node.text = cap(escape("\n\n".join(
            f"[{f['rule']}] ({f['level']}) {f['detail']} ({f['count']} requests)\n"
            f"instead: {f['instead']}\ninterface, section {f['section']}: {f['quote']}\n"
            f"reproduce: {f['exchange']['curl']}" for f in failing)))
    lines = [f"requests: {used['requests']}",
             "statuses: " + ", ".join(f"{s} x{n}" for s, n in used["statuses"].items())]
    lines += [f"{f['level']}: {f['rule']}: {f['detail']}" for f in mine]
    _out(case, lines)
    return case


def _compliance_case(test: TestResult) -> ET.Element:
    case = ET.Element("testcase", classname="compliance", name=escape(test.nodeid),
                      time="0.000")
    if test.outcome == "failed":
        node = ET.SubElement(case, "failure", message=_line(test.message.splitlines()[0]))
        node.text = cap(escape(test.message + "".join(
            f"\nreproduce: {x['curl']}" for x in test.evidence)))
    elif test.outcome == "skipped":
        ET.SubElement(case, "skipped", message=_line(test.message), type="not assessed")
    _out(case, [f"requirements: {' '.join(test.requirements)}",
                f"operations: {' '.join(map(str, test.operations))}"])
    return case


def _out(case: ET.Element, lines: list[str]) -> None:
    out = ET.SubElement(case, "system-out")
    out.text = escape("\n".join(lines) + "\n")


def _line(text: str) -> str:
    text = escape(" ".join(text.split()))
    return text if len(text) < MESSAGE_MAX else text[:MESSAGE_MAX - 2] + "…"
