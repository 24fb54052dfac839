#!/usr/bin/env python3
"""Load benchmark of `winnow serve` (Benchmarks/serve/run calls it).

Usage: bench.py WINNOW [--seconds S] [--connections C] [--apps N] [--skip-apps]

In one run, against one release binary, on 127.0.0.1, with wrk (one wrk thread, so that the
server keeps most of the two cores):
1. for 1 and 2 server threads: requests/s and p50/p99/p99.9 latency of `GET /healthz` (the
   framework's own ceiling), `POST /v1/moderate` (item JSON of samples/messages.jsonl) and
   `POST /callback/message` (the same messages as signed callback forms), saturating; then each
   moderation endpoint paced at half its peak rate, for its p99 there;
2. failed requests while an app's list is rewritten and reloaded (SIGHUP) every 100 ms under a
   saturating load of /v1/moderate;
3. the start of a server with N apps (default 10,000) of 50 to 500 custom words each: seconds
   until /readyz answers 200, resident memory, and the cost per app over a server with none.
Prints Markdown tables.
"""
import argparse
import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SECRET = "bench-secret"


def items_and_forms(work):
    """Bodies of /v1/moderate (item JSON lines of the sample) and /callback/message (forms)."""
    items, forms = [], []
    for line in (ROOT / "samples/messages.jsonl").read_text(encoding="utf-8").splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if not isinstance(value, dict) or "msgUID" not in value or not isinstance(value.get("content"), dict):
            continue
        text = value["content"].get("content")
        if not isinstance(text, str) or value.get("objectName", "RC:TxtMsg") != "RC:TxtMsg":
            continue
        value["appKey"] = "app0"
        items.append(json.dumps(value, ensure_ascii=False))
        forms.append(urllib.parse.urlencode({
            "appKey": "app0", "fromUserId": value.get("fromUserId", "u"), "targetId": value.get("targetId", "t"),
            "toUserIds": value.get("targetId", "t"), "msgType": "RC:TxtMsg",
            "content": json.dumps({"content": text}, ensure_ascii=False), "pushContent": "",
            "channelType": "GROUP", "msgTimeStamp": str(value.get("sentTime", 0)), "messageId": value["msgUID"]}))
    (work / "items.txt").write_text("\n".join(items) + "\n", encoding="utf-8")
    (work / "forms.txt").write_text("\n".join(forms) + "\n", encoding="utf-8")
    return len(items)


def app_directory(path, apps, seed=7):
    """`apps` apps of 50 to 500 words each (Chinese and Latin), and their secrets."""
    path.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    han = [chr(c) for c in range(0x4E00, 0x4E00 + 3000)]
    latin = "abcdefghijklmnopqrstuvwxyz"
    secrets = {}
    for index in range(apps):
        words = set()
        for _ in range(rng.randint(50, 500)):
            if rng.random() < 0.6:
                words.add("".join(rng.choice(han) for _ in range(rng.randint(2, 4))))
            else:
                words.add("".join(rng.choice(latin) for _ in range(rng.randint(4, 9))))
        lines = [w + (" => **" if rng.random() < 0.2 else "") for w in sorted(words)]
        (path / f"app{index}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        secrets[f"app{index}"] = SECRET
    secrets_file = path / "secrets.json"
    secrets_file.write_text(json.dumps(secrets), encoding="utf-8")
    secrets_file.chmod(0o600)


class Server:
    def __init__(self, winnow, apps, threads, work, extra=()):
        self.log = open(work / f"serve-{threads}-{time.time_ns()}.log", "w+")
        token = work / "token"
        token.write_text("bench-token\n")
        token.chmod(0o600)
        self.started = time.monotonic()
        self.process = subprocess.Popen(
            [winnow, "serve", "--port", "0", "--threads", str(threads),
             *(["--apps", str(apps)] if apps is not None else []),
             "--signature-window", "0", "--admin-token-file", str(token), *extra],
            stdout=subprocess.DEVNULL, stderr=self.log)
        self.port = None
        while self.port is None:
            time.sleep(0.01)
            self.log.seek(0)
            for line in self.log.read().splitlines():
                if "listening on http://127.0.0.1:" in line:
                    self.port = int(line.rsplit(":", 1)[1])
            if self.process.poll() is not None:
                raise SystemExit("winnow serve exited: " + open(self.log.name).read()[-2000:])
        while True:
            try:
                if urllib.request.urlopen(self.url("/readyz"), timeout=5).status == 200:
                    break
            except Exception:
                time.sleep(0.01)
        self.ready_seconds = time.monotonic() - self.started

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"

    def rss_mib(self):
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()


def wrk(url, args, seconds, connections):
    run = subprocess.run(
        ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--timeout", "5s", "-s", str(HERE / "load.lua"), url, "--",
         *args], capture_output=True, text=True)
    lines = [line for line in run.stdout.splitlines() if line.startswith("{")]
    if not lines:
        raise SystemExit(f"wrk failed: {run.stdout}\n{run.stderr}")
    figures = json.loads(lines[-1])
    figures["rps"] = figures["requests"] / figures["seconds"]
    figures["failed"] = sum(figures[key] for key in ("connect", "read", "write", "status", "timeout"))
    return figures


