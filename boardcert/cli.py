"""The `boardcert` command: run, report, requirements, profile, serve, verify, diff,
keygen.

Exit codes (conformance policy, section 4): 0 conformant (and conformant with warnings unless
--strict), 1 non-conformant or incomplete, 2 usage or configuration error, 3 the target cannot
be reached (or stopped answering), 130 interrupted (Ctrl-C).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from boardcert import __version__, requirements
from boardcert.errors import ConfigError, UnreachableError
from boardcert.facts import recorded_options
from boardcert.paths import DEFAULT_PROFILE, ROOT, RUN_INI, SUITES
from boardcert.redact import Redactor, short_key_warning

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_UNREACHABLE = 0, 1, 2, 3
EXIT_INTERRUPTED = 130  # Ctrl-C (128 + SIGINT), as shells report it
KEY_ENV = "BOARDCERT_API_KEY"
REPORT_FILES = ("compliance.html", "compliance.md", "compliance-summary.md", "compliance.json",
                "badge.svg", "junit.xml", "allure-results")

# The reachability probe imports httpx, and with it anyio, before pytest starts: pytest then
# cannot rewrite the asserts of anyio's pytest plugin (which the suites never use) and says so.
_REWRITE_WARNING = ("ignore:Module already imported so cannot be rewritten; anyio"
                    ":pytest.PytestAssertRewriteWarning")


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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="boardcert", description="Certify a Board Project Service Interface server.",
        epilog="exit codes: 0 conformant (with warnings too, unless --strict), "
        "1 non-conformant or incomplete, 2 usage or configuration error, "
        "3 target unreachable (or it stopped answering), 130 interrupted")
    parser.add_argument("--version", action="version", version=f"boardcert {__version__}")
    sub = parser.add_subparsers()

    run = sub.add_parser("run", help="run the conformance suites and write the reports",
                         usage="boardcert run [options] [-- pytest arguments]")
    run.add_argument("--base-url", help="server under test (env BOARDCERT_BASE_URL; default: "
                     "the bundled reference server, started on a free loopback port)")
    run.add_argument("--api-key", help=f"X-API-Key value (or env {KEY_ENV}); never shown")
    run.add_argument("--profile", help="implementation profile YAML (default: the reference "
                     "server's, spec/profiles/reference.yaml)")
    run.add_argument("--budget", help="schemathesis budget: quick, standard, thorough or N")
    run.add_argument("--strict", action="store_true",
                     help="exit 1 for 'conformant with warnings' too")
    run.add_argument("--output", metavar="DIR",
                     help="where the reports go (default: reports/<UTC start time>/)")
    run.add_argument("--request-timeout", type=float, metavar="S",
                     help="seconds before a request times out (env BOARDCERT_TIMEOUT; "
                     "default 10)")
    run.add_argument("--rate-limit", type=float, metavar="N",
                     help="at most N requests per second, over all test workers")
    run.add_argument("--max-body", type=int, metavar="BYTES",
                     help="largest response body read (default 8 MiB)")
    run.add_argument("-n", "--workers", type=int, metavar="N",
                     help="test workers (pytest-xdist); default: chosen from the target's "
                     "round trip, serial when it answers within 10 ms (--plan says the rule)")
    run.add_argument("--max-failures", type=int, metavar="N",
                     help="stop after N failing tests (the report then says incomplete)")
    run.add_argument("--no-preflight", action="store_true",
                     help="skip the check, before any test, that GET /users/me answers JSON "
                     "for the key (a refused connection still stops the run)")
    run.add_argument("--read-only", action="store_true",
                     help="run only what changes nothing on the server (only GET is sent, "
                     "nothing is created); the rest is reported not assessed")
    run.add_argument("--project-id", metavar="ID",
                     help="with --read-only: an existing project to read with ops 3 and 6 "
                     "(default: the currentProject of GET /users/me)")
    run.add_argument("--plan", action="store_true",
                     help="list what the run would call and create, and how it cleans up; "
                     "call nothing, start nothing, write no report")
    run.add_argument("--bundle", action="store_true",
                     help="also write certification.zip: the reports, the evidence and a "
                     "manifest of SHA-256 hashes (check it with boardcert verify)")
    run.add_argument("--sign-key", metavar="PEM",
                     help="sign the bundle's manifest with this Ed25519 private key "
                     "(implies --bundle; boardcert keygen makes one)")
    run.add_argument("--baseline", metavar="PREVIOUS",
                     help="a previous run's compliance.json (or its directory, or bundle): "
                     "exit 1 only if a requirement got worse; list what improved")
    run.add_argument("--known-failures", metavar="FILE",
                     help="requirement ids expected to fail, one a line (# for comments): "
                     "exit 1 only for other failures; a listed one that passes is flagged")
    run.set_defaults(command=cmd_run)

    report = sub.add_parser("report", help="rebuild compliance.md and compliance.html "
                            "from a report directory's compliance.json")
    report.add_argument("directory", metavar="DIR")
    report.set_defaults(command=cmd_report)

    reqs = sub.add_parser("requirements", help="list the requirement catalogue")
    reqs.add_argument("--level", choices=requirements.LEVELS, type=str.upper,
                      help="only this level (any case)")
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
    profile.add_argument("--base-url", help="with --discover: the server to probe "
                         "(env BOARDCERT_BASE_URL)")
    profile.add_argument("--api-key", help=f"with --discover: its X-API-Key (or env "
                         f"{KEY_ENV}); never shown")
    profile.add_argument("-o", "--output", metavar="FILE",
                         help="with --discover: write the profile here (never overwrites)")
    profile.add_argument("path", metavar="PATH", nargs="?",
                         help="the profile (with --init default: boardcert-profile.yaml; with "
                         "--discover: the profile to start from, default the reference's)")
    profile.set_defaults(command=cmd_profile)

    serve = sub.add_parser("serve", help="serve the bundled reference server")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8080)
    serve.add_argument("--api-key", help="key to demand (default: env "
                       "BOARDCERT_REFERENCE_API_KEY, else a generated one, printed)")
    serve.set_defaults(command=cmd_serve)

    verify = sub.add_parser("verify", help="check offline that a certification.zip was not "
                            "altered (exit 0 intact, 1 altered, 2 usage)")
    verify.add_argument("bundle", metavar="BUNDLE")
    verify.add_argument("--public-key", metavar="PEM",
                        help="check the signature with this Ed25519 public key")
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


def error(message: str) -> None:
    print(f"boardcert: error: {message}", file=sys.stderr)


# --- run ---------------------------------------------------------------------------------

def cmd_run(args: argparse.Namespace, extra: list[str]) -> int:
    _keep_bytecode()
    api_key = args.api_key or os.environ.get(KEY_ENV) or ""
    try:
        if args.max_failures is not None and args.max_failures < 1:
            raise ConfigError("--max-failures must be at least 1")
        target = check_target(args)
        check_budget(args.budget)
        output = None if args.plan else output_directory(args.output)
        after = prepare_after_run(args)
    except ConfigError as exc:
        error(str(exc))
        return EXIT_USAGE
    if warning := short_key_warning(api_key):
        print(f"boardcert: warning: {warning}", file=sys.stderr)
    redactor = Redactor([api_key])
    if output is None:  # --plan, before the reachability check: a plan contacts nothing
        with _environment({KEY_ENV: api_key or None}), _redacted_console(redactor):
            code = _pytest_main(plan_arguments(args, extra), _RunWatch())
        print(f"workers: {plan_workers(args, extra)}")
        return {0: EXIT_OK, 4: EXIT_USAGE}.get(code, EXIT_FAILED)
    timing: list[float] = []
    if target is not None and (stop := check_first(target, args.no_preflight, timing)):
        return stop
    args.workers_choice = workers_choice(args, extra, timing)
    print(f"boardcert: {args.workers_choice.reason}", file=sys.stderr)

    watch = _RunWatch()
    with _environment({KEY_ENV: api_key or None}), _redacted_console(redactor):
        code = _pytest_main(pytest_arguments(args, extra, output), watch)
    redact_tree(output, redactor)
    return after_run(args, after, output, outcome(code, watch, output, args.strict))


def _keep_bytecode() -> None:
    """Keep compiled bytecode between runs, in the user's cache rather than the tree: without
    it (PYTHONDONTWRITEBYTECODE) every run recompiles schemathesis and hypothesis for pytest's
    assertion rewriting, seconds of each run."""
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "boardcert"
    if sys.dont_write_bytecode:
        sys.pycache_prefix = sys.pycache_prefix or str(cache / "pycache")
        sys.dont_write_bytecode = False
    # Hypothesis's Unicode tables (seconds to compute) are kept there too, not in a .hypothesis/
    # of whatever directory the run starts in (computed again in each, and left behind).
    os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY", str(cache / "hypothesis"))


def check_target(args: argparse.Namespace, **given: Any) -> Any:
    """The target as the plugin will resolve it (`config.resolve`: the same flags and
    variables), checked here so that errors come first and plainly; None for the bundled
    reference server."""
    from boardcert.config import FLAGS, resolve

    target = resolve({name: getattr(args, name, None) for name in FLAGS} | given, os.environ)
    return target if target.base_url else None


def check_budget(budget: str | None) -> None:
    """--budget, checked here so that its errors read like the others."""
    from boardcert.budget import parse_budget

    parse_budget(budget)


TIMED = 3  # requests after the preflight's that time the round trip (the fastest counts)


def check_first(target: Any, only_reachable: bool,
                timing: list[float] | None = None) -> int | None:
    """The preflight (or, with --no-preflight, only whether anything answers), before pytest
    starts: the exit code of a run that stops here with its message, else None. `timing`
    gets the seconds each answered request took (the round trip that chooses the workers)."""
    from boardcert import preflight
    from boardcert.client import Client

    client = Client(target)
    try:
        if only_reachable:
            why = preflight.reachable(client)
            if why:
                raise UnreachableError(f"the target {target.base_url} cannot be reached: {why}")
        else:
            for note in preflight.examine(client):
                print(f"boardcert: note: {note}", file=sys.stderr)
        if timing is not None:  # the fastest of several: one slow answer on a busy machine
            for _ in range(TIMED):  # is noise
                preflight.reachable(client)
            timing.extend(e.elapsed for e in client.log if e.status is not None)
    except ConfigError as exc:
        error(str(exc))
        return EXIT_USAGE
    except UnreachableError as exc:
        error(str(exc))
        return EXIT_UNREACHABLE
    finally:
        client.close()
    return None


def workers_choice(args: argparse.Namespace, extra: list[str], timing: list[float]) -> Any:
    """How many test workers: --workers, else `-n` after `--` (pytest's, left as given), else
    chosen from the round trip of the preflight's requests."""
    from boardcert import workers

    if args.workers is not None:
        return workers.given(args.workers)
    if _workers_in(extra):
        return workers.Choice(1, "workers: as given to pytest after --")  # extra carries -n
    if not args.base_url and not os.environ.get("BOARDCERT_BASE_URL"):
        return workers.choose(None)
    return workers.choose(workers.round_trip(timing), args.rate_limit)


def plan_workers(args: argparse.Namespace, extra: list[str]) -> str:
    """What --plan says of the workers (it contacts nothing, so it gives the rule)."""
    from boardcert import workers

    if args.workers is not None or _workers_in(extra) or not (
            args.base_url or os.environ.get("BOARDCERT_BASE_URL")):
        return workers_choice(args, extra, []).reason
    return workers.RULE


def _workers_in(extra: list[str]) -> bool:
    return any(arg.startswith(("-n", "--numprocesses")) for arg in extra)


def output_directory(given: str | None) -> Path:
    if given:
        path = Path(given)
        if path.exists() and not path.is_dir():
            raise ConfigError(f"--output {given}: exists and is not a directory")
        held = [name for name in REPORT_FILES if (path / name).exists()]
        if held:  # a new run's allure results would mix with the old ones
            raise ConfigError(f"--output {given}: already holds a report ({', '.join(held)})")
        return path
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    path, n = Path("reports") / stamp, 1
    while path.exists():
        n += 1
        path = Path("reports") / f"{stamp}-{n}"
    return path


def pytest_arguments(args: argparse.Namespace, extra: list[str], output: Path) -> list[str]:
    """pytest's argv: never the key (argv shows in JUnit and allure environments); no second
    preflight (this command ran it before starting pytest); no tracebacks or list of failed
    tests (the compliance summary says what failed, by requirement; the reports hold the
    evidence; `-- --tb=short -rfE` brings them back): a server that fails everything gets a
    screenful, and ~0.4 s a failure is not spent parsing sources for tracebacks."""
    shown = recorded_options(getattr(args, "command_line", []))  # for the report's run facts
    argv = [*_pytest_setup(), "--tb=no", "-rN", "--no-preflight", f"--report-dir={output}",
            f"--junitxml={output / 'junit.xml'}", f"--alluredir={output / 'allure-results'}",
            f"--boardcert-command={json.dumps(shown)}"]
    choice = getattr(args, "workers_choice", None)
    workers = choice.pytest_args() if choice is not None else []
    return argv + _passed_through(args) + workers + extra


def _pytest_setup() -> list[str]:
    """The same pytest set-up from any directory, checkout or installed: the plugin, our own
    configuration file (none of the user's), the suites' directory as rootdir."""
    return ["-p", "no:cacheprovider", "-p", "boardcert.plugin", "-c", str(RUN_INI),
            "--rootdir", str(ROOT), "-W", _REWRITE_WARNING]


def _passed_through(args: argparse.Namespace) -> list[str]:
    argv = []
    for flag in ("base_url", "profile", "budget", "request_timeout", "rate_limit", "max_body",
                 "project_id"):
        value = getattr(args, flag)
        if value:
            argv.append(f"--{flag.replace('_', '-')}={value}")
    if args.max_failures is not None:
        argv.append(f"--maxfail={args.max_failures}")
    return argv + (["--read-only"] if args.read_only else [])


def plan_arguments(args: argparse.Namespace, extra: list[str]) -> list[str]:
    """pytest's argv for --plan: collection only, no report files."""
    return [*_pytest_setup(), "-q", "--plan", *_passed_through(args), *extra]


class SuitesUnlessPathsGiven:
    """Given to pytest.main: the suites, when the pytest arguments name no test path. pytest's
    own parser tells a path from an option's value (every plugin's options included), so no
    list of the options that take a value is kept here."""

    def pytest_load_initial_conftests(self, early_config: Any, args: list[str]) -> None:
        known = early_config.known_args_namespace
        if not known.file_or_dir:
            args.append(str(SUITES))  # pytest parses `args` again after this hook
            known.file_or_dir = [str(SUITES)]


class _RunWatch:
    """Given to pytest.main: learns whether the run stopped because the target is unreachable
    (or stopped answering), or because it was interrupted (Ctrl-C)."""

    def __init__(self) -> None:
        self.unreachable = False
        self.interrupted = False
        self.message = ""

    def pytest_unconfigure(self, config: Any) -> None:
        watch = config.pluginmanager.get_plugin("boardcert-exit-watch")
        if watch is not None and watch.unreachable:
            self.unreachable, self.message = True, watch.message
        elif watch is not None:
            self.interrupted = watch.cancelled


def _pytest_main(argv: list[str], watch: _RunWatch) -> int:
    import pytest

    return int(pytest.main(argv, plugins=[watch, SuitesUnlessPathsGiven()]))


def outcome(code: int, watch: _RunWatch, output: Path, strict: bool) -> int:
    """The exit code of a run, from the verdict in its compliance.json (3 for a target that
    stopped answering, 130 for an interrupted run, whatever the verdict)."""
    from boardcert import report

    if code == 4 and not watch.unreachable:  # pytest's usage error: a bad flag, a profile key
        return EXIT_USAGE
    first = watch.message.splitlines()[0] if watch.message else "no answer"
    try:
        found = report.load(output)
    except report.ReportError as exc:
        if watch.unreachable:
            error(f"{first} (no report written)")
            return EXIT_UNREACHABLE
        error(f"no compliance report was written (pytest exit status {code}): {exc}")
        return EXIT_INTERRUPTED if watch.interrupted else EXIT_FAILED
    verdict, smoke = found["verdict"], found.get("read_only")
    if smoke:  # --read-only: its own verdict, never a certification
        exit_code = EXIT_OK if smoke["passed"] else EXIT_FAILED
    else:
        exit_code = EXIT_OK if verdict == "conformant" or (
            verdict == "conformant with warnings" and not strict) else EXIT_FAILED
    if watch.unreachable:
        error(first)
        exit_code = EXIT_UNREACHABLE
    elif watch.interrupted:
        exit_code = EXIT_INTERRUPTED
    if smoke:
        print(f"\nboardcert: {smoke['summary']} (exit {exit_code})")
    else:
        print(f"\nboardcert: {verdict.upper()}: {found['verdict_reason']} (exit {exit_code}"
              f"{', --strict' if strict and verdict == 'conformant with warnings' else ''})")
    written = [name + "/" * (output / name).is_dir() for name in REPORT_FILES
               if (output / name).exists()]
    print(f"boardcert: reports in {output}/: {', '.join(written)}")
    bugs = len(found.get("boardcert_errors", []))
    if bugs:
        print(f"boardcert: {bugs} error{'s' if bugs != 1 else ''} inside boardcert: a bug in "
              "boardcert, not something the server did (its requirements are not assessed; "
              "see \"Errors inside boardcert\" in compliance.md)")
    return exit_code


@contextlib.contextmanager
def _environment(values: dict[str, str | None]) -> Iterator[None]:
    """Set (or, for None, leave alone) environment variables for the run, then restore."""
    saved = {name: os.environ.get(name) for name in values}
    for name, value in values.items():
        if value is not None:
            os.environ[name] = value
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


class _Redacting:
    """A text stream that masks the key, whatever wrote it."""

    def __init__(self, stream: TextIO, redactor: Redactor) -> None:
        self._stream = stream
        self._redactor = redactor

    def write(self, text: str) -> int:
        return self._stream.write(self._redactor.text(text))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextlib.contextmanager
def _redacted_console(redactor: Redactor) -> Iterator[None]:
    if not redactor:
        yield
        return
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Redacting(sys.stdout, redactor), _Redacting(sys.stderr, redactor)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved


def redact_tree(directory: Path, redactor: Redactor) -> None:
    """Mask the key in every file the run wrote, by the file's kind; compliance.json still
    validates against its schema."""
    from boardcert import report

    redactor.tree(directory, {report.JSON_NAME: report.schema()})


# --- after a run: regression baseline, bundle --------------------------------------------

@dataclass
class _AfterRun:
    """What --baseline, --known-failures, --bundle and --sign-key ask for, read before the
    run so that a bad file is a usage error before any test runs."""

    baseline: dict[str, Any] | None = None
    known: dict[str, str] | None = None
    sign_key: Path | None = None
    bundle: bool = False

    @property
    def compares(self) -> bool:
        return self.baseline is not None or self.known is not None


def prepare_after_run(args: argparse.Namespace) -> _AfterRun:
    from boardcert import baseline, bundle

    after = _AfterRun(bundle=bool(args.bundle or args.sign_key))
    try:
        if args.baseline:
            after.baseline = baseline.load(Path(args.baseline))
        if args.known_failures:
            after.known = baseline.read_known_failures(Path(args.known_failures))
        if args.sign_key:
            after.sign_key = Path(args.sign_key)
            bundle.load_private_key(after.sign_key)
    except (baseline.BaselineError, bundle.BundleError) as exc:
        raise ConfigError(str(exc)) from None
    return after


def after_run(args: argparse.Namespace, after: _AfterRun, output: Path, exit_code: int) -> int:
    """Compare with the baseline (its exit code then replaces the verdict's), then bundle."""
    from boardcert import baseline, bundle, report

    if exit_code in (EXIT_USAGE, EXIT_UNREACHABLE, EXIT_INTERRUPTED) \
            or not (output / report.JSON_NAME).is_file():
        return exit_code
    if after.compares:
        found = report.load(output)
        comparison = baseline.compare(found, after.baseline, after.known,
                                      baseline_name=args.baseline,
                                      known_name=args.known_failures)
        found["baseline"] = comparison.as_dict()
        report.write(found, output)
        print(f"\nboardcert: {baseline.render_comparison(comparison)}")
        failing = comparison.regressed or (args.strict and bool(comparison.stale))
        exit_code = EXIT_FAILED if failing else EXIT_OK
        why = (f"{len(comparison.worse)} requirement(s) got worse" if comparison.regressed
               else "stale known failures (--strict)" if failing else "nothing got worse")
        print(f"boardcert: {'REGRESSION' if failing else 'NO REGRESSION'}: {why} "
              f"(exit {exit_code}: a regression run exits by the comparison, not the verdict)")
    if after.bundle:
        try:
            path = bundle.create(output, profile=_profile_path(args), sign_key=after.sign_key)
        except bundle.BundleError as exc:
            error(str(exc))
            return EXIT_USAGE
        signed = " (signed)" if after.sign_key else ""
        print(f"boardcert: wrote {path}{signed}; check it with boardcert verify {path}")
    return exit_code


def _profile_path(args: argparse.Namespace) -> Path:
    given = args.profile or os.environ.get("BOARDCERT_PROFILE")
    return Path(given) if given else DEFAULT_PROFILE



# --- report, requirements, profile, serve ---------------------------------------------------

def cmd_report(args: argparse.Namespace, extra: list[str]) -> int:
    from boardcert import report

    directory = Path(args.directory)
    try:
        written = report.rebuild(directory)
        verdict = report.load(directory)["verdict"]
    except report.ReportError as exc:
        error(str(exc))
        return EXIT_USAGE
    print(f"boardcert: {verdict}: wrote {written['md']} and {written['html']}")
    return EXIT_OK


def cmd_requirements(args: argparse.Namespace, extra: list[str]) -> int:
    from boardcert.report.render import ranges

    chosen = [req for req in requirements.catalogue().values()
              if not args.level or req.level == args.level]
    ops = {req.id: ranges(req.operations, sep=",", dash="-") for req in chosen}
    width = max(map(len, ops.values()), default=0)
    for req in chosen:
        print(f"{req.id:32} {req.level:6} §{req.section:5} ops {ops[req.id]:{width}} "
              f"{req.title}")
    return EXIT_OK


TEMPLATE_HEADER = """\
# boardcert implementation profile for <your server>.
# The interface leaves much "not shown": request bodies, where operation 27 takes entityId,
# which plugin ids and codes are accepted. This file says what your server does there
# (conformance policy, section 5). It starts as a copy of the bundled reference server's
# profile, which is also the default for every key you leave out: keep only what differs for
# your server (null says "this server has none"), then
#     boardcert profile --show THIS-FILE       # the profile a run uses, merged
#     boardcert profile THIS-FILE              # check it
#     boardcert run --profile THIS-FILE --base-url URL --api-key KEY
# Validated against spec/profile.schema.json. A key set to null turns the tests that need it
# into "not assessed: <key>", never into failures.
"""


def profile_template() -> str:
    """spec/profiles/reference.yaml with a header for a new server and its own name."""
    text = DEFAULT_PROFILE.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    body = "".join(lines[next(i for i, line in enumerate(lines)
                              if not line.startswith("#")):])
    body = re.sub(r"^name: .*$", "name: my-server                 # shown in the reports",
                  body, count=1, flags=re.MULTILINE)
    return TEMPLATE_HEADER + body


def cmd_profile(args: argparse.Namespace, extra: list[str]) -> int:
    from boardcert.config import load_profile

    if args.discover:
        return discover_profile(args)
    if args.init:
        path = Path(args.path or "boardcert-profile.yaml")
        if path.exists():
            error(f"{path} exists; not overwriting it (choose another PATH)")
            return EXIT_USAGE
        path.write_text(profile_template(), encoding="utf-8")
        print(f"boardcert: wrote {path}: edit it, then boardcert run --profile {path}")
        return EXIT_OK
    try:
        profile = load_profile(args.path)
    except ConfigError as exc:
        error(str(exc))
        return EXIT_USAGE
    if args.show:
        print(show_profile(profile), end="")
        return EXIT_OK
    print(f"boardcert: {profile.path or DEFAULT_PROFILE}: a valid profile, name "
          f"{profile.name!r}")
    return EXIT_OK


def show_profile(profile: Any) -> str:
    """The merged profile as YAML, headed by where it came from."""
    import yaml

    source = f"{profile.path} laid over the defaults" if profile.path else "the defaults"
    return (f"# boardcert profile {profile.name!r}: {source} (spec/profiles/reference.yaml)\n"
            + yaml.safe_dump(profile.data, sort_keys=False, allow_unicode=True))


def discover_profile(args: argparse.Namespace) -> int:
    """`boardcert profile --discover`: probe the server, write what it accepts as a profile."""
    from boardcert.discovery import discover_target, render

    base_url = args.base_url or os.environ.get("BOARDCERT_BASE_URL") or ""
    api_key = args.api_key or os.environ.get(KEY_ENV) or ""
    output = Path(args.output) if args.output else None
    try:
        if not base_url:
            raise ConfigError("--discover needs --base-url (or BOARDCERT_BASE_URL)")
        if output is not None and output.exists():
            raise ConfigError(f"-o {output} exists; not overwriting it (choose another FILE)")
        target = check_target(args, profile=args.path)
        found = discover_target(target)
    except ConfigError as exc:
        error(str(exc))
        return EXIT_USAGE
    except UnreachableError as exc:
        error(str(exc))
        return EXIT_UNREACHABLE
    text = render(found, target.base_url)
    if api_key:
        text = text.replace(api_key, "***")
    if output is None:
        print(text, end="")
        return EXIT_OK
    output.write_text(text, encoding="utf-8")
    missing = [f.key for f in found.findings if f.outcome in ("not found", "not tried")]
    print(f"boardcert: wrote {output}"
          + (f"; not found (their tests will be not assessed): {', '.join(missing)}"
             if missing else "") + f"; then boardcert run --profile {output}")
    return EXIT_OK


def cmd_serve(args: argparse.Namespace, extra: list[str]) -> int:
    from boardcert.reference.__main__ import main as serve_main

    argv = ["--host", args.host, "--port", str(args.port)]
    if args.api_key:
        argv += ["--api-key", args.api_key]
    return serve_main(argv)


# --- verify, diff, keygen ----------------------------------------------------------------

def cmd_verify(args: argparse.Namespace, extra: list[str]) -> int:
    from boardcert import bundle

    path = Path(args.bundle)
    try:
        found = bundle.verify(path, Path(args.public_key) if args.public_key else None)
    except bundle.BundleError as exc:
        error(str(exc))
        return EXIT_USAGE
    manifest = found.manifest
    if found.intact:
        print(f"boardcert: {path}: INTACT: {len(manifest['files'])} files match their SHA-256")
        print(f"  {manifest['verdict']} ({manifest['must']['passed']}/"
              f"{manifest['must']['total']} MUST) for {_where(manifest['target'])}, run "
              f"{manifest['started']} to {manifest['finished']}, boardcert "
              f"{manifest['suite']['version']}")
        if manifest.get("run"):
            print(f"  budget {manifest['run']['budget']}, seed {manifest['run']['seed']}")
    else:
        print(f"boardcert: {path}: ALTERED: {len(found.problems)} problem(s):")
        for problem in found.problems:
            print(f"  - {problem}")
    for note in found.notes:
        print(f"  note: {note}")
    return EXIT_OK if found.intact else EXIT_FAILED


def _where(target: dict[str, Any]) -> str:
    return target.get("base_url") or "the bundled reference server"


def cmd_diff(args: argparse.Namespace, extra: list[str]) -> int:
    from boardcert import baseline

    try:
        a, b = baseline.load(Path(args.a)), baseline.load(Path(args.b))
    except baseline.BaselineError as exc:
        error(str(exc))
        return EXIT_USAGE
    print(baseline.render_diff(baseline.diff(a, b), args.a, args.b))
    return EXIT_OK


def cmd_keygen(args: argparse.Namespace, extra: list[str]) -> int:
    from boardcert import bundle

    try:
        private, public = bundle.keygen(Path(args.directory))
    except (bundle.BundleError, OSError) as exc:
        error(str(exc))
        return EXIT_USAGE
    key = bundle.fingerprint(bundle.load_public_key(public))
    print(f"boardcert: wrote {private} (private: keep it secret) and {public} (public: give "
          f"it to whoever verifies); key sha256:{key}")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
