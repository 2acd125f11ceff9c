"""The options of a run are declared once (boardcert.settings.options): pytest's plugin and
`boardcert
run` both show every one, `boardcert run` hands those given on to pytest (never the key), and
neither declares one of them again."""

from __future__ import annotations

import argparse
from typing import Any

from boardcert import cli
from boardcert.cli import session
from boardcert.pytest import plugin
from boardcert.settings import options


class Recorded:
    """Stands in for pytest's parser and its option group: notes each addoption."""

    def __init__(self) -> None:
        self.flags: list[str] = []

    def getgroup(self, *args: Any) -> Recorded:
        return self

    def addoption(self, *flags: str, **declaration: Any) -> None:
        self.flags += flags


def run_parser() -> argparse.ArgumentParser:
    return cli.build_parser()._subparsers._group_actions[0].choices["run"]  # type: ignore


def test_every_option_is_in_boardcert_run_help_and_pytest_help(capsys):
    """`boardcert run --help` lists each option with its help, as pytest's plugin does."""
    assert cli.main(["run", "--help"]) == 0
    shown = " ".join(capsys.readouterr().out.split())
    for option in options.OPTIONS:
        assert option.flag in shown
        assert " ".join(option.declaration()["help"].split()) in shown, option.flag
    recorded = Recorded()
    plugin.pytest_addoption(recorded)  # type: ignore[arg-type]
    assert recorded.flags == [option.flag for option in options.OPTIONS]


def test_each_option_is_declared_in_one_place():
    """The plugin declares only the table's options; `boardcert run`'s own flags are none of
    them; what `config.resolve` reads is all in the table."""
    table = {option.flag for option in options.OPTIONS}
    recorded = Recorded()
    plugin.pytest_addoption(recorded)  # type: ignore[arg-type]
    assert len(recorded.flags) == len(set(recorded.flags)) == len(table)
    run = [flag for action in run_parser()._actions for flag in action.option_strings]
    assert len(run) == len(set(run))  # argparse would refuse a second one anyway
    own = set(run) - table - {"-h", "--help"}
    assert own == {"--strict", "--output", "-n", "--workers", "--max-failures", "--bundle",
                   "--sign-key", "--subject", "--server-version", "--keyless", "--baseline",
                   "--known-failures", "--no-speed"}


def test_options_given_reach_pytest_as_given_but_the_key(tmp_path):
    """Each option given to `boardcert run` reaches pytest's arguments with its value; the key
    does not (it goes through the environment); --plan is the command's own path."""
    given = ["--base-url", "http://h", "--api-key", "k-123456789", "--profile", "p.yaml",
             "--budget", "quick", "--seed", "5", "--request-timeout", "2.5", "--rate-limit", "7",
             "--max-body", "1000", "--read-only", "--project-id", "P1", "--no-preflight"]
    args = cli.build_parser().parse_args(["run", *given])
    argv = session.pytest_arguments(args, [], tmp_path)
    assert {"--base-url=http://h", "--profile=p.yaml", "--budget=quick", "--seed=5",
            "--request-timeout=2.5", "--rate-limit=7.0", "--max-body=1000", "--read-only",
            "--project-id=P1", "--no-preflight"} <= set(argv)
    assert not any("k-123456789" in arg or arg.startswith("--api-key") for arg in argv)
    bare = session.pytest_arguments(cli.build_parser().parse_args(["run"]), [], tmp_path)
    assert not any(arg.startswith(tuple(o.flag for o in options.OPTIONS)) for arg in bare)
