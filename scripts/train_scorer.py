#!/usr/bin/env python3
"""Trains the scorer: a logistic regression over `winnow score --features`, written as a model file.

Usage: scripts/train_scorer.py WINNOW [--labeled DIR] [--bits 18] [--out FILE] [--report FILE]
(scripts/train-scorer sets up scikit-learn and the release build, then runs this.)

Data: the labelled posts of `../shared/data/labeled` (COLD, Apache-2.0; Davidson, MIT; see
Benchmarks/quality/labeled.py). Each set is split by the benchmark's hash of the text; the model
learns from the dev part only. Every choice (the regularization C, the two thresholds) is made
on out-of-fold scores of the dev part (5 folds, fixed seed). The set-aside part is scored once,
at the end, for the report.

Thresholds, by rule:
- block: the lowest score (0.50 to 0.99 by 0.01, then 0.991 to 0.999 by 0.001) at which, in
  each set, (a) the dev ordinary posts the lists do not block but the scorer would are at most
  --added-block (0.5%) of the set's ordinary dev posts, and (b) lists and scorer, with the
  clearing below, block no more ordinary dev posts than the lists alone: the scorer catches
  more without raising the false-block rate;
- review: the same with --added-review (3%), never above the block threshold;
- clear: the highest score (0.01 to 0.50 by 0.01, never above review or 0.5) at which, in each set,
  the dev abusive posts a global block entry blocks and the scorer would clear are at most
  --cleared-abusive (1%) of the set's dev abusive posts the lists block: the clearing gives
  up few of the lists' right blocks. A post is cleared when its score and the score of the
  clause around each global block match (as `ModerationEngine.clause(around:in:)` cuts it)
  are all under the threshold, and each matched text scored alone reaches 0.5 (the model
  knows the word: alone, it reads it as more likely abusive than not).

Features come from the binary itself, so training and scoring hash the same way by
construction; the script checks the written model against the binary: `winnow score --logit`
with the new model must equal bias + features x weights (as quantized) for every post, dev and
set-aside, within 1e-4, and `winnow scan --scorer` with the new model must clear exactly the
posts the script clears (but for scores within 1e-4 of the threshold), or nothing is written.
"""
import argparse
import datetime
import math
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from scipy import sparse
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import average_precision_score
from sklearn.model_selection import StratifiedKFold

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "Benchmarks" / "quality"))
from evaluate import scan_texts, split_of  # noqa: E402
from labeled import labelled_posts  # noqa: E402

SEED = 20261201
FORMAT_VERSION = 2
CLAUSE_REACH = 24
KNOWN_WORD = 0.5  # ScoringPolicy.knownWord
CLAUSE_ENDS = set(".,!?;:\n\r\t\u3002\uff0c\uff01\uff1f\uff1b\uff1a\u3001\u2026\uff0e")
FEATURE_VERSION = 1


def write_lines(texts):
    f = tempfile.NamedTemporaryFile("w", encoding="utf-8", suffix=".txt", delete=False)
    with f:
        for text in texts:
            f.write(" ".join(text.split()) + "\n")
    return f.name


def features(winnow, texts, bits):
    """The posts' features as a CSR matrix: each feature counts +-1/sqrt(n), n the text's number."""
    path = write_lines(texts)
    out = subprocess.run([winnow, "score", "--features", str(bits), path], capture_output=True, check=True)
    Path(path).unlink()
    lines = out.stdout.decode("utf-8").split("\n")
    assert len(lines) >= len(texts), "winnow score --features wrote fewer lines than texts"
    # Each bucket's signs are counted as integers first, then weighted once: summing the weighted
    # +-1s in the order winnow writes them could round differently for another order.
    rows, cols, vals = [], [], []
    for i in range(len(texts)):
        items = lines[i].split()
        if not items:
            continue
        weight = 1 / math.sqrt(len(items))
        counts = {}
        for item in items:
            index, sign = item.split(":")
            counts[int(index)] = counts.get(int(index), 0) + (1 if sign == "1" else -1)
        for index in sorted(counts):
            if counts[index] != 0:
                rows.append(i)
                cols.append(index)
                vals.append(counts[index] * weight)
    return sparse.csr_matrix((np.array(vals), (np.array(rows), np.array(cols))), shape=(len(texts), 1 << bits))


def fit(x, y, c):
    model = LogisticRegression(C=c, solver="liblinear", max_iter=200, random_state=SEED)
    model.fit(x, y)
    return model


