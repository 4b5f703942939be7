#!/usr/bin/env python3
"""The first comparison screen on a phone over Fast 3G, in headless Chromium.

usage: phone-3g.py SERVE_ROOT RELEASE_FOLDER RUNS [BASE_URL]

Serves the release as nginx-conf does (the release folder as the site, /o/ from the object
store), gzip-compressing text files as nginx does, on loopback over HTTP/1.1 (six connections
at most, as Chromium opens to one origin). With BASE_URL (https://127.0.0.1:PORT/, nginx
running the nginx-conf block on a TLS listener with http2) the page is loaded from there
instead, certificate errors ignored, and every data request must have gone over HTTP/2. For each run a fresh Chromium
profile (empty HTTP cache) at 390x844 loads index.html#/compare?score=750&amount=3000 with the
network throttled to DevTools' Fast 3G profile (562.5 ms round trip, 180 kB/s down, 84 kB/s up)
and the CPU slowed 4x (a mid-range phone). Measured in the page's clock from the start of the
navigation:
  interactive - the summary and the first result rows are drawn and the controls answer: a
                change of sort is dispatched and the list redrawn (the time of that change
                included);
  sort        - how long that change of sort took, on the slowed CPU.
Prints "fast3g <median interactive ms> <median sort ms> <interactive ms of each run...>".
Chromium is driven over the DevTools protocol on a pipe (bench/cdp.py), as bench/latency.py is.
"""
import functools
import gzip
import http.server
import io
import os
import statistics
import sys
import threading
import time

from cdp import Chromium

serve, release, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
base = sys.argv[4] if len(sys.argv) > 4 else None
TEXT = (".json", ".js", ".css", ".html", ".svg")


class Handler(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as nginx (http.server answers HTTP/1.0 otherwise)

    def translate_path(self, path):
        path = path.split("?", 1)[0].split("#", 1)[0]
        if path.startswith("/o/") and "/" not in path[3:] and not path[3:].startswith("."):
            return os.path.join(serve, "objects", path[3:])
        return super().translate_path(path)

    def send_head(self):
        file = self.translate_path(self.path)
        if not os.path.isfile(file) or not file.endswith(TEXT) or "gzip" not in self.headers.get("Accept-Encoding", ""):
            return super().send_head()
        body = gzip.compress(open(file, "rb").read(), 6)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(file))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)

    def log_message(self, *args):
        pass


if base:
    server = None
    url = base + "index.html#/compare?score=750&amount=3000"
else:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=release))
    # A browser closed mid-download (the logos still on their way when a run ends) is no error here.
    server.handle_error = lambda request, address: None
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = "http://127.0.0.1:%d/index.html#/compare?score=750&amount=3000" % server.server_address[1]


def measure():
    browser = Chromium(["--ignore-certificate-errors"] if url.startswith("https:") else [])
    call, evaluate = browser.call, browser.evaluate
    try:
        browser.attach_page()
        call("Network.enable")
        call("Network.emulateNetworkConditions", {
            "offline": False, "latency": 562.5, "downloadThroughput": 180000, "uploadThroughput": 84375})
        call("Emulation.setCPUThrottlingRate", {"rate": 4})
        call("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 3, "mobile": True})
        call("Page.navigate", {"url": url})
        deadline = time.monotonic() + 120
        # Drawn: the summary says how many products, and the first rows are there.
        while True:
            drawn = evaluate("""(function () {
                var s = document.getElementById('result-summary');
                if (!s || s.textContent.indexOf('신용점수 750점 · ') !== 0 || !document.querySelector('#results > li')) return null;
                var sort = document.getElementById('sort');
                var t0 = performance.now();
                sort.value = 'limit';
                sort.dispatchEvent(new Event('change'));
                var t1 = performance.now();
                var protocols = performance.getEntriesByType('resource').filter(function (e) {
                    return /\/(data|o)\//.test(e.name);
                }).map(function (e) { return e.nextHopProtocol; });
                return [t1, t1 - t0, document.querySelectorAll('#results > li').length, protocols];
            })()""")
            if drawn:
                return drawn
            if time.monotonic() > deadline:
                raise TimeoutError("the comparison screen did not draw within 120 s")
            time.sleep(0.05)
    finally:
        browser.close()


results = [measure() for _ in range(runs)]
if server:
    server.shutdown()
for r in results:
    wanted = "h2" if base else "http/1.1"
    if not r[3] or any(p != wanted for p in r[3]):
        sys.exit("data requests did not all go over %s: %s" % (wanted, sorted(set(r[3]))))
interactive = [r[0] for r in results]
sort = [r[1] for r in results]
if any(r[2] < 1 or r[2] > 20 for r in results):
    sys.exit("the first screen did not show one page of results: %s" % results)
print("fast3g %.0f %.1f %s" % (statistics.median(interactive), statistics.median(sort), " ".join("%.0f" % t for t in interactive)))
