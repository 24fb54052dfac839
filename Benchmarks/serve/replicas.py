#!/usr/bin/env python3
"""Replicas of `winnow serve --store` sharing one PostgreSQL (Benchmarks/serve/replicas calls it).

Usage: replicas.py WINNOW [--apps N] [--edits N] [--seconds S]

In one run, against one release binary and one throwaway PostgreSQL cluster (Debian's, a Unix
socket, fsync on) on this machine:
1. start: N apps (default 10,000, 50 to 500 words each) imported into the store; one replica's
   time to ready and resident memory, beside a server given the same lists as --apps DIR;
2. propagation: three replicas of a store of ten apps; N edits (default 300), one at a time,
   each through the next replica in turn: the time from the answer until both other replicas
   block the word (each polled through /v1/moderate every 2 ms), p50/p99/max;
3. edit throughput: 8 writers adding words through the three replicas for S seconds;
4. moderation while edits flow: wrk on /v1/moderate of one replica for S seconds, alone, then
   while a writer adds 20 words a second through another replica.
Prints Markdown.
"""
import argparse
import hashlib
import json
import os
import pwd
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench  # noqa: E402  (the load benchmark's server, wrk and message helpers)


class Cluster:
    """A throwaway PostgreSQL cluster on a Unix socket, as `nobody` under root."""

    def __init__(self, work):
        versions = sorted((int(v) for v in os.listdir("/usr/lib/postgresql") if v.isdigit()), reverse=True)
        self.bin = f"/usr/lib/postgresql/{versions[0]}/bin"
        self.dir = work / "pg"
        self.dir.mkdir()
        self.prefix = []
        if os.getuid() == 0:
            os.chown(self.dir, pwd.getpwnam("nobody").pw_uid, -1)
            os.chmod(work, 0o755)
            self.prefix = ["runuser", "-u", "nobody", "--"]
        self.run("initdb", "-D", f"{self.dir}/data", "-U", "winnow", "--auth=trust", "-E", "UTF8", "--no-locale")
        self.run("pg_ctl", "-D", f"{self.dir}/data", "-o", f"-k {self.dir} -c listen_addresses=''",
                 "-l", f"{self.dir}/log", "-w", "start")
        self.url = f"postgres://winnow@/postgres?host={self.dir}"

    def run(self, program, *arguments):
        subprocess.run([*self.prefix, f"{self.bin}/{program}", *arguments], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def stop(self):
        self.run("pg_ctl", "-D", f"{self.dir}/data", "-m", "immediate", "-w", "stop")


def winnow_run(winnow, *arguments):
    run = subprocess.run([winnow, *arguments], capture_output=True, text=True)
    if run.returncode != 0:
        raise SystemExit(f"winnow {' '.join(arguments)}: {run.stderr}")


def word_api(server, path, body, app="app0"):
    nonce, timestamp = str(time.time_ns()), "1700000000000"
    signature = hashlib.sha1((bench.SECRET + nonce + timestamp).encode()).hexdigest()
    request = urllib.request.Request(server.url(f"/sensitiveword/{path}.json"), data=body.encode(), headers={
        "App-Key": app, "Nonce": nonce, "Timestamp": timestamp, "Signature": signature,
        "Content-Type": "application/x-www-form-urlencoded"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())["code"]


def verdict(server, text, app="app0"):
    body = json.dumps({"msgUID": "m", "targetId": "t", "appKey": app, "content": {"content": text}},
                      ensure_ascii=False).encode()
    with urllib.request.urlopen(urllib.request.Request(server.url("/v1/moderate"), data=body), timeout=30) as answer:
        return json.loads(answer.read())["verdict"]


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("winnow")
    parser.add_argument("--apps", type=int, default=10_000)
    parser.add_argument("--edits", type=int, default=300)
    parser.add_argument("--seconds", type=int, default=10)
    options = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="winnow-replicas-bench-"))
    cluster = None
    try:
        cluster = Cluster(work)
        secrets = work / "secrets"
        secrets.mkdir(mode=0o700)
        print(f"One PostgreSQL {Path(cluster.bin).parent.name} cluster (Unix socket, fsync on) and the replicas on "
              "the same two cores.\n")

        # 1. Start with many apps.
        many = work / "apps-many"
        bench.app_directory(many, options.apps)
        shutil.copy(many / "secrets.json", secrets / "secrets.json")
        winnow_run(options.winnow, "store", "init", "--store", cluster.url)
        start = time.monotonic()
        winnow_run(options.winnow, "store", "import", "--store", cluster.url, "--apps", str(many))
        imported = time.monotonic() - start
        files = bench.Server(options.winnow, many, 2, work)
        file_ready, file_rss = files.ready_seconds, files.rss_mib()
        files.stop()
        store = bench.Server(options.winnow, None, 2, work, extra=[
            "--store", cluster.url, "--secrets", str(secrets / "secrets.json")])
        store_ready, store_rss = store.ready_seconds, store.rss_mib()
        store.stop()
        print(f"Start: {options.apps} apps (50 to 500 words each; `store import` took {imported:.1f} s): "
              f"from the store ready in **{store_ready:.2f} s**, resident **{store_rss:.0f} MiB**; "
              f"from `--apps DIR` {file_ready:.2f} s, {file_rss:.0f} MiB.\n")

        # A small store for the rest: ten apps.
        winnow_run(options.winnow, "store", "init", "--store", cluster.url)
        subprocess.run([*cluster.prefix, f"{cluster.bin}/psql", "-X", "-q", "-h", str(cluster.dir), "-U", "winnow",
                        "-d", "postgres", "-c", "TRUNCATE winnow_apps, winnow_changes"], check=True)
        small = work / "apps-small"
        bench.app_directory(small, 10)
        winnow_run(options.winnow, "store", "import", "--store", cluster.url, "--apps", str(small))
        replicas = [bench.Server(options.winnow, None, 2, work, extra=[
            "--store", cluster.url, "--secrets", str(secrets / "secrets.json"), "--replica", f"r{index}"])
            for index in range(3)]
        try:
            # 2. Propagation.
            delays = []
            for index in range(options.edits):
                writer = replicas[index % 3]
                others = [replica for replica in replicas if replica is not writer]
                word = f"传播{index}号"
                if word_api(writer, "add", urllib.parse.urlencode({"word": word})) != 200:
                    raise SystemExit(f"the add of {word} failed")
                acknowledged = time.monotonic()
                seen = {}

                def poll(replica, word=word, acknowledged=acknowledged, seen=seen):
                    while verdict(replica, "找" + word) != "blocked":
                        time.sleep(0.002)
                        if time.monotonic() - acknowledged > 30:
                            raise SystemExit(f"{word} not enforced in 30 s")
                    seen[replica.port] = time.monotonic() - acknowledged

                threads = [threading.Thread(target=poll, args=(replica,)) for replica in others]
                for thread in threads:
                    thread.start()
                for thread in threads:
                    thread.join()
                delays.append(max(seen.values()))
            print(f"| replicas | propagation p50 ms | p99 ms | max ms | edits/s (8 writers) | "
                  f"moderate requests/s alone | while 20 edits/s flow | failed |")
            print("|---|---|---|---|---|---|---|---|")

            # 3. Edit throughput.
            counts, errors = [0] * 8, [0] * 8
            deadline = time.monotonic() + options.seconds

            def writer_loop(number):
                index = 0
                while time.monotonic() < deadline:
                    word = f"吞吐{number}号{index}"
                    try:
                        code = word_api(replicas[(number + index) % 3], "add",
                                        urllib.parse.urlencode({"word": word}), app=f"app{number % 10}")
                    except Exception:
                        code = 0
                    if code == 200:
                        counts[number] += 1
                    else:
                        errors[number] += 1
                    index += 1

            threads = [threading.Thread(target=writer_loop, args=(number,)) for number in range(8)]
            began = time.monotonic()
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            edits_per_second = sum(counts) / (time.monotonic() - began)

            # 4. Moderation with and without edits.
            bench.items_and_forms(work)
            url, args = bench.endpoint_args(replicas[0], "moderate", work)
            bench.wrk(url, args, 2, 32)
            alone = bench.wrk(url, args, options.seconds, 32)
            stop = threading.Event()
            flowing = [0]

            def trickle():
                index = 0
                while not stop.is_set():
                    if word_api(replicas[1], "add", urllib.parse.urlencode({"word": f"流{index}号"})) == 200:
                        flowing[0] += 1
                    index += 1
                    time.sleep(0.05)

            trickler = threading.Thread(target=trickle)
            trickler.start()
            during = bench.wrk(url, args, options.seconds, 32)
            stop.set()
            trickler.join()
            print(f"| 3, one PostgreSQL | {1000 * statistics.median(delays):.1f} | "
                  f"{1000 * percentile(delays, 0.99):.1f} | {1000 * max(delays):.1f} | {edits_per_second:.0f} | "
                  f"{alone['rps']:.0f} | {during['rps']:.0f} ({flowing[0]} edits) | "
                  f"{sum(errors) + alone['failed'] + during['failed']} |")
            print(f"\nPropagation: {options.edits} adds one at a time, each through the next replica; the time from "
                  "the answer until both other replicas block the word. Edits: 8 writers for "
                  f"{options.seconds} s across the three replicas and ten apps. Moderation: wrk, 1 thread, 32 "
                  f"connections, {options.seconds} s, /v1/moderate of one replica.")
        finally:
            for replica in replicas:
                replica.stop()
    finally:
        if cluster:
            cluster.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
