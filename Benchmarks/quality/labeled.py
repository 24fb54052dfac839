#!/usr/bin/env python3
"""Recall benchmark: how much real abuse the defaults block, beside how much ordinary text.

Usage: Benchmarks/quality/labeled.py WINNOW [--labeled DIR] [--global DIR] [--seed S]
       [--scan-option OPT]... [--json FILE]

Labelled real posts (`../shared/data/labeled/`, see its README):
- `cold`: COLD's Chinese comments on race, gender and region (Apache-2.0), `label` 1 offensive
  (mostly implicit: attacks on groups, bias) or 0 safe;
- `davidson`: English tweets (MIT), `class` 0 hate speech or 1 offensive language (both counted
  abusive here) or 2 neither. HTML entities (`&amp;`) are read as the characters they stand for.
Each set is split by evaluate.py's hash of the text: a quarter is the set-aside part, whose
figures are reported and whose posts are never listed; rules are chosen without reading either
part's errors.

The control table (`data/insults.tsv`, written for this benchmark from common usage): each
insult scored alone, aimed at someone (`你这个X`, `you X`), and aimed with the insult written under
each evasion kind of evaluate.py (separators, spaces, full-width, case, look-alikes, repeats,
Traditional characters, a letter between CJK characters, zero-width characters, two at once).

Every text is one message of a dump scanned by `winnow scan --all` with the defaults (the
built-in list and the contact list); a message counts as blocked when its verdict is `blocked`,
flagged when it is delivered with a review match.

With `--scorer MODEL` (a model file, or `builtin`), the labelled posts get four rows each: the
lists alone (the scan above), the scorer alone (`winnow score`, blocked at the model's advised
block threshold or `--score-block`), both without the scorer's clearing of global blocks
(`--score-clear 0`: the scorer only adds), and both (`winnow scan --scorer MODEL`, the pipeline).
Then the padding attack on the clearing: each aimed insult of the control table that the lists
block, between two ordinary chat utterances of its language on either side (ChatterBot's corpus,
seeded), as separate sentences and run into one clause; the share the pipeline still blocks,
beside the share a clearing on the whole text's score alone would let through.
"""
import struct
import subprocess
import tempfile
import argparse
import csv
import html
import json
import random
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
from evaluate import evade, scan_texts, split_of, traditional_table  # noqa: E402

EVASIONS = ("separators", "spaces", "full-width", "case", "look-alikes", "repeats", "traditional",
            "letter-between-cjk", "zero-width", "mixed")
AIMED = {"zh": "你这个{}", "en": "you {}"}


def labelled_posts(directory):
    """(set, abusive, text) of every labelled post."""
    posts = []
    cold = directory / "cold"
    for name in ("train.csv", "dev.csv"):
        path = cold / name
        if path.exists():
            with path.open(encoding="utf-8-sig", newline="") as f:
                posts += [("cold", row["label"] == "1", " ".join(row["TEXT"].split())) for row in csv.DictReader(f)]
    path = directory / "davidson" / "labeled_data.csv"
    if path.exists():
        with path.open(encoding="utf-8", newline="") as f:
            posts += [("davidson", row["class"] in ("0", "1"), " ".join(html.unescape(row["tweet"]).split()))
                      for row in csv.DictReader(f)]
    return [p for p in posts if p[2]]


