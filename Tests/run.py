#!/usr/bin/env python3
"""Runs the test suites in parallel processes: `make test` and `make test-full`.

Swift Testing runs a process's tests on its cooperative pool, which is as wide as the machine
has cores; tests that wait on a child process (ratecard, nginx, chromium, moto) hold a pool
thread while they wait, so on 2 cores one process runs two such tests at a time. This runs
several test processes at once instead, each taking the next suite (heaviest first) from a
shared queue, and prints one line per process and a summary. It runs the built test bundle
itself: `swift test` holds a lock on the build folder while it runs, so two of them at once
take turns.

  Tests/run.py [--tier sampled|full] [--jobs N] [--filter REGEX] [--scratch DIR]
  Tests/run.py --check-watchdog      (shows the watchdog at work on a `sleep`; runs no tests)

A watchdog ends any test process that runs past its limit (the weight of its suites times 10,
at least 300 s; times 30 and at least 900 s in the full tier; RATECARD_TEST_WATCHDOG=SECONDS
sets it): it prints the tests that had started and not ended, the stacks of the process and of
its children (gdb when there is one, else the kernel's /proc view), kills its process group and
counts it as failed. A hang then costs minutes and leaves a diagnosis in the log.

The tier and the seed of the sampled draws reach the tests as RATECARD_TEST_TIER and
RATECARD_TEST_SEED (given, or drawn here and printed, so that a failing run can be repeated).

The tests make and remove thousands of small git repositories, release folders and bucket
copies. On a disk's journaled file system most of that time is the kernel's: the sampled tier
took 277 s (171 s of it system time) with its folders in /tmp on ext4 and 155 s (58 s) on tmpfs,
same machine, 2 cores. So the tests' folders go in a fresh folder on a memory-backed file system
when one has room (/dev/shm on most Linux machines; TMPDIR tells the tests where), else in the
system's temporary folder; the folder is removed at the end. --scratch DIR chooses the parent.
"""
import argparse
import os
import queue
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

# Seconds each suite took alone in the sampled tier on a 2-core machine (approximate, used only
# to start the long ones first); unlisted suites count as 2 s.
WEIGHTS = {
    "RatecardCLITests.S3EnvironmentTests": 60,
    "RatecardCLITests.ServeUnderNginxTests": 37,
    "RatecardCLITests.ComparisonScreenTests": 35,
    "RatecardCLITests.ObjectStoreTests": 30,
    "RatecardCLITests.PhoneLoadingTests": 20,
    "RatecardCLITests.PublishSafetyTests": 20,
    "RatecardCLITests.HostileContentTests": 18,
    "RatecardKitTests.BadInputCorpusTests": 16,
    "RatecardCLITests.BrowserComparisonTests": 13,
    "RatecardCLITests.S3ClientTests": 10,
    "RatecardCLITests.S3FencingTests": 25,
    "RatecardCLITests.S3RepairTests": 5,
    "RatecardCLITests.PreviewWatchLimitsTests": 20,
    "RatecardCLITests.PreviewWatchTests": 8,
    "RatecardCLITests.IncrementalPublishTests": 7,
    "RatecardCLITests.ServeCommandTests": 12,
    "RatecardCLITests.ServeLimitsTests": 6,
    "RatecardCLITests.ExitCodeContractTests": 8,
    "RatecardCLITests.BridgeTests": 14,
    "RatecardCLITests.GeneratedLoaderTests": 6,
    "RatecardCLITests.RolloutTests": 13,
}
# Light suites are run several to a process, to save each its process start.
BATCH_SECONDS = 6
# Suites whose tests are long enough to run each in a process of its own. (ComparisonScreenTests
# is not: its tests share one preview, made once per process.)
SPLIT = {"RatecardCLITests.S3EnvironmentTests", "RatecardCLITests.ServeUnderNginxTests"}


# The most the tests held in their folders at once, read every 2 s: under 30 MB in the sampled
# tier, under 160 MB in the full tier (3 jobs). A memory-backed folder is used only with this
# much free.
SCRATCH_FREE_BYTES = 1 << 30


def mount_of(path):
    """The type and options of the file system that holds `path`, from /proc/mounts (the
    longest mount point that contains it); (None, []) when unknown."""
    path, best, found = os.path.realpath(path), "", (None, [])
    try:
        with open("/proc/mounts") as mounts:
            for line in mounts:
                fields = line.split()
                point = fields[1].replace("\\040", " ")
                if (path == point or path.startswith(point.rstrip("/") + "/")) and len(point) >= len(best):
                    best, found = point, (fields[2], fields[3].split(","))
    except OSError:
        pass
    return found


def scratch_parent(requested):
    """/dev/shm when it is a tmpfs with room that may run programs (tests install git hooks in
    their repositories and commit, which runs them), else None: the system's temporary folder."""
    if requested:
        return requested
    try:
        stats = os.statvfs("/dev/shm")
    except OSError:
        return None
    kind, options = mount_of("/dev/shm")
    usable = kind == "tmpfs" and "noexec" not in options and os.access("/dev/shm", os.W_OK)
    return "/dev/shm" if usable and stats.f_bavail * stats.f_frsize >= SCRATCH_FREE_BYTES else None


