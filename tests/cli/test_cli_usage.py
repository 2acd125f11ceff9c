"""What the `boardcert` command tells a new user: `run --help` gives the budget's default and
cost, the seed, one example, what goes after `--` and the exit codes; a mistyped flag or
command names the closest one, for every subcommand and the top level; the console names the
suites from the package's root, whatever the working directory."""

from __future__ import annotations

import subprocess
import sys

import pytest

from boardcert import cli
from boardcert.cli.exits import EXIT_CODES
from boardcert.cli.parser import closest
from boardcert.settings.budget import BUDGETS, DEFAULT_SEED

# Each subcommand with the arguments it requires.
COMMANDS = {"run": [], "report": ["DIR"], "requirements": [], "profile": [], "serve": [],
            "verify": ["b.zip"], "diff": ["A", "B"], "keygen": ["DIR"],
            "reproduce": ["DIR", "TEST"], "cleanup": ["DIR"],
            "proxy": ["--upstream", "http://127.0.0.1:1", "--report", "DIR"]}


def help_of(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert cli.main([*argv, "--help"]) == 0
    return capsys.readouterr().out


def test_run_help_gives_the_budget_s_default_and_cost(capsys):
    """--budget: each budget's cases and scenarios (from boardcert.settings.budget), what it costs,
    and
    that standard is the default."""
    shown = " ".join(help_of(capsys, "run").split())
    assert "--budget B how hard the property tests try (default standard)" in shown
    for budget in BUDGETS.values():
        assert budget.describe() in shown
    assert "about 2,200 requests, 4 s on the bundled server" in shown


def test_run_help_gives_the_seed_an_example_the_dashes_and_the_exit_codes(capsys):
    """--seed with its default; an example run; pytest's arguments after --; every exit
    code with its meaning."""
    shown = help_of(capsys, "run")
    flat = " ".join(shown.split())
    assert "--seed N the seed of the generated requests" in flat
    assert f"(default {DEFAULT_SEED})" in flat
    assert 'example:\n  boardcert run --base-url http://127.0.0.1:8080 --api-key "$KEY"' in shown
    assert "after --, arguments for pytest" in shown and "-- -m op16" in shown
    for code, meaning in EXIT_CODES.items():
        assert f"  {code:<4} {meaning}\n" in shown


def test_the_top_level_help_gives_the_exit_codes(capsys):
    """`boardcert --help` lists the exit codes too."""
    flat = " ".join(help_of(capsys).split())
    assert all(f"{code} {meaning}" in flat for code, meaning in EXIT_CODES.items())


@pytest.mark.parametrize(("argv", "meant"), [
    (["run", "--hypothesis-seed", "3"], "--seed"),  # what the console printed before --seed
    (["run", "--seeed", "3"], "--seed"),
    (["run", "--budjet", "quick"], "--budget"),
    (["run", "--url", "http://x"], "--base-url or --docs-url"),
    (["run", "--key", "k"], "--api-key or --keyless"),  # both fit as well: both named
    (["run", "--stirct"], "--strict"),
    (["run", "--budge", "quick"], "--budget"),  # no abbreviation: --key is not --keyless
    (["profile", "--shwo"], "--show"),
    (["profile", "--discovr"], "--discover"),
    (["requirements", "--levle", "MUST"], "--level"),
    (["serve", "--prot", "8080"], "--port"),
    (["serve", "--client-reprot", "DIR"], "--client-report"),
    (["proxy", "--upstraem", "http://x"], "--upstream"),
    (["verify", "b.zip", "--public-kye", "k.pem"], "--public-key"),
    (["--verison"], "--version"),
    (["rnu"], "run"),
    (["reqirements"], "requirements"),
])
def test_a_mistyped_flag_or_command_names_the_closest_one(argv, meant, capsys):
    """Exit 2, the subcommand's own usage and error (not the top level's), and 'did you
    mean' the closest flag or command."""
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    command = "boardcert" if argv[0].startswith("-") or argv[0] not in COMMANDS \
        else f"boardcert {argv[0]}"
    assert err.startswith(f"usage: {command} "), err
    assert f"{command}: error: " in err
    assert f"{command}: did you mean {meant}?" in err, err


def test_pytest_arguments_before_the_dashes_are_pointed_after_them(capsys):
    """`boardcert run -k cards`: nothing of run's is near -k; the error says where pytest's
    arguments go."""
    assert cli.main(["run", "-k", "cards"]) == 2
    err = capsys.readouterr().err
    assert "unrecognized arguments: -k cards" in err
    assert "pytest's own arguments go after --, e.g. boardcert run -- -k cards" in err


def test_every_subcommand_refuses_its_own_unknown_flags(capsys):
    """Each subcommand names itself in the error of a flag it does not know."""
    known = cli.build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert set(COMMANDS) == set(known)  # a new subcommand is listed here too
    for command in COMMANDS:
        assert cli.main([command, *COMMANDS[command], "--no-such-flag-at-all"]) == 2
        err = capsys.readouterr().err
        assert f"boardcert {command}: error: unrecognized arguments: --no-such-flag-at-all" \
            in err, err


def test_closest_finds_nothing_for_what_is_far_from_every_flag():
    """No suggestion rather than a wrong one."""
    assert closest("--zzz", ["--seed", "--budget"]) is None
    assert closest("-k", ["--seed", "-n", "--workers"]) is None
    assert closest("--seed=5", ["--seed", "--budget"]) == "--seed"


def test_the_console_names_the_suites_from_the_package_s_root(tmp_path):
    """A run started in another directory shows `suites/test_users.py`, not a path climbing
    out of the working directory."""
    done = subprocess.run([sys.executable, "-m", "boardcert.cli", "run", "--output",
                           str(tmp_path / "out"), "--", "-m", "op1"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    modules = [line.split()[0] for line in done.stdout.splitlines() if ".py " in line]
    assert "suites/test_users.py" in modules, done.stdout[-3000:] + done.stderr
    assert all(m.startswith("suites/") for m in modules), modules
