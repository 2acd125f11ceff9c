"""The `boardcert` command: run, serve, requirements."""

from __future__ import annotations

import argparse
import os
import sys

from boardcert import __version__, requirements
from boardcert.paths import ROOT, SUITES

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_UNREACHABLE = 0, 1, 2, 3


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    extra: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, extra = argv[:cut], argv[cut + 1:]
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return EXIT_USAGE
    return args.command(args, extra)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="boardcert", description="Certify a Board Project "
                                     "Service Interface server.")
    parser.add_argument("--version", action="version", version=f"boardcert {__version__}")
    sub = parser.add_subparsers()

    run = sub.add_parser("run", help="run the conformance suites against a server")
    run.add_argument("--base-url", help="server under test (default: the bundled reference "
                     "server, started on a free loopback port)")
    run.add_argument("--api-key", help="X-API-Key value (or env BOARDCERT_API_KEY)")
    run.add_argument("--profile", help="implementation profile YAML")
    run.add_argument("--budget", help="schemathesis budget: quick, standard, thorough or N")
    run.set_defaults(command=cmd_run)

    serve = sub.add_parser("serve", help="serve the bundled reference server")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8080)
    serve.add_argument("--api-key", help="key to demand (default: env "
                       "BOARDCERT_REFERENCE_API_KEY, else a generated one, printed)")
    serve.set_defaults(command=cmd_serve)

    reqs = sub.add_parser("requirements", help="list the requirement catalogue")
    reqs.add_argument("--level", choices=requirements.LEVELS)
    reqs.set_defaults(command=cmd_requirements)
    return parser


def cmd_run(args: argparse.Namespace, extra: list[str]) -> int:
    import pytest

    pytest_args = [str(SUITES), "-p", "no:cacheprovider", "--rootdir", str(ROOT)]
    for flag in ("base_url", "profile", "budget"):
        value = getattr(args, flag)
        if value:
            pytest_args += [f"--{flag.replace('_', '-')}", value]
    if args.api_key:
        os.environ["BOARDCERT_API_KEY"] = args.api_key  # never on a command line
    code = pytest.main(pytest_args + extra)
    if code == pytest.ExitCode.USAGE_ERROR:
        return EXIT_USAGE
    if code == EXIT_UNREACHABLE:
        return EXIT_UNREACHABLE
    return EXIT_OK if code == pytest.ExitCode.OK else EXIT_FAILED


def cmd_serve(args: argparse.Namespace, extra: list[str]) -> int:
    from boardcert.reference.__main__ import main as serve_main

    argv = ["--host", args.host, "--port", str(args.port)]
    if args.api_key:
        argv += ["--api-key", args.api_key]
    return serve_main(argv)


def cmd_requirements(args: argparse.Namespace, extra: list[str]) -> int:
    for req in requirements.catalogue().values():
        if args.level and req.level != args.level:
            continue
        ops = ",".join(map(str, req.operations))
        print(f"{req.id:32} {req.level:6} §{req.section:5} ops {ops:20.20} {req.title}")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
