#!/usr/bin/env python3
"""Writes the comparison corpus: the word list and ~1M synthetic chat messages.

Usage: make_corpus.py OUT_DIR [--messages N] [--seed S]   (run it in the venv of `run`)

- patterns.txt: every literal entry of wordlists/global and wordlists/optional, one per line,
  as written (no normalization), deduplicated: the list every matcher gets.
- corpus.txt: one message per line, about half Chinese and half English, 5–200 characters
  (35 on average), words drawn by frequency from jieba's dictionary and wordfreq's English list;
  ~2% of messages carry a listed word, a third of those evaded (separators, spaces, case).
Deterministic for a seed; generated data stays out of git (OUT_DIR is ignored).
"""
import argparse
import os
import random
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


def patterns():
    seen, out = set(), []
    for directory in (ROOT / "wordlists" / "global", ROOT / "wordlists" / "optional"):
        for path in sorted(directory.glob("*.txt")):
            for line in path.read_text("utf-8").splitlines():
                line = line.strip()
                if not line or line.startswith(("#", "[", "allow:", "lexicon:", "re:")) or " => " in line:
                    continue
                if line.startswith("\\"):
                    line = line[1:]
                for prefix in ("sub:", "word:"):
                    if line.startswith(prefix):
                        line = line[len(prefix):]
                if line and line not in seen:
                    seen.add(line)
                    out.append(line)
    return out


def chinese_words():
    import jieba

    words, weights = [], []
    with open(os.path.join(os.path.dirname(jieba.__file__), "dict.txt"), encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 2 and parts[1].isdigit():
                words.append(parts[0])
                weights.append(int(parts[1]))
    return words, weights


def english_words():
    from wordfreq import top_n_list, word_frequency

    words = top_n_list("en", 50000)
    return words, [word_frequency(w, "en") for w in words]


def evade(word, rng):
    kind = rng.randrange(3)
    if kind == 0:
        return ".".join(word)
    if kind == 1:
        return " ".join(word)
    return word.upper()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)
    listed = patterns()
    (out / "patterns.txt").write_text("\n".join(listed) + "\n", encoding="utf-8")
    zh_words, zh_weights = chinese_words()
    en_words, en_weights = english_words()
    zh_cum, en_cum = [], []
    total = 0
    for w in zh_weights:
        total += w
        zh_cum.append(total)
    total = 0.0
    for w in en_weights:
        total += w
        en_cum.append(total)
    pool_zh = rng.choices(zh_words, cum_weights=zh_cum, k=4_000_000)
    pool_en = rng.choices(en_words, cum_weights=en_cum, k=4_000_000)
    zi = ei = 0
    with (out / "corpus.txt").open("w", encoding="utf-8") as f:
        for n in range(args.messages):
            target = max(5, min(200, int(rng.lognormvariate(3.3, 0.6))))
            chinese = n % 2 == 0
            parts, length = [], 0
            while length < target:
                if chinese:
                    word = pool_zh[zi % len(pool_zh)]
                    zi += 1
                else:
                    word = pool_en[ei % len(pool_en)]
                    ei += 1
                parts.append(word)
                length += len(word) + (0 if chinese else 1)
            if rng.random() < 0.02:
                word = rng.choice(listed)
                parts.insert(rng.randrange(len(parts) + 1), evade(word, rng) if rng.random() < 1 / 3 else word)
            message = ("" if chinese else " ").join(parts)[:200]
            f.write(message.replace("\n", " ") + "\n")
    size = (out / "corpus.txt").stat().st_size
    print(f"{out}/patterns.txt: {len(listed)} patterns; {out}/corpus.txt: {args.messages} messages, {size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
