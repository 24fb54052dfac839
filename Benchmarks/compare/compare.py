#!/usr/bin/env python3
"""Runs Winnow and its peers on the same word list and corpus, in one run, checks that the
match counts agree, and prints one Markdown table.

Usage: compare.py DATA_DIR WINNOW HYPERSCAN_DRIVER [REAL_DIR]   (run by `run`, inside its venv)

DATA_DIR holds the synthetic corpus (make_corpus.py), REAL_DIR the real-text one
(make_real_corpus.py: the quality benchmark's ordinary sentences with list words injected);
both get the head-to-head table, and a target holds only when it holds on both.

Every matcher counts every match of every pattern (overlapping, raw bytes, no normalization)
over the whole corpus (MB/s), and, where it can be driven one message at a time without an
interpreter in the loop, over each line on its own (messages/s). Winnow and Hyperscan, whose
ratio the targets are about, run in alternated rounds and report medians: on a shared machine
one run of each moved their ratio by half. Build time is the compile of
the word list; memory is the peak resident size of the process (list, corpus and all). Then
`winnow scan` end to end (the repository's sample dump repeated, the built-in global list),
with one job and two, against ripgrep over the same file; winnow reads its compiled global
list back from a cache of its own (in DATA_DIR, filled by a first run), and one row compiles
it every time (`--no-cache`).
"""
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path


def peak_rss_of(command, **kwargs):
    """Runs a command; returns (stdout, stderr, peak RSS MB) using GNU time."""
    result = subprocess.run(["/usr/bin/time", "-f", "%M"] + command, capture_output=True, text=True, **kwargs)
    # GNU time says so when the command exits non-zero (`winnow match` exits 1 when it found
    # matches, as every winnow command does): not the command's own output.
    lines = [line for line in result.stderr.strip().splitlines()
             if not line.startswith("Command exited with non-zero status")]
    rss = int(lines[-1]) / 1024 if lines and lines[-1].isdigit() else float("nan")
    return result, "\n".join(lines[:-1]), rss


def winnow(data, binary, per_line, normalize=False, normalize_only=False):
    args = [binary, "match", "--patterns", str(data / "patterns.txt"), "--patterns-format", "lines", "--overlapping",
            "--count", "--stats"]
    if per_line:
        args.append("--per-line")
    if normalize:
        args.append("--normalize")
    if normalize_only:
        args.append("--normalize-only")
    with open(data / "corpus.txt", "rb") as corpus:
        result, stderr, rss = peak_rss_of(args, stdin=corpus)
    stats = json.loads(stderr.strip().splitlines()[-1])
    stats["rss_mb"] = rss
    return stats