def test_bundle():
    shown = subprocess.run(["swift", "build", "--show-bin-path"], capture_output=True, text=True)
    path = os.path.join(shown.stdout.strip(), "ratecardPackageTests.xctest")
    if shown.returncode != 0 or not os.access(path, os.X_OK):
        sys.exit("no built test bundle: run `swift build --build-tests` first")
    return path


def suites(bundle, selected):
    listed = subprocess.run([bundle, "--testing-library", "swift-testing", "--list-tests"], capture_output=True, text=True)
    if listed.returncode != 0:
        sys.exit("listing the tests failed:\n" + listed.stderr)
    names, tests = set(), {}
    for line in listed.stdout.splitlines():
        if "/" not in line:
            continue
        suite = line.split("/", 1)[0]
        if selected is not None and not re.search(selected, suite):
            continue
        if suite in SPLIT:
            # One unit a test: the name up to its parameter list.
            name = line.split("(", 1)[0]
            tests.setdefault(suite, set()).add(name)
            names.add(name)
        else:
            names.add(suite)
    for suite, members in tests.items():
        for name in members:
            WEIGHTS[name] = WEIGHTS.get(suite, 2) / len(members)
    return sorted(names)


def pattern(name):
    return re.escape(name) + ("\\(" if "/" in name else "/")


def batches(names):
    heavy = sorted((n for n in names if WEIGHTS.get(n, 2) > BATCH_SECONDS), key=lambda n: -WEIGHTS[n])
    light = [n for n in names if WEIGHTS.get(n, 2) <= BATCH_SECONDS]
    groups, current, weight = [], [], 0
    for name in light:
        current.append(name)
        weight += WEIGHTS.get(name, 2)
        if weight >= BATCH_SECONDS * 2:
            groups.append(current)
            current, weight = [], 0
    if current:
        groups.append(current)
    return [[n] for n in heavy] + groups


def watchdog_limit(tier, group):
    override = os.environ.get("RATECARD_TEST_WATCHDOG")
    if override:
        return float(override)
    weight = sum(WEIGHTS.get(n, 2) for n in group)
    return max(300, weight * 10) if tier == "sampled" else max(900, weight * 30)


def descendants(pid):
    """The process ids below `pid` (children, their children, ...), from /proc."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    parents.setdefault(int(stat.read().rsplit(")", 1)[1].split()[1]), []).append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    found, todo = [], [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def stacks(pid):
    """What `pid` is doing: its command line and every thread's stack (gdb), or, without gdb,
    each thread's state, kernel wait channel and kernel stack from /proc."""
    def read(path):
        try:
            with open(path, "rb") as f:
                return f.read().decode(errors="replace")
        except OSError as error:
            return f"({error.strerror})"
    lines = [f"== process {pid}: {read(f'/proc/{pid}/cmdline').replace(chr(0), ' ').strip()}"]
    gdb = shutil.which("gdb")
    if gdb:
        try:
            shown = subprocess.run([gdb, "-batch", "-p", str(pid), "-ex", "thread apply all bt"], capture_output=True, text=True, timeout=120)
            lines.append(shown.stdout.strip() or shown.stderr.strip())
            return "\n".join(lines)
        except subprocess.TimeoutExpired:
            lines.append("(gdb took over 120 s; the kernel's view follows)")
    try:
        threads = sorted(os.listdir(f"/proc/{pid}/task"), key=int)
    except OSError:
        threads = []
    for tid in threads:
        state = read(f"/proc/{pid}/task/{tid}/stat").rsplit(")", 1)[-1].split()[:1]
        lines.append(f"-- thread {tid} state {' '.join(state)} wchan {read(f'/proc/{pid}/task/{tid}/wchan')}")
        lines.append(read(f"/proc/{pid}/task/{tid}/stack").strip())
    return "\n".join(lines)


STARTED = re.compile(r"Test (\S+) started\.")
ENDED = re.compile(r"Test (\S+) (?:with \d+ test cases? )?(?:passed|failed|skipped)")


def unfinished(text):
    """The tests a Swift Testing log shows as started and not ended."""
    started = STARTED.findall(text)
    ended = set(ENDED.findall(text))
    return [name for name in started if name not in ended and name != "run"]


