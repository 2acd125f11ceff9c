"""`boardcert profile`: check a profile, show it merged (--show), write a template (--init),
or probe a server for one (--discover)."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

from boardcert.cli.exits import EXIT_OK, EXIT_USAGE, error, stopped
from boardcert.cli.run import check_target
from boardcert.errors import ConfigError, UnreachableError
from boardcert.http.redact import for_key
from boardcert.paths import DEFAULT_PROFILE

TEMPLATE_HEADER = """\
# boardcert implementation profile for <your server>.
# The interface leaves much "not shown": request bodies, where operation 27 takes entityId,
# which plugin ids and codes are accepted. This file says what your server does there
# (docs/policy.md, section 5). It starts as a copy of the bundled reference server's
# profile, which is also the default for every key you leave out: keep only what differs for
# your server (null says "this server has none"), then
#     boardcert profile --show THIS-FILE       # the profile a run uses, merged
#     boardcert profile THIS-FILE              # check it
#     boardcert run --profile THIS-FILE --base-url URL --api-key KEY
# Validated against spec/profile.schema.json. A key set to null turns the tests that need it
# into "not assessed: <key>", never into failures.
"""


def cmd_profile(args: argparse.Namespace, extra: list[str]) -> int:
    from boardcert.settings.config import load_profile

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
        return stopped(exc)
    if args.show:
        print(show_profile(profile), end="")
        return EXIT_OK
    print(f"boardcert: {profile.path or DEFAULT_PROFILE}: a valid profile, name "
          f"{profile.name!r}")
    return EXIT_OK


def profile_template() -> str:
    """spec/profiles/reference.yaml with a header for a new server and its own name."""
    text = DEFAULT_PROFILE.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    body = "".join(lines[next(i for i, line in enumerate(lines)
                              if not line.startswith("#")):])
    body = re.sub(r"^name: .*$", "name: my-server                 # shown in the reports",
                  body, count=1, flags=re.MULTILINE)
    return TEMPLATE_HEADER + body


def show_profile(profile: Any) -> str:
    """The merged profile as YAML, headed by where it came from."""
    import yaml

    source = f"{profile.path} laid over the defaults" if profile.path else "the defaults"
    return (f"# boardcert profile {profile.name!r}: {source} (spec/profiles/reference.yaml)\n"
            + yaml.safe_dump(profile.data, sort_keys=False, allow_unicode=True))


def discover_profile(args: argparse.Namespace) -> int:
    """`boardcert profile --discover`: probe the server, write what it accepts as a profile."""
    from boardcert.discovery import discover_target, render

    output = Path(args.output) if args.output else None
    try:
        target = check_target(args, profile=args.path)
        if not target.base_url:
            raise ConfigError("--discover needs --base-url (or BOARDCERT_BASE_URL)")
        if output is not None and output.exists():
            raise ConfigError(f"-o {output} exists; not overwriting it (choose another FILE)")
        found = discover_target(target)
    except (ConfigError, UnreachableError) as exc:
        return stopped(exc)
    text = for_key(target.api_key).text(render(found, target.base_url))
    if output is None:
        print(text, end="")
        return EXIT_OK
    output.write_text(text, encoding="utf-8")
    missing = [f.key for f in found.findings if f.outcome in ("not found", "not tried")]
    print(f"boardcert: wrote {output}"
          + (f"; not found (their tests will be not assessed): {', '.join(missing)}"
             if missing else "") + f"; then boardcert run --profile {output}")
    return EXIT_OK
