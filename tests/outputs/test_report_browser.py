"""compliance.html in a real headless browser (Debian chromium, driven by Selenium through
Debian's chromedriver): what a person sees, and that the filters work.

CI installs chromium (.ci/run); without it this test fails under CI=true and skips elsewhere.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from samples import FAILURE, reported_run, sample_tests
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement

from boardcert.http.client import Exchange
from boardcert.outputs import report
from boardcert.outputs.report import TestResult, build

pytestmark = pytest.mark.xdist_group("test_report_browser")  # one worker makes the module's runs

BROWSERS = ("chromium", "chromium-browser", "google-chrome")
# Headless as root, and quiet: without the background-networking flags chromium keeps trying
# Google's hosts, which this machine's closed network refuses.
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         "--disable-quic", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run", "--window-size=1280,1000")


def _need(what: str, found: str | None) -> str:
    if found:
        return found
    message = (f"{what} is not installed: apt-get install -y chromium chromium-driver "
               "(the browser test of compliance.html needs it)")
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebDriver]:
    chromium = _need("chromium", next(filter(None, map(shutil.which, BROWSERS)), None))
    chromedriver = _need("chromedriver", shutil.which("chromedriver"))
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    # An explicit driver path: Selenium Manager never goes looking on the network.
    driver = webdriver.Chrome(options=options, service=Service(executable_path=chromedriver))
    try:
        yield driver
    finally:
        driver.quit()


LONG_NAME = "a" * 25001
LONG = Exchange("PATCH", "http://127.0.0.1:8080/projects/p1/cards/c1",
                {"X-API-Key": "***", "content-type": "application/json"},
                json.dumps({"name": LONG_NAME}).encode(), status=200,
                headers={"content-type": "application/json"},
                content=json.dumps({"id": "c1", "name": LONG_NAME}).encode()).as_dict()
FAILING = "suites/test_limits.py::test_name_over_the_limit_is_rejected[25001]"


def failing_report() -> dict:
    """The non-conformant sample, its MUST failure's evidence a 25,001-character name (curl
    line and all) and with a reproduction."""
    tests = [t for t in sample_tests("non-conformant") if "CARD-NAME-MAX-REJECTED" not in
             t.failed_requirements]
    recipe = {"format": 1, "test": FAILING, "requirements": ["CARD-NAME-MAX-REJECTED"],
              "message": FAILURE, "base_url": "http://127.0.0.1:8080", "timeout": 10.0,
              "max_body": 1 << 20, "ids": {}, "names": {}, "used": [],
              "steps": [{"method": "PATCH", "label": "PATCH /projects/{projectId}/cards/"
                         "{cardId}", "op": 16, "path": ["/projects/p1/cards/c1"], "query": [],
                         "key": "***", "headers": {"content-type": ["application/json"]},
                         "body": {"text": [json.dumps({"name": LONG_NAME})]}, "shown": True,
                         "conditions": [{"kind": "status", "want": "4xx"}]}]}
    tests.append(TestResult(FAILING, "failed", ("CARD-NAME-MAX-REJECTED",), (16,), FAILURE,
                            (LONG,), blamed=("CARD-NAME-MAX-REJECTED",), reproduction=recipe))
    return build(tests, reported_run())


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return report.write(failing_report(), tmp_path_factory.mktemp("report"))


@pytest.fixture
def page(browser: WebDriver, written: dict[str, Path]) -> WebDriver:
    """The failing report, opened afresh: failures, passes and requirements not assessed."""
    browser.get(Path(written["html"]).resolve().as_uri())
    return browser


def find(driver: WebDriver, css: str) -> WebElement:
    return driver.find_element(By.CSS_SELECTOR, css)


def find_all(driver: WebDriver, css: str) -> list[WebElement]:
    return driver.find_elements(By.CSS_SELECTOR, css)


def visible(driver: WebDriver, css: str) -> int:
    return driver.execute_script("return Array.from(document.querySelectorAll(arguments[0]))"
                                 ".filter(e => e.offsetParent !== null).length", css)


def test_verdict_banner_says_the_verdict(page: WebDriver):
    """The banner shows the verdict and why, in words a person reads."""
    banner = find(page, "#verdict")
    assert banner.is_displayed()
    assert banner.text == "Non-conformant"
    assert "MUST requirement failed: CARD-NAME-MAX-REJECTED" in find(page, "#verdict-reason").text



def _luminance(css_colour: str) -> float:
    """WCAG relative luminance of a computed "rgb(r, g, b)" / "rgba(...)" colour."""
    parts = [float(v) / 255 for v in css_colour[css_colour.index("(") + 1:-1].split(",")[:3]]
    r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in parts)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def test_the_banner_links_can_be_read(page: WebDriver):
    """Each link in the verdict banner ("What it means: ...") stands out from the banner's
    colours by WCAG's 4.5:1 (a blue link on the red banner was 1.03:1, invisible)."""
    links = find_all(page, ".banner a")
    assert links
    image = page.execute_script("return getComputedStyle(document.querySelector('.banner'))"
                                ".backgroundImage")
    stops = [f"rgb({c})" for c in image.split("rgb(")[1:]]
    for link in links:
        fg = _luminance(link.value_of_css_property("color"))
        for stop in stops:
            bg = _luminance(stop[:stop.index(")") + 1])
            assert (max(fg, bg) + 0.05) / (min(fg, bg) + 0.05) >= 4.5, (link.text, stop)

