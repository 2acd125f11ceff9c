"""After a run: the regression comparison (--baseline, --known-failures), the attestations
(--subject, --server-version, --sign-key, --keyless) and the bundle (--bundle, --sign-key)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boardcert.cli.exits import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_UNREACHABLE,
    EXIT_USAGE,
    error,
)
from boardcert.errors import ConfigError
from boardcert.paths import DEFAULT_PROFILE, OPENAPI, REQUIREMENTS


@dataclass
class AfterRun:
    """What --baseline, --known-failures, --bundle and --sign-key ask for, read before the
    run so that a bad file is a usage error before any test runs."""

    baseline: dict[str, Any] | None = None
    known: dict[str, str] | None = None
    sign_key: Path | None = None
    bundle: bool = False
    profile: Path = DEFAULT_PROFILE  # the profile file the bundle carries
    attest: Any = None  # attestations.Plan

    @property
    def compares(self) -> bool:
        return self.baseline is not None or self.known is not None


def prepare_after_run(args: argparse.Namespace, profile: Path | None = None) -> AfterRun:
    """What to do after the run, for `profile` (the user's file; None: the defaults)."""
    from boardcert.outputs import attestations, baseline, bundle, statements

    after = AfterRun(bundle=bool(args.bundle or args.sign_key),
                     profile=profile or DEFAULT_PROFILE)
    try:
        subjects = statements.parse_subjects(args.subject)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    if args.server_version and not subjects:
        raise ConfigError("--server-version describes the build given by --subject: give "
                          "--subject NAME@sha256:HEX too")
    after.attest = attestations.Plan(subjects, args.server_version, bool(args.strict))
    if args.keyless:
        from boardcert.outputs import keyless

        try:
            keyless.check_available()
        except keyless.KeylessError as exc:
            raise ConfigError(str(exc)) from None
        after.attest.keyless = keyless.sign
    try:
        if args.baseline:
            after.baseline = baseline.load(Path(args.baseline))
        if args.known_failures:
            after.known = baseline.read_known_failures(Path(args.known_failures))
        if args.sign_key:
            after.sign_key = Path(args.sign_key)
            after.attest.key = bundle.load_private_key(after.sign_key)
    except (baseline.BaselineError, bundle.BundleError) as exc:
        raise ConfigError(str(exc)) from None
    return after


def after_run(args: argparse.Namespace, after: AfterRun, output: Path, exit_code: int,
              found: dict[str, Any] | None) -> int:
    """Compare with the baseline (its exit code then replaces the verdict's), then bundle;
    `found`: the run's compliance report, as it wrote it (None: it wrote none)."""
    from boardcert.outputs import baseline, report

    if exit_code in (EXIT_USAGE, EXIT_UNREACHABLE, EXIT_INTERRUPTED) or found is None:
        return exit_code
    if after.compares:
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
    return certify(after, output, found) or exit_code


def certify(after: AfterRun, output: Path, found: dict[str, Any]) -> int | None:
    """The attestations beside the reports (of `found`, compliance.json's content), and the
    bundle holding them too; an exit code only when they could not be made."""
    from boardcert.outputs import attestations, bundle, keyless, report

    plan = after.attest
    plan.report = found
    plan.inputs = {"openapi": bundle.sha256(OPENAPI.read_bytes()),
                   "requirements": bundle.sha256(REQUIREMENTS.read_bytes())}
    try:
        if after.bundle:
            path = bundle.create(output, profile=after.profile, sign_key=after.sign_key,
                                 attest=plan)
        else:
            plan.entries(report.JSON_NAME, (output / report.JSON_NAME).read_bytes())
    except (bundle.BundleError, keyless.KeylessError) as exc:
        error(str(exc))
        return EXIT_USAGE
    attestations.write(output, plan.files)
    signed = " (signed" + " keyless" * bool(plan.keyless) + ")" \
        if after.sign_key or plan.keyless else " (unsigned)"
    count = len(plan.envelopes)
    print(f"boardcert: wrote {count} attestation{'s' * (count > 1)}{signed}: "
          f"{output / 'attestations'}/ and {output / attestations.JSONL}")
    if after.bundle:
        print(f"boardcert: wrote {path}{' (signed)' * bool(after.sign_key)}; check it with "
              f"boardcert verify {path}")
    return None
