"""The commands that need no server under test: report, requirements, serve, verify, diff,
keygen (serve --client-report/--vary: boardcert.cli.traffic)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from boardcert.cli.exits import EXIT_FAILED, EXIT_OK, EXIT_USAGE, error
from boardcert.interface import requirements


def cmd_report(args: argparse.Namespace, extra: list[str]) -> int:
    from boardcert.outputs import report

    directory = Path(args.directory)
    try:
        if args.ci_summary is not None:
            print(report.render_summary(report.load(directory),
                                        (args.ci_summary, args.artifact_url)), end="")
            return EXIT_OK
        written = report.rebuild(directory)
        verdict = report.load(directory)["verdict"]
    except report.ReportError as exc:
        error(str(exc))
        return EXIT_USAGE
    print(f"boardcert: {verdict}: wrote {written['md']} and {written['html']}")
    return EXIT_OK


def cmd_requirements(args: argparse.Namespace, extra: list[str]) -> int:
    from boardcert.outputs.report.render import ranges

    if args.ids:
        return _entries([i.upper() for i in args.ids])
    chosen = [req for req in requirements.catalogue().values()
              if not args.level or req.level == args.level]
    ops = {req.id: ranges(req.operations, sep=",", dash="-") for req in chosen}
    width = max(map(len, ops.values()), default=0)
    for req in chosen:
        print(f"{req.id:32} {req.level:6} §{req.section:5} ops {ops[req.id]:{width}} "
              f"{req.title}")
    return EXIT_OK


def cmd_serve(args: argparse.Namespace, extra: list[str]) -> int:
    if args.client_report or args.vary is not None:
        from boardcert.cli.traffic import serve_judged

        return serve_judged(args)
    from boardcert.reference.__main__ import main as serve_main

    argv = ["--host", args.host, "--port", str(args.port)]
    if args.api_key:
        argv += ["--api-key", args.api_key]
    return serve_main(argv)


def cmd_verify(args: argparse.Namespace, extra: list[str]) -> int:
    from boardcert.outputs import attestations, bundle, statements

    if bool(args.bundle) == bool(args.attestation):
        error("verify: give a BUNDLE or --attestation FILE (one of the two)")
        return EXIT_USAGE
    try:
        subjects = statements.parse_subjects(args.subject)
        if args.attestation:
            return _verify_attestation(Path(args.attestation), args.public_key, subjects)
        path = Path(args.bundle)
        found = bundle.verify(path, Path(args.public_key) if args.public_key else None,
                              subjects)
    except (bundle.BundleError, ValueError) as exc:
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
        print(f"boardcert: {path}: {attestations.headline(found)}: {len(found.problems)} "
              "problem(s):")
        for problem in found.problems:
            print(f"  - {problem}")
    for note in found.notes:
        print(f"  note: {note}")
    return EXIT_OK if found.intact else EXIT_FAILED


def _verify_attestation(path: Path, public_key: str | None, subjects: list[Any]) -> int:
    """`boardcert verify --attestation FILE`: a lone envelope (or a .jsonl of them)."""
    from boardcert.outputs import attestations, bundle

    key = bundle.load_public_key(Path(public_key)) if public_key else None
    try:
        found = attestations.check_file(path, key, subjects)
    except OSError as exc:
        raise bundle.BundleError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    if found.problems:
        print(f"boardcert: {path}: {attestations.headline(found)}: {len(found.problems)} "
              "problem(s):")
        for problem in found.problems:
            print(f"  - {problem}")
    else:
        print(f"boardcert: {path}: INTACT: {len(found.statements)} attestation(s)")
        for name, statement in found.statements.items():
            print(f"  {name}: {attestations.describe(statement)}")
    for note in found.notes:
        print(f"  note: {note}")
    return EXIT_FAILED if found.problems else EXIT_OK


def _where(target: dict[str, Any]) -> str:
    if target.get("reference_server"):  # its loopback URL names nothing of the user's
        return "the bundled reference server"
    return target.get("base_url") or "a target not recorded"


def cmd_diff(args: argparse.Namespace, extra: list[str]) -> int:
    from boardcert.outputs import baseline

    try:
        a, b = baseline.load(Path(args.a)), baseline.load(Path(args.b))
    except baseline.BaselineError as exc:
        error(str(exc))
        return EXIT_USAGE
    print(baseline.render_diff(baseline.diff(a, b), args.a, args.b))
    return EXIT_OK


def cmd_keygen(args: argparse.Namespace, extra: list[str]) -> int:
    from boardcert.outputs import bundle

    try:
        private, public = bundle.keygen(Path(args.directory))
    except (bundle.BundleError, OSError) as exc:
        error(str(exc))
        return EXIT_USAGE
    key = bundle.fingerprint(bundle.load_public_key(public))
    print(f"boardcert: wrote {private} (private: keep it secret) and {public} (public: give "
          f"it to whoever verifies); key sha256:{key}")
    return EXIT_OK


def _entries(ids: list[str]) -> int:
    """Each requirement's entry of docs/requirements.md: what it rests on, its tests and the
    faults that prove them (what the reports point at)."""
    unknown = [i for i in ids if i not in requirements.catalogue()]
    if unknown:
        error(f"no such requirement: {', '.join(unknown)} (boardcert requirements lists them)")
        return EXIT_USAGE
    print("\n".join(requirements.page_entry(i) for i in ids), end="")
    return EXIT_OK
