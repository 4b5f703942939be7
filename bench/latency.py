#!/usr/bin/env python3
"""Change-to-reloaded-page latency of `ratecard preview --watch`, in headless Chromium.

usage: latency.py PORT REPO DRAFT RUNS

Chromium is driven over the DevTools protocol on a pipe (bench/cdp.py). For each run the file is written and the
time taken until the open page shows the edit is recorded (a static page takes the new body in place; a page
running scripts of its own reloads), each edit half a second after the page settled from the last:
  terms  - DRAFT (an uncommitted terms version, relative to REPO) gets a new sentence; its page
  rates  - the newest rate table of the first product of the first partner's rates page moves
           its best band's apr_max_pct by 0.01pp
Prints "terms <median ms> <runs...>" and "rates <median ms> <runs...>" (the same measurement as
Tests/RatecardCLITests/PreviewLatencyTests.swift, there with the debug build).
"""
import os
import re
import statistics
import sys
import time

from cdp import Chromium

port, repo, draft, runs = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
browser = Chromium()


def open_page(url):
    browser.discard()
    browser.call("Page.navigate", {"url": url})
    browser.wait_for("Page.loadEventFired")


def measure(write, shows):
    # Each edit is measured on its own, as staff make them (seconds apart): the page that just
    # loaded or took the last edit in is laid out and painted first, and the probe then reads
    # the DOM's text (textContent; innerText would lay out the whole page on every poll).
    time.sleep(0.5)
    browser.discard()
    start = time.monotonic()
    write()
    while time.monotonic() - start < 120:
        try:
            if browser.evaluate(shows) is True:
                return (time.monotonic() - start) * 1000
        except Exception:
            pass  # mid-reload the page has no context to evaluate in: not yet
        time.sleep(0.002)
    raise RuntimeError("the page never showed the edit: " + shows)


def write_file(path, text):
    with open(os.path.join(repo, path), "w", encoding="utf-8") as handle:
        handle.write(text)


try:
    browser.attach_page()
    browser.call("Page.enable")
    browser.call("Runtime.enable")
    base = f"http://127.0.0.1:{port}/"

    template = open(os.path.join(repo, draft), encoding="utf-8").read()
    page = draft[:-3] + ".html"
    open_page(base + page)
    terms = []
    for run in range(runs):
        marker = f"측정 문장 {run}번입니다."
        terms.append(measure(lambda: write_file(draft, template + f"\n{marker}\n"),
                             f"document.body.textContent.includes('{marker}')"))
    write_file(draft, template)

    # rates.html lists the partners; each partner has a rates page of its own. Each edit moves
    # the best band's apr_max_pct of a product's newest table by 0.01pp (a bureau flip would be
    # an error: each product's disclosure names its bureau).
    open_page(base + "rates.html")
    partner = browser.evaluate("document.querySelector('li[id]').id")
    open_page(base + f"rates/{partner}.html")
    key = browser.evaluate("document.querySelector('section').id")
    table = f"products/{key}/rates/" + sorted(os.listdir(os.path.join(repo, "products", key, "rates")))[-1]
    original = open(os.path.join(repo, table), encoding="utf-8").read()
    rates = []
    for run in range(runs):
        text = open(os.path.join(repo, table), encoding="utf-8").read()
        found = re.search(r"^(\s*apr_max_pct: )([0-9.]+)$", text, re.M)
        cents = round(float(found.group(2)) * 100)
        cents += 1 if cents % 2 == 0 else -1
        shown = "%d.%02d" % divmod(cents, 100)
        nudged = text[:found.start(2)] + shown + text[found.end(2):]
        rates.append(measure(lambda: write_file(table, nudged),
                             f"document.getElementById('{key}').textContent.includes('~ {shown}%')"))
    write_file(table, original)
    for name, values in (("terms", terms), ("rates", rates)):
        print(name, round(statistics.median(values)), " ".join(str(round(v)) for v in values))
finally:
    browser.close()
