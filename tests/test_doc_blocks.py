"""Every shell and Python block of docs/ that a user is told to run is run here, as it stands:
a block is marked `<!-- doc-test: NAME -->` (run by the runner NAME below, with only its
placeholders filled: URL, `https://board.example`, `...` for a run's options; and runs at the
quick budget), `<!-- NAME -->` (another test module finds it by that marker and runs it) or
`<!-- not run: why -->` (another tool, a synopsis, a benchmark of tens of minutes). A block
with no marker, a marker with no runner, or a runner with no block fails the test."""

from __future__ import annotations

import base64
import json
import os
import re
import secrets
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from faults import FAULTS, serving

from boardcert.outputs import dsse, statements
from boardcert.outputs.bundle import load_private_key
from boardcert.paths import ROOT
from boardcert.reference.server import start

DOCS = ROOT / "docs"
KEY = "docs-" + secrets.token_urlsafe(16)
BLOCK = re.compile(r"(?:^<!-- (doc-test: [\w-]+|not run: [^\n]+?|[\w-]+) -->\n)?"
                   r"^```(sh|python)\n(.*?)^```", re.MULTILINE | re.DOTALL)
SUBJECT_SHA = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    marker: str  # "doc-test: NAME", "not run: why" or ""
    language: str
    text: str

    @property
    def name(self) -> str | None:
        return self.marker.removeprefix("doc-test: ") if self.marker.startswith("doc-test") \
            else None


def blocks() -> list[Block]:
    """Every sh and python block of docs/ (docs/requirements.md is generated: none there)."""
    found = []
    for page in sorted(DOCS.glob("*.md")):
        text = page.read_text(encoding="utf-8")
        for m in BLOCK.finditer(text):
            found.append(Block(page.name, text[:m.start()].count("\n") + 1, m[1] or "", m[2],
                               m[3]))
    return found


def block(name: str) -> Block:
    (found,) = [b for b in blocks() if b.name == name]
    return found


def shell(text: str, cwd: Path, url: str = "", **fill: str) -> subprocess.CompletedProcess[str]:
    """A block run by bash (-e: its first failing line stops it) in `cwd`, with this venv's
    `boardcert` and `python3` first on the PATH and KEY set; URL and the example hosts are
    `url`; `fill` replaces more; runs get the quick budget."""
    if url:
        text = text.replace("https://board.example", url).replace("http://127.0.0.1:8080", url)
        text = re.sub(r"\bURL\b", url, text)
    for placeholder, value in fill.items():
        text = text.replace(placeholder, value)
    # the quick budget: what the blocks show is the same at any budget, in a third of the time
    text = re.sub(r"\b(boardcert run|pytest suites)\b(?! --budget)", r"\1 --budget quick", text)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("BOARDCERT_", "PYTEST_", "VIRTUAL_ENV"))}
    env |= {"KEY": KEY, "PATH": f"{Path(sys.executable).parent}:{env.get('PATH', '')}"}
    return subprocess.run(["bash", "-e", "-o", "pipefail", "-c", text], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """The reference server, demanding KEY: a server of the user's, as the docs say URL."""
    with start(api_key=KEY) as running:
        yield running.base_url


@pytest.fixture(scope="module")
def certified(server, tmp_path_factory) -> Path:
    """certificate.md's first block: a key pair, a signed run about a build, its check."""
    where = tmp_path_factory.mktemp("certified")
    done = shell(block("certify-signed").text, where, server)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "boardcert: CONFORMANT" in done.stdout and "intact" in done.stdout.lower()
    return where


def run_elsewhere(marker: str) -> bool:
    """A marker of a block another test module runs: it names the marker, quoted."""
    return re.fullmatch(r"[\w-]+", marker) is not None and any(
        re.search(rf"""["']{marker}["']|<!-- {marker} -->""", path.read_text(encoding="utf-8"))
        for path in (ROOT / "tests").rglob("test_*.py") if path.name != Path(__file__).name)


def test_every_block_is_run_or_says_why_not():
    """Each sh or python block of docs/ has a marker (doc-test, not run, or the name another
    test module finds it by); each doc-test names a runner here, and each runner a block."""
    found = blocks()
    assert not [f"{b.page}:{b.line}" for b in found if not b.marker or (
        not b.marker.startswith(("doc-test: ", "not run: ")) and not run_elsewhere(b.marker))]
    named = [b.name for b in found if b.name]
    assert len(named) == len(set(named))
    assert set(named) == set(RUNNERS)


def test_certify_signed(certified):
    """certificate.md: keygen, a signed run with --subject, verify: conformant, intact."""
    assert (certified / "out" / "certification.zip").is_file()
    assert (certified / "keys" / "boardcert-signing-key.pub.pem").is_file()


def snippet_checks(name: str, certified: Path, tmp_path: Path) -> None:
    """A verify snippet (saved as the page says) prints the result for the signed summary
    about the build and exits 0; exits 1 for a result other than PASSED; fails for a forged
    payload, another key and another digest."""
    script = tmp_path / "verify.py"
    script.write_text(block(name).text, encoding="utf-8")
    envelope = certified / "out" / "attestations" / "verification-summary.intoto.json"
    public = certified / "keys" / "boardcert-signing-key.pub.pem"

    def check(path: Path, key: Path = public, digest: str = SUBJECT_SHA, *flags: str):
        return subprocess.run([sys.executable, *flags, str(script), str(path), str(key), digest],
                              capture_output=True, text=True, timeout=60)

    for flags in ((), ("-O",)):  # the checks are no asserts: -O skips none of them
        good = check(envelope, public, SUBJECT_SHA, *flags)
        assert (good.returncode, good.stdout) == (0, f"{statements.VSA} PASSED\n"), good.stderr
        other = check(envelope, public, "0" * 64, *flags)
        assert other.returncode == 1 and "the subject differs" in other.stderr
    statement = json.loads(base64.b64decode(json.loads(envelope.read_text())["payload"]))
    statement["predicate"]["verificationResult"] = "FAILED"
    private = load_private_key(certified / "keys" / "boardcert-signing-key.pem")
    failed = tmp_path / "failed.intoto.json"
    failed.write_bytes(dsse.serialise(dsse.envelope(statements.serialise(statement), private)))
    refused = check(failed)
    assert (refused.returncode, refused.stdout) == (1, f"{statements.VSA} FAILED\n")
    forged = tmp_path / "forged.intoto.json"
    document = json.loads(envelope.read_text())
    document["payload"] = base64.b64encode(statements.serialise(statement)).decode()
    forged.write_bytes(dsse.serialise(document))
    assert refused_signature(check(forged))
    keys = tmp_path / "other"
    subprocess.run([sys.executable, "-m", "boardcert.cli", "keygen", str(keys)], check=True,
                   capture_output=True)
    assert refused_signature(check(envelope, keys / "boardcert-signing-key.pub.pem"))


def refused_signature(done: subprocess.CompletedProcess[str]) -> bool:
    """The snippet stopped on the signature (cryptography's or securesystemslib's error),
    printing no result."""
    return done.returncode != 0 and done.stdout == "" and any(
        error in done.stderr for error in ("InvalidSignature", "VerificationError"))


def test_verify_python(certified, tmp_path):
    """certificate.md's Python snippet (standard library plus cryptography)."""
    snippet_checks("verify-python", certified, tmp_path)


def test_verify_securesystemslib(certified, tmp_path):
    """certificate.md's securesystemslib snippet: the same checks."""
    pytest.importorskip("securesystemslib")
    snippet_checks("verify-securesystemslib", certified, tmp_path)


def test_bundle_signed(server, tmp_path):
    """bundle.md: keygen, a run with --bundle and --sign-key, verify: intact."""
    done = shell(block("bundle-signed").text, tmp_path, server)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert (tmp_path / "cert" / "certification.zip").is_file()


def test_certify_server(server, tmp_path):
    """cli.md: the run of a server at its URL, the key from $KEY: conformant, exit 0."""
    done = shell(block("certify-server").text, tmp_path, server)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "boardcert: CONFORMANT" in done.stdout


def test_profile_discover(server, tmp_path):
    """profile.md: what discovery finds, written as a profile."""
    done = shell(block("profile-discover").text, tmp_path, server)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "my-server.yaml").is_file() and KEY not in (
        tmp_path / "my-server.yaml").read_text()


