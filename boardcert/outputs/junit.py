"""junit.xml that JUnit consumers read as meant (a pytest plugin module, loaded with
boardcert.pytest.plugin; inert without `--junitxml`). It takes `--junitxml` from pytest's
junitxml and writes two files itself, from the reports the controller receives and the records
they carry (boardcert.outputs.record): the testcases pytest's junitxml writes (family xunit1;
captured output is not written, as pytest's default junit_logging=no), each failure's message
its record's headline, each test's properties its own and its records':

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
import platform
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from boardcert.compat import junit_slot
from boardcert.errors import CompatError
from boardcert.interface import requirements
from boardcert.outputs.record import RECORD, Record
from boardcert.outputs.record import of as record_of
from boardcert.paths import without_machine_paths
from boardcert.settings import roles
from boardcert.settings.run import in_session

MESSAGE_MAX = 200
TEXT_MAX = 8000
CURLS_SHOWN, CURL_MAX = 3, 1000  # a failed test's curl lines in its <system-out>
EVIDENCE, REPRODUCE = "evidence", "reproduce"
DOCS = "docs"  # a failure's requirements, explained: their entries in docs/requirements.md
# What junit-10.xsd allows on a <testcase>; xunit1 adds file and line.
CASE_ATTRIBUTES = ("name", "assertions", "time", "classname", "status")
# Characters XML cannot hold, shown as pytest shows them ("#x1B"): C0 controls but tab and
# line ends, DEL, surrogates, U+FFFE and U+FFFF.
_ILLEGAL = {c: f"#x{c:02X}" if c <= 0xFF else f"#x{c:04X}"
            for c in [*range(0x20), 0x7F, *range(0xD800, 0xE000), 0xFFFE, 0xFFFF]
            if c not in (0x9, 0xA, 0xD)}


@pytest.hookimpl(tryfirst=True)  # before pytest's junitxml, which then writes nothing
def pytest_configure(config: pytest.Config) -> None:
    path = config.option.xmlpath
    if not path or roles.is_worker(config):
        return
    try:
        slot = junit_slot()  # where Hypothesis and record_testsuite_property find the writer
    except CompatError as exc:
        raise pytest.UsageError(str(exc)) from None
    config.option.xmlpath = None
    writer = JUnit(Path(path).expanduser().absolute(), config)
    config.stash[slot] = writer  # add_global_property, family
    config.pluginmanager.register(writer, "boardcert-junit")


def escape(value: object) -> str:
    """Text XML can hold, as pytest's junitxml makes it."""
    return str(value).translate(_ILLEGAL)


@dataclass
class Case:
    """One <testcase>, as pytest's junitxml would write it."""

    attributes: dict[str, str] = field(default_factory=dict)
    duration: float = 0.0
    properties: list[tuple[str, str]] = field(default_factory=list)
    nodes: list[ET.Element] = field(default_factory=list)

    def element(self) -> ET.Element:
        case = ET.Element("testcase", self.attributes, time=f"{self.duration:.3f}")
        if self.properties:
            held = ET.SubElement(case, "properties")
            for name, value in self.properties:
                ET.SubElement(held, "property", name=name, value=value)
        case.extend(self.nodes)
        return case


