#!/usr/bin/env python3
"""Loads a `ksched simulate --output html` report in headless Chromium
(Selenium + chromedriver) and checks it against the same run's JSON report:
no console errors, nothing loaded from elsewhere, one pods-table row per
pod, one explain row per node with the chosen node marked, sorting by a
header click, one usage row per node. Writes a full-page screenshot.
Run by html_report_test.sh; exits 1 on the first failed check."""

import argparse
import json
import pathlib
import sys

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By


def check(cond, what):
    if not cond:
        print("FAIL " + what)
        sys.exit(1)
    print("ok   " + what)


def keys(table, col):
    """The data-v values (else the text) of column `col`, in row order."""
    return [
        (c.get_attribute("data-v") if c.get_attribute("data-v") is not None else c.text)
        for c in (r.find_elements(By.CSS_SELECTOR, "td")[col] for r in table.find_elements(By.CSS_SELECTOR, "tbody tr"))
    ]


def as_numbers(values):
    return [float(v) if v != "" else float("-inf") for v in values]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--chromium", required=True)
    ap.add_argument("--driver", required=True)
    ap.add_argument("--report", required=True)
    ap.add_argument("--json", required=True)
    ap.add_argument("--screenshot", required=True)
    a = ap.parse_args()
    report = json.loads(pathlib.Path(a.json).read_text())
    pods = report["pods"]
    node_count = report["summary"]["nodes"]

    opts = webdriver.ChromeOptions()
    opts.binary_location = a.chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1400,1000", "--no-first-run", "--disable-extensions"):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(a.driver), options=opts)
    try:
        driver.set_page_load_timeout(15)
        driver.get(pathlib.Path(a.report).resolve().as_uri())
        check(driver.execute_script("return document.readyState") == "complete", "the page loads")
        check(driver.title == "ksched simulate report", "title")

        # Nothing but the page itself was fetched, and no image exists (a
        # pod's name in the fixture is an <img onerror> shown as text).
        urls = driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
        check(urls == [], "no resource loaded besides the page: %s" % urls)
        check(driver.execute_script("return document.images.length") == 0, "input markup stays text")
        check("<img src=x onerror=alert(1)>" in driver.find_element(By.TAG_NAME, "body").text,
              "the markup in a pod's name shows as text")

        # The pods table: one row per pod, node or pending as in the JSON.
        table = driver.find_element(By.ID, "pods")
        rows = table.find_elements(By.CSS_SELECTOR, "tbody tr")
        check(len(rows) == len(pods) and len(pods) >= 5, "pods table has %d rows (JSON: %d)" % (len(rows), len(pods)))
        for row, pod in zip(rows, pods):
            node_cell = row.find_elements(By.TAG_NAME, "td")[3].text
            want = pod["node"] or ("evicted" if pod["preemptedBy"] else "pending")
            check(node_cell == want, "%s/%s: node %r" % (pod["namespace"], pod["name"], node_cell))
        check(any(p["victims"] for p in pods), "the fixture makes a preemption")
        check(any(p["node"] is None for p in pods), "the fixture leaves a pod pending")

        # Per pod: a row per node; the chosen node marked, visibly.
        sections = driver.find_elements(By.CSS_SELECTOR, "section.pod-explain")
        check(len(sections) == len(pods), "an explain section per pod")
        for section, pod in zip(sections, pods):
            t = section.find_element(By.CSS_SELECTOR, "table.explain")
            body_rows = t.find_elements(By.CSS_SELECTOR, "tbody tr")
            check(len(body_rows) == node_count, "%s: %d node rows" % (pod["name"], len(body_rows)))
            chosen = t.find_elements(By.CSS_SELECTOR, "tbody tr.chosen")
            if pod["node"]:
                check(len(chosen) == 1 and chosen[0].get_attribute("data-node") == pod["node"],
                      "%s: chosen row is %s" % (pod["name"], pod["node"]))
                marker = chosen[0].find_element(By.CSS_SELECTOR, ".marker")
                check(marker.is_displayed() and "chosen" in marker.text, "%s: marker visible" % pod["name"])
                bg = chosen[0].find_element(By.TAG_NAME, "td").value_of_css_property("background-color")
                plain = t.find_elements(By.CSS_SELECTOR, "tbody tr:not(.chosen) td")
                check(not plain or bg != plain[0].value_of_css_property("background-color"),
                      "%s: chosen row highlighted (%s)" % (pod["name"], bg))
            else:
                check(chosen == [], "%s: pending, nothing chosen" % pod["name"])

        # Sorting: the Total column of a pod with several scored nodes.
        scored = [i for i, p in enumerate(pods) if p["node"] and len(p["scores"]) >= 2]
        check(scored, "a pod with several scored nodes")
        i = scored[0]
        t = sections[i].find_element(By.CSS_SELECTOR, "table.explain")
        heads = t.find_elements(By.CSS_SELECTOR, "thead th")
        total_col = len(heads) - 1
        check(heads[total_col].text.startswith("Total"), "last column is Total")
        before = as_numbers(keys(t, total_col))
        names_before = sorted(keys(t, 0))
        heads[total_col].click()
        asc = as_numbers(keys(t, total_col))
        check(asc == sorted(before), "click on Total sorts ascending: %s -> %s" % (before, asc))
        check(heads[total_col].get_attribute("aria-sort") == "ascending", "aria-sort ascending")
        heads[total_col].click()
        desc = as_numbers(keys(t, total_col))
        check(desc == sorted(before, reverse=True), "second click sorts descending: %s" % desc)
        check(asc != before or desc != before, "sorting reordered the rows")
        check(sorted(keys(t, 0)) == names_before, "sorting keeps every row")
        first = t.find_element(By.CSS_SELECTOR, "tbody tr")
        check(float(first.find_elements(By.TAG_NAME, "td")[total_col].get_attribute("data-v")) ==
              pods[i]["scores"][pods[i]["node"]]["total"], "the chosen node has the best total")
        # The pods table by name.
        name_head = table.find_elements(By.CSS_SELECTOR, "thead th")[1]
        names = keys(table, 1)
        name_head.click()
        by_name = keys(table, 1)
        check(by_name == sorted(names, key=str.lower) or by_name == sorted(names),
              "pods sorted by name: %s" % by_name)
        check(by_name != names, "sorting the pods table reordered it")

        # Node usage: a row per node in the SVG, laid out (non-zero size).
        groups = driver.find_elements(By.CSS_SELECTOR, "svg#usage g.node-usage")
        check(len(groups) == node_count, "usage picture has %d nodes" % len(groups))
        svg = driver.find_element(By.ID, "usage")
        check(svg.size["width"] > 0 and svg.size["height"] > 0, "usage picture is drawn")

        logs = [e for e in driver.get_log("browser") if e.get("level") in ("SEVERE", "WARNING")]
        check(logs == [], "no console errors or warnings: %s" % logs)

        height = driver.execute_script("return document.documentElement.scrollHeight")
        # The window's frame takes some of its height: leave room for it.
        driver.set_window_size(1400, min(max(height, 600) + 200, 8000))
        driver.execute_script("window.scrollTo(0, 0)")
        check(driver.save_screenshot(a.screenshot), "screenshot " + a.screenshot)
    finally:
        driver.quit()
    print("html report browser test passed")


if __name__ == "__main__":
    main()
