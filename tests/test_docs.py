"""README.md and docs/ tell the truth: the README stays short and keeps the commands CI runs;
every count they state is the code's (requirements by level, operations, faults, conformant
variants, the default seed, the seconds of a default run; a figure of a past measurement says
at which commit); every flag of a `boardcert` command line they show is one the command takes;
every link between them resolves; no placeholder is left."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from faults import CONFORMANT, FAULTS

from boardcert import cli
from boardcert.cli.exits import EXIT_CODES
from boardcert.interface import requirements, spec
from boardcert.paths import ROOT
from boardcert.settings.budget import DEFAULT_SEED

README = ROOT / "README.md"
DOCS = ROOT / "docs"
# docs/requirements.md is generated from the code (tests/test_requirements_page.py).
PAGES = [README, *sorted(p for p in DOCS.glob("*.md") if p.name != requirements.DOCS_PAGE)]
PLACEHOLDERS = re.compile(r"REPOSITORY-URL|TODO|TBD|XXX|FIXME|\bTEST_MINUTES\b|lorem ipsum",
                          re.IGNORECASE)
# A measurement of its day, not a claim of today:
PAST = re.compile(r"at commit [0-9a-f]{7}", re.IGNORECASE)


def paragraphs(page: Path) -> list[str]:
    return re.split(r"\n\s*\n", page.read_text(encoding="utf-8"))


def counts() -> dict[str, int]:
    catalogue = requirements.catalogue().values()
    found = {level: sum(r.level == level for r in catalogue) for level in requirements.LEVELS}
    return found | {"requirements": len(catalogue), "operations": len(spec.operations()),
                    "faults": len(FAULTS), "conformant variants": len(CONFORMANT)}


# A count the docs may state, and the code's value it must equal.
CLAIMS = {
    r"\b(\d+) [*_]?(?:catalogued )?faults\b": "faults",
    r"\b(\d+) [*_]?conformant variants\b": "conformant variants",
    r"\b(\d+) operations\b": "operations",
    r"\b(\d+) requirements\b": "requirements",
    r"\b(\d+) MUST\b(?!\s*:)": "MUST",
    r"\b(\d+)/\d+ MUST\b": "MUST",
    r"\b\d+/(\d+) MUST\b": "MUST",
    r"\b(\d+) SHOULD\b": "SHOULD",
    r"\b(\d+) INFO\b": "INFO",
}


def test_the_readme_is_short_and_keeps_the_commands_ci_runs():
    """Under 200 lines; the run command and the test command (.ci/run extracts the latter)
    each in a sh block right after its marker."""
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) < 200
    for marker in ("<!-- run-command -->", "<!-- test-command -->"):
        assert re.search(re.escape(marker) + r"\n```sh\npython3 -m venv .venv && ", text), marker


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_count_stated_is_the_code_s(page):
    """Counts of requirements (by level), operations, faults and conformant variants are
    today's, but in a paragraph that says at which commit it was measured."""
    today, wrong = counts(), []
    for paragraph in paragraphs(page):
        if PAST.search(paragraph):
            continue
        flat = " ".join(paragraph.split())
        for pattern, what in CLAIMS.items():
            wrong += [f"{m[0]!r} (today {today[what]} {what})" for m in
                      re.finditer(pattern, flat) if int(m[1]) != today[what]]
    assert not wrong, f"{page.name}: {wrong}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_the_default_seed_and_the_exit_codes_are_the_code_s(page):
    """A default seed stated is boardcert.settings.budget's; the exit codes page lists every
    code."""
    text = " ".join(page.read_text(encoding="utf-8").split())
    assert all(int(s) == DEFAULT_SEED for s in re.findall(r"default (?:seed )?(\d{5,})", text))
    if page.name == "exit-codes.md":
        assert all(f"| {code} |" in text or f"exit {code}" in text for code in EXIT_CODES)


def command_lines(page: Path) -> list[str]:
    """Every `boardcert ...` command the page shows: a line of a sh, bash or yaml code block
    (continued lines joined), or an inline code span that starts with it."""
    lines, spans, fence = [], [], None
    for line in page.read_text(encoding="utf-8").replace("\\\n", " ").splitlines():
        if line.lstrip().startswith("```"):
            fence = None if fence is not None else line.strip().removeprefix("```")
        elif fence in ("sh", "bash", "yaml", "console"):
            lines.append(line)
        elif fence is None:
            spans += re.findall(r"`([^`]+)`", line)
    found = [m[1] for line in lines if (m := re.search(r"(?:^|[\s/])(boardcert [a-z].*)", line))]
    return found + [span for span in spans if span.startswith("boardcert ")]


def subparsers() -> dict[str, object]:
    return cli.build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_flag_shown_is_one_the_command_takes(page):
    """In `boardcert COMMAND ...` the command exists and each flag before `--` is one of its
    own (pytest's come after `--`)."""
    commands, wrong = subparsers(), []
    for line in command_lines(page):
        line = re.split(r"\s(?:\|\||&&|\||;|#|>)\s|\s--(?:\s|$)", line)[0]
        try:
            words = shlex.split(line)
        except ValueError:
            words = line.split()
        if len(words) < 2 or not re.fullmatch(r"[a-z]+", words[1]):
            continue
        command = commands.get(words[1])
        if command is None:
            wrong.append(f"no command: {line}")
            continue
        known = {flag for action in command._actions for flag in action.option_strings}
        wrong += [f"{flag} in: {line}" for word in words[2:] if word.startswith("-")
                  and (flag := word.split("=", 1)[0]) not in known]
    assert not wrong, f"{page.name}: {wrong}"


@pytest.mark.parametrize("page", [*PAGES, DOCS / requirements.DOCS_PAGE], ids=lambda p: p.name)
def test_every_link_between_the_pages_resolves(page):
    """A relative link names a file of the repository, and its #anchor a heading there."""
    text = page.read_text(encoding="utf-8")
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists() or (anchor and file.suffix == ".md"
                                 and anchor not in headings(file)):
            broken.append(target)
    assert not broken, f"{page.name}: {broken}"


def headings(page: Path) -> set[str]:
    """The anchors GitHub gives a page's headings."""
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
            for h in re.findall(r"^#+ (.+)$", page.read_text(encoding="utf-8"), re.MULTILINE)}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_no_placeholder_is_left(page):
    """No REPOSITORY-URL, TODO or figure left to fill in."""
    assert not PLACEHOLDERS.findall(page.read_text(encoding="utf-8"))


def test_the_time_of_a_default_run_is_the_one_run_help_gives():
    """The seconds the README gives a run against the bundled server at the default budget are
    those `boardcert run --help` gives the default budget (its figure, measured there)."""
    shown = " ".join(subparsers()["run"].format_help().split())  # type: ignore[attr-defined]
    default = re.search(r"\(default (\w+)\)", shown[shown.index("--budget"):])[1]
    cost = re.search(rf"{default}: [^()]*\(about [\d,]+ requests, (\d+) s\b", shown)
    said = re.search(r"about (\d+) s against the bundled one at the default budget",
                     " ".join(README.read_text(encoding="utf-8").split()))
    assert cost and said and said[1] == cost[1], (said, cost)
