"""The `boardcert` command: its arguments, and which module runs each subcommand (run:
boardcert.cli.run; profile: boardcert.cli.profile; the others: boardcert.cli.commands).
Exit codes: boardcert.cli.exits.
"""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

from boardcert import __version__
from boardcert.cli.commands import (
    cmd_diff,
    cmd_keygen,
    cmd_report,
    cmd_requirements,
    cmd_serve,
    cmd_verify,
)
from boardcert.cli.exits import EXIT_CODES, EXIT_INTERRUPTED, EXIT_USAGE, error
from boardcert.cli.parser import Parser
from boardcert.cli.profile import cmd_profile
from boardcert.cli.reproduce import cmd_cleanup, cmd_reproduce
from boardcert.cli.run import cmd_run
from boardcert.cli.traffic import cmd_proxy
from boardcert.compat_fallbacks import leave
from boardcert.interface import requirements
from boardcert.settings.options import add_to
from boardcert.settings.workers import SERIAL_BELOW

__all__ = ["build_parser", "command", "main"]


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    extra: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, extra = argv[:cut], argv[cut + 1:]
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help (0) or a bad flag (2)
        return int(exc.code or 0)
    if not getattr(args, "command", None):
        parser.print_help()
        return EXIT_USAGE
    args.command_line = argv + (["--", *extra] if extra else [])
    try:
        return args.command(args, extra)
    except KeyboardInterrupt:  # outside pytest (which handles its own): the preflight, say
        error("interrupted")
        return EXIT_INTERRUPTED


def command() -> NoReturn:
    """The `boardcert` command (console script and `python -m boardcert.cli`): `main`, then
    what the interpreter does at exit (atexit: logging, thread pools, ...) and the streams
    flushed, and out at once. The interpreter's own teardown (freeing every module and the
    run's whole heap, a quarter to half a second) is skipped: all files are closed by then."""
    leave(main())  # sys.exit when CPython's exit functions do not fit (boardcert.compat_fallbacks)


RUN_DESCRIPTION = """\
Certify a server: run the conformance suites against it and write the reports (verdict,
evidence, JUnit, Allure) to reports/<UTC start time>/. With no --base-url, certify the bundled
reference server."""

