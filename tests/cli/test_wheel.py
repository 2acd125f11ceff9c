"""Installed like any tool: the wheel carries spec/, suites/ and the profiles, and the installed
`boardcert run` certifies the bundled server from an empty directory."""

from __future__ import annotations

import json
import os
import re
import shutil
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from boardcert.paths import ROOT

pytestmark = pytest.mark.xdist_group("test_wheel")  # one worker makes the module's runs

# What a source distribution holds (MANIFEST.in); the build runs on a copy, so the checkout
# gets no build/ or *.egg-info of the test's making.
SOURCES = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "boardcert", "spec",
           "suites", "docs")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel `pip install .` would build, from a copy of the sources."""
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"
    shutil.copytree(ROOT, source, ignore=lambda folder, names: [
        n for n in names if Path(folder) == ROOT and n not in SOURCES or n == "__pycache__"])
    pip(["wheel", "--no-deps", "-w", str(work / "dist"), str(source)])
    (found,) = (work / "dist").glob("boardcert-*.whl")
    return found


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    """A fresh venv with the wheel installed; its dependencies are this venv's (no download)."""
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    purelib = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path("
                              "'purelib'))"], check=True, capture_output=True, text=True)
    # Only this venv's plain site-packages paths: their .pth files (the editable checkout's
    # import hook among them) are not run, so `boardcert` can only come from the wheel.
    Path(purelib.stdout.strip(), "dependencies.pth").write_text(
        "\n".join(site.getsitepackages()) + "\n")
    pip(["--python", str(python), "install", "--no-deps", "--no-index", str(wheel)])
    return venv


def pip(args: list[str]) -> None:
    result = subprocess.run([sys.executable, "-m", "pip", "-q", *args], capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_wheel_carries_spec_suites_and_profiles(wheel):
    """The wheel holds the interface's facts, every suite, the reference profile,
    docs/requirements.md and docs/policy.md."""
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {f"boardcert/data/{p.relative_to(ROOT).as_posix()}"
                for folder in ("spec", "suites") for p in (ROOT / folder).rglob("*")
                if p.is_file() and "__pycache__" not in p.parts}
    assert "boardcert/data/spec/profiles/reference.yaml" in expected
    expected.add("boardcert/data/docs/requirements.md")  # the reports point at its entries
    expected.add("boardcert/data/docs/policy.md")  # and at the policy's paragraphs
    assert expected <= names, sorted(expected - names)
    assert "boardcert/run.ini" in names


def test_the_sigstore_extra_installs_from_the_clone_and_from_the_wheel(wheel):
    """docs/certificate.md installs the optional extra from a clone (`'.[sigstore]'`) or a
    wheel built from it (`'dist/boardcert-*.whl[sigstore]'`), never `boardcert[sigstore]` by
    name from a public registry: both forms resolve here (a dry run; sigstore is this venv's)."""
    source = wheel.parent.parent / "source"
    for where, requirement in ((source, ".[sigstore]"), (wheel.parent.parent,
                                                         f"dist/{wheel.name}[sigstore]")):
        done = subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "-q",
                               "--report", "-", requirement], cwd=where, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        installs = {i["metadata"]["name"] for i in json.loads(done.stdout)["install"]}
        assert installs == {"boardcert"}, installs  # sigstore: already here
    text = (ROOT / "docs" / "certificate.md").read_text(encoding="utf-8")
    assert "pip install '.[sigstore]'" in text and "[sigstore]'`" in text
    for page in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]:
        assert not re.search(r"pip install ['\"]?boardcert\b", page.read_text(encoding="utf-8")), \
            page.name  # by name: whatever a public registry holds under it


def test_the_installed_tool_certifies_the_bundled_server_from_an_empty_directory(
        installed, tmp_path):
    """`boardcert run --budget quick` from an empty directory: the installed suites (not the
    checkout's) certify the bundled server conformant, reports in ./reports."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("BOARDCERT_", "PYTHON", "PYTEST"))}
    where = subprocess.run([installed / "bin" / "python", "-c",
                            "import boardcert.paths as p; print(p.SUITES)"], env=env,
                           capture_output=True, text=True, cwd=tmp_path)
    assert Path(where.stdout.strip()).is_relative_to(installed), where.stdout + where.stderr
    result = subprocess.run([installed / "bin" / "boardcert", "run", "--budget", "quick"],
                            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-3000:]
    assert "boardcert: CONFORMANT" in result.stdout
    assert "PytestAssertRewriteWarning" not in output
    modules = [line.split()[0] for line in result.stdout.splitlines() if ".py " in line]
    assert "suites/test_cards.py" in modules, result.stdout[:3000]  # from the package's root
    assert all(m.startswith("suites/") for m in modules), modules  # no ../lib/python3.x/...
    (found,) = (tmp_path / "reports").glob("*/compliance.json")
    assert json.loads(found.read_text())["verdict"] == "conformant"


def test_the_installed_tool_prints_a_requirement_s_entry(installed, tmp_path):
    """`boardcert requirements ID` reads the wheel's docs/requirements.md."""
    result = subprocess.run([installed / "bin" / "boardcert", "requirements", "CARD-NAME-STRING"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("## CARD-NAME-STRING\n") and "Tests" in result.stdout


def test_the_installed_tool_judges_a_client(installed, tmp_path):
    """`boardcert serve --client-report DIR`, installed: its templates and client rules come
    from the wheel; stopped by SIGTERM it writes the client report (here: a former path,
    incompatible, exit 1)."""
    import signal
    import time

    import httpx

    from boardcert.reference.server import free_port

    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("BOARDCERT_", "PYTHON", "PYTEST"))}
    port = free_port()
    process = subprocess.Popen([installed / "bin" / "boardcert", "serve", "--port", str(port),
                                "--api-key", "wheel-key-123", "--client-report", "out"],
                               cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                httpx.post(f"{url}/projects/1/row", json={"name": "r"},
                           headers={"X-API-Key": "wheel-key-123"}, timeout=1)
                break
            except httpx.TransportError:
                time.sleep(0.1)
    finally:
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=60)
    assert process.returncode == 1, out + err
    report = json.loads((tmp_path / "out" / "client-compatibility.json").read_text())
    assert report["verdict"] == "incompatible"
    assert (tmp_path / "out" / "client-compatibility.html").read_text().startswith("<!DOCTYPE")
