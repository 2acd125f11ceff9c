"""The options of a run are declared once (boardcert.settings.options): pytest's plugin and
`boardcert run` both show every one, `boardcert run` resolves those given into the run it hands
to pytest (none on pytest's command line), and neither declares one of them again."""

from __future__ import annotations

import argparse
from typing import Any

from boardcert import cli
from boardcert.cli import session
from boardcert.pytest import plugin
from boardcert.settings import options
from boardcert.settings.run import resolve_run


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


def test_options_given_reach_the_plugin_in_the_run_never_on_pytests_command_line(tmp_path):
    """Each option given to `boardcert run` is in the run it resolves, with its value; pytest's
    arguments hold none of them (the key least of all): the run is handed over whole."""
    given = ["--base-url", "http://h", "--api-key", "k-123456789", "--budget", "quick",
             "--seed", "5", "--request-timeout", "2.5", "--rate-limit", "7", "--max-body",
             "1000", "--read-only", "--project-id", "P1", "--no-preflight", "--keep-failed",
             "--in-flight", "3", "--docs-url", "https://docs.example/"]
    args = cli.build_parser().parse_args(["run", *given])
    run = resolve_run(vars(args), {})
    target = run.target
    assert (target.base_url, target.api_key, target.timeout, target.rate_limit,
            target.max_body, target.read_only, target.project_id) == \
        ("http://h", "k-123456789", 2.5, 7.0, 1000, True, "P1")
    assert (run.budget.name, run.seed, run.in_flight, run.docs_url, run.no_preflight,
            run.keep_failed, run.bundled) == ("quick", 5, 3, "https://docs.example/", True,
                                              True, False)
    argv = session.pytest_arguments(args, [], tmp_path)
    assert not any("k-123456789" in arg for arg in argv)
    assert not any(arg.startswith(tuple(o.flag for o in options.OPTIONS)) for arg in argv)