RUN_EPILOG = """\
example:
  boardcert run --base-url http://127.0.0.1:8080 --api-key "$KEY"

after --, arguments for pytest, which runs the suites: test paths, -k, -m, -x, ...
  boardcert run --base-url URL --api-key KEY -- -m op16   (only the tests of operation 16)
  a run that selects some tests leaves the others not assessed: its verdict is incomplete

exit codes:
""" + "\n".join(f"  {code:<4} {meaning}" for code, meaning in EXIT_CODES.items())


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="boardcert", epilog="exit codes: " + "; ".join(
                        f"{code} {meaning}" for code, meaning in EXIT_CODES.items()),
                    description="Certify a Board Project Service Interface server.")
    parser.add_argument("--version", action="version", version=f"boardcert {__version__}")
    sub = parser.add_subparsers()

    run = sub.add_parser("run", help="run the conformance suites and write the reports",
                         usage="boardcert run [options] [-- pytest arguments]",
                         description=RUN_DESCRIPTION, epilog=RUN_EPILOG,
                         formatter_class=argparse.RawDescriptionHelpFormatter)
    add_to(run.add_argument_group("the run (also the options of pytest's boardcert plugin)"))
    mine = run.add_argument_group("this command")
    mine.add_argument("--strict", action="store_true",
                      help="exit 1 for 'conformant with warnings' too")
    mine.add_argument("--output", metavar="DIR",
                      help="where the reports go (default: reports/<UTC start time>/)")
    mine.add_argument("-n", "--workers", type=int, metavar="N",
                      help="test workers (pytest-xdist); default: chosen from the target's "
                      f"round trip, serial when it answers within {SERIAL_BELOW * 1000:g} ms "
                      "(--plan says the rule)")
    mine.add_argument("--no-speed", action="store_true",
                      help="the plain path: without the speed plugin (one request at a time, "
                      "pytest-xdist's own distribution, allure-pytest's own writer; the same "
                      "verdict, slower against a server far away)")
    mine.add_argument("--max-failures", type=int, metavar="N",
                      help="stop after N failing tests (the report then says incomplete)")
    mine.add_argument("--bundle", action="store_true",
                      help="also write certification.zip: the reports, the evidence and a "
                      "manifest of SHA-256 hashes (check it with boardcert verify)")
    mine.add_argument("--sign-key", metavar="PEM",
                      help="sign the bundle's manifest and the attestations with this "
                      "Ed25519 private key (implies --bundle; boardcert keygen makes one)")
    mine.add_argument("--subject", action="append", metavar="NAME@sha256:HEX",
                      help="the server build certified (an OCI image digest or a release "
                      "artefact's SHA-256; repeatable): the attestations name it and add a "
                      "verification summary (docs/certificate.md)")
    mine.add_argument("--server-version", metavar="TEXT",
                      help="the version of that build, recorded with --subject (a claim of "
                      "the operator's, as the subject is)")
    mine.add_argument("--keyless", action="store_true",
                      help="also sign the attestations keyless with Sigstore, as the CI's "
                      "OpenID Connect identity (GitHub Actions: id-token: write); needs "
                      "pip install 'boardcert[sigstore]' and the network")
    mine.add_argument("--baseline", metavar="PREVIOUS",
                      help="a previous run's compliance.json (or its directory, or bundle): "
                      "exit 1 only if a requirement got worse; list what improved")
    mine.add_argument("--known-failures", metavar="FILE",
                      help="requirement ids expected to fail, one a line (# for comments): "
                      "exit 1 only for other failures; a listed one that passes is flagged")
    run.set_defaults(command=cmd_run)

    report = sub.add_parser("report", help="rebuild compliance.md and compliance.html "
                            "from a report directory's compliance.json")
    report.add_argument("directory", metavar="DIR")
    report.add_argument("--ci-summary", metavar="ARTIFACT",
                        help="print the summary for a CI job's summary page instead (no link "
                        "to the files beside it: the report is named in the artefact ARTIFACT)")
    report.add_argument("--artifact-url", metavar="URL", default="",
                        help="with --ci-summary: where the artefact can be downloaded")
    report.set_defaults(command=cmd_report)

    reproduce = sub.add_parser(
        "reproduce", help="send a failed test's requests again, after the run: make what they "
        "need, say whether the failure is still there, delete what was made (exit 1 "
        "reproduced, 0 the server now passes, 3 could not get that far, 2 usage)")
    reproduce.add_argument("report", metavar="REPORT",
                           help="a report directory, its compliance.json or a bundle")
    reproduce.add_argument("test", metavar="TEST",
                           help="the failed test's node id as the reports name it (or a part of "
                           "it no other failed test's has, or its script's name)")
    add_to(reproduce, "base_url", help="the server (default: the run's)")
    add_to(reproduce, "api_key", help="its X-API-Key value; never shown")
    reproduce.add_argument("--keep", action="store_true",
                           help="leave what the script made in place (it says how to delete it)")
    reproduce.add_argument("--print", action="store_true",
                           help="print the script (reproduce/<test>.py) instead of running it")
    reproduce.set_defaults(command=cmd_reproduce)

    cleanup = sub.add_parser("cleanup", help="delete what a --keep-failed run left on the "
                             "server (the report lists it)")
    cleanup.add_argument("report", metavar="REPORT",
                         help="a report directory, its compliance.json or a bundle")
    add_to(cleanup, "base_url", help="the server (default: the run's)")
    add_to(cleanup, "api_key", help="its X-API-Key value; never shown")
    cleanup.set_defaults(command=cmd_cleanup)

    reqs = sub.add_parser("requirements", help="list the requirement catalogue, or print "
                          "a requirement's entry (what it rests on, its tests and faults)")
    reqs.add_argument("--level", choices=requirements.LEVELS, type=str.upper,
                      help="only this level (any case)")
    reqs.add_argument("ids", metavar="ID", nargs="*",
                      help="print these requirements' entries of docs/requirements.md")
    reqs.set_defaults(command=cmd_requirements)

    profile = sub.add_parser("profile", help="check a profile, show it merged with the "
                             "defaults (--show), or write a template (--init)")
    profile.add_argument("--init", action="store_true",
                         help="write a commented template profile to PATH (never overwrites)")
    profile.add_argument("--show", action="store_true",
                         help="print the profile a run uses: PATH laid over the defaults "
                         "(spec/profiles/reference.yaml), as YAML")
    profile.add_argument("--discover", action="store_true",
                         help="probe a server (--base-url, --api-key) for the request bodies "
                         "it accepts where the interface does not show them; write the "
                         "profile found (-o FILE, else print it)")
    add_to(profile, "base_url", help="with --discover: the server to probe")
    add_to(profile, "api_key", help="with --discover: its X-API-Key value; never shown")
    profile.add_argument("-o", "--output", metavar="FILE",
                         help="with --discover: write the profile here (never overwrites)")
    profile.add_argument("path", metavar="PATH", nargs="?",
                         help="the profile (with --init default: boardcert-profile.yaml; with "
                         "--discover: the profile to start from, default the reference's)")
    profile.set_defaults(command=cmd_profile)

    serve = sub.add_parser("serve", help="serve the bundled reference server (and judge its "
                           "client: --client-report)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8080)
    serve.add_argument("--api-key", help="key to demand (default: env "
                       "BOARDCERT_REFERENCE_API_KEY, else a generated one, printed)")
    serve.add_argument("--client-report", metavar="DIR",
                       help="judge every request a client sends; when stopped (Ctrl-C or "
                       "SIGTERM) write DIR/client-compatibility.json, .md, .html and junit.xml "
                       "and exit 1 for an incompatible client (docs/clients.md)")
    serve.add_argument("--vary", metavar="SEED", nargs="?", type=int, const=-1,
                       help="make other choices where the interface is open (row-name "
                       "property, refusal statuses and bodies, id and time forms, extra "
                       "fields, key order, media type, gzip, closed connections), from SEED "
                       "(default: a new one, printed); the same SEED, the same choices")
    serve.add_argument("--strict", action="store_true",
                       help="with --client-report: exit 1 for 'compatible with warnings' too")
    serve.set_defaults(command=cmd_serve)

    proxy = sub.add_parser("proxy", help="forward a client's traffic to a server unchanged "
                           "and judge both sides; write the reports when stopped")
    proxy.add_argument("--upstream", metavar="URL",
                       help="the server to forward to (http:// or https://); required")
    proxy.add_argument("--host", default="127.0.0.1", help="address to listen on "
                       "(default: %(default)s)")
    proxy.add_argument("--port", type=int, default=8081, metavar="N",
                       help="port to listen on (default: %(default)s)")
    proxy.add_argument("--report", metavar="DIR",
                       help="required: when stopped (Ctrl-C or SIGTERM) write "
                       "client-compatibility.*, compliance.* (source: traffic) and junit.xml "
                       "here")
    proxy.add_argument("--strict", action="store_true",
                       help="exit 1 for a client with warnings and a server that failed a "
                       "SHOULD requirement too")
    proxy.set_defaults(command=cmd_proxy)

    verify = sub.add_parser("verify", help="check offline that a certification.zip (or an "
                            "attestation) was not altered, is signed by the key and is about "
                            "the build (exit 0 intact; 1 altered, signed by another key or "
                            "about another subject, which it says; 2 usage)",
                            usage="boardcert verify BUNDLE [--public-key PEM] [--subject ...]\n"
                            "       boardcert verify --attestation FILE [--public-key PEM] "
                            "[--subject ...]")
    verify.add_argument("bundle", metavar="BUNDLE", nargs="?",
                        help="a certification.zip (boardcert run --bundle)")
    verify.add_argument("--attestation", metavar="FILE",
                        help="check this DSSE envelope (.intoto.json, or a .intoto.jsonl of "
                        "them) instead of a bundle")
    verify.add_argument("--public-key", metavar="PEM",
                        help="check the signatures with this Ed25519 public key")
    verify.add_argument("--subject", action="append", metavar="NAME@sha256:HEX",
                        help="the attestations must be about this build's digest (repeatable)")
    verify.set_defaults(command=cmd_verify)

    diff = sub.add_parser("diff", help="what changed between two runs (compliance.json, "
                          "report directories or bundles)")
    diff.add_argument("a", metavar="A")
    diff.add_argument("b", metavar="B")
    diff.set_defaults(command=cmd_diff)

    keygen = sub.add_parser("keygen", help="write an Ed25519 key pair for signing bundles")
    keygen.add_argument("directory", metavar="DIR")
    keygen.set_defaults(command=cmd_keygen)
    return parser