def test_profile_write(server, tmp_path):
    """profile.md: a template, checked, shown merged, and a run with it."""
    done = shell(block("profile-write").text, tmp_path, server)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


def test_regressions(server, tmp_path):
    """regressions.md: a run against a baseline and one with known failures (`...`: the
    run's options), each exit 0: nothing got worse."""
    first = shell('boardcert run --base-url URL --api-key "$KEY" --output reports/last-release',
                  tmp_path, server)
    assert first.returncode == 0, first.stdout[-2000:] + first.stderr
    (tmp_path / "known-failures.txt").write_text("CARD-NAME-MAX-ASTRAL  # a reason\n")
    done = shell(block("regressions").text, tmp_path, server,
                 **{"...": f'--base-url {server} --api-key "$KEY"'})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


@pytest.fixture(scope="module")
def failed_run(tmp_path_factory) -> Iterator[tuple[Path, str]]:
    """A run against a server that does not rename cards: its report directory, the server
    still up (the reproduction sends its requests there)."""
    where = tmp_path_factory.mktemp("failed")
    variant = next(v for v in FAULTS if v.name == "card-rename-not-saved")
    with serving(variant, KEY) as url:
        done = shell(f'boardcert run --base-url {url} --api-key "$KEY" '
                     "--output reports/20261122T120000Z -- -m CARD-RENAME", where)
        assert done.returncode == 1, done.stdout[-3000:] + done.stderr
        yield where, url


def test_report_rebuild(failed_run):
    """reports.md: the reports rebuilt from the JSON; the same reports from plain pytest
    (against the bundled server, from the checkout)."""
    where, _ = failed_run
    (where / "reports/20261122T120000Z/compliance.md").unlink()
    text = block("report-rebuild").text
    rebuild, plain = text.splitlines()
    done = shell(rebuild, where)
    assert done.returncode == 0 and (where / "reports/20261122T120000Z/compliance.md").exists()
    out = where / "out"
    done = shell(plain.replace("out/", f"{out}/"), ROOT)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert (out / "compliance.json").is_file()


def test_reproduce_failure(failed_run):
    """reports.md: the failure's script and `boardcert reproduce`, each exit 1 while the
    server still fails (the script reads the key from the environment)."""
    where, _ = failed_run
    done = shell(block("reproduce-failure").text, where)
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr
    assert done.stdout.count("REPRODUCED: the failure is still there") == 1  # bash -e: first
    lines = block("reproduce-failure").text.splitlines()
    second = shell("\n".join([lines[0], lines[2]]), where)
    assert second.returncode == 1 and "REPRODUCED" in second.stdout, second.stdout


RUNNERS: dict[str, Callable[..., None]] = {
    "certify-signed": test_certify_signed,
    "verify-python": test_verify_python,
    "verify-securesystemslib": test_verify_securesystemslib,
    "bundle-signed": test_bundle_signed,
    "certify-server": test_certify_server,
    "profile-discover": test_profile_discover,
    "profile-write": test_profile_write,
    "regressions": test_regressions,
    "report-rebuild": test_report_rebuild,
    "reproduce-failure": test_reproduce_failure,
}
