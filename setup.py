"""Build hook: a wheel carries spec/, suites/, docs/requirements.md and docs/policy.md inside
the package, as boardcert/data/.

The repository keeps them at the top level; `boardcert.paths` reads them from
boardcert/data/ when installed from a wheel, else from the checkout (an editable install).
The metadata lives in pyproject.toml.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
DATA = ("spec", "suites")  # top-level directories the wheel carries
FILES = ("docs/requirements.md", "docs/policy.md")  # and files (the reports point there)


class BuildPyWithData(build_py):
    """build_py, then copy spec/ and suites/ into the built package."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:  # an editable install reads the checkout itself
            return
        for name in DATA:
            target = Path(self.build_lib, "boardcert", "data", name)
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(HERE / name, target,
                            ignore=shutil.ignore_patterns("__pycache__", "*.py[co]"))
        for name in FILES:
            target = Path(self.build_lib, "boardcert", "data", name)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(HERE / name, target)


setup(cmdclass={"build_py": BuildPyWithData})
