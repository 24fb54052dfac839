#!/usr/bin/env python3
"""Offenders in `winnow serve` (Benchmarks/serve/offenders calls it).

Usage: offenders.py WINNOW [--seconds S] [--connections C] [--senders N]

In one run, against one release binary, on 127.0.0.1:
1. the platform down: /callback/message (the sample's messages as signed forms, every tenth
   made abusive) against a
   server that tracks offenders with the built-in policy and calls nobody, then against one
   whose policy bans the sender of every blocked message and calls a platform that refuses
   every connection (`--enforce --platform-url` to a closed port): requests/s and p99 at the
   peak and paced at half the first server's peak, and what became of the calls;
2. memory: N senders (default 1,000,000), each with one blocked chatroom message, posted as
   NDJSON batches of 10,000 to /v1/moderate: the server's resident memory before and after,
   and the senders it tracks.
Prints Markdown.
"""
import argparse
import json
import shutil
import socket
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench  # noqa: E402  (the load benchmark's server, wrk and message helpers)


def metric_lines(server, name):
    text = urllib.request.urlopen(server.url("/metrics")).read().decode()
    return [line for line in text.splitlines() if line.startswith(name)]


def tracked(server):
    request = urllib.request.Request(server.url("/v1/offenders?app=none"),
                                     headers={"Authorization": "Bearer bench-token"})
    return json.loads(urllib.request.urlopen(request).read())["tracked"]


def closed_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def callback_runs(server, work, options, pause_rps=None):
    url, args = bench.endpoint_args(server, "callback", work)
    bench.wrk(url, args, 2, options.connections)  # warm-up
    peak = bench.wrk(url, args, options.seconds, options.connections)
    rate = pause_rps or peak["rps"] / 2
    pause = max(1, round(16 * 1000 / rate))
    url, args = bench.endpoint_args(server, "callback", work, pause)
    paced = bench.wrk(url, args, options.seconds, 16)
    return peak, paced


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("winnow")
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--senders", type=int, default=1_000_000)
    options = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="winnow-offenders-bench-"))
    try:
        count = bench.items_and_forms(work)
        # Every tenth message made abusive (its sender kept): enough blocked messages for the
        # policies to fire often, the same forms for both servers.
        forms = (work / "forms.txt").read_text(encoding="utf-8").splitlines()
        for index in range(0, len(forms), 10):
            fields = urllib.parse.parse_qs(forms[index], keep_blank_values=True)
            fields["content"] = [json.dumps({"content": f"你是傻逼 {index}"}, ensure_ascii=False)]
            forms[index] = urllib.parse.urlencode({key: values[0] for key, values in fields.items()})
        (work / "forms.txt").write_text("\n".join(forms) + "\n", encoding="utf-8")
        apps = work / "apps"
        bench.app_directory(apps, 1)
        policy = work / "ban-every-block.json"
        policy.write_text(json.dumps({"rules": [{"name": "ban", "blocked": 1, "within": "1m", "per": "user",
                                                  "action": "chatroom-ban", "minutes": 1}]}))
        print(f"Callbacks: {count} messages of samples/messages.jsonl as signed forms, every tenth made abusive "
              "(`你是傻逼 N`, its sender kept), posted in turn; wrk: 1 thread, "
              f"{options.connections} connections at the peak, 16 paced, {options.seconds} s a run, on the same two "
              "cores as the server (2 threads).\n")
        print("| server | peak requests/s | p99 ms | paced requests/s | p99 ms | p99.9 ms | failed | offender events |")
        print("|---|---|---|---|---|---|---|---|")
        baseline = bench.Server(options.winnow, apps, 2, work)
        try:
            peak, paced = callback_runs(baseline, work, options)
            events = metric_lines(baseline, "winnow_enforcements_total")
        finally:
            baseline.stop()
        half = peak["rps"] / 2
        print(f"| built-in policy, no platform calls | {peak['rps']:.0f} | {bench.ms(peak['p99_us'])} | "
              f"{paced['rps']:.0f} | {bench.ms(paced['p99_us'])} | {bench.ms(paced['p999_us'])} | "
              f"{peak['failed'] + paced['failed']} | {'; '.join(events) or 'none'} |")
        events_file = work / "events.jsonl"
        down = bench.Server(options.winnow, apps, 2, work, extra=[
            "--policy", str(policy), "--events", str(events_file), "--enforce",
            "--platform-url", f"http://127.0.0.1:{closed_port()}"])
        try:
            peak, paced = callback_runs(down, work, options, pause_rps=half)
            results = metric_lines(down, "winnow_enforcements_total")
        finally:
            down.stop()
        lines = events_file.read_text(encoding="utf-8").splitlines() if events_file.exists() else []
        fired = sum(1 for line in lines if line.startswith('{"event":"offender"'))
        print(f"| every blocked message bans; the platform refuses connections | {peak['rps']:.0f} | "
              f"{bench.ms(peak['p99_us'])} | {paced['rps']:.0f} | {bench.ms(paced['p99_us'])} | "
              f"{bench.ms(paced['p999_us'])} | {peak['failed'] + paced['failed']} | {fired} fired; "
              f"{'; '.join(line.replace('winnow_enforcements_total', '') for line in results) or 'no call ended'} |")

        # Memory of tracked senders.
        # Room for all of them and the warm-up's: none is dropped for room.
        server = bench.Server(options.winnow, apps, 2, work, extra=["--max-offenders", str(options.senders + 1000)])
        try:
            def batch(start, size):
                return "".join(json.dumps({
                    "msgUID": f"m{index}", "fromUserId": f"user{index}", "targetId": f"room{index % 1000}",
                    "conversationType": 4, "appKey": f"app{index % 10}", "content": {"content": "你是傻逼"},
                    "sentTime": 1700000000000 + index}, ensure_ascii=False) + "\n" for index in range(start, start + size))

            def post(body):
                request = urllib.request.Request(server.url("/v1/moderate"), data=body.encode(),
                                                 headers={"Content-Type": "application/x-ndjson"})
                urllib.request.urlopen(request, timeout=300).read()

            post(batch(options.senders, 1000))  # warm-up: the answer paths, with senders of their own
            before = server.rss_mib()
            start = time.monotonic()
            size = 10_000
            for first in range(0, options.senders, size):
                post(batch(first, min(size, options.senders - first)))
            seconds = time.monotonic() - start
            after, held = server.rss_mib(), tracked(server)
        finally:
            server.stop()
        print(f"\nMemory: {options.senders} senders, one blocked chatroom message each, posted as NDJSON batches of "
              f"{size} in {seconds:.1f} s: resident **{before:.0f} → {after:.0f} MiB**, "
              f"{held} senders tracked (the warm-up's 1000 included; the built-in policy keeps a sender a day): "
              f"**{(after - before) * 1048576 / max(1, options.senders):.0f} bytes a sender**.")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
