#!/usr/bin/env python3
"""Writes the second comparison corpus: real sentences, with list words injected.

Usage: make_real_corpus.py OUT_DIR CORPORA_DIR PATTERNS [--messages N] [--seed S]
       [--rate R] [--evaded E]

- OUT_DIR/patterns.txt: a copy of PATTERNS (the same list as the synthetic corpus).
- OUT_DIR/corpus.txt: N messages (default 1,000,000), each one line of the ordinary-text
  corpora the quality benchmark builds from Debian's packages (Benchmarks/quality/corpora.py:
  fortunes, man pages, message catalogs, the Debian handbook, GNOME and LibreOffice help, in
  some 40 languages), drawn with replacement, 35% Chinese, 35% English and 30% the other
  languages (each language, and each source within a language, equally likely); a fraction R
  of the messages (default 0.025) gets one listed word at a random character position, a
  fraction E of those (default 0.25) written with a separator between its characters (`.`,
  `-`, `_` or a space). Lengths are the sentences' own (5–200 characters).

Nothing here was chosen by looking at a matcher's speed on it: the text is the quality
benchmark's ordinary text, the rates are stated above. Deterministic for a seed; generated
data stays out of git.
"""
import argparse
import random
import shutil
from collections import defaultdict
from pathlib import Path


def pools(corpora):
    """{language: [lines of each source]}, from files named LANGUAGE.SOURCE.txt."""
    found = defaultdict(list)
    for path in sorted(Path(corpora).glob("*.*.txt")):
        language = path.name.split(".")[0]
        lines = [line for line in path.read_text("utf-8").splitlines() if 5 <= len(line) <= 200]
        if lines:
            found[language].append(lines)
    return found


def evade(word, rng):
    separator = rng.choice([".", "-", "_", " "])
    return separator.join(word)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("corpora")
    parser.add_argument("patterns")
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--rate", type=float, default=0.025)
    parser.add_argument("--evaded", type=float, default=0.25)
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(args.patterns, out / "patterns.txt")
    listed = (out / "patterns.txt").read_text("utf-8").splitlines()
    found = pools(args.corpora)
    if "zh" not in found or "en" not in found or len(found) < 3:
        raise SystemExit(f"{args.corpora}: needs Chinese, English and other languages (found {sorted(found)})")
    others = sorted(language for language in found if language not in ("zh", "en"))
    rng = random.Random(args.seed)
    injected = evaded = 0
    with (out / "corpus.txt").open("w", encoding="utf-8") as f:
        for _ in range(args.messages):
            draw = rng.random()
            language = "zh" if draw < 0.35 else "en" if draw < 0.70 else rng.choice(others)
            source = rng.choice(found[language])
            message = rng.choice(source)
            if rng.random() < args.rate:
                word = rng.choice(listed)
                if rng.random() < args.evaded:
                    word = evade(word, rng)
                    evaded += 1
                at = rng.randrange(len(message) + 1)
                message = message[:at] + word + message[at:]
                injected += 1
            f.write(message.replace("\n", " ") + "\n")
    size = (out / "corpus.txt").stat().st_size
    print(f"{out}/corpus.txt: {args.messages} messages of {len(found)} languages, {size / 1e6:.1f} MB; "
          f"{injected} with a listed word ({evaded} with separators)")


if __name__ == "__main__":
    main()