def test_operation_matrix_shows_all_28_operations(page: WebDriver):
    """The operation matrix has one visible row per operation of section 4, in order."""
    rows = find_all(page, "#operation-matrix tbody tr")
    assert len(rows) == 28
    assert visible(page, "#operation-matrix tbody tr") == 28
    assert rows[15].text.startswith("16 PATCH /projects/{projectId}/cards/{cardId}")


def rows_shown(driver: WebDriver) -> list[tuple[str, str]]:
    """(status, level) of each requirement row shown, top to bottom."""
    return [tuple(row) for row in driver.execute_script(
        "return Array.from(document.querySelectorAll('tr.req')).filter(e => e.offsetParent)"
        ".map(e => [e.dataset.status, e.dataset.level])")]


def chip(driver: WebDriver, kind: str, value: str) -> WebElement:
    return find(driver, f"button[data-filter='{kind}'][data-value='{value}']")


def pressed(driver: WebDriver, kind: str) -> list[str]:
    return [c.get_attribute("data-value") for c in find_all(driver, f"[data-filter='{kind}']")
            if c.get_attribute("aria-pressed") == "true"]


def test_failed_and_not_assessed_requirements_come_first(page: WebDriver):
    """The table starts with the failed requirements (MUST first), then those not assessed;
    the passed ones come last."""
    shown = rows_shown(page)
    statuses = [status for status, _ in shown]
    assert statuses[0] == "failed" and shown[0][1] == "MUST"
    first_passed = statuses.index("passed")
    assert "not assessed" in statuses[:first_passed]
    assert set(statuses[first_passed:]) == {"passed"}
    assert statuses == sorted(statuses, key=["failed", "not assessed", "passed"].index)


def test_a_status_filter_shows_just_that_status(page: WebDriver):
    """Everything shows at first, "All" pressed; clicking "Failed" shows the failed
    requirements only, "Failed" pressed and "All" not; "All" shows everything again."""
    everything = len(rows_shown(page))
    assert everything == len(find_all(page, "tr.req")) and pressed(page, "status") == ["all"]
    chip(page, "status", "failed").click()
    shown = rows_shown(page)
    assert shown and {s for s, _ in shown} == {"failed"}
    assert len(shown) == len(find_all(page, "tr.req[data-status='failed']"))
    assert pressed(page, "status") == ["failed"]
    assert find(page, "#req-shown").text == f"{len(shown)} of {everything} shown"
    chip(page, "status", "passed").click()
    assert {s for s, _ in rows_shown(page)} == {"passed"} and pressed(page, "status") == \
        ["passed"]
    chip(page, "status", "all").click()
    assert len(rows_shown(page)) == everything and pressed(page, "status") == ["all"]