def run_watched(command, out, limit, label, env=None):
    """Runs `command` in a process group of its own with its output to `out` (a file); past
    `limit` seconds, writes to `out` (and returns as its text) what was running and the stacks
    of the process and its children, and kills the group. Its exit code (None after a kill) and
    that diagnosis (None when it ended in time)."""
    process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    try:
        return process.wait(timeout=limit), None
    except subprocess.TimeoutExpired:
        pass
    out.flush()
    try:
        with open(out.name, encoding="utf-8", errors="replace") as f:
            running = unfinished(ANSI.sub("", f.read()))
    except OSError:
        running = []
    report = [f"WATCHDOG: {label} still running after {limit:.0f} s; killed.",
              "tests started and not ended: " + (", ".join(running) if running else "(none logged)")]
    children = descendants(process.pid)
    for pid in [process.pid] + children:
        report.append(stacks(pid))
    text = "\n".join(report) + "\n"
    out.write(text)
    out.flush()
    # The group, and each child by its id: Foundation starts a test's children in process
    # groups of their own.
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    for pid in children:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    process.wait()
    # Until the children are gone too (or zombies), so that none still writes in the folders
    # removed next.
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(alive(pid) for pid in children):
        time.sleep(0.05)
    return None, text


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def check_watchdog():
    """Shows the watchdog at work: a `sleep 600` in a process group, with a child of its own,
    stopped after 2 s, with a diagnosis naming both; exits 0 when it behaved."""
    with tempfile.NamedTemporaryFile("w+", suffix=".log") as out:
        begin = time.monotonic()
        code, text = run_watched(["sh", "-c", "echo 'Test fake.hangs() started.'; sleep 600 & wait"], out, 2, "check")
        seconds = time.monotonic() - begin
        print(text or "(no diagnosis)")
        ok = code is None and text and "fake.hangs" in text and text.count("== process") >= 2 and seconds < 150
        print(f"watchdog {'works' if ok else 'FAILED'}: stopped after {seconds:.1f} s")
        sys.exit(0 if ok else 1)


ANSI = re.compile(r"\x1b\[[0-9;]*m")
SUMMARY = re.compile(r"Test run with (\d+) tests? (?:in \d+ suites? )?(passed|failed)")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tier", choices=["sampled", "full"], default=os.environ.get("RATECARD_TEST_TIER", "sampled"))
    parser.add_argument("--jobs", type=int, default=int(os.environ.get("TEST_JOBS", "3")))
    parser.add_argument("--filter", help="only suites whose Module.Suite name matches")
    parser.add_argument("--logs", default=".build/test-logs")
    parser.add_argument("--scratch", help="the folder to make the tests' temporary folder in")
    parser.add_argument("--check-watchdog", action="store_true", help="show the watchdog stopping a `sleep`, run no tests")
    options = parser.parse_args()
    if options.check_watchdog:
        check_watchdog()

    seed = os.environ.get("RATECARD_TEST_SEED") or str(random.randrange(1, 2**63))
    bundle = test_bundle()
    scratch = tempfile.mkdtemp(prefix="ratecard-tests-", dir=scratch_parent(options.scratch))
    # Others may pass through, as through /tmp: nginx's workers read the releases the tests serve.
    os.chmod(scratch, 0o711)
    try:
        run(options, bundle, seed, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def run(options, bundle, seed, scratch):
    env = dict(os.environ, RATECARD_TEST_TIER=options.tier, RATECARD_TEST_SEED=seed, NO_COLOR="1", TMPDIR=scratch)
    os.makedirs(options.logs, exist_ok=True)
    work = queue.Queue()
    for group in batches(suites(bundle, options.filter)):
        work.put(group)
    print(f"tier {options.tier}, {work.qsize()} processes over {options.jobs} jobs, RATECARD_TEST_SEED={seed}", flush=True)
    print(f"temporary folders in {scratch} ({mount_of(scratch)[0]})", flush=True)

    results, lock, started = [], threading.Lock(), time.monotonic()

    def worker():
        while True:
            try:
                group = work.get_nowait()
            except queue.Empty:
                return
            label = group[0].split(".", 1)[1] + (f" +{len(group) - 1}" if len(group) > 1 else "")
            log = os.path.join(options.logs, group[0].replace("/", ".") + ".log")
            expression = "^(" + "|".join(pattern(n) for n in group) + ")"
            begin = time.monotonic()
            limit = watchdog_limit(options.tier, group)
            with open(log, "w") as out:
                command = [bundle, "--testing-library", "swift-testing", "--filter", expression]
                code, hung = run_watched(command, out, limit, label, env=env)
            seconds = time.monotonic() - begin
            text = ANSI.sub("", open(log, encoding="utf-8", errors="replace").read())
            counts = SUMMARY.findall(text)
            tests = sum(int(c) for c, _ in counts)
            ok = code == 0 and counts and all(state == "passed" for _, state in counts)
            with lock:
                results.append((ok, label, seconds, tests, log, hung or text))
                print(f"{'ok  ' if ok else 'HUNG' if hung else 'FAIL'} {seconds:6.1f} s  {tests:3d} tests  {label}", flush=True)

    threads = [threading.Thread(target=worker) for _ in range(max(1, options.jobs))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    failed = [r for r in results if not r[0]]
    total = sum(r[3] for r in results)
    for _, label, _, _, log, text in failed:
        print(f"\n--- {label} ({log}) ---")
        if text.startswith("WATCHDOG:"):
            print(text[:20000])
            continue
        lines = [line for line in text.splitlines() if "✘" in line or "error:" in line or "recorded an issue" in line]
        print("\n".join(lines[:80]) if lines else "\n".join(text.splitlines()[-40:]))
    elapsed = time.monotonic() - started
    print(f"\n{total} tests in {len(results)} processes, {len(failed)} failed, {elapsed:.0f} s (tier {options.tier}, RATECARD_TEST_SEED={seed})")
    sys.exit(1 if failed or not results else 0)


if __name__ == "__main__":
    main()
