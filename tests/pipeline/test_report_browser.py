"""The fleet report in a real headless Chromium: a generated fleet of 1,000 repositories.

Checks what a person sees: nothing wider than the viewport (desktop and phone widths), no
label cut off, the ranking order (the page's, the table's, the Parquet's and the ranking
rule's agree), the filter and the sort working, per-repository sections reachable by link,
and nothing fetched from the network. Screenshots are kept as test artifacts (their paths
are printed at the end of the pytest run).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow.parquet as pq
import pytest

from tests.pipeline.conftest import ARTIFACTS
from tests.pipeline.helpers import run_scan, synthetic_fleet

if TYPE_CHECKING:
    from pyspark.sql import SparkSession
    from rebalance_scan.scan import ScanResult
    from selenium.webdriver.remote.webdriver import WebDriver

pytestmark = [pytest.mark.spark, pytest.mark.slow]

REPOS = 1000
DESKTOP = (1280, 900)
PHONE = (390, 844)


def _chromium() -> tuple[str, str]:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if browser is None or driver is None:
        pytest.skip(
            "headless Chromium is not installed (Debian: apt-get install chromium "
            "chromium-driver; .ci/run installs them where apt-get exists)"
        )
    return browser, driver


@pytest.fixture(scope="module")
def big_scan(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> ScanResult:
    fleet = tmp_path_factory.mktemp("fleet1000")
    size = synthetic_fleet().write_fleet(fleet, REPOS)
    assert size.repos == REPOS and size.listener_files > REPOS // 2
    return run_scan(spark, tmp_path_factory.mktemp("scan1000") / "out", fleets=[str(fleet)])


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    pytest.importorskip("selenium", reason="selenium is in the [test] extra")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    binary, driver = _chromium()
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--hide-scrollbars",
        f"--window-size={DESKTOP[0]},{DESKTOP[1]}",
    ):
        options.add_argument(argument)
    session = webdriver.Chrome(options=options, service=Service(executable_path=driver))
    try:
        yield session
    finally:
        session.quit()


def _open(browser: WebDriver, page: Path, width: int, height: int) -> None:
    # the viewport, not the window, must be width x height
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600},
    )
    browser.get(page.as_uri())
    assert browser.execute_script("return document.readyState") == "complete"


OVERFLOW_JS = """
const width = document.documentElement.clientWidth;
const wide = [];
const clipped = [];
for (const el of document.body.querySelectorAll('*')) {
  const box = el.getBoundingClientRect();
  if (box.width === 0 && box.height === 0) continue;
  if (box.right > width + 0.5 || box.left < -0.5) {
    wide.push(`${el.tagName}.${el.className.baseVal ?? el.className}#${el.id} `
              + `${box.left.toFixed(1)}..${box.right.toFixed(1)}`);
  }
}
for (const el of document.querySelectorAll('td, th, .row .label, .row .note, h3, .card')) {
  if (el.offsetParent === null) continue;
  if (el.scrollWidth > el.clientWidth + 1) clipped.push(`${el.tagName} ${el.textContent}`);
}
return {width: width, scrollWidth: document.documentElement.scrollWidth,
        wide: wide.slice(0, 10), wideCount: wide.length,
        clipped: clipped.slice(0, 10), clippedCount: clipped.length};
