"""Running hostile servers on free loopback ports, each in a thread, and stopping them."""

from __future__ import annotations

import functools
import socket
import threading
import time
from collections.abc import Callable
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any

import uvicorn

from boardcert.reference.server import free_port

RawHandler = Callable[[socket.socket, bytes, threading.Event], None]


class Servers:
    """Starts servers on free ports; leaving the `with` stops every one of them."""

    def __init__(self) -> None:
        self._stops: dict[str, Callable[[], None]] = {}  # base URL: how to stop it

    def __enter__(self) -> Servers:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        for url in reversed(list(self._stops)):
            self.stop(url)

    def stop(self, url: str) -> None:
        """Stop one server now (it refuses connections from then on)."""
        self._stops.pop(url, lambda: None)()

    def asgi(self, app: Any) -> str:
        """Serve an ASGI app with uvicorn in a thread; its base URL."""
        port = free_port()
        server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                               log_level="critical", access_log=False,
                                               timeout_graceful_shutdown=1))
        thread = threading.Thread(target=server.run, name=f"asgi-{port}", daemon=True)
        thread.start()
        deadline = time.monotonic() + 10
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"uvicorn did not start on port {port}")
            time.sleep(0.01)

        def stop() -> None:
            server.should_exit = True
            thread.join(timeout=5)
        self._stops[f"http://127.0.0.1:{port}"] = stop
        return f"http://127.0.0.1:{port}"

    def raw(self, handler: RawHandler, body: bool = True) -> str:
        """Serve raw TCP: each connection's request (head and body; the head alone without
        `body`, the body left unread) goes to `handler(conn, request, stopping)`, in a thread
        of its own; its base URL."""
        listener = socket.create_server(("127.0.0.1", 0))
        listener.settimeout(0.05)
        port = listener.getsockname()[1]
        stopping = threading.Event()
        threads: list[threading.Thread] = []

        def accept() -> None:
            while not stopping.is_set():
                try:
                    conn, _ = listener.accept()
                except TimeoutError:
                    continue
                except OSError:
                    return
                worker = threading.Thread(target=_connection,
                                          args=(conn, handler, stopping, body), daemon=True)
                threads.append(worker)
                worker.start()

        acceptor = threading.Thread(target=accept, name=f"raw-{port}", daemon=True)
        acceptor.start()

        def stop() -> None:
            stopping.set()
            acceptor.join(timeout=5)
            listener.close()
            for worker in threads:
                worker.join(timeout=5)
        self._stops[f"http://127.0.0.1:{port}"] = stop
        return f"http://127.0.0.1:{port}"

    def static(self, directory: Path) -> str:
        """`python3 -m http.server` serving `directory`: HTML (and 404 pages) for all."""
        handler = functools.partial(_QuietFiles, directory=str(directory))
        server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()

        def stop() -> None:
            server.shutdown()
            server.server_close()
            thread.join(timeout=5)
        url = f"http://127.0.0.1:{server.server_address[1]}"
        self._stops[url] = stop
        return url

    def closed_port(self) -> str:
        """A base URL where nothing listens."""
        return f"http://127.0.0.1:{free_port()}"

    def listener(self) -> tuple[str, list[float]]:
        """A port that notes each connection and closes it; (base URL, connection times)."""
        seen: list[float] = []

        def note(conn: socket.socket, request: bytes, stopping: threading.Event) -> None:
            seen.append(time.monotonic())
        return self.raw(note), seen


class _QuietFiles(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def _connection(conn: socket.socket, handler: RawHandler, stopping: threading.Event,
                body: bool = True) -> None:
    with conn:
        conn.settimeout(5)
        try:
            request = read_request(conn, body)
            handler(conn, request, stopping)
        except OSError:
            pass


def read_request(conn: socket.socket, whole: bool = True) -> bytes:
    """One HTTP/1.1 request: the head, then as many body bytes as Content-Length says (none
    more than came with the head unless `whole`)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return data
        data += chunk
    if not whole:
        return data
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip() or 0)
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            break
        body += chunk
    return head + b"\r\n\r\n" + body
