"""Discovery: the request bodies a server accepts where the interface does not show them.

For each body key of the profile (and op 7's row-name property, op 27's entityId placement,
whether metadata ids are keys), the profile's value is tried first, then the spellings of
spec/discovery.yaml, then the fields the server's refusals name as required, inside a project
made for it (in the ledger, so it is deleted at the end). The first 2xx wins. What is found
overlays the profile, and a body found accepted is "proven": a later refusal of it is the
server's fault, not the profile's (api.misfit). Nothing found keeps the profile's value, so the
tests report "not assessed" with the server's own message if it is refused.
"""

from __future__ import annotations

from datetime import UTC, datetime

import yaml

from boardcert.discovery.findings import FOUND, KEPT, NOT_FOUND, NOT_TRIED, Discovery, Finding
from boardcert.discovery.probe import Probe, Stop, candidates
from boardcert.http import preflight
from boardcert.http.api import Api
from boardcert.http.client import Client
from boardcert.settings.config import NotAssessed, Target
from boardcert.workbench.ledger import Ledger

__all__ = ["FOUND", "KEPT", "NOT_FOUND", "NOT_TRIED", "Discovery", "Finding", "discover",
           "discover_target", "organization_of", "render"]


def organization_of(api: Api) -> str:
    """The organization to work in: the profile's, or GET /users/me's current (else first)."""
    given = api.profile.data.get("organization")
    if given and given != "discover":
        return str(given)
    body = api.call(1).json()
    if not isinstance(body, dict):
        raise NotAssessed("organization (GET /users/me did not answer an object)")
    current = body.get("currentOrganization")
    if isinstance(current, dict) and current.get("id") is not None:
        return str(current["id"])
    orgs = body.get("organizations")
    if isinstance(orgs, list) and orgs and isinstance(orgs[0], dict) and "id" in orgs[0]:
        return str(orgs[0]["id"])
    raise NotAssessed("organization (not discoverable from GET /users/me; set it in the profile)")


def discover_target(target: Target) -> Discovery:
    """Discovery on its own (`boardcert profile --discover`): the preflight (ConfigError or
    UnreachableError for a target that is not the API or refuses the key), the probes, then
    the deletion of what they made."""
    client = Client(target)
    try:
        preflight.examine(client)
        api = Api(client, target.profile)
        ledger = Ledger(api)
        try:
            return discover(api, ledger, organization_of(api))
        finally:
            ledger.clean_up()
    finally:
        client.close()


def render(found: Discovery, base_url: str) -> str:
    """The profile found, as YAML to keep, with what was found (and not) as comments."""
    data = {"name": "discovered", **{k: v for k, v in found.profile.data.items()
                                     if k != "name"}}
    lines = [f"# boardcert implementation profile discovered from {base_url}",
             f"# on {datetime.now(UTC):%Y-%m-%d %H:%M} UTC by boardcert profile --discover.",
             "# What probing found (the profile's value first, then common spellings):"]
    lines += [f"#   {line}" for line in found.lines()]
    lines += ["# Keep it, edit it, then: boardcert run --profile THIS-FILE --base-url URL "
              "--api-key KEY", ""]
    return "\n".join(lines) + yaml.safe_dump(data, sort_keys=False, allow_unicode=True,
                                             default_flow_style=None, width=100)


def discover(api: Api, ledger: Ledger, organization_id: str) -> Discovery:
    """Probe the server (through `api`, whose profile is the user's) and return the profile
    with what it accepts; the probes' resources go into `ledger`."""
    probe = Probe(api, ledger, organization_id, candidates())
    try:
        probe.run()
    except Stop as stop:
        probe.stopped(str(stop))
    except AssertionError as exc:  # no usable answer (ExchangeError): the tests will say more
        probe.stopped(f"discovery stopped: {str(exc).splitlines()[0]}")
    except Exception as exc:  # noqa: BLE001 - the run goes on with the profile as given
        probe.stopped(f"this is a bug in boardcert: discovery failed: {exc!r}")
    return Discovery(probe.result(), probe.findings)
