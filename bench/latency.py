#!/usr/bin/env python3
"""Change-to-reloaded-page latency of `ratecard preview --watch`, in headless Chromium.

usage: latency.py PORT REPO DRAFT RUNS

Chromium is driven over the DevTools protocol on a pipe (--remote-debugging-pipe: commands on
fd 3, replies and events on fd 4, NUL-terminated JSON). For each run the file is written and the
time taken until the load event of the reloaded page that shows the edit is recorded:
  terms  - DRAFT (an uncommitted terms version, relative to REPO) gets a new sentence; its page
  rates  - the newest rate table of the first product of the first partner's rates page moves
           its best band's apr_max_pct by 0.01pp
Prints "terms <median ms> <runs...>" and "rates <median ms> <runs...>" (the same measurement as
Tests/RatecardCLITests/PreviewLatencyTests.swift, there with the debug build).
"""
import fcntl
import json
import os
import re
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

port, repo, draft, runs = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
chromium = shutil.which("chromium") or shutil.which("chromium-browser")
profile = tempfile.mkdtemp(prefix="ratecard-bench-chromium-")

to_browser_r, to_browser_w = os.pipe()
from_browser_r, from_browser_w = os.pipe()
# Kept above 4 in this process, so the child's dup2 onto 3 and 4 always makes a new descriptor.
high = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 100) for fd in (to_browser_r, from_browser_w)]
for fd in (to_browser_r, from_browser_w):
    os.close(fd)


def attach_pipes():
    os.dup2(high[0], 3)
    os.dup2(high[1], 4)


browser = subprocess.Popen(
    [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
     "--disable-breakpad", "--disable-crash-reporter", "--noerrdialogs", "--disable-background-networking",
     "--remote-debugging-pipe", "--user-data-dir=" + profile, "about:blank"],
    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    preexec_fn=attach_pipes, pass_fds=(3, 4))
for fd in high:
    os.close(fd)

buffer = b""
queued = []
next_id = [1]
session = [None]


def receive(deadline):
    global buffer
    while b"\0" not in buffer:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not select.select([from_browser_r], [], [], remaining)[0]:
            raise TimeoutError("no message from chromium in time")
        chunk = os.read(from_browser_r, 1 << 16)
        if not chunk:
            raise EOFError("chromium closed its pipe")
        buffer += chunk
    message, buffer = buffer.split(b"\0", 1)
    return json.loads(message)


def call(method, params=None, timeout=60, with_session=True):
    ident = next_id[0]
    next_id[0] += 1
    message = {"id": ident, "method": method, "params": params or {}}
    if with_session and session[0]:
        message["sessionId"] = session[0]
    os.write(to_browser_w, json.dumps(message).encode() + b"\0")
    deadline = time.monotonic() + timeout
    while True:
        reply = receive(deadline)
        if reply.get("id") == ident:
            if "error" in reply:
                raise RuntimeError(f"{method}: {reply['error']}")
            return reply.get("result", {})
        queued.append(reply)


def wait_for(method, timeout=120):
    for index, event in enumerate(queued):
        if event.get("method") == method and event.get("sessionId") == session[0]:
            return queued.pop(index)
    deadline = time.monotonic() + timeout
    while True:
        event = receive(deadline)
        if event.get("method") == method and event.get("sessionId") == session[0]:
            return event


def discard():
    queued.clear()
    try:
        while True:
            receive(time.monotonic())
    except TimeoutError:
        pass


def evaluate(expression):
    result = call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
    return result.get("result", {}).get("value")


def open_page(url):
    discard()
    call("Page.navigate", {"url": url})
    wait_for("Page.loadEventFired")


def measure(write, shows):
    discard()
    start = time.monotonic()
    write()
    for _ in range(4):
        wait_for("Page.loadEventFired")
        elapsed = (time.monotonic() - start) * 1000
        if evaluate(shows) is True:
            return elapsed
    raise RuntimeError("the reloaded page never showed the edit: " + shows)


def write_file(path, text):
    with open(os.path.join(repo, path), "w", encoding="utf-8") as handle:
        handle.write(text)


try:
    target = call("Target.createTarget", {"url": "about:blank"}, with_session=False)["targetId"]
    session[0] = call("Target.attachToTarget", {"targetId": target, "flatten": True}, with_session=False)["sessionId"]
    call("Page.enable")
    call("Runtime.enable")
    base = f"http://127.0.0.1:{port}/"

    template = open(os.path.join(repo, draft), encoding="utf-8").read()
    page = draft[:-3] + ".html"
    open_page(base + page)
    terms = []
    for run in range(runs):
        marker = f"측정 문장 {run}번입니다."
        terms.append(measure(lambda: write_file(draft, template + f"\n{marker}\n"),
                             f"document.body.innerText.includes('{marker}')"))
    write_file(draft, template)

    # rates.html lists the partners; each partner has a rates page of its own. Each edit moves
    # the best band's apr_max_pct of a product's newest table by 0.01pp (a bureau flip would be
    # an error: each product's disclosure names its bureau).
    open_page(base + "rates.html")
    partner = evaluate("document.querySelector('li[id]').id")
    open_page(base + f"rates/{partner}.html")
    key = evaluate("document.querySelector('section').id")
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
    try:
        call("Browser.close", timeout=5, with_session=False)
    except Exception:
        pass
    try:
        browser.wait(timeout=10)
    except subprocess.TimeoutExpired:
        browser.kill()
        browser.wait()
    shutil.rmtree(profile, ignore_errors=True)
