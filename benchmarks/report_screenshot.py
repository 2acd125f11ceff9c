"""The screenshots of a failing compliance.html in docs/, taken the way a user sees it: a whole
quick run of boardcert against the reference server with three catalogued faults at once (a
25,001-character card name accepted, a rename that does not rename, Project answers without
updatedAt), its report opened in headless Chromium: docs/report.png, the top of the page with
the "Failed" filter clicked; docs/report-failure.png, the first failure with a long body (its
message, the reproduction, the exchange and its curl line folded).

    python benchmarks/report_screenshot.py [--output docs/report.png] [--keep DIR]

Needs chromium and chromedriver (apt-get install -y chromium chromium-driver).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from faults import FAULTS, certify, combined  # noqa: E402
from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

FAULTS_SHOWN = ("name-limit-25001", "card-rename-not-saved", "project-missing-updatedAt")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         "--disable-quic", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run", "--hide-scrollbars")
WIDTH, HEIGHT = 1280, 1500


def screenshot(page: Path, output: Path) -> None:
    """The page's top WIDTH x HEIGHT pixels with the failed requirements alone, and beside it
    (-failure.png) the first failure with a long body."""
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "chromium"
    for flag in (*FLAGS, f"--window-size={WIDTH},{HEIGHT}"):
        options.add_argument(flag)
    with tempfile.TemporaryDirectory() as profile:
        options.add_argument(f"--user-data-dir={profile}")
        driver = webdriver.Chrome(options=options, service=Service(
            executable_path=shutil.which("chromedriver") or "chromedriver"))
        try:
            driver.get(page.resolve().as_uri())
            driver.find_element(By.CSS_SELECTOR, "[data-filter=status][data-value=failed]").click()
            driver.save_screenshot(str(output))
            failure = driver.find_element(  # one with a long body: its texts folded
                By.CSS_SELECTOR, "#failures article.failure:has(.fold.curl.folded)")
            failure.screenshot(str(output.with_name(f"{output.stem}-failure{output.suffix}")))
        finally:
            driver.quit()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", default=str(ROOT / "docs" / "report.png"))
    parser.add_argument("--keep", metavar="DIR", help="keep the run's report directory here")
    args = parser.parse_args()
    by_name = {v.name: v for v in FAULTS}
    variant = combined("three-faults", *(by_name[n] for n in FAULTS_SHOWN))
    with tempfile.TemporaryDirectory() as directory:
        result = certify(variant, Path(directory), budget="quick", full=True)
        print(f"boardcert: {result.verdict}; failed: {', '.join(result.failed())}")
        report = Path(directory) / "report"
        screenshot(report / "compliance.html", Path(args.output))
        if args.keep:
            shutil.copytree(report, args.keep, dirs_exist_ok=True)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