class JUnit:
    """Writes junit.xml and junit-properties.xml at the end of the session from the reports
    the controller receives (from pytest-xdist's workers too) and the records they carry:
    the testcases of pytest's junitxml (family xunit1), a failure's message its record's
    headline, its properties the test's own and its records'."""

    family = "xunit1"  # what pytest's record_property asks of the writer

    def __init__(self, path: Path, config: pytest.Config) -> None:
        self.path, self.config = path, config
        self.suite_name = config.getini("junit_suite_name")
        self.prefix = config.option.junitprefix
        self.open: dict[tuple[str, Any], Case] = {}
        self.cases: list[Case] = []
        self.records: dict[tuple[str, Any], list[Record]] = {}  # a test's, phase after phase
        self.failed_calls: dict[tuple[str, Any], pytest.TestReport] = {}  # teardown to come
        self.stats = dict.fromkeys(("error", "passed", "failure", "skipped"), 0)
        self.doubles = 0  # tests counted twice: a passing call and an error at teardown
        self.global_properties: list[tuple[str, str]] = []
        self.started, self.clock = datetime.now(UTC), time.perf_counter()

    def add_global_property(self, name: str, value: object) -> None:
        """As pytest's writer does (Hypothesis's statistics, record_testsuite_property)."""
        self.global_properties.append((name, escape(value)))

    def pytest_sessionstart(self) -> None:
        self.started, self.clock = datetime.now(UTC), time.perf_counter()

    def pytest_boardcert_files(self) -> list[Path]:
        return [self.path, properties_path(self.path)]

    def case(self, key: tuple[str, Any]) -> Case:
        if key not in self.open:
            self.open[key] = Case()
            self.cases.append(self.open[key])
        return self.open[key]

    def opened(self, key: tuple[str, Any], report: Any) -> Case:
        """The test's testcase, named: its classname, name, file and line."""
        case = self.case(key)
        path, bracket, params = report.nodeid.partition("[")
        names = path.split("::")
        names[0] = names[0].replace("/", ".").removesuffix(".py")
        names[-1] += bracket + params
        place = {"file": report.location[0]} | (
            {"line": str(report.location[1])} if report.location[1] is not None else {})
        case.attributes = {"classname": ".".join([*([self.prefix] if self.prefix else []),
                                                  *names[:-1]]),
                           "name": escape(names[-1]), **place} | case.attributes
        return case

    def add(self, case: Case, tag: str, message: str, text: str | None = None,
            **attributes: str) -> None:
        self.stats[tag] += 1
        node = ET.Element(tag, attributes, message=message)
        node.text = text
        case.nodes.append(node)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        key = (report.nodeid, getattr(report, "node", None))
        found = record_of(report)
        if found:
            self.records.setdefault(key, []).append(found)
        if report.passed and report.when == "call":
            self.opened(key, report)
            self.stats["passed"] += 1
        elif report.failed:
            self.failed(key, report, found)
        elif report.skipped:
            self.skipped(self.opened(key, report), report)
        self.case(key).duration += getattr(report, "duration", 0.0)
        if report.when == "teardown":
            self.opened(key, report)
            self.finish(key, report)
            self.failed_calls.pop(key, None)
            self.records.pop(key, None)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if not report.passed:  # a module that could not be collected, as pytest says it
            case = self.opened((report.nodeid, getattr(report, "node", None)), report)
            self.add(case, "error" if report.failed else "skipped",
                     "collection failure" if report.failed else "collection skipped",
                     escape(report.longrepr))

    def failed(self, key: tuple[str, Any], report: pytest.TestReport, found: Record) -> None:
        """A failure (of the test's body) or an error (of its set-up or teardown); a call that
        failed and a teardown that broke are two testcases (junit's schema)."""
        if report.when == "teardown":
            if key in self.failed_calls:
                self.finish(key, self.failed_calls.pop(key))
            else:
                self.doubles += key in self.open
        case = self.opened(key, report)
        crash = getattr(report.longrepr, "reprcrash", None)
        said = crash.message if crash is not None else str(report.longrepr)
        title = found.headline or (said.strip().splitlines() or ["failed"])[0]
        title = title if len(title) < MESSAGE_MAX else title[:MESSAGE_MAX - 2] + "…"
        if report.when != "call":
            self.add(case, "error", escape(title), cap(escape(report.longrepr)))
        elif hasattr(report, "wasxfail"):
            self.add(case, "skipped", "xfail-marked test passes unexpectedly", "None")
        else:
            self.add(case, "failure", escape(title), cap(escape(report.longrepr)))
            self.failed_calls[key] = report

    def skipped(self, case: Case, report: pytest.TestReport) -> None:
        if hasattr(report, "wasxfail"):
            reason = escape(report.wasxfail.removeprefix("reason: "))
            self.add(case, "skipped", reason, type="pytest.xfail")
            return
        filename, line, reason = report.longrepr  # type: ignore[misc]
        reason = reason.removeprefix("Skipped: ")
        self.add(case, "skipped", escape(reason), escape(f"{filename}:{line}: {reason}"),
                 type="pytest.skip")

    def finish(self, key: tuple[str, Any], report: pytest.TestReport) -> None:
        """The testcase closed: the test's properties, its records', and, for a failure, where
        each requirement it failed is explained."""
        case = self.open.pop(key)
        records = self.records.get(key, [])
        case.properties = [(n, escape(v)) for n, v in identity_properties(records)]
        case.properties += [(str(n), escape(v)) for n, v in report.user_properties
                            if n != RECORD]
        case.properties += [(n, escape(v)) for n, v in observation_properties(records)]
        case.properties += [(n, escape(v)) for n, v in record_properties(records)]
        named = dict(case.properties)
        ids = named.get("failed_requirements") or named.get("requirements") or ""
        if ids and any(node.tag == "failure" for node in case.nodes):
            case.properties.append((DOCS, docs(ids.split(), in_session(self.config).docs_url)))

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self) -> None:
        suite = ET.Element("testsuite", name=self.suite_name, errors=str(self.stats["error"]),
                           failures=str(self.stats["failure"]),
                           skipped=str(self.stats["skipped"]),
                           tests=str(sum(self.stats.values()) - self.doubles),
                           time=f"{time.perf_counter() - self.clock:.3f}",
                           timestamp=self.started.astimezone().isoformat(),
                           hostname=platform.node())
        if self.global_properties:
            held = ET.SubElement(suite, "properties")
            for name, value in self.global_properties:
                ET.SubElement(held, "property", name=name, value=value)
        cases = [case.element() for case in self.cases]
        suite.extend(cases)
        root = ET.Element("testsuites", name="pytest tests")
        root.append(suite)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        _write(ET.ElementTree(root), properties_path(self.path), self.config.rootpath)
        for case in cases:
            strict(case)
        _write(ET.ElementTree(root), self.path, self.config.rootpath)


def identity_properties(records: list[Record]) -> list[tuple[str, str]]:
    """A test's requirement ids and operations, as JUnit properties (space-separated)."""
    named = next((r for r in records if r.requirements), None)
    if named is None:
        return []
    return [("requirements", " ".join(named.requirements)),
            ("operations", " ".join(map(str, named.operations)))]


def observation_properties(records: list[Record]) -> list[tuple[str, str]]:
    """What a test observed (its last record holds them all), as JUnit properties."""
    observed = next((r.observations for r in reversed(records) if r.observations), ())
    return [("security_observation" if security else "observation", f"{i}: {text}")
            for i, text, security in observed]


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


def cap(text: str) -> str:
    if len(text) <= TEXT_MAX:
        return text
    return (f"{text[:TEXT_MAX]}\n… [{len(text) - TEXT_MAX} more characters: the full "
            "evidence is in compliance.html]")
