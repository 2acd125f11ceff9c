"""`boardcert reproduce`: run a failed test's reproduction script against a server (exit 1:
the failure is reproduced; 0: the server now passes; 3: it could not get that far; 2: usage).
`boardcert cleanup`: delete what a --keep-failed run left on the server."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from boardcert.cli.exits import EXIT_FAILED, EXIT_OK, EXIT_UNREACHABLE, EXIT_USAGE, error
from boardcert.outputs import baseline
from boardcert.reproduce import answers, script

KEY_VARIABLE, URL_VARIABLE = "BOARDCERT_API_KEY", "BOARDCERT_BASE_URL"


def cmd_reproduce(args: argparse.Namespace, extra: list[str]) -> int:
    try:
        report = baseline.load(Path(args.report))
        test = script.find(report, args.test)
    except (baseline.BaselineError, script.NotFound) as exc:
        error(str(exc))
        return EXIT_USAGE
    text = script.script(test, report)
    if args.print:
        sys.stdout.write(text)
        return EXIT_OK
    key = args.api_key or os.environ.get(KEY_VARIABLE, "")
    base_url = args.base_url or os.environ.get(URL_VARIABLE) or \
        test["reproduction"]["base_url"]
    if not base_url:
        error("--base-url is required: the report names no server")
        return EXIT_USAGE
    if not key:
        error(f"--api-key (or {KEY_VARIABLE}) is required: the script sends the key (the "
              f"server is {base_url})")
        return EXIT_USAGE
    with tempfile.TemporaryDirectory(prefix="boardcert-reproduce-") as directory:
        path = Path(directory) / script.script_name(test["nodeid"])
        path.write_text(text, encoding="utf-8")
        done = subprocess.run([sys.executable, str(path), "--base-url", base_url,
                               *(["--keep"] if args.keep else [])],
                              env={**os.environ, KEY_VARIABLE: key}, check=False)
    return done.returncode


def cmd_cleanup(args: argparse.Namespace, extra: list[str]) -> int:
    try:
        report = baseline.load(Path(args.report))
    except baseline.BaselineError as exc:
        error(str(exc))
        return EXIT_USAGE
    kept = report.get("kept") or []
    if not kept:
        print(f"boardcert: {args.report}: the run left nothing on the server")
        return EXIT_OK
    key = args.api_key or os.environ.get(KEY_VARIABLE, "")
    base_url = args.base_url or os.environ.get(URL_VARIABLE) or report["target"]["base_url"]
    if not base_url:
        error("--base-url is required: the report names no server")
        return EXIT_USAGE
    if not key:
        error(f"--api-key (or {KEY_VARIABLE}) is required: the deletes send the key (the "
              f"server is the report's, {base_url}; --base-url names another)")
        return EXIT_USAGE
    left, silent = 0, 0
    for resource in kept:
        answer = answers.request(base_url, resource["method"], resource["path"],
                                {answers.KEY_HEADER: key}, None, 10.0, 1 << 20)
        gone = answer.status is not None and (200 <= answer.status < 300 or
                                              answer.status == 404)
        left += not gone
        silent += answer.status is None
        what = " ".join(f"{k}={v}" for k, v in resource["params"].items())
        print(f"{'deleted' if gone else 'NOT deleted'}: {resource['kind']} {what} "
              f"({resource['method']} {resource['path']} -> {answer.describe()})")
    if silent == len(kept):
        return EXIT_UNREACHABLE
    return EXIT_FAILED if left else EXIT_OK
