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
- block: the lowest score (0.50 to 0.99 by 0.01, then 0.995 and 0.999) at which, in each set, the dev ordinary posts
  the lists do not block but the scorer would are at most --added-block (0.5%) of the set's
  ordinary dev posts: the scorer adds few false blocks to the lists' own;
- review: the same with --added-review (3%), never above the block threshold.

Features come from the binary itself, so training and scoring hash the same way by
construction; the script checks the written model against the binary: `winnow score --logit`
with the new model must equal bias + features x weights (as quantized) for every post, dev and
set-aside, within 1e-4, or nothing is written.
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
FORMAT_VERSION = 1
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
    rows, cols, vals = [], [], []
    for i in range(len(texts)):
        items = lines[i].split()
        if not items:
            continue
        weight = 1 / math.sqrt(len(items))
        for item in items:
            index, sign = item.split(":")
            rows.append(i)
            cols.append(int(index))
            vals.append(weight if sign == "1" else -weight)
    return sparse.csr_matrix((np.array(vals), (np.array(rows), np.array(cols))), shape=(len(texts), 1 << bits))


def fit(x, y, c):
    model = LogisticRegression(C=c, solver="liblinear", max_iter=200, random_state=SEED)
    model.fit(x, y)
    return model


def out_of_fold(x, y, c):
    scores = np.zeros(len(y))
    folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=SEED)
    for train, test in folds.split(x, y):
        scores[test] = fit(x[train], y[train], c).predict_proba(x[test])[:, 1]
    return scores


def threshold(scores, y, sets, list_blocked, limit, names):
    """The lowest grid threshold at which each set's added false blocks are within `limit`."""
    for t in [round(0.50 + 0.01 * k, 2) for k in range(50)] + [0.995, 0.999]:
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


def quantize(weights):
    scale = float(np.abs(weights).max()) / 127 or 1.0
    q = np.clip(np.rint(weights / scale), -127, 127).astype(np.int8)
    return q, np.float32(scale)


def encode(bias, scale, block, review, category, description, q):
    body = b"WNSCORER" + struct.pack("<IIIffff", FORMAT_VERSION, FEATURE_VERSION, int(math.log2(len(q))),
                                     bias, scale, block, review)
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

    xd, yd = x[dev], y[dev]
    best = None
    for c in (1.0, 2.0, 4.0, 8.0, 16.0, 32.0):
        oof = out_of_fold(xd, yd, c)
        ap = average_precision_score(yd, oof)
        print(f"C={c}: dev out-of-fold average precision {ap:.4f}", file=sys.stderr)
        if best is None or ap > best[1]:
            best = (c, ap, oof)
    c, ap, oof = best
    block = threshold(oof, yd, sets[dev], list_blocked[dev], args.added_block, names)
    review = min(block, threshold(oof, yd, sets[dev], list_blocked[dev], args.added_review, names))

    model = fit(xd, yd, c)
    q, scale = quantize(model.coef_[0])
    bias = np.float32(model.intercept_[0])
    today = datetime.date.today().isoformat()
    description = (f"Logistic regression, C={c}, 2^{args.bits} buckets, feature version {FEATURE_VERSION}; "
                   f"dev parts of COLD (Apache-2.0) and Davidson (MIT), {dev.sum()} posts; trained {today} "
                   f"by scripts/train-scorer (seed {SEED}).")
    data = encode(bias, scale, block, review, "abuse", description, q)

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
    candidate.replace(out)

    scores = 1 / (1 + np.exp(-python))
    float_auc = average_precision_score(y[~dev], model.predict_proba(x[~dev])[:, 1])
    quant_auc = average_precision_score(y[~dev], scores[~dev])
    lines = [
        f"Model: {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out} ({len(data)} bytes); {description}",
        f"Chosen on dev out-of-fold scores: C={c} (average precision {ap:.4f}); block at {block}, review at {review}.",
        f"Logits checked against the binary on {len(texts)} posts: largest difference {worst:.2e}.",
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
    for name in names:
        for part, mask in (("dev", dev), ("set-aside", ~dev)):
            for rule, blocked in (("lists", list_blocked), ("scorer", dev_scores >= block),
                                  ("both", list_blocked | (dev_scores >= block))):
                na, ra, no, ro, p = rates(blocked, y, sets, name, mask)
                lines.append(f"| {name} | {part} | {rule} | {na} | {100 * ra:.1f}% | {no} | {100 * ro:.2f}% | {p:.3f} |")
    report = "\n".join(lines) + "\n"
    print(report)
    if args.report:
        Path(args.report).write_text(report, encoding="utf-8")


if __name__ == "__main__":
    main()
