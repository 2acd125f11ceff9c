"""junit.xml that JUnit consumers read as meant (a pytest plugin module, loaded with
boardcert.plugin; inert without `--junitxml`).

- Family xunit1 (unless the ini names one): the family that allows `<properties>` in a
  `<testcase>`, where boardcert puts `requirements`, `operations` and, on a failed test,
  `evidence`. It is the Jenkins xunit plugin's junit-10.xsd plus those properties and the
  file/line attributes (tests/data/junit-xunit1.xsd).
- Every failure's and error's `message` is one line shorter than MESSAGE_MAX characters that names
  the requirement (`[ID] ...`) and what is wrong; the text below it is capped at TEXT_MAX
  (the full evidence is in compliance.json/.md/.html).
- No directory of the machine that ran it: paths relative to the rootdir.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from _pytest.junitxml import xml_key

from boardcert.paths import without_machine_paths

MESSAGE_MAX = 200
TEXT_MAX = 8000
FAMILY = "xunit1"
_REQUIREMENT = re.compile(r"\[[A-Z][A-Z0-9-]+\]")
_EXCEPTION = re.compile(r"^(?:[\w.]+\.)?\w*(?:Error|Exception|Violation\w*|Failed|Group)"
                        r"(?: \(\d+ sub-exceptions?\))?: ")


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    xml = config.stash.get(xml_key, None)
    if xml is not None and "junit_family" not in config.inicfg:
        xml.family = FAMILY


@pytest.hookimpl(trylast=True)  # after pytest's junitxml wrote the file
def pytest_sessionfinish(session: pytest.Session) -> None:
    xml = session.config.stash.get(xml_key, None)
    path = Path(xml.logfile) if xml is not None else None
    if path is not None and path.is_file():
        tidy(path, session.config.rootpath)


def tidy(path: Path, root: Path) -> None:
    """Rewrite the failures and errors of a junit.xml: one-line messages, capped texts, no
    directory of this machine (paths relative to the root)."""
    tree = ET.parse(path)
    for case in tree.getroot().iter("testcase"):
        properties = {p.get("name"): p.get("value") or "" for p in case.iter("property")}
        ids = (properties.get("failed_requirements") or properties.get("requirements") or "")
        for element in [*case.findall("failure"), *case.findall("error")]:
            text = element.text or ""
            element.set("message", headline(element.get("message") or text, text, ids.split()))
            element.text = cap(text)
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