def endpoint_args(server, endpoint, work, pause=0):
    nonce, timestamp = "1", "1700000000000"
    signature = hashlib.sha1((SECRET + nonce + timestamp).encode()).hexdigest()
    if endpoint == "healthz":
        return server.url("/healthz"), ["-", "/healthz", "-", str(pause)]
    if endpoint == "moderate":
        return server.url("/v1/moderate"), [str(work / "items.txt"), "/v1/moderate", "application/json", str(pause)]
    path = f"/callback/message?nonce={nonce}&signTimestamp={timestamp}&signature={signature}"
    return server.url(path), [str(work / "forms.txt"), path, "application/x-www-form-urlencoded", str(pause)]


def ms(us):
    return f"{us / 1000:.2f}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("winnow")
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--apps", type=int, default=10_000)
    parser.add_argument("--skip-apps", action="store_true")
    options = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="winnow-serve-bench-"))
    try:
        count = items_and_forms(work)
        small_apps = work / "apps-small"
        app_directory(small_apps, 1)
        print(f"Messages: {count} text items of samples/messages.jsonl, posted in turn; app `app0` has its own list. "
              f"wrk: 1 thread, {options.connections} connections, {options.seconds} s a run, on the same two cores "
              "as the server.\n")
        print("| server threads | endpoint | requests/s | ÷ healthz | p50 ms | p99 ms | p99.9 ms | failed | "
              "paced at ½ peak: requests/s | p99 ms | p99.9 ms |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for threads in (1, 2):
            server = Server(options.winnow, small_apps, threads, work)
            try:
                ceiling = None
                for endpoint in ("healthz", "moderate", "callback"):
                    url, args = endpoint_args(server, endpoint, work)
                    wrk(url, args, 2, options.connections)  # warm-up
                    peak = wrk(url, args, options.seconds, options.connections)
                    if endpoint == "healthz":
                        ceiling = peak["rps"]
                    paced_cells = "| | |"
                    if endpoint != "healthz":
                        pacing_connections = 16
                        pause = max(1, round(pacing_connections * 1000 / (peak["rps"] / 2)))
                        url, args = endpoint_args(server, endpoint, work, pause)
                        paced = wrk(url, args, options.seconds, pacing_connections)
                        paced_cells = f"{paced['rps']:.0f} | {ms(paced['p99_us'])} | {ms(paced['p999_us'])} |"
                    print(f"| {threads} | {endpoint} | {peak['rps']:.0f} | {peak['rps'] / ceiling:.2f} | "
                          f"{ms(peak['p50_us'])} | {ms(peak['p99_us'])} | {ms(peak['p999_us'])} | {peak['failed']} | "
                          f"{paced_cells}")
            finally:
                server.stop()

        # Reloads under load.
        server = Server(options.winnow, small_apps, 2, work)
        reloads = 0
        stop = threading.Event()

        def reloader():
            nonlocal reloads
            while not stop.is_set():
                (small_apps / "app0.txt").write_text(f"reloadword{reloads}\n秒杀 => **\n", encoding="utf-8")
                server.process.send_signal(signal.SIGHUP)
                reloads += 1
                time.sleep(0.1)

        thread = threading.Thread(target=reloader)
        thread.start()
        try:
            url, args = endpoint_args(server, "moderate", work)
            loaded = wrk(url, args, options.seconds, options.connections)
        finally:
            stop.set()
            thread.join()
        metrics = urllib.request.urlopen(server.url("/metrics")).read().decode()
        ok = sum(float(line.split()[-1]) for line in metrics.splitlines()
                 if line.startswith('winnow_reloads_total{result="ok"}'))
        failed_reloads = sum(float(line.split()[-1]) for line in metrics.splitlines()
                             if line.startswith('winnow_reloads_total{result="failed"}'))
        server.stop()
        print(f"\nReloads under load: {reloads} SIGHUPs, one every 100 ms, each after rewriting app0's list, during "
              f"{options.seconds} s of /v1/moderate at {loaded['rps']:.0f} requests/s (2 server threads): "
              f"{loaded['requests']} requests, **{loaded['failed']} failed**; p99 {ms(loaded['p99_us'])} ms, "
              f"p99.9 {ms(loaded['p999_us'])} ms; {ok:.0f} reloads done, {failed_reloads:.0f} failed "
              "(signals that arrive while a reload runs are merged).")

        if not options.skip_apps:
            empty = work / "apps-none"
            empty.mkdir()
            baseline = Server(options.winnow, empty, 2, work)
            base_rss, base_ready = baseline.rss_mib(), baseline.ready_seconds
            baseline.stop()
            many = work / "apps-many"
            app_directory(many, options.apps)
            words = sum(len(p.read_text(encoding="utf-8").splitlines()) for p in many.glob("*.txt"))
            server = Server(options.winnow, many, 2, work)
            rss, ready = server.rss_mib(), server.ready_seconds
            server.stop()
            print(f"\nApps: {options.apps} apps, {words} custom words in all (50 to 500 each): ready in "
                  f"**{ready:.2f} s** (no apps: {base_ready:.2f} s), resident **{rss:.0f} MiB** (no apps: "
                  f"{base_rss:.0f} MiB); per app {1000 * (ready - base_ready) / options.apps:.2f} ms and "
                  f"{1024 * (rss - base_rss) / options.apps:.0f} KiB.")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