def python_peer(data, name):
    """ahocorasick-rs and pyahocorasick, each in its own process so memory is its own."""
    code = f"""
import json, resource, sys, time
patterns = open(sys.argv[1], encoding="utf-8").read().split("\\n")[:-1]
corpus = open(sys.argv[2], "rb").read()
if {name!r} == "ahocorasick-rs":
    import ahocorasick_rs
    start = time.perf_counter()
    automaton = ahocorasick_rs.BytesAhoCorasick([p.encode() for p in patterns])
    build = time.perf_counter() - start
    start = time.perf_counter()
    matches = len(automaton.find_matches_as_indexes(corpus, overlapping=True))
    scan = time.perf_counter() - start
else:
    import ahocorasick
    start = time.perf_counter()
    automaton = ahocorasick.Automaton(ahocorasick.STORE_INTS)
    for index, pattern in enumerate(patterns):
        automaton.add_word(pattern, index)
    automaton.make_automaton()
    build = time.perf_counter() - start
    text = corpus.decode("utf-8")  # pyahocorasick matches str (same matches, counted by character)
    start = time.perf_counter()
    matches = sum(1 for _ in automaton.iter(text))
    scan = time.perf_counter() - start
print(json.dumps({{"build_seconds": build, "scan_seconds": scan, "matches": matches,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""
    result = subprocess.run([sys.executable, "-c", code, str(data / "patterns.txt"), str(data / "corpus.txt")],
                            capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(result.stderr)
    return json.loads(result.stdout)


def grep_peer(data, command):
    start = time.perf_counter()
    result, _, rss = peak_rss_of(command + ["-F", "-c", "-f", str(data / "patterns.txt"), str(data / "corpus.txt")])
    return {"scan_seconds": time.perf_counter() - start, "rss_mb": rss, "lines": result.stdout.strip()}


def sample_dump(data, root, repeats):
    """samples/messages.jsonl repeated `repeats` times: the three dump formats, few distinct lines."""
    sample = (root / "samples" / "messages.jsonl").read_bytes()
    dump = data / f"dump-x{repeats}.jsonl"
    if not dump.exists() or dump.stat().st_size != len(sample) * repeats:
        dump.write_bytes(sample * repeats)
    return dump


def corpus_dump(data):
    """The comparison corpus as a dump: each message one item line, in the item format of
    samples/messages.jsonl (ids and times derived from the line number). A million distinct
    messages, unlike the repeated sample, whose few distinct lines keep any lazily built
    automaton (ripgrep's) warm."""
    corpus = data / "corpus.txt"
    dump = data / "corpus-dump.jsonl"
    if dump.exists() and dump.stat().st_mtime >= corpus.stat().st_mtime:
        return dump
    with open(corpus, encoding="utf-8") as source, open(dump, "w", encoding="utf-8") as out:
        for number, line in enumerate(source):
            item = {"msgUID": f"C{number:07d}", "fromUserId": f"u{number % 100000}",
                    "targetId": f"g{number % 5000}", "conversationType": 3, "channelId": "",
                    "objectName": "RC:TxtMsg", "content": {"content": line.rstrip("\n")},
                    "sentTime": 1700000000000 + number}
            out.write(json.dumps(item, ensure_ascii=False, separators=(",", ":")) + "\n")
    return dump


def scan_end_to_end(data, binary, dump, runs=5):
    """`winnow scan` with the built-in global list over `dump`, with one job, one job held to one
    core (`taskset -c 0`: loading the lists uses every core it may), and two jobs, against
    `rg -F --count-matches -f` with the comparison's patterns over the same file on one core; `runs`
    alternated runs each, medians. The compiled global list is read from a cache in `data`
    (filled by a first run, not timed), except by the `--no-cache` row. Returns (rows, MB)."""
    mb = dump.stat().st_size / 1e6
    one_core = ["taskset", "-c", "0", binary, "scan", "--jobs", "1"]
    commands = {
        "winnow scan --jobs 1": [binary, "scan", "--jobs", "1", str(dump)],
        "winnow scan --jobs 1, one core": one_core + [str(dump)],
        "winnow scan --jobs 1, one core, --no-cache": one_core + ["--no-cache", str(dump)],
        "winnow scan --jobs 2": [binary, "scan", "--jobs", "2", str(dump)],
        # --count-matches: every match, as a moderation scan must find. `-c` counts lines with a
        # match and leaves a line at its first: `con` and `am` (in the union list) occur in every
        # line's JSON keys, so `rg -c` read ~40 bytes a line and scanned nothing.
        "rg -F --count-matches -f, one core": ["taskset", "-c", "0", "rg", "--no-config", "-F", "--count-matches",
                                               "-f", str(data / "patterns.txt"), str(dump)],
    }
    whole = {name: [] for name in commands}
    scanning = {name: [] for name in commands}
    environment = dict(os.environ, WINNOW_CACHE_DIR=str(data / "cache"))
    subprocess.run(commands["winnow scan --jobs 1"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env=environment)
    for _ in range(runs):
        for name, command in commands.items():
            start = time.perf_counter()
            result = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                    env=environment)
            whole[name].append(time.perf_counter() - start)
            if name.startswith("winnow"):
                # Exit 1: items were blocked, as both dumps have; the summary gives the scan's MB/s.
                rate = re.search(r"MB in [0-9.]+ s: ([0-9.]+) MB/s", result.stderr)
                if result.returncode != 1 or rate is None:
                    sys.exit(f"{name} failed (exit {result.returncode}): {result.stderr.strip()[-500:]}")
                scanning[name].append(mb / float(rate.group(1)))
    rows = [(name, statistics.median(whole[name]), statistics.median(scanning[name]) if scanning[name] else None)
            for name in commands]
    return rows, mb


def scorer_speed(corpora, binary, dump, runs=3):
    """The learned scorer (issue 57): `winnow score --quiet` over each corpus, one message a line,
    on one core (scoring alone, the time `winnow score` measures around each text), and `winnow
    scan --jobs 1` of `dump` on one core with and without `--scorer builtin`; medians of `runs`."""
    print("\n### The learned scorer\n")
    print("| corpus | messages | MB | messages/s | MB/s |")
    print("|---|---:|---:|---:|---:|")
    for name, data in corpora:
        rates = []
        for _ in range(runs):
            result = subprocess.run(["taskset", "-c", "0", binary, "score", "--quiet", "--scorer", "builtin",
                                     str(data / "corpus.txt")], capture_output=True, text=True)
            found = re.search(r"scored (\d+) texts \((\d+) bytes\) in ([0-9.]+) s", result.stderr)
            if result.returncode != 0 or found is None:
                sys.exit(f"winnow score failed ({result.returncode}): {result.stderr.strip()[-500:]}")
            rates.append((int(found.group(1)), int(found.group(2)), float(found.group(3))))
        texts, size, seconds = rates[0][0], rates[0][1], statistics.median(r[2] for r in rates)
        print(f"| {name} | {texts:,} | {size / 1e6:.1f} | {texts / seconds:,.0f} | {size / 1e6 / seconds:.1f} |")
    mb = dump.stat().st_size / 1e6
    times = {"lists": [], "lists and scorer": []}
    environment = dict(os.environ, WINNOW_CACHE_DIR=str(corpora[0][1] / "cache"))
    for _ in range(runs):
        for name, extra in (("lists", []), ("lists and scorer", ["--scorer", "builtin"])):
            result = subprocess.run(["taskset", "-c", "0", binary, "scan", "--jobs", "1", *extra, str(dump)],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=environment)
            rate = re.search(r"MB in [0-9.]+ s: ([0-9.]+) MB/s", result.stderr)
            if result.returncode != 1 or rate is None:
                sys.exit(f"winnow scan {' '.join(extra)} failed ({result.returncode}): {result.stderr.strip()[-500:]}")
            times[name].append(mb / float(rate.group(1)))
    lists, both = statistics.median(times["lists"]), statistics.median(times["lists and scorer"])
    print(f"\n`winnow scan --jobs 1` on one core over {dump.name} ({mb:.1f} MB): lists alone {mb / lists:.1f} MB/s, "
          f"with `--scorer builtin` {mb / both:.1f} MB/s ({lists / both:.2f} of the lists-only speed).")


ROUNDS = 5


def median_run(runs):
    """One run's figures with every timing the median over `runs` (the counts are equal in all
    of them; peak memory is the largest)."""
    merged = dict(runs[0])
    for key in ("build_seconds", "scan_seconds", "line_seconds"):
        if key in merged:
            merged[key] = statistics.median(run[key] for run in runs)
    merged["rss_mb"] = max(run["rss_mb"] for run in runs)
    return merged


def head_to_head(data, binary, driver, rounds):
    """Hyperscan and Winnow (raw over the whole corpus, raw per message, normalized per message),
    `rounds` alternated rounds, so that a busy moment of the machine weighs on both sides of a
    ratio; medians, and the lowest and highest ratio of a round. Returns (Hyperscan, whole,
    lines, normalized, ratios)."""
    results = {"hs": [], "whole": [], "lines": [], "normalized": []}
    for _ in range(rounds):
        hs_result, _, hs_rss = peak_rss_of([driver, str(data / "patterns.txt"), str(data / "corpus.txt")])
        hs = json.loads(hs_result.stdout)
        hs["rss_mb"] = hs_rss
        results["hs"].append(hs)
        results["whole"].append(winnow(data, binary, per_line=False))
        results["lines"].append(winnow(data, binary, per_line=True))
        # Normalized, one message at a time, as servers moderate (one text of 67 MB would measure
        # bookkeeping no deployment has).
        results["normalized"].append(winnow(data, binary, per_line=True, normalize=True))
    for name, runs in results.items():
        counts = {(run["matches"], run.get("line_matches")) for run in runs}
        if len(counts) != 1:
            sys.exit(f"{name}: match counts differ between rounds: {sorted(counts)}")
    ratios = {
        "raw MB/s": [hs["scan_seconds"] / whole["scan_seconds"] for hs, whole in zip(results["hs"], results["whole"])],
        "messages/s": [hs["line_seconds"] / lines["scan_seconds"] for hs, lines in zip(results["hs"], results["lines"])],
        "normalized MB/s": [hs["scan_seconds"] / normalized["scan_seconds"]
                            for hs, normalized in zip(results["hs"], results["normalized"])],
        # Issue 58's measure: normalized, one message at a time, against Hyperscan's raw speed
        # one message at a time.
        "normalized, both a message at a time": [hs["line_seconds"] / normalized["scan_seconds"]
                                                 for hs, normalized in zip(results["hs"], results["normalized"])],
    }
    return (median_run(results["hs"]), median_run(results["whole"]), median_run(results["lines"]),
            median_run(results["normalized"]), ratios)


def speed_table(data, binary, driver, title):
    """The head-to-head table of one corpus; returns (whole, hs, lines, messages)."""
    size = (data / "corpus.txt").stat().st_size
    mb = size / 1e6
    rows = []
    hs, whole, lines, normalized, ratios = head_to_head(data, binary, driver, ROUNDS)
    hs_rss = hs["rss_mb"]
    messages = hs["messages"]
    rows.append(("Winnow (raw)", whole["build_seconds"], mb / whole["scan_seconds"],
                 lines["messages"] / lines["scan_seconds"], whole["matches"], whole["rss_mb"]))
    rows.append(("Winnow (default normalization, per message)", normalized["build_seconds"],
                 mb / normalized["scan_seconds"], normalized["messages"] / normalized["scan_seconds"],
                 normalized["matches"], normalized["rss_mb"]))
    rows.append(("Hyperscan 5.4 (C)", hs["build_seconds"], mb / hs["scan_seconds"], messages / hs["line_seconds"],
                 hs["matches"], hs_rss))
    for name in ("ahocorasick-rs", "pyahocorasick"):
        peer = python_peer(data, name)
        rows.append((f"{name} (Python)", peer["build_seconds"], mb / peer["scan_seconds"], None, peer["matches"],
                     peer["rss_mb"]))
    for name, command in (("ripgrep -F -f", ["rg", "--no-config"]), ("GNU grep -F -f", ["grep"])):
        peer = grep_peer(data, command)
        rows.append((f"{name} (lines with a match)", None, mb / peer["scan_seconds"], None, None, peer["rss_mb"]))

    raw = rows[0]
    print(f"### {title}\n")
    print(f"Corpus: {messages} messages, {mb:.1f} MB; {whole['patterns']} patterns. Hyperscan and Winnow: "
          f"medians of {ROUNDS} alternated rounds; the others: one run.\n")
    print("| matcher | build s | MB/s | messages/s | matches | peak RSS MB | Winnow raw MB/s ÷ this |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, build, rate, per_message, matches, rss in rows:
        cells = [name, f"{build:.2f}" if build is not None else "–", f"{rate:.1f}",
                 f"{per_message:,.0f}" if per_message else "–", f"{matches:,}" if matches is not None else "–",
                 f"{rss:.0f}", f"{raw[2] / rate:.2f}×"]
        print("| " + " | ".join(cells) + " |")
    counts = {whole["matches"], hs["matches"], rows[3][4], rows[4][4]}
    print()
    print(f"One message at a time: Winnow {lines['messages'] / lines['scan_seconds']:,.0f} messages/s, "
          f"Hyperscan {messages / hs['line_seconds']:,.0f} messages/s "
          f"(ratio {(lines['messages'] / lines['scan_seconds']) / (messages / hs['line_seconds']):.2f}×); "
          f"per-line match counts {lines['matches']:,} and {hs['line_matches']:,}.")
    print(f"Normalized, one message at a time: Winnow {normalized['messages'] / normalized['scan_seconds']:,.0f} "
          f"messages/s, {hs['line_seconds'] / normalized['scan_seconds']:.2f}× Hyperscan's raw speed one message at "
          f"a time (issue 58's measure; the table's ratio is against Hyperscan over the whole corpus).")
    print("Winnow ÷ Hyperscan per round (lowest–highest): " + "; ".join(
        f"{name} {min(values):.2f}–{max(values):.2f}×" for name, values in ratios.items()) + ".")
    print("Match counts " + ("agree" if len(counts) == 1 else f"DISAGREE: {sorted(counts)}") +
          " between Winnow (raw), Hyperscan, ahocorasick-rs and pyahocorasick.\n")
    if len(counts) != 1:
        sys.exit(1)
    return whole, hs, lines, messages


# A line of the real-text corpus by what it holds: a Han, kana or Hangul character makes it CJK.
CJK = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0003ffff]")
PART_ROUNDS = 3


def script_parts(real):
    """The real-text corpus split by what a line holds (all-ASCII lines, lines with a CJK
    character, the other scripts), each part in corpus order in a directory of its own beside
    the corpus, with the same patterns; returns [(name, directory, share of the lines)]."""
    names = ["all-ASCII", "CJK", "other scripts"]
    lines = {name: [] for name in names}
    with open(real / "corpus.txt", "rb") as corpus:
        for line in corpus:
            if line.isascii():
                lines["all-ASCII"].append(line)
            elif CJK.search(line.decode("utf-8", "replace")):
                lines["CJK"].append(line)
            else:
                lines["other scripts"].append(line)
    total = sum(len(part) for part in lines.values())
    parts = []
    for index, name in enumerate(names):
        directory = real / f"part-{index}"
        directory.mkdir(exist_ok=True)
        (directory / "patterns.txt").write_bytes((real / "patterns.txt").read_bytes())
        (directory / "corpus.txt").write_bytes(b"".join(lines[name]))
        parts.append((name, directory, len(lines[name]) / total))
    return parts


def part_table(real, binary, driver):
    """Issue 58's measure on each part of the real-text corpus: where the normalized scan's gap
    to Hyperscan lies. Winnow normalized and Hyperscan, both one message at a time, in
    `PART_ROUNDS` alternated rounds; medians. Each round also times Winnow normalizing alone
    (`--normalize-only`: the scan's normalizing, no walk) and Winnow's raw scan of each line, so
    that the table splits the normalized scan into normalizing and matching the normalized text,
    and sets the matching beside the raw scan's."""
    rows = []
    for name, directory, share in script_parts(real):
        winnow_seconds, alone_seconds, raw_seconds, hs_seconds, ratios = [], [], [], [], []
        for _ in range(PART_ROUNDS):
            hs_result, _, _ = peak_rss_of([driver, str(directory / "patterns.txt"), str(directory / "corpus.txt")])
            hs = json.loads(hs_result.stdout)["line_seconds"]
            normalized = winnow(directory, binary, per_line=True, normalize=True)["scan_seconds"]
            alone_seconds.append(
                winnow(directory, binary, per_line=True, normalize=True, normalize_only=True)["scan_seconds"])
            raw_seconds.append(winnow(directory, binary, per_line=True)["scan_seconds"])
            hs_seconds.append(hs)
            winnow_seconds.append(normalized)
            ratios.append(hs / normalized)
        rows.append((name, share, statistics.median(winnow_seconds), statistics.median(alone_seconds),
                     statistics.median(raw_seconds), statistics.median(hs_seconds), ratios))
    print("### Normalized, one message at a time, by what a line holds (the real-text corpus)\n")
    print(f"Winnow normalizing each line against Hyperscan's raw scan of each line, medians of {PART_ROUNDS} "
          "alternated rounds per part: the parts the normalized measure's gap comes from. *Normalizing* is "
          "`winnow match --normalize-only` (the scan's normalizing, no walk); *matching* is the normalized scan "
          "less that, set beside Winnow's raw scan of each line.\n")
    print("| part | share of lines | Winnow s | normalizing s | matching s | Winnow raw s | matching / raw | "
          "Hyperscan s | ratio | rounds |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, share, winnow_s, alone_s, raw_s, hs_s, ratios in rows:
        matching = winnow_s - alone_s
        print(f"| {name} | {100 * share:.1f}% | {winnow_s:.3f} | {alone_s:.3f} | {matching:.3f} | {raw_s:.3f} | "
              f"{matching / raw_s:.2f}× | {hs_s:.3f} | {hs_s / winnow_s:.2f}× | {min(ratios):.2f}–{max(ratios):.2f}× |")
    print()


def filter_counts(data, binary):
    """The raw scan's start filter, stage by stage, one message at a time (`winnow match
    --filter-counts`: an extra pass that counts, apart from the timed scan)."""
    args = [binary, "match", "--patterns", str(data / "patterns.txt"), "--patterns-format", "lines", "--overlapping",
            "--count", "--per-line", "--stats", "--filter-counts"]
    with open(data / "corpus.txt", "rb") as corpus:
        result = subprocess.run(args, stdin=corpus, capture_output=True, text=True)
    return json.loads(result.stderr.strip().splitlines()[-1])["filter"]


STAGES = [
    ("positions", "bytes of text"),
    ("lead_bytes", "lead bytes (positions tested)"),
    ("passed_prefix", "passing the prefix table (or the short patterns' gate)"),
    ("passed_windows", "passing a window's Bloom filter (candidates)"),
    ("window_probes", "exact-table probes"),
    ("walks", "trie walks"),
    ("reported", "matches the exact tables reported"),
]


def stage_table(corpora):
    """Per corpus, each stage's count and its share of the lead bytes."""
    print("### The start filter, stage by stage, one message at a time\n")
    print("| stage | " + " | ".join(f"{name} | per lead byte" for name, _ in corpora) + " |")
    print("|---|" + "---:|---:|" * len(corpora))
    for key, label in STAGES:
        cells = []
        for _, counts in corpora:
            cells += [f"{counts[key]:,}", f"{counts[key] / counts['lead_bytes']:.4f}"]
        print(f"| {label} | " + " | ".join(cells) + " |")
    print()


def main():
    data, binary, driver = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    real = Path(sys.argv[4]) if len(sys.argv) > 4 else None
    whole, hs, lines, messages = speed_table(data, binary, driver, "The synthetic corpus (make_corpus.py)")
    corpora = [("synthetic", filter_counts(data, binary))]
    if real is not None:
        speed_table(real, binary, driver,
                    "The real-text corpus (make_real_corpus.py: the quality benchmark's ordinary sentences)")
        corpora.append(("real text", filter_counts(real, binary)))
    stage_table(corpora)
    if real is not None:
        part_table(real, binary, driver)
    scorer_speed([("synthetic", data)] + ([("real text", real)] if real is not None else []), binary,
                 sample_dump(data, Path(__file__).resolve().parents[2], 16))

    root = Path(__file__).resolve().parents[2]
    dumps = [
        (sample_dump(data, root, 16), "samples/messages.jsonl repeated 16 times", 5),
        (sample_dump(data, root, 64), "samples/messages.jsonl repeated 64 times", 5),
        (corpus_dump(data), f"the corpus above as item lines ({messages:,} distinct messages)", 3),
    ]
    for dump, description, count in dumps:
        runs, dump_mb = scan_end_to_end(data, binary, dump, runs=count)
        print(f"\n`winnow scan` end to end with the built-in global list over {description} ({dump_mb:.1f} MB), "
              f"against ripgrep with the {whole['patterns']} patterns above; medians of {count} alternated runs:\n")
        print("| run | whole process s | scanning s |")
        print("|---|---:|---:|")
        for name, total, scanning in runs:
            print(f"| {name} | {total:.2f} | {scanning:.2f} |" if scanning is not None
                  else f"| {name} | {total:.2f} | – |")
        (_, one_total, one_scan), (_, core_total, core_scan), _, (_, two_total, two_scan), (_, rg_total, _) = runs
        print(f"\nSpeed of winnow scan --jobs 1 on one core against ripgrep on one core: "
              f"{rg_total / core_scan:.2f}× counting the scan, {rg_total / core_total:.2f}× counting the whole "
              f"process. Speed of --jobs 2 against --jobs 1 on one core: {core_scan / two_scan:.2f}× scanning, "
              f"{core_total / two_total:.2f}× the whole process (against --jobs 1 free to load on every core: "
              f"{one_scan / two_scan:.2f}× and {one_total / two_total:.2f}×).")


if __name__ == "__main__":
    main()
