"""Running the reference server: in this process (`serve`) or in a child process (`start`, or
`launch` now and `RunningServer.wait_until_up` later). Starting a child imports neither
uvicorn nor the app: a suite that starts one does not pay for them."""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import IO

API_KEY_ENV = "BOARDCERT_REFERENCE_API_KEY"
_PACKAGE_ROOT = Path(__file__).resolve().parents[2]  # the directory holding boardcert/
_STOP_GRACE_SECONDS = 5.0
# A free port is free when picked, not always when the child binds it (another process on the
# machine may take it in between): a child that found it taken is started on another.
PORT_ATTEMPTS = 3


def serve(host: str = "127.0.0.1", port: int = 8080, api_key: str | None = None) -> None:
    """Serve until interrupted; without a key, take it from the environment or make one.
    uvicorn picks httptools and uvloop (dependencies): 0.13 ms of the server's CPU a request
    where h11 and asyncio took 0.22 ms."""
    if api_key is None:
        api_key = os.environ.get(API_KEY_ENV)
    if not api_key:
        api_key = secrets.token_urlsafe(24)
        print(f"API key: {api_key}", flush=True)
    import uvicorn

    from boardcert.reference.app import create_app

    uvicorn.run(
        create_app(api_key),
        host=host,
        port=port,
        log_level="warning",
        access_log=False,
        timeout_graceful_shutdown=2,
    )


class RunningServer:
    """A reference server in a child process; `stop()` (or leaving the `with`) ends it."""

    def __init__(self, process: subprocess.Popen[bytes], base_url: str, stderr: IO[bytes],
                 again: Callable[[], RunningServer] | None = None) -> None:
        self._process = process
        self._stderr = stderr
        self.base_url = base_url
        self.pid = process.pid
        self._again = again  # the same server on another free port (the port was ours to pick)

    def stop(self, grace: float = _STOP_GRACE_SECONDS) -> None:
        """Send SIGTERM, kill after `grace` seconds (at once for 0: a server whose state
        nobody reads again need not shut down in order, which takes uvicorn 0.2 s), and wait
        for the child to end."""
        if self._process.poll() is None:
            if grace > 0:
                self._process.send_signal(signal.SIGTERM)
            try:
                self._process.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self._stderr.close()

    def wait_until_up(self, api_key: str, timeout: float = 10.0) -> RunningServer:
        """Return once the server answers GET /users/me with this key; stopped and a
        RuntimeError if it exits or stays silent for `timeout` seconds."""
        for attempt in range(1, PORT_ATTEMPTS + 1):
            try:
                _wait_until_up(self, self._process, api_key, timeout)
                return self
            except BaseException:
                taken = self._port_taken()
                self.stop()
                if not taken or self._again is None or attempt == PORT_ATTEMPTS:
                    raise
            other = self._again()  # another process took the free port first: pick again
            self._process, self._stderr, self.base_url = other._process, other._stderr, \
                other.base_url
            self.pid = other.pid
        return self

    def _port_taken(self) -> bool:
        """Whether the child exited because its port was taken meanwhile."""
        return self._process.poll() is not None and \
            "address already in use" in self.stderr_text().lower()

    def stderr_text(self) -> str:
        """What the child wrote on stderr so far."""
        if self._stderr.closed:
            return ""
        self._stderr.seek(0)
        return self._stderr.read().decode("utf-8", "replace")

    def __enter__(self) -> RunningServer:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"<RunningServer pid={self.pid} {self.base_url}>"


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that nothing listens on right now."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def start(
    api_key: str, host: str = "127.0.0.1", port: int | None = None, timeout: float = 10.0
) -> RunningServer:
    """Start the server in a child process and return once it answers with this key."""
    return launch(api_key, host, port).wait_until_up(api_key, timeout)


def launch(api_key: str, host: str = "127.0.0.1", port: int | None = None) -> RunningServer:
    """Start the server in a child process and return at once (it answers within a second or
    so: `wait_until_up`)."""
    if not api_key:
        raise ValueError("the API key must not be empty")
    again = (lambda: launch(api_key, host)) if port is None else None
    port = free_port(host) if port is None else port
    env = dict(os.environ)
    env[API_KEY_ENV] = api_key  # never on argv, where other users can read it
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(_PACKAGE_ROOT), env.get("PYTHONPATH")]))
    command = [sys.executable, "-m", "boardcert.reference", "--host", host, "--port", str(port)]
    stderr = tempfile.TemporaryFile()  # noqa: SIM115 - the RunningServer owns and closes it
    process = subprocess.Popen(
        command, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr
    )
    return RunningServer(process, f"http://{_url_host(host)}:{port}", stderr, again)


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def _wait_until_up(
    server: RunningServer, process: subprocess.Popen[bytes], api_key: str, timeout: float
) -> None:
    import httpx  # here, not at the top: the server's own process never needs it

    deadline = time.monotonic() + timeout
    # Plain HTTP to the child on loopback: no TLS context (loading certifi's took 18 ms of
    # CPU a run) and no proxy from the environment (the child is on this machine).
    with httpx.Client(base_url=server.base_url, headers={"X-API-Key": api_key},
                      verify=False, trust_env=False) as client:
        while True:
            if process.poll() is not None:
                raise RuntimeError(
                    f"the reference server exited with status {process.returncode} "
                    f"before answering on {server.base_url}:\n{server.stderr_text()}"
                )
            try:
                if client.get("/users/me", timeout=1.0).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"the reference server did not answer on {server.base_url} within "
                    f"{timeout} s:\n{server.stderr_text()}"
                )
            time.sleep(0.05)
