"""Headless Chromium driven over the DevTools protocol on a pipe, for the bench's measurements in
a browser (latency.py, phone-3g.py).

--remote-debugging-pipe: commands go to the browser on its fd 3, replies and events come back
on its fd 4, each a NUL-terminated JSON message. One page target is attached (flattened
session) and every call goes to it unless `with_session=False`.
"""
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time


class Chromium:
    def __init__(self, extra_args=()):
        executable = shutil.which("chromium") or shutil.which("chromium-browser")
        self.profile = tempfile.mkdtemp(prefix="ratecard-bench-chromium-")
        to_browser_r, self.to_browser = os.pipe()
        self.from_browser, from_browser_w = os.pipe()
        # Kept above 4 in this process, so the child's dup2 onto 3 and 4 always makes a new descriptor.
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 100) for fd in (to_browser_r, from_browser_w)]
        for fd in (to_browser_r, from_browser_w):
            os.close(fd)

        def attach_pipes():
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)

        self.process = subprocess.Popen(
            [executable, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
             "--disable-breakpad", "--disable-crash-reporter", "--noerrdialogs", "--disable-background-networking",
             "--remote-debugging-pipe", "--user-data-dir=" + self.profile, *extra_args, "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=attach_pipes, pass_fds=(3, 4))
        for fd in high:
            os.close(fd)
        self.buffer = b""
        self.queued = []
        self.next_id = 1
        self.session = None

    def receive(self, deadline):
        while b"\0" not in self.buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([self.from_browser], [], [], remaining)[0]:
                raise TimeoutError("no message from chromium in time")
            chunk = os.read(self.from_browser, 1 << 16)
            if not chunk:
                raise EOFError("chromium closed its pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, params=None, timeout=60, with_session=True):
        ident = self.next_id
        self.next_id += 1
        message = {"id": ident, "method": method, "params": params or {}}
        if with_session and self.session:
            message["sessionId"] = self.session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self.receive(deadline)
            if reply.get("id") == ident:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.queued.append(reply)

    def attach_page(self):
        """Opens a page target and sends every later call to it."""
        target = self.call("Target.createTarget", {"url": "about:blank"}, with_session=False)["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True}, with_session=False)["sessionId"]

    def wait_for(self, method, timeout=120):
        for index, event in enumerate(self.queued):
            if event.get("method") == method and event.get("sessionId") == self.session:
                return self.queued.pop(index)
        deadline = time.monotonic() + timeout
        while True:
            event = self.receive(deadline)
            if event.get("method") == method and event.get("sessionId") == self.session:
                return event

    def discard(self):
        """Drops the events received so far."""
        self.queued.clear()
        try:
            while True:
                self.receive(time.monotonic())
        except TimeoutError:
            pass

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        return result.get("result", {}).get("value")

    def close(self):
        try:
            self.call("Browser.close", timeout=5, with_session=False)
        except Exception:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self.to_browser)
        os.close(self.from_browser)
        shutil.rmtree(self.profile, ignore_errors=True)