def out_of_fold(x, y, c, extra=None, owner=None):
    """Out-of-fold scores of the posts and of `extra` rows (clauses), each scored by the fold
    model that did not see its owner post."""
    scores = np.zeros(len(y))
    extra_scores = np.zeros(0 if extra is None else extra.shape[0])
    folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=SEED)
    for train, test in folds.split(x, y):
        model = fit(x[train], y[train], c)
        scores[test] = model.predict_proba(x[test])[:, 1]
        if extra is not None:
            rows = np.isin(owner, test)
            if rows.any():
                extra_scores[rows] = model.predict_proba(extra[rows])[:, 1]
    return scores, extra_scores


def clause_units(ch):
    v = ord(ch)
    return 3 if 0x2E80 <= v <= 0x9FFF or 0xF900 <= v <= 0xFAFF or 0x20000 <= v <= 0x3FFFF else 1


def clause(text, start, end):
    """The clause around the UTF-8 byte range start..<end of text, as the engine cuts it."""
    data = text.encode("utf-8")
    lower = len(data[:start].decode("utf-8", "ignore"))
    upper = len(data[:end].decode("utf-8", "ignore"))
    begin, units = lower, 0
    while begin > 0:
        units += clause_units(text[begin - 1])
        if units > CLAUSE_REACH or text[begin - 1] in CLAUSE_ENDS:
            break
        begin -= 1
    finish, units = upper, 0
    while finish < len(text):
        units += clause_units(text[finish])
        if units > CLAUSE_REACH or text[finish] in CLAUSE_ENDS:
            break
        finish += 1
    return text[begin:finish]


def clearing_scores(post_scores, clause_scores, word_scores, owner, has_global_block):
    """Each post's clearing score: the highest of its own and its clauses' (nan: no global block,
    or a matched word the model does not know, scoring under KNOWN_WORD alone)."""
    out = np.where(has_global_block, post_scores, np.nan)
    np.fmax.at(out, owner, clause_scores)
    unknown = np.zeros(len(out), dtype=bool)
    np.logical_or.at(unknown, owner, word_scores < KNOWN_WORD)
    out[unknown] = np.nan
    return out


def clear_threshold(clearing, y, sets, list_blocked, limit, names, review):
    """The highest grid threshold at which each set's cleared abusive list blocks are within `limit`."""
    best = 0.0
    for t in [round(0.01 * k, 2) for k in range(1, 51)]:
        if t > min(review, KNOWN_WORD):
            break
        ok = True
        for name in names:
            right = (sets == name) & (y == 1) & list_blocked
            cleared = right & ~np.isnan(clearing) & (np.nan_to_num(clearing, nan=1.0) < t)
            if cleared.sum() > limit * right.sum():
                ok = False
                break
        if ok:
            best = t
    return best


GRID = [round(0.50 + 0.01 * k, 2) for k in range(50)] + [round(0.991 + 0.001 * k, 3) for k in range(9)]


def threshold(scores, y, sets, list_blocked, limit, names):
    """The lowest grid threshold at which each set's added false blocks are within `limit`."""
    for t in GRID:
        ok = True
        for name in names:
            ordinary = (sets == name) & (y == 0)
            added = ordinary & ~list_blocked & (scores >= t)
            if added.sum() > limit * ordinary.sum():
                ok = False
                break
        if ok:
            return t
    sys.exit(f"train-scorer: no threshold up to 0.999 keeps the added false blocks within {limit:.1%}")


def no_more_false_blocks(scores, cleared, y, sets, list_blocked, names, lowest):
    """The lowest grid threshold from `lowest` at which, in each set, lists and scorer (with the
    clearing) block no more ordinary posts than the lists alone."""
    for t in [g for g in GRID if g >= lowest]:
        both = (list_blocked & ~cleared) | (scores >= t)
        if all(((sets == n) & (y == 0) & both).sum() <= ((sets == n) & (y == 0) & list_blocked).sum() for n in names):
            return t
    sys.exit("train-scorer: no block threshold up to 0.999 keeps lists and scorer to the lists' false blocks")


def quantize(weights):
    scale = float(np.abs(weights).max()) / 127 or 1.0
    q = np.clip(np.rint(weights / scale), -127, 127).astype(np.int8)
    return q, np.float32(scale)


