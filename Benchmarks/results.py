#!/usr/bin/env python3
"""Writes one section of Benchmarks/RESULTS.md: the latest figures of one benchmark script.

Usage: Benchmarks/results.py SECTION FILE
  SECTION: `quality`, `recall`, `compare`, `serve`, `replicas`, `offenders`, `scorer`, `quality-scorer`, `contact` or `spark` (the script that ran); FILE: what it
  printed.

The section is replaced between its markers (`<!-- SECTION: begin -->` and `<!-- SECTION: end
-->`), or added at the end; the rest of the file is kept. A header line names the date, the
commit (with `+` when the tree had changes) and the machine, so that figures are never read
without what produced them.
"""
import datetime
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "RESULTS.md"
TITLES = {
    "quality": "Detection quality (`Benchmarks/quality/run`)",
    "recall": "Recall on labelled posts and plain insults (`Benchmarks/quality/recall`)",
    "compare": "Speed (`Benchmarks/compare/run`)",
    "serve": "Serving under load (`Benchmarks/serve/run`)",
    "offenders": "Offenders in the server (`Benchmarks/serve/offenders`)",
    "replicas": "Replicas sharing a store (`Benchmarks/serve/run`, replicas.py)",
    "spark": "Scanning on Spark (`Benchmarks/spark/run`)",
    "scorer": "The learned scorer's speed (`Benchmarks/scorer/run`)",
    "contact": "What the contact list costs a scan (`Benchmarks/contact/run`)",
    "quality-scorer": "Detection quality with the scorer on (`Benchmarks/quality/run --scan-option=--scorer=builtin`)",
}
PREAMBLE = """# Benchmark results

The latest figures of each benchmark script, written by the script itself at the end of a run
(`Benchmarks/results.py`): nothing here is typed by hand. How each benchmark works and what its
figures mean: `Docs/detection-quality.md` and `Docs/speed.md`; earlier runs and experiments:
`Benchmarks/HISTORY.md`.
"""


def provenance():
    def git(*args):
        run = subprocess.run(["git", "-C", str(HERE.parent), *args], capture_output=True, text=True)
        return run.stdout.strip() if run.returncode == 0 else ""
    commit = git("rev-parse", "--short", "HEAD") or "unknown commit"
    if git("status", "--porcelain", "--untracked-files=no"):
        commit += "+"
    model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), "unknown CPU") if Path("/proc/cpuinfo").exists() else "unknown CPU"
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return f"Run of {date}, commit `{commit}`, {os.cpu_count()} cores ({model})."


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in TITLES:
        sys.exit(__doc__)
    section, output = sys.argv[1], Path(sys.argv[2]).read_text(encoding="utf-8").rstrip()
    begin, end = f"<!-- {section}: begin -->", f"<!-- {section}: end -->"
    block = f"{begin}\n## {TITLES[section]}\n\n{provenance()}\n\n{output}\n{end}"
    text = RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else PREAMBLE
    if begin in text and end in text:
        text = text[: text.index(begin)] + block + text[text.index(end) + len(end):]
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    RESULTS.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
