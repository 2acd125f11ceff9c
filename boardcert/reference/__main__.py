"""`python -m boardcert.reference [--host H] [--port N] [--api-key KEY]`: serve in foreground."""

from __future__ import annotations

import argparse

from boardcert.reference.server import API_KEY_ENV, serve


def build_parser() -> argparse.ArgumentParser:
    """The command line of the reference server."""
    parser = argparse.ArgumentParser(
        prog="python -m boardcert.reference",
        description="Serve the in-memory Board Project Service reference server.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address (default: %(default)s)")
    parser.add_argument("--port", type=int, default=8080, help="port (default: %(default)s)")
    parser.add_argument(
        "--api-key",
        default=None,
        help=f"the X-API-Key to demand (default: ${API_KEY_ENV}, else a generated one, printed)",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments and serve until interrupted."""
    args = build_parser().parse_args(argv)
    serve(host=args.host, port=args.port, api_key=args.api_key)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