def encode(bias, scale, block, review, clear, category, description, q):
    body = b"WNSCORER" + struct.pack("<IIIfffff", FORMAT_VERSION, FEATURE_VERSION, int(math.log2(len(q))),
                                     bias, scale, block, review, clear)
    for text in (category, description):
        data = text.encode("utf-8")
        body += struct.pack("<I", len(data)) + data
    body += q.tobytes()
    h = 0xCBF29CE484222325
    for byte in body:
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return body + struct.pack("<Q", h)


def rates(blocked, y, sets, name, part_mask):
    m = (sets == name) & part_mask
    a = m & (y == 1)
    o = m & (y == 0)
    ab = (blocked & a).sum()
    ob = (blocked & o).sum()
    precision = ab / (ab + ob) if ab + ob else 0.0
    return a.sum(), ab / max(a.sum(), 1), o.sum(), ob / max(o.sum(), 1), precision


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("winnow")
    parser.add_argument("--labeled", default=str(ROOT.parent / "shared" / "data" / "labeled"))
    parser.add_argument("--bits", type=int, default=18)
    parser.add_argument("--out", default=str(ROOT / "wordlists" / "scorer" / "abuse.wnsc"))
    parser.add_argument("--report", help="also write the report (Markdown) to this file")
    parser.add_argument("--added-block", type=float, default=0.005)
    parser.add_argument("--added-review", type=float, default=0.03)
    parser.add_argument("--cleared-abusive", type=float, default=0.01)
    args = parser.parse_args()

    posts = labelled_posts(Path(args.labeled))
    if not posts:
        sys.exit(f"train-scorer: no labelled posts under {args.labeled}")
    texts = [p[2] for p in posts]
    y = np.array([1 if p[1] else 0 for p in posts])
    sets = np.array([p[0] for p in posts])
    names = sorted(set(sets))
    dev = np.array([split_of(t) == "dev" for t in texts])
    print(f"{len(posts)} posts: {dev.sum()} dev, {(~dev).sum()} set-aside", file=sys.stderr)

    x = features(args.winnow, texts, args.bits)
    records = scan_texts(args.winnow, texts, [])
    list_blocked = np.array([records[i]["verdict"] == "blocked" for i in range(len(texts))])
    # The clauses around each global block match, the rows the clearing scores beside the posts.
    clauses, words, owner = [], [], []
    has_global_block = np.zeros(len(texts), dtype=bool)
    for i in range(len(texts)):
        for m in records[i]["matches"]:
            if m.get("origin") == "global" and m.get("action") == "block":
                has_global_block[i] = True
                clauses.append(clause(texts[i], m["start"], m["end"]))
                words.append(m["text"])
                owner.append(i)
    owner = np.array(owner, dtype=int)
    xc = features(args.winnow, clauses, args.bits)
    xw = features(args.winnow, words, args.bits)
    dev_index = np.full(len(texts), -1)
    dev_index[dev] = np.arange(dev.sum())
    dev_clause = dev[owner]

    xd, yd = x[dev], y[dev]
    best = None
    for c in (1.0, 2.0, 4.0, 8.0, 16.0, 32.0):
        oof, _ = out_of_fold(xd, yd, c)
        ap = average_precision_score(yd, oof)
        print(f"C={c}: dev out-of-fold average precision {ap:.4f}", file=sys.stderr)
        if best is None or ap > best[1]:
            best = (c, ap, oof)
    c, ap, oof = best
    block = threshold(oof, yd, sets[dev], list_blocked[dev], args.added_block, names)
    review = min(block, threshold(oof, yd, sets[dev], list_blocked[dev], args.added_review, names))
    extra = sparse.vstack([xc[dev_clause], xw[dev_clause]]).tocsr()
    dev_owner = dev_index[owner[dev_clause]]
    _, oof_extra = out_of_fold(xd, yd, c, extra, np.concatenate([dev_owner, dev_owner]))
    oof_clauses, oof_words = oof_extra[:len(dev_owner)], oof_extra[len(dev_owner):]
    oof_clearing = clearing_scores(oof, oof_clauses, oof_words, dev_owner, has_global_block[dev])
    clear = clear_threshold(oof_clearing, yd, sets[dev], list_blocked[dev], args.cleared_abusive, names, review)
    oof_cleared = list_blocked[dev] & ~np.isnan(oof_clearing) & (np.nan_to_num(oof_clearing, nan=1.0) < clear)
    block = no_more_false_blocks(oof, oof_cleared, yd, sets[dev], list_blocked[dev], names, block)

    model = fit(xd, yd, c)
    q, scale = quantize(model.coef_[0])
    bias = np.float32(model.intercept_[0])
    today = datetime.date.today().isoformat()
    description = (f"Logistic regression, C={c}, 2^{args.bits} buckets, feature version {FEATURE_VERSION}; "
                   f"dev parts of COLD (Apache-2.0) and Davidson (MIT), {dev.sum()} posts; trained {today} "
                   f"by scripts/train-scorer (seed {SEED}).")
    data = encode(bias, scale, block, review, clear, "abuse", description, q)

    # The check: the binary's logits with this model equal the features times the weights.
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    candidate = out.with_suffix(".candidate")
    candidate.write_bytes(data)
    path = write_lines(texts)
    logits = subprocess.run([args.winnow, "score", "--logit", "--scorer", str(candidate), path],
                            capture_output=True, check=True).stdout.decode().split()
    Path(path).unlink()
    swift = np.array([float(v) for v in logits[:len(texts)]])
    python = float(bias) + x @ (q.astype(np.float64) * float(scale))
    worst = float(np.abs(swift - python).max())
    if worst > 1e-4:
        candidate.unlink()
        sys.exit(f"train-scorer: the binary's logits differ from the model's by up to {worst}: not written")
    scores = 1 / (1 + np.exp(-python))
    clause_scores = 1 / (1 + np.exp(-(float(bias) + xc @ (q.astype(np.float64) * float(scale)))))
    word_scores = 1 / (1 + np.exp(-(float(bias) + xw @ (q.astype(np.float64) * float(scale)))))
    clearing = clearing_scores(scores, clause_scores, word_scores, owner, has_global_block)
    cleared = list_blocked & ~np.isnan(clearing) & (np.nan_to_num(clearing, nan=1.0) < clear)
    # The check of the clearing: the binary clears the posts this script clears.
    piped = scan_texts(args.winnow, texts, ["--scorer", str(candidate)])
    binary_cleared = np.array([bool(piped[i].get("cleared")) for i in range(len(texts))])
    near = np.abs(np.nan_to_num(clearing, nan=1.0) - clear) < 1e-4
    np.logical_or.at(near, owner, np.abs(word_scores - KNOWN_WORD) < 1e-4)
    differ = int(((binary_cleared != cleared) & ~near).sum())
    if differ:
        candidate.unlink()
        sys.exit(f"train-scorer: the binary clears {differ} posts otherwise than the model: not written")
    candidate.replace(out)

    float_auc = average_precision_score(y[~dev], model.predict_proba(x[~dev])[:, 1])
    quant_auc = average_precision_score(y[~dev], scores[~dev])
    lines = [
        f"Model: {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out} ({len(data)} bytes); {description}",
        f"Chosen on dev out-of-fold scores: C={c} (average precision {ap:.4f}); block at {block}, review at {review}, "
        f"clear under {clear}.",
        f"Logits checked against the binary on {len(texts)} posts: largest difference {worst:.2e}; "
        f"the binary clears the same {int(cleared.sum())} posts ({len(clauses)} clauses scored).",
        f"Set-aside average precision: {float_auc:.4f} (float weights), {quant_auc:.4f} (as written).",
        "",
        "Blocked share of abusive and of ordinary posts; precision is the abusive share of the blocked "
        "(dev: out-of-fold scores; set-aside: the written model):",
        "",
        "| set | part | rule | abusive | blocked | ordinary | blocked | precision |",
        "|---|---|---|---:|---:|---:|---:|---:|",
    ]
    dev_scores = scores.copy()
    dev_scores[dev] = oof
    dev_cleared = cleared.copy()
    dev_cleared[dev] = oof_cleared
    for name in names:
        for part, mask in (("dev", dev), ("set-aside", ~dev)):
            for rule, blocked in (("lists", list_blocked), ("scorer", dev_scores >= block),
                                  ("both, adding only", list_blocked | (dev_scores >= block)),
                                  ("both", (list_blocked & ~dev_cleared) | (dev_scores >= block))):
                na, ra, no, ro, p = rates(blocked, y, sets, name, mask)
                lines.append(f"| {name} | {part} | {rule} | {na} | {100 * ra:.1f}% | {no} | {100 * ro:.2f}% | {p:.3f} |")
    report = "\n".join(lines) + "\n"
    print(report)
    if args.report:
        Path(args.report).write_text(report, encoding="utf-8")


if __name__ == "__main__":
    main()
