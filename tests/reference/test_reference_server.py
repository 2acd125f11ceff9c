"""Starting, stopping and isolating the reference server."""

from __future__ import annotations

import ast
import os
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
import uvicorn

from boardcert.reference import __main__ as entry
from boardcert.reference import app as app_module
from boardcert.reference import server as server_module
from boardcert.reference.server import API_KEY_ENV, start

PACKAGE = Path(server_module.__file__).parent


def test_start_and_stop() -> None:
    """start() answers on a free port with the key; stop() ends the child process."""
    with start("another-key") as running:
        assert running.base_url.startswith("http://127.0.0.1:")
        response = httpx.get(f"{running.base_url}/users/me", headers={"X-API-Key": "another-key"})
        assert response.status_code == 200
        pid = running.pid
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    running.stop()  # a second stop is harmless


def test_start_reports_a_dead_child() -> None:
    """A child that cannot bind its port makes start() raise with the child's stderr."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        port = taken.getsockname()[1]
        with pytest.raises(RuntimeError, match="exited") as failure:
            start("k", port=port, timeout=10)
    assert "address already in use" in str(failure.value).lower()


def test_a_free_port_taken_before_the_child_binds_it_is_picked_again(monkeypatch) -> None:
    """The port start() picks is free when picked; another process may take it before the
    child binds it. Then the child exits (address in use) and start() picks another free port
    and answers there, its base URL and pid those of the second child. A port given is not
    changed: start() on a taken one raises (test_start_reports_a_dead_child)."""
    picked = []
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        first = taken.getsockname()[1]
        real = server_module.free_port

        def racing(host: str = "127.0.0.1") -> int:
            picked.append(first if not picked else real(host))
            return picked[-1]

        monkeypatch.setattr(server_module, "free_port", racing)
        with start("a-key") as running:
            assert running.base_url == f"http://127.0.0.1:{picked[1]}" != \
                f"http://127.0.0.1:{first}"
            assert httpx.get(f"{running.base_url}/users/me",
                             headers={"X-API-Key": "a-key"}).status_code == 200
            pid = running.pid
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    assert len(picked) == 2


def test_key_not_on_the_command_line(server, api_key: str) -> None:
    """The child receives the key through its environment, never on argv."""
    cmdline = Path(f"/proc/{server.pid}/cmdline")
    if not cmdline.exists():
        pytest.skip("no /proc to read the child's command line from")
    assert api_key.encode() not in cmdline.read_bytes()
    assert b"boardcert.reference" in cmdline.read_bytes()


def test_main_passes_arguments_to_serve(monkeypatch: pytest.MonkeyPatch) -> None:
    """python -m boardcert.reference --host --port --api-key reaches serve()."""
    seen: list[tuple] = []
    monkeypatch.setattr(entry, "serve", lambda **kwargs: seen.append(tuple(kwargs.values())))
    assert entry.main(["--host", "0.0.0.0", "--port", "9001", "--api-key", "k"]) == 0
    assert entry.main([]) == 0
    assert seen == [("0.0.0.0", 9001, "k"), ("127.0.0.1", 8080, None)]


def test_serve_chooses_the_key(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """serve() takes the key given, else the environment's, else a generated one it prints."""
    keys: list[str] = []
    monkeypatch.setattr(app_module, "create_app", keys.append)
    monkeypatch.setattr(uvicorn, "run", lambda app, **options: None)
    server_module.serve(api_key="given")
    monkeypatch.setenv(API_KEY_ENV, "from-env")
    server_module.serve()
    assert capsys.readouterr().out == ""
    monkeypatch.delenv(API_KEY_ENV)
    server_module.serve()
    assert keys[:2] == ["given", "from-env"]
    assert capsys.readouterr().out == f"API key: {keys[2]}\n" and len(keys[2]) >= 20


def test_the_server_process_does_not_import_httpx() -> None:
    """What the server's own process imports (its command, uvicorn, the app) leaves httpx out:
    only the suite's side, waiting for it, sends requests (httpx took 40 ms of the child's
    start-up CPU)."""
    code = ("import sys, uvicorn, boardcert.reference.__main__, boardcert.reference.app; "
            "print(sorted(m for m, found in sys.modules.items() if found is not None "
            "and m.split('.')[0] in ('httpx', 'httpcore')))")  # None: not imported (boardcert)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, cwd=PACKAGE.parents[1])
    assert done.stdout.strip() == "[]"


def test_reference_imports_nothing_from_the_suite() -> None:
    """boardcert/reference imports only itself from boardcert."""
    for module in PACKAGE.glob("*.py"):
        for node in ast.walk(ast.parse(module.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""] if node.level == 0 else ["boardcert.reference"]
            for name in names:
                if name == "boardcert" or name.startswith("boardcert."):
                    assert name.startswith("boardcert.reference"), (module.name, name)
