"""`boardcert serve --client-report/--vary` and `boardcert proxy`: run until Ctrl-C or SIGTERM,
then say the verdicts of the reports written (boardcert.traffic) and exit by them: 1 for an
incompatible client (or, with --strict, one with warnings) and, for the proxy, for a server
that failed a MUST requirement in the traffic (a SHOULD too with --strict); else 0."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from boardcert.cli.exits import EXIT_FAILED, EXIT_OK, EXIT_USAGE, error
from boardcert.errors import ConfigError
from boardcert.settings.config import check_base_url

if TYPE_CHECKING:
    from boardcert.traffic.reports import Written


def serve_judged(args: argparse.Namespace) -> int:
    from boardcert.traffic import serve, vary

    choices = None
    if args.vary is not None:
        choices = vary.choose(vary.new_seed() if args.vary < 0 else args.vary)
    directory = Path(args.client_report) if args.client_report else None
    written = serve.serve(args.host, args.port, args.api_key, directory, choices)
    return EXIT_OK if written is None else _said(written, args.strict)


def cmd_proxy(args: argparse.Namespace, extra: list[str]) -> int:
    from boardcert.traffic import proxy

    if not args.upstream or not args.report:
        error("proxy: give --upstream URL (the server) and --report DIR (where the reports go)")
        return EXIT_USAGE
    try:
        upstream = check_base_url(args.upstream, "--upstream")
    except ConfigError as exc:
        error(str(exc))
        return EXIT_USAGE
    return _said(proxy.run(upstream, args.host, args.port, Path(args.report)), args.strict)


def _said(written: Written, strict: bool) -> int:
    from boardcert.traffic import client_report

    client, compliance, directory = written.client, written.compliance, written.directory
    print(f"boardcert: client: {client['verdict']}: {client['verdict_reason']}")
    failed = client["verdict"] == client_report.INCOMPATIBLE or \
        strict and client["verdict"] == client_report.WARNINGS
    if compliance is not None:
        levels = ("MUST", "SHOULD") if strict else ("MUST",)
        broken = [r["id"] for r in compliance["requirements"]
                  if r["status"] == "failed" and r["level"] in levels]
        print(f"boardcert: server: {compliance['verdict']}: {compliance['verdict_reason']}")
        failed = failed or bool(broken)
    if client["boardcert_errors"]:
        print(f"boardcert: {len(client['boardcert_errors'])} error(s) inside boardcert while "
              "judging (a bug in boardcert, not the client's or the server's doing): "
              f"{client['boardcert_errors'][0]}")
    names = ["client-compatibility.html"] + (["compliance.html"] if compliance else [])
    print(f"boardcert: wrote {', '.join(str(directory / n) for n in names)} and more "
          f"in {directory}")
    return EXIT_FAILED if failed else EXIT_OK