def test_a_level_filter_shows_just_that_level(page: WebDriver):
    """Clicking "INFO" shows the INFO requirements only, and hides the status groups left
    empty; clicking it again shows every level; status and level filters combine."""
    chip(page, "level", "INFO").click()
    assert {level for _, level in rows_shown(page)} == {"INFO"}
    assert visible(page, "tbody.status-group[data-status='failed']") == 0
    chip(page, "level", "INFO").click()
    assert pressed(page, "level") == ["all"]
    chip(page, "level", "MUST").click()
    chip(page, "status", "failed").click()
    assert set(rows_shown(page)) == {("failed", "MUST")}


def test_long_texts_are_folded_with_the_whole_text_one_click_away(page: WebDriver):
    """A curl line carrying a 25,001-character name shows a few lines; "Show all" opens the
    whole line; the failure's blocks each have a copy button."""
    fold = find(page, "#failures .fold.curl.folded")
    assert fold.find_element(By.CSS_SELECTOR, "pre.preview").size["height"] < 150
    whole = fold.find_element(By.CSS_SELECTOR, "pre[data-whole]")
    assert not whole.is_displayed()
    assert len(whole.get_attribute("textContent")) > 25001
    fold.find_element(By.CSS_SELECTOR, "summary").click()
    assert whole.is_displayed()
    assert not fold.find_element(By.CSS_SELECTOR, "pre.preview").is_displayed()
    article = find(page, "#failures article.failure")
    folds = article.find_elements(By.CSS_SELECTOR, ".fold")
    assert len(folds) >= 4  # message, reproduction, exchange, curl
    assert all(f.find_element(By.CSS_SELECTOR, "button.copy").is_displayed() for f in folds)


def test_the_copy_button_copies_the_whole_text(page: WebDriver):
    """Copy hands the clipboard the whole curl line, not its preview, and says so."""
    page.execute_script("window.copiedText = null; navigator.clipboard.writeText = "
                        "t => { window.copiedText = t; return Promise.resolve(); };")
    button = find(page, "#failures .fold.curl.folded button.copy")
    button.click()
    copied = page.execute_script("return window.copiedText")
    assert copied.startswith("curl -sS -X PATCH") and LONG_NAME in copied
    assert button.text == "Copied"


def test_the_reproduction_is_one_click_away(page: WebDriver, written: dict[str, Path]):
    """A failure links its reproduction script, which the report directory holds, and shows
    the commands that run it."""
    link = find(page, "#failures .reproduce a.script")
    href = link.get_attribute("href")
    assert href.endswith(".py") and "/reproduce/" in href
    assert (written["html"].parent / link.text).is_file()
    commands = find(page, "#failures .reproduce pre.command").text
    assert f"python3 {link.text}" in commands and "boardcert reproduce ." in commands


def test_failures_show_request_response_and_curl(page: WebDriver):
    """A failure shows its message, the exchange and a curl line with the key as ***."""
    text = find(page, "article.failure").text
    assert "[CARD-NAME-MAX-REJECTED]" in text
    assert "response: 200" in text
    curl = find(page, "article.failure pre.curl").text
    assert curl.startswith("curl ") and "***" in curl


def test_the_page_loads_nothing(page: WebDriver):
    """The report is self-contained: the browser fetched no resource besides the page."""
    assert page.execute_script("return performance.getEntriesByType('resource').length") == 0


def test_without_a_clipboard_the_whole_text_is_selected(page: WebDriver):
    """Where the page may not write the clipboard, Copy opens the whole text and selects it."""
    page.execute_script("navigator.clipboard.writeText = () => Promise.reject(new Error('no'));"
                        "document.execCommand = () => false;")
    button = find(page, "#failures .fold.curl.folded button.copy")
    button.click()
    assert button.text == "Selected: Ctrl+C"
    selected = page.execute_script("return window.getSelection().toString()")
    assert selected.startswith("curl -sS -X PATCH") and LONG_NAME in selected
