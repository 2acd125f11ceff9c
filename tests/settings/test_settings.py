"""boardcert.settings: the one resolution of a run's settings (config.resolve, run.resolve_run),
from flags then BOARDCERT_* variables, pure (it reads only what it is given), into a frozen Run
that reaches pytest's plugin and its xdist workers whole."""

from __future__ import annotations

import dataclasses

import pytest

from boardcert.errors import ConfigError
from boardcert.paths import DEFAULT_PROFILE
from boardcert.settings.config import resolve
from boardcert.settings.run import Run, resolve_run

URL, KEY = "http://127.0.0.1:9", "a-key-for-tests-0123456789"


def test_flags_win_over_variables():
    """A flag given wins; a variable stands in for a flag not given."""
    env = {"BOARDCERT_BASE_URL": "http://other:1", "BOARDCERT_API_KEY": "env-key",
           "BOARDCERT_TIMEOUT": "3"}
    target = resolve({"base_url": URL + "/", "request_timeout": None}, env)
    assert (target.base_url, target.api_key, target.timeout) == (URL, "env-key", 3.0)
    assert resolve({"request_timeout": 7}, env).timeout == 7.0


def test_no_base_url_is_the_reference_server_and_defaults_apply():
    """Nothing given: the bundled reference server, 10 s, 8 MiB, no rate limit."""
    target = resolve({}, {})
    assert (target.base_url, target.timeout, target.max_body, target.rate_limit) == (
        "", 10.0, 8 * 1024 * 1024, None)
    assert target.profile.name == "reference"


@pytest.mark.parametrize(("flags", "env", "says"), [
    ({"base_url": "ftp://x"}, {}, "--base-url 'ftp://x': expected an http"),
    ({}, {"BOARDCERT_BASE_URL": "nope"}, "BOARDCERT_BASE_URL 'nope'"),
    ({"base_url": URL}, {}, "--api-key (or BOARDCERT_API_KEY) is required"),
    ({}, {"BOARDCERT_TIMEOUT": "abc"}, "BOARDCERT_TIMEOUT 'abc': expected a number"),
    ({"request_timeout": 0}, {}, "--request-timeout must be a positive"),
    ({"rate_limit": -1}, {}, "--rate-limit must be a positive"),
    ({"max_body": 0}, {}, "--max-body must be a positive"),
    ({"project_id": "p1"}, {}, "--project-id is for --read-only runs"),
    ({"api_key": KEY}, {}, "--api-key was given without --base-url"),
])
def test_bad_settings_are_config_errors_naming_the_flag_or_variable(flags, env, says):
    """Each bad setting is a ConfigError (exit 2) that names where it came from."""
    with pytest.raises(ConfigError) as refused:
        resolve(flags, env)
    assert says in str(refused.value)


def test_a_key_in_the_environment_alone_is_ignored():
    """BOARDCERT_API_KEY with no target: the bundled server, the key set aside (the console's
    header names it as ignored), not an error: a CI job may set it for every step."""
    target = resolve({}, {"BOARDCERT_API_KEY": KEY})
    assert (target.base_url, target.api_key) == ("", "")


def test_the_rate_limit_is_shared_by_the_workers():
    """--rate-limit is for the run: each of N workers gets 1/N of it."""
    assert resolve({"rate_limit": 8}, {}, workers=4).rate_limit == 2
    assert resolve({"rate_limit": 8}, {}).rate_limit == 8


def test_the_target_is_frozen_and_its_repr_hides_the_key():
    """A resolved target cannot be changed in place, and never shows the key."""
    target = resolve({"base_url": URL, "api_key": KEY}, {})
    with pytest.raises(dataclasses.FrozenInstanceError):
        target.base_url = "http://elsewhere"  # type: ignore[misc]
    assert KEY not in repr(target)


def test_a_run_reaches_an_xdist_worker_whole_with_its_share_of_the_rate_limit():
    """A worker gets the controller's run as it was resolved (the key, the profile, the
    budget, every option), pacing its share of --rate-limit."""
    run = dataclasses.replace(resolve_run(
        {"base_url": URL, "api_key": KEY, "profile": str(DEFAULT_PROFILE), "budget": "7",
         "seed": 3, "rate_limit": 10.0, "in_flight": "2", "keep_failed": True, "plan": False},
        {"BOARDCERT_DOCS_URL": "https://docs.example/"}, options=["run", "--api-key"]),
        checked=True)
    sent = Run.from_wire(run.wire(), workers=4)
    assert sent == dataclasses.replace(run, target=dataclasses.replace(run.target,
                                                                       rate_limit=2.5))
    assert sent.target.profile.data == run.target.profile.data and sent.in_flight == 2
    assert Run.from_wire(run.wire()) == run


def test_a_run_is_resolved_once_with_every_error_named():
    """Budget and in-flight are checked when the run is resolved, naming the flag."""
    with pytest.raises(ConfigError, match="--budget"):
        resolve_run({"budget": "fast"}, {})
    with pytest.raises(ConfigError, match="--in-flight '9'.*BOARDCERT_IN_FLIGHT"):
        resolve_run({}, {"BOARDCERT_IN_FLIGHT": "9"})
