"""Serve the independent server (app.py) by uvicorn in a process of its own on a free loopback
port: `with start(key) as server: server.base_url`. Run as a script it is that process."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

KEY_ENV = "INDEPENDENT_API_KEY"
HERE = Path(__file__).resolve().parent


@dataclass
class Running:
    """A started server: where it listens, its process id, and how to stop it."""

    base_url: str
    process: subprocess.Popen[str]

    @property
    def pid(self) -> int:
        return self.process.pid

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        if self.process.stdout:
            self.process.stdout.close()

    def __enter__(self) -> Running:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.stop()


def start(api_key: str, timeout: float = 30) -> Running:
    """Start the server demanding `api_key` (passed by environment, never on a command line)."""
    env = {**os.environ, KEY_ENV: api_key, "PYTHONPATH": str(HERE.parent)}
    process = subprocess.Popen([sys.executable, "-m", "independent.server"], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    running = Running("", process)
    assert process.stdout is not None
    line = process.stdout.readline().strip()  # the child prints its port once it listens
    if not line.isdigit():
        running.stop()
        raise RuntimeError(f"the independent server did not start (it said {line!r})")
    running.base_url = f"http://127.0.0.1:{line}"
    return running


def main() -> None:
    """Bind a free loopback port, print it, serve until SIGINT."""
    import uvicorn

    from independent.app import create_app

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    config = uvicorn.Config(create_app(os.environ.pop(KEY_ENV)), log_level="critical",
                            access_log=False, lifespan="off")
    server = uvicorn.Server(config)
    print(sock.getsockname()[1], flush=True)
    server.run(sockets=[sock])


if __name__ == "__main__":
    main()
