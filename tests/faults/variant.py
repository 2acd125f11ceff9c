"""A variant of the reference server: the app wrapped in one handler, and what it is for."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from boardcert.reference.app import create_app

from .asgi import ASGIApp, Forward, Handler, Intercept, Request, Response

PROFILES = Path(__file__).parent / "profiles"


@dataclass(frozen=True)
class Variant:
    """A fault (breaks `requirement`) or a conformant variant (`requirement` is None)."""

    name: str
    description: str
    requirement: str | None
    make: Callable[[str], Handler]  # the API key -> the handler in front of the reference app
    profile: str | None = None  # a file of tests/faults/profiles/, else the default profile
    args: tuple[str, ...] = ()  # more pytest arguments for its certification (--in-flight 8)

    def app(self, api_key: str) -> ASGIApp:
        return Intercept(create_app(api_key), self.make(api_key))

    @property
    def profile_path(self) -> Path | None:
        return PROFILES / self.profile if self.profile else None

    def __repr__(self) -> str:
        return f"<Variant {self.name} ({self.requirement or 'conformant'})>"


def fault(name: str, requirement: str, description: str, handler: Handler) -> Variant:
    return Variant(name, description, requirement, lambda _key: handler)


def keyed_fault(name: str, requirement: str, description: str,
                make: Callable[[str], Handler]) -> Variant:
    """A fault whose handler needs the valid API key (auth bugs)."""
    return Variant(name, description, requirement, make)


def combined(name: str, *variants: Variant) -> Variant:
    """Several faults at once: each handler in front of the next, the first outermost."""

    def make(api_key: str) -> Handler:
        handlers = [v.make(api_key) for v in variants]

        def chain(handler: Handler, forward: Forward) -> Forward:
            return lambda request: handler(request, forward)

        async def handle(request: Request, forward: Forward) -> Response:
            for handler in reversed(handlers[1:]):
                forward = chain(handler, forward)
            return await handlers[0](request, forward)
        return handle
    return Variant(name, ", ".join(v.name for v in variants), None, make)
