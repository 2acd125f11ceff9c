"""junit.xml that JUnit consumers read as meant (a pytest plugin module, loaded with
boardcert.pytest.plugin; inert without `--junitxml`). Two files from pytest's one:

- `junit.xml` validates against the Jenkins xunit plugin's junit-10.xsd
  (tests/data/junit-10.xsd): a `<testcase>` holds no `<properties>` and no file/line
  attributes, so each test's data is a `<system-out>` of `name: value` lines
  (`requirements`, `operations`, `failed_requirements`, ...), and a failed test's `evidence:`
  line says how many exchanges it has and where they are, followed by their curl lines; its
  `reproduce:` line names its reproduction script in the report directory.
- `junit-properties.xml` beside it (`<stem>-properties.xml`) for tools that read testcase
  properties (Xray, the Jenkins JUnit plugin): pytest's family xunit1, the
  same data as `<property>` elements, `evidence` the exchanges as a JSON list
  (tests/data/junit-xunit1.xsd: junit-10.xsd plus those properties and file/line).

In both, every failure's and error's `message` is one line shorter than MESSAGE_MAX characters
that names the requirement (`[ID] ...`) and what is wrong; the text below it is capped at
TEXT_MAX (the full evidence is in compliance.json/.md/.html). No directory of the machine that
ran it: paths relative to the rootdir.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from _pytest.junitxml import mangle_test_address, xml_key

from boardcert.interface import requirements
from boardcert.outputs.record import RECORD, Record
from boardcert.outputs.record import of as record_of
from boardcert.paths import without_machine_paths
from boardcert.settings.run import in_session

MESSAGE_MAX = 200
TEXT_MAX = 8000
CURLS_SHOWN, CURL_MAX = 3, 1000  # a failed test's curl lines in its <system-out>
FAMILY = "xunit1"
EVIDENCE, REPRODUCE = "evidence", "reproduce"
DOCS = "docs"  # a failure's requirements, explained: their entries in docs/requirements.md
# What junit-10.xsd allows on a <testcase>; xunit1 adds file and line.
CASE_ATTRIBUTES = ("name", "assertions", "time", "classname", "status")
_REQUIREMENT = re.compile(r"\[[A-Z][A-Z0-9-]+\]")
_EXCEPTION = re.compile(r"^(?:[\w.]+\.)?\w*(?:Error|Exception|Violation\w*|Failed|Group)"
                        r"(?: \(\d+ sub-exceptions?\))?: ")


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    xml = config.stash.get(xml_key, None)
    if xml is not None:  # junit.xml is made strict whatever the family: this one keeps file/line
        xml.family = FAMILY
        config.pluginmanager.register(Records(), "boardcert-junit-records")


class Records:
    """Each test's records (boardcert.outputs.record), its phases' one after the other, as
    the controller receives them (from pytest-xdist's workers too), by (classname, name)."""

    def __init__(self) -> None:
        self.tests: dict[tuple[str, str], list[Record]] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        found = record_of(report)
        names = mangle_test_address(report.nodeid)
        if found:
            self.tests.setdefault((".".join(names[:-1]), names[-1]), []).append(found)

    @pytest.hookimpl(trylast=True)  # after pytest's junitxml wrote the file
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        xml = session.config.stash.get(xml_key, None)
        path = Path(xml.logfile) if xml is not None else None
        if path is not None and path.is_file():
            tidy(path, session.config.rootpath, in_session(session.config).docs_url, self.tests)


def record_properties(records: list[Record]) -> list[tuple[str, str]]:
    """The properties a test's records give, phase after phase."""
    found = []
    for r in records:
        if r.unassessed:
            found.append(("unassessed_requirements", json.dumps(r.unassessed, ensure_ascii=False)))
        if r.failed_requirements:
            found.append(("failed_requirements", " ".join(r.failed_requirements)))
        if r.evidence:
            found.append((EVIDENCE, json.dumps(list(r.evidence), ensure_ascii=False)))
        if r.reproduce:
            found.append((REPRODUCE, r.reproduce))
        if r.error:
            found.append(("outcome", "error"))
        if r.boardcert_error:
            found.append(("boardcert_error", r.boardcert_error))
    return found


def properties_path(path: Path) -> Path:
    """Where the form with testcase properties goes: junit.xml -> junit-properties.xml."""
    return path.with_name(f"{path.stem}-properties{path.suffix}")


def tidy(path: Path, root: Path, docs_url: str | None = None,
         records: dict[tuple[str, str], list[Record]] | None = None) -> None:
    """Rewrite pytest's junit.xml: one-line messages, capped texts, no directory of this
    machine, a failure's `docs` (where each requirement it failed is explained); the form
    with testcase properties to properties_path(path), the junit-10.xsd form (the properties
    as <system-out> lines) to the path itself."""
    tree = ET.parse(path)
    cases = list(tree.getroot().iter("testcase"))
    for case in cases:
        held = case.find("properties")
        mine = (records or {}).get((case.get("classname") or "", case.get("name") or ""), [])
        added = record_properties(mine)
        if added and held is None:
            held = ET.Element("properties")
            case.insert(0, held)
        for name, value in added:
            ET.SubElement(held, "property", name=name, value=value)
        if held is not None:
            for dropped in [p for p in held if p.get("name") == RECORD]:
                held.remove(dropped)
        properties = {p.get("name"): p.get("value") or "" for p in case.iter("property")}
        ids = (properties.get("failed_requirements") or properties.get("requirements") or "")
        for element in [*case.findall("failure"), *case.findall("error")]:
            text = element.text or ""
            element.set("message", headline(element.get("message") or text, text, ids.split()))
            element.text = cap(text)
        if case.find("failure") is not None and ids and held is not None:
            ET.SubElement(held, "property", name=DOCS, value=docs(ids.split(), docs_url))
    _write(tree, properties_path(path), root)
    for case in cases:
        strict(case)
    _write(tree, path, root)


def docs(ids: list[str], docs_url: str | None) -> str:
    """Where each requirement is explained: its entry under --docs-url, else the command that
    prints the entry."""
    if docs_url:
        return " ".join(requirements.link(docs_url, i) for i in ids)
    return f"boardcert requirements {' '.join(ids)} (docs/requirements.md)"


def strict(case: ET.Element) -> None:
    """A <testcase> as junit-10.xsd allows it: its properties as a <system-out> of
    `name: value` lines after any other, no attribute but the schema's."""
    held = case.find("properties")
    lines = [] if held is None else output_lines(
        [(p.get("name") or "", p.get("value") or "") for p in held.iter("property")])
    if held is not None:
        case.remove(held)
    for name in [n for n in case.attrib if n not in CASE_ATTRIBUTES]:
        del case.attrib[name]
    if lines:
        out = ET.Element("system-out")
        out.text = "\n".join(lines) + "\n"
        after = [i for i, e in enumerate(case) if e.tag != "system-err"]
        case.insert(after[-1] + 1 if after else 0, out)


def output_lines(properties: list[tuple[str, str]]) -> list[str]:
    """A test's properties as short lines; the evidence as a count and its curl lines."""
    lines = []
    for name, value in properties:
        if name == REPRODUCE:
            lines.append(f"{name}: {value} (in the report directory: BOARDCERT_API_KEY=<key> "
                         f"python3 {value} sends the failing requests again)")
            continue
        if name != EVIDENCE:
            lines.append(f"{name}: {value}")
            continue
        try:
            exchanges = [x for x in json.loads(value) if isinstance(x, dict)]
        except ValueError:
            exchanges = []
        curls = [x["curl"] for x in exchanges if x.get("curl")][:CURLS_SHOWN]
        lines.append(f"{EVIDENCE}: {len(exchanges)} exchange{'s' * (len(exchanges) != 1)} "
                     "(request, response, curl) in compliance.json and compliance.html"
                     + ("; reproduce with:" if curls else ""))
        lines += [curl if len(curl) <= CURL_MAX else
                  f"{curl[:CURL_MAX]}… [cut: the whole line is in compliance.json]"
                  for curl in curls]
    return lines


def _write(tree: ET.ElementTree, path: Path, root: Path) -> None:
    tree.write(path, encoding="utf-8", xml_declaration=True)
    path.write_text(without_machine_paths(path.read_text(encoding="utf-8"), root),
                    encoding="utf-8")


def headline(message: str, text: str, requirements: list[str]) -> str:
    """One line naming the requirement and what is wrong: the first line of the message (or
    text) that names a requirement, else its first line with the test's requirements before."""
    lines = [_EXCEPTION.sub("", line.strip()) for line in f"{message}\n{text}".splitlines()]
    lines = [line for line in lines if line]
    line = next((x for x in lines if _REQUIREMENT.match(x)), None)
    if line is None:
        first = lines[0] if lines else "failed"
        named = " ".join(f"[{i}]" for i in requirements)
        line = f"{named} {first}" if named else first
    return line if len(line) < MESSAGE_MAX else line[:MESSAGE_MAX - 2] + "…"


def cap(text: str) -> str:
    if len(text) <= TEXT_MAX:
        return text
    return (f"{text[:TEXT_MAX]}\n… [{len(text) - TEXT_MAX} more characters: the full "
            "evidence is in compliance.html]")
