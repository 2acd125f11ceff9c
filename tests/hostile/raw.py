"""Raw-socket misbehaviour, for `Servers.raw`: what no well-behaved HTTP server library does."""

from __future__ import annotations

import socket
import struct
import threading

JSON_HEAD = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
             b"Content-Length: %d\r\n\r\n")


def truncated(conn: socket.socket, request: bytes, stopping: threading.Event) -> None:
    """Promises 100 bytes (Content-Length), sends 13, closes."""
    conn.sendall(JSON_HEAD % 100 + b'{"rows": [1, ')


def reset(conn: socket.socket, request: bytes, stopping: threading.Event) -> None:
    """Resets the connection (RST) once the request is read."""
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


def hang(conn: socket.socket, request: bytes, stopping: threading.Event) -> None:
    """Reads the request and never answers (until the server stops)."""
    stopping.wait()


def hang_after_headers(conn: socket.socket, request: bytes, stopping: threading.Event) -> None:
    """Sends the status line and headers, then nothing."""
    conn.sendall(JSON_HEAD % 20)
    stopping.wait()


def trickle(conn: socket.socket, request: bytes, stopping: threading.Event) -> None:
    """Sends a long body one byte per 50 ms: each read is quick, the whole never ends."""
    conn.sendall(JSON_HEAD % 1000)
    while not stopping.wait(0.05):
        conn.sendall(b" ")


def not_http(conn: socket.socket, request: bytes, stopping: threading.Event) -> None:
    """Answers something that is not HTTP."""
    conn.sendall(b"SSH-2.0-OpenSSH_9.6\r\n")


def silent_close(conn: socket.socket, request: bytes, stopping: threading.Event) -> None:
    """Closes the connection without a word."""