def control_texts(seed):
    """(language, form, kind, text) of the control table: alone, aimed, and aimed with evasions."""
    trad = traditional_table()
    rng = random.Random(seed)
    out = []
    for line in (HERE / "data" / "insults.tsv").read_text("utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        lang, word = line.split("\t")
        out.append((lang, "alone", "plain", word))
        out.append((lang, "aimed", "plain", AIMED[lang].format(word)))
        for kind in EVASIONS:
            written = evade(word, kind, lang, rng, trad)
            if written and written != word:
                out.append((lang, "aimed", kind, AIMED[lang].format(written)))
    return out


def share(part, whole):
    return f"{100 * part / whole:.1f}%" if whole else "-"


def model_path(scorer):
    if scorer != "builtin":
        return scorer
    return str(ROOT / "wordlists" / "scorer" / "abuse.wnsc")


PEER = """
import sys
from profanity_check import predict
texts = sys.stdin.read().split("\\n")[:-1]
sys.stdout.write("".join(str(int(v)) for v in predict(texts)))
"""


def peer_rows(python, posts, figures):
    """alt-profanity-check (a linear model on its own labelled data) on the English posts, as its
    `predict` decides: the learning filter the scorer is compared with."""
    english = [(n, p) for n, p in enumerate(posts) if p[0] == "davidson"]
    text = "".join(" ".join(p[2].split()) + "\n" for _, p in english)
    out = subprocess.run([python, "-c", PEER], input=text.encode("utf-8"), capture_output=True)
    if out.returncode != 0 or len(out.stdout) != len(english):
        print(f"| davidson | - | alt-profanity-check could not be run | | | | | |")
        return
    flags = out.stdout.decode()
    for part in ("dev", "set-aside"):
        tally_row(figures, "davidson", part, "alt-profanity-check",
                  [(post[1], flag == "1") for (_, post), flag in zip(english, flags) if split_of(post[2]) == part])


def tally_row(figures, name, part, rule, cases):
    """Prints and records one row of the scorer table; `cases` are (abusive, blocked) pairs."""
    a = o = ab = ob = 0
    for abusive, hit in cases:
        if abusive:
            a, ab = a + 1, ab + hit
        else:
            o, ob = o + 1, ob + hit
    precision = ab / (ab + ob) if ab + ob else 0.0
    print(f"| {name} | {part} | {rule} | {a} | {share(ab, a)} | {o} | {100 * ob / o if o else 0:.2f}% | "
          f"{precision:.3f} |")
    figures["scorer"][f"{name}/{part}/{rule}"] = {
        "abusive": a, "abusive_blocked": ab, "ordinary": o, "ordinary_blocked": ob, "precision": precision}


def scorer_rows(args, posts, records, options, figures, control):
    """Lists alone, scorer alone and both, on each labelled set's two parts."""
    path = model_path(args.scorer)
    block = args.score_block
    if block is None:
        block = struct.unpack_from("<f", Path(path).read_bytes(), 28)[0]
    texts = [p[2] for p in posts]
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", suffix=".txt", delete=False) as f:
        for text in texts:
            f.write(" ".join(text.split()) + "\n")
    out = subprocess.run([args.winnow, "score", "--logit", "--scorer", path, f.name], capture_output=True, check=True)
    Path(f.name).unlink()
    import math
    scores = [1 / (1 + math.exp(-float(v))) for v in out.stdout.decode().split()]
    both_options = options + ["--scorer", path] + (["--score-block", str(args.score_block)] if args.score_block else [])
    padded = padded_insults(control, records, len(posts), args.seed)
    both = scan_texts(args.winnow, texts + [c[3] for c in control] + [p[2] for p in padded], both_options)
    adding = scan_texts(args.winnow, texts, both_options + ["--score-clear", "0"])
    print(f"Labelled posts with the scorer ({path}, block at {block:.3g}): lists alone, scorer alone, both:")
    print()
    print("| set | part | rule | abusive | blocked | ordinary | blocked | precision |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    rules = {
        "lists": lambda n: records[n]["verdict"] == "blocked",
        "scorer": lambda n: scores[n] >= block,
        "both, adding only": lambda n: adding[n]["verdict"] == "blocked",
        "both": lambda n: both[n]["verdict"] == "blocked",
    }
    figures["scorer"] = {}
    for name in sorted({p[0] for p in posts}):
        for part in ("dev", "set-aside"):
            for rule, blocked in rules.items():
                tally_row(figures, name, part, rule, [(abusive, blocked(n)) for n, (set_name, abusive, text)
                                                      in enumerate(posts) if set_name == name and split_of(text) == part])
    if args.peer_python:
        peer_rows(args.peer_python, posts, figures)
    print()
    print("alt-profanity-check learned from tweets that include Davidson's, so its rows are largely in-sample.")
    print("The model learned from the dev parts: their scorer and both rows are in-sample (scripts/train-scorer")
    print("reports out-of-fold figures for them); the set-aside rows are the measure.")
    print()
    cells = []
    for lang in ("zh", "en"):
        for column in ("alone", "aimed"):
            rows = [n for n, c in enumerate(control) if c[0] == lang and c[1] == column and c[2] == "plain"]
            hits = sum(both[len(texts) + n]["verdict"] == "blocked" for n in rows)
            cells.append(f"{lang} {column} {hits}/{len(rows)}")
            figures["scorer"][f"control/{lang}/{column}"] = [hits, len(rows)]
    print("Control table with the scorer (lists and scorer): " + ", ".join(cells) + ".")
    print()
    padding_rows(args, path, padded, both, len(texts) + len(control), figures)


def padded_insults(control, records, offset, seed):
    """(language, form, text) of each aimed insult the lists block, padded with ordinary chat."""
    rng = random.Random(seed)
    utterances = {"zh": [], "en": []}
    for line in (ROOT / "samples" / "chatterbot-utterances.txt").read_text("utf-8").splitlines():
        line = " ".join(line.split())
        if line:
            utterances["zh" if any("\u4e00" <= ch <= "\u9fff" for ch in line) else "en"].append(line)
    out = []
    for n, (lang, form, kind, text) in enumerate(control):
        if form != "aimed" or kind != "plain" or records[offset + n]["verdict"] != "blocked":
            continue
        pad = [rng.choice(utterances[lang]) for _ in range(4)]
        stop, space = ("。", "") if lang == "zh" else (". ", " ")
        out.append((lang, "sentences", stop.join([pad[0], pad[1], text, pad[2], pad[3]]) + stop.strip()))
        bare = ["".join(ch for ch in p if ch.isalnum() or ch == " ").strip() for p in pad]
        out.append((lang, "one clause", space.join([bare[0], bare[1], text, bare[2], bare[3]])))
    return out


def padding_rows(args, path, padded, both, offset, figures):
    """The padding attack: padded insults the pipeline still blocks, and what a clearing on the
    whole text's score alone would let through."""
    clear = struct.unpack_from("<f", Path(path).read_bytes(), 36)[0] if Path(path).read_bytes()[8] >= 2 else 0.0
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", suffix=".txt", delete=False) as f:
        for _, _, text in padded:
            f.write(" ".join(text.split()) + "\n")
    out = subprocess.run([args.winnow, "score", "--logit", "--scorer", path, f.name], capture_output=True, check=True)
    Path(f.name).unlink()
    import math
    whole = [1 / (1 + math.exp(-float(v))) for v in out.stdout.decode().split()]
    cells = []
    figures["scorer"]["padding"] = {}
    for lang in ("zh", "en"):
        for form in ("sentences", "one clause"):
            rows = [n for n, p in enumerate(padded) if p[0] == lang and p[1] == form]
            kept = sum(both[offset + n]["verdict"] == "blocked" for n in rows)
            naive = sum(whole[n] < clear for n in rows)
            cells.append(f"{lang} {form}: {kept}/{len(rows)} still blocked ({naive} a whole-text clearing would pass)")
            figures["scorer"]["padding"][f"{lang}/{form}"] = {"padded": len(rows), "blocked": kept, "whole_text_cleared": naive}
    print(f"Padding attack on the clearing (clear under {clear:.2f}): " + "; ".join(cells) + ".")
    print()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("winnow")
    parser.add_argument("--labeled", default=str(ROOT.parent / "shared" / "data" / "labeled"))
    parser.add_argument("--global", dest="global_dir")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--scan-option", action="append", default=[])
    parser.add_argument("--json", help="also write the figures as JSON to this file")
    parser.add_argument("--scorer", help="also give rows for this scorer model (a file, or builtin), alone and with the lists")
    parser.add_argument("--score-block", type=float, help="the scorer's block threshold (default: the model's advice)")
    parser.add_argument("--show-misses", action="store_true",
                        help="print the control table's insults that were not blocked (a scored set: do not tune on them)")
    parser.add_argument("--peer-python", help="a Python with alt-profanity-check, for its rows beside the scorer's")
    args = parser.parse_args()
    options = list(args.scan_option) + (["--global", args.global_dir] if args.global_dir else [])

    posts = labelled_posts(Path(args.labeled))
    control = control_texts(args.seed)
    records = scan_texts(args.winnow, [p[2] for p in posts] + [c[3] for c in control], options)
    figures = {"labelled": {}, "control": {}}

    if posts and args.scorer:
        scorer_rows(args, posts, records, options, figures, control)
    if posts:
        print("Labelled posts, blocked (and flagged) by the defaults; precision is the abusive share of the")
        print("blocked posts:")
        print()
        print("| set | part | abusive | blocked | flagged | ordinary | blocked | flagged | precision |")
        print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
        counts = Counter()
        for n, (name, abusive, text) in enumerate(posts):
            record = records[n]
            group = (name, split_of(text), abusive)
            counts[group + ("all",)] += 1
            if record["verdict"] == "blocked":
                counts[group + ("blocked",)] += 1
            elif record.get("flagged"):
                counts[group + ("flagged",)] += 1
        for name in sorted({p[0] for p in posts}):
            for part in ("dev", "set-aside"):
                a = [counts[(name, part, True, k)] for k in ("all", "blocked", "flagged")]
                o = [counts[(name, part, False, k)] for k in ("all", "blocked", "flagged")]
                precision = a[1] / (a[1] + o[1]) if a[1] + o[1] else 0.0
                print(f"| {name} | {part} | {a[0]} | {share(a[1], a[0])} | {share(a[2], a[0])} | {o[0]} | "
                      f"{share(o[1], o[0])} | {share(o[2], o[0])} | {precision:.3f} |")
                figures["labelled"][f"{name}/{part}"] = {
                    "abusive": a[0], "abusive_blocked": a[1], "abusive_flagged": a[2],
                    "ordinary": o[0], "ordinary_blocked": o[1], "ordinary_flagged": o[2], "precision": precision}
        print()

    print("Control table (data/insults.tsv): insults blocked alone, aimed at someone, and aimed with each")
    print("evasion:")
    print()
    kinds = ["alone", "aimed"] + list(EVASIONS)
    print("| language | " + " | ".join(kinds) + " |")
    print("|---|" + "---:|" * len(kinds))
    totals, blocked, missed = Counter(), Counter(), {}
    for n, (lang, form, kind, text) in enumerate(control, start=len(posts)):
        column = form if kind == "plain" else kind
        totals[(lang, column)] += 1
        if records[n]["verdict"] == "blocked":
            blocked[(lang, column)] += 1
        elif column in ("alone", "aimed"):
            missed.setdefault((lang, column), []).append(text)
    for lang in ("zh", "en"):
        cells = [f"{blocked[(lang, k)]}/{totals[(lang, k)]}" if totals[(lang, k)] else "-" for k in kinds]
        print(f"| {lang} | " + " | ".join(cells) + " |")
        figures["control"][lang] = {k: [blocked[(lang, k)], totals[(lang, k)]] for k in kinds}
    print()
    # The control table is scored, not tuned on: its misses are printed only when asked for, so
    # that nobody picks a rule from them by accident (--show-misses).
    for (lang, column), texts in sorted(missed.items()) if args.show_misses else []:
        print(f"Not blocked ({lang}, {column}): {', '.join(texts)}")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