"""


def _assert_fits(browser: WebDriver, what: str) -> None:
    layout = browser.execute_script(OVERFLOW_JS)
    assert layout["scrollWidth"] <= layout["width"], (what, layout)
    assert layout["wideCount"] == 0, (what, layout["wide"])
    assert layout["clippedCount"] == 0, (what, layout["clipped"])


def _screenshot(browser: WebDriver, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / name
    assert browser.save_screenshot(str(path))
    return path


def _visible_table(browser: WebDriver) -> list[tuple[int, str, str]]:
    rows: list[list[Any]] = browser.execute_script(
        "return Array.from(document.querySelectorAll('#repos tbody tr'))"
        ".filter(r => !r.hidden)"
        ".map(r => [r.cells[0].textContent, r.cells[1].textContent, r.dataset.tier]);"
    )
    return [(int(rank), repo, tier) for rank, repo, tier in rows]


def test_the_1000_repository_report_in_chromium(big_scan: ScanResult, browser: WebDriver) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    page = big_scan.out / "report.html"
    ranked = pq.read_table(big_scan.out / "repositories.parquet").to_pylist()
    assert len(ranked) == REPOS
    # the ranking rule, computed here from the counts: bugs, risks, then manual, then auto sites
    by_rule = sorted(
        ranked,
        key=lambda r: (-r["bugs"], -r["risks"], -r["manual_sites"], -r["auto_sites"], r["repo"]),
    )
    assert [r["repo"] for r in ranked] == [r["repo"] for r in by_rule]
    assert [r["rank"] for r in ranked] == list(range(1, REPOS + 1))
    tiers = {r["tier"] for r in ranked}
    assert {"bugs", "manual", "auto"} <= tiers, "the generated fleet must show every tier"

    _open(browser, page, *DESKTOP)
    _screenshot(browser, "report-1000-top.png")
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0, (
        "the report loaded something"
    )
    _assert_fits(browser, "desktop")

    # the ranking is explained on the page
    rule = browser.find_element(By.ID, "ranking-rule").text
    assert rule.index("bugs") < rule.index("risks") < rule.index("manual sites")
    assert rule.index("manual sites") < rule.index("auto-migratable")

    # the chart shows the head of the ranking and summarises the rest
    labels = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#start-chart .label")]
    acting = [r for r in ranked if r["tier"] != "none"]
    assert labels == [f"{r['rank']}. {r['repo']}" for r in acting[: len(labels)]]
    assert 5 <= len(labels) <= 20
    rest = browser.find_element(By.CSS_SELECTOR, "#start-chart-rest").text
    assert f"+ {len(acting) - len(labels)} more repositories" in rest

    # the table lists every repository in ranking order
    assert _visible_table(browser) == [(r["rank"], r["repo"], r["tier"]) for r in ranked]
    assert browser.find_element(By.ID, "shown").text == f"{REPOS} of {REPOS} shown"

    # filter by text: rows whose name or reason holds every word
    word = "inventory"
    box = browser.find_element(By.ID, "filter")
    box.send_keys(word)
    shown = _visible_table(browser)
    expected = [r for r in ranked if word in r["repo"].lower() or word in r["reason"].lower()]
    assert [(rank, repo) for rank, repo, _ in shown] == [(r["rank"], r["repo"]) for r in expected]
    assert 0 < len(shown) < REPOS
    assert browser.find_element(By.ID, "shown").text == f"{len(shown)} of {REPOS} shown"
    _screenshot(browser, "report-1000-filtered.png")

    # and by tier, combined with the text
    Select(browser.find_element(By.ID, "tier-filter")).select_by_value("manual")
    shown = _visible_table(browser)
    assert shown == [(r["rank"], r["repo"], "manual") for r in expected if r["tier"] == "manual"]
    box.clear()
    browser.execute_script("arguments[0].dispatchEvent(new Event('input'))", box)
    assert [rank for rank, _, _ in _visible_table(browser)] == [
        r["rank"] for r in ranked if r["tier"] == "manual"
    ]
    Select(browser.find_element(By.ID, "tier-filter")).select_by_value("")
    assert len(_visible_table(browser)) == REPOS

    # sorting: auto sites, most first (ties in rank order), then back to rank
    headers = browser.find_elements(By.CSS_SELECTOR, "#repos thead button")
    columns = ["rank", "repository", "bugs", "risks", "manual", "auto"]
    assert [h.text for h in headers[:6]] == columns
    headers[5].click()
    assert [rank for rank, _, _ in _visible_table(browser)] == [
        r["rank"] for r in sorted(ranked, key=lambda r: (-r["auto_sites"], r["rank"]))
    ]
    headers[5].click()  # the same header again: fewest first
    assert [rank for rank, _, _ in _visible_table(browser)] == [
        r["rank"] for r in sorted(ranked, key=lambda r: (r["auto_sites"], r["rank"]))
    ]
    headers[0].click()  # rank: back to the ranking
    assert [rank for rank, _, _ in _visible_table(browser)] == list(range(1, REPOS + 1))

    # per-repository sections, reached from the chart and from the table
    first = acting[0]
    browser.find_element(By.CSS_SELECTOR, "#start-chart .label").click()
    assert browser.execute_script("return location.hash") == "#repo-1"
    section = browser.find_element(By.ID, "repo-1")
    assert first["repo"] in section.text and first["reason"] in section.text
    manual = [
        m
        for m in pq.read_table(big_scan.out / "manual_sites.parquet").to_pylist()
        if m["repo"] == first["repo"]
    ]
    assert all(m["reason"] in section.text for m in manual)
    last = ranked[-1]
    link = browser.find_element(By.CSS_SELECTOR, f"#repos a[href='#repo-{last['rank']}']")
    assert link.text == last["repo"]
    assert browser.find_element(By.ID, f"repo-{last['rank']}").get_attribute("class") == "repo"

    _open(browser, page, *PHONE)
    _assert_fits(browser, "phone")
    _screenshot(browser, "report-1000-phone.png")


def test_small_fleet_has_the_same_layout(
    spark: SparkSession, browser: WebDriver, fleet_scan: ScanResult
) -> None:
    """The 5-repository example fleet: same sections, same checks."""
    from selenium.webdriver.common.by import By

    _open(browser, fleet_scan.out / "report.html", *DESKTOP)
    _assert_fits(browser, "example fleet")
    ranked = pq.read_table(fleet_scan.out / "repositories.parquet").to_pylist()
    assert [r[1] for r in _visible_table(browser)] == [r["repo"] for r in ranked]
    assert browser.find_elements(By.CSS_SELECTOR, "#start-chart-rest") == []  # nothing left out
    for anchor in ("start", "readiness", "repositories", "rules", "status", "details"):
        assert browser.find_element(By.ID, anchor)
    _screenshot(browser, "report-example-fleet.png")
