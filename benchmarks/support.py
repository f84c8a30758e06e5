"""Calibrate the citation support checker (``citewise.cite.support``) on SciFact.

Run from the repository root::

    .venv/bin/python benchmarks/support.py [--zip /work/shared/data/scifact-hf-csv/scifact.zip]
        [--max-false-flag 0.10] [--seed 0] [--embed N] [--json OUT]

Labelled pairs (claim, evidence text), built from SciFact's claim files:

* supported (label 1): the claim vs the abstract (title + sentences) holding its SUPPORT
  rationale sentences, one pair per (claim, document);
* unsupported (label 0), two kinds: ``cited``, the claim vs each abstract it cites when the
  claim has no evidence at all (NOT ENOUGH INFO: same topic, hard); ``other``, the claim vs
  the SUPPORT abstract of another, randomly drawn claim (seeded; easy);
* CONTRADICT pairs are kept apart (lexical signals cannot tell a contradiction from support;
  their flag rate is printed for information).

Splits: dev = claims_train.csv, test = claims_validation.csv (claims_test.csv has no labels).
The checker FLAGS a sentence when its score is below the threshold, so "positive" below means
flagged/unsupported: precision = unsupported among flagged, recall = flagged among unsupported,
false-flag rate = flagged among supported. The threshold is the largest one on a 0.005 grid
whose dev false-flag rate is at most ``--max-false-flag`` (the max-F1 one is printed too).
``--embed N`` repeats the calibration with the cosine signal of the shipped embedder on N
pairs drawn (seeded) from each split.
"""

from __future__ import annotations

import argparse
import ast
import csv
import io
import json
import random
import re
import sys
import zipfile
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from citewise.cite.support import support_signals

ZIP = Path("/work/shared/data/scifact-hf-csv/scifact.zip")
_PY_STRING = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"", re.S)


@dataclass(frozen=True)
class Pair:
    claim: str
    evidence: str
    label: int  # 1 supported, 0 unsupported
    kind: str  # support | cited | other | contradict


def _rows(archive: zipfile.ZipFile, name: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.TextIOWrapper(archive.open(name), encoding="utf-8")))


def _sentences(abstract: str) -> list[str]:
    """The abstract column is a numpy array's repr: quoted sentences separated by blanks."""
    return [ast.literal_eval(s) for s in _PY_STRING.findall(abstract)]


def load_corpus(archive: zipfile.ZipFile) -> dict[str, str]:
    return {r["doc_id"]: r["title"] + ". " + " ".join(_sentences(r["abstract"]))
            for r in _rows(archive, "corpus_train.csv")}


def build_pairs(rows: Sequence[dict[str, str]], corpus: dict[str, str],
                rng: random.Random) -> list[Pair]:
    claims: dict[str, str] = {}
    support: dict[str, set[str]] = defaultdict(set)
    contradict: dict[str, set[str]] = defaultdict(set)
    cited: dict[str, set[str]] = defaultdict(set)
    for r in rows:
        claims[r["id"]] = r["claim"]
        cited[r["id"]] |= set(re.findall(r"\d+", r["cited_doc_ids"]))
        if r["evidence_label"] == "SUPPORT":
            support[r["id"]].add(r["evidence_doc_id"])
        elif r["evidence_label"] == "CONTRADICT":
            contradict[r["id"]].add(r["evidence_doc_id"])
    pairs = []
    supported_ids = sorted(support)
    for cid in sorted(claims):
        claim = claims[cid]
        for doc in sorted(support.get(cid, ())):
            pairs.append(Pair(claim, corpus[doc], 1, "support"))
        for doc in sorted(contradict.get(cid, ())):
            pairs.append(Pair(claim, corpus[doc], 0, "contradict"))
        if cid not in support and cid not in contradict:
            pairs += [Pair(claim, corpus[d], 0, "cited") for d in sorted(cited[cid])
                      if d in corpus]
        if cid in support:
            other = rng.choice([o for o in supported_ids if o != cid])
            doc = sorted(support[other] - cited[cid])
            if doc:
                pairs.append(Pair(claim, corpus[doc[0]], 0, "other"))
    return pairs


def rates(scores: Sequence[float], labels: Sequence[int], t: float) -> dict[str, float]:
    flagged = [s < t for s in scores]
    tp = sum(f and y == 0 for f, y in zip(flagged, labels, strict=True))
    fp = sum(f and y == 1 for f, y in zip(flagged, labels, strict=True))
    neg, pos = labels.count(0), labels.count(1)
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / neg if neg else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"threshold": round(t, 3), "precision": round(precision, 4),
            "recall": round(recall, 4), "f1": round(f1, 4),
            "false_flag": round(fp / pos if pos else 0.0, 4)}


def auc(scores: Sequence[float], labels: Sequence[int]) -> float:
    """ROC AUC = P(score of a supported pair > score of an unsupported one), ties 1/2
    (Mann-Whitney U / (n_pos n_neg), Hanley & McNeil 1982)."""
    pos = [s for s, y in zip(scores, labels, strict=True) if y == 1]
    neg = sorted(s for s, y in zip(scores, labels, strict=True) if y == 0)
    import bisect

    wins = sum(bisect.bisect_left(neg, p) + 0.5 * (bisect.bisect_right(neg, p) -
                                                   bisect.bisect_left(neg, p)) for p in pos)
    return wins / (len(pos) * len(neg)) if pos and neg else float("nan")


def calibrate(dev: list[Pair], test: list[Pair], score: Callable[[Pair], dict[str, float | None]],
              max_false_flag: float, label: str) -> dict[str, object]:
    out: dict[str, object] = {}
    split_scores = {}
    for name, pairs in (("dev", dev), ("test", test)):
        main = [p for p in pairs if p.kind != "contradict"]
        signals = [score(p) for p in main]
        split_scores[name] = (main, signals)
    dev_pairs, dev_signals = split_scores["dev"]
    labels = [p.label for p in dev_pairs]
    print(f"\n== {label}: dev {len(dev_pairs)} pairs ({labels.count(1)} supported), "
          f"test {len(split_scores['test'][0])} pairs")
    for key in dev_signals[0]:
        vals = [s[key] for s in dev_signals]
        have = [(v, y) for v, y in zip(vals, labels, strict=True) if v is not None]
        if have:
            print(f"  dev AUC of {key:8}: {auc([v for v, _ in have], [y for _, y in have]):.4f}"
                  f"  (present in {len(have)}/{len(vals)} pairs)")
    dev_scores = [s["score"] for s in dev_signals]
    grid = [round(0.005 * i, 3) for i in range(1, 200)]
    curve = [rates(dev_scores, labels, t) for t in grid]
    print("  dev curve (flag when score < threshold):")
    print("   threshold  precision  recall   F1    false-flag")
    for row in curve[19::10]:
        print(f"   {row['threshold']:9.3f} {row['precision']:9.4f} {row['recall']:8.4f} "
              f"{row['f1']:6.4f} {row['false_flag']:8.4f}")
    bounded = max((r for r in curve if r["false_flag"] <= max_false_flag),
                  key=lambda r: r["threshold"])
    best_f1 = max(curve, key=lambda r: r["f1"])
    print(f"  chosen (dev false-flag <= {max_false_flag:.0%}): {bounded}")
    print(f"  for comparison, max-F1 on dev: {best_f1}")
    test_pairs, test_signals = split_scores["test"]
    test_scores = [s["score"] for s in test_signals]
    t = float(bounded["threshold"])
    result = rates(test_scores, [p.label for p in test_pairs], t)
    print(f"  TEST at {t}: precision {result['precision']}  recall {result['recall']}  "
          f"F1 {result['f1']}  false-flag {result['false_flag']}  "
          f"AUC {auc(test_scores, [p.label for p in test_pairs]):.4f}")
    for kind in ("cited", "other"):
        sub = [s for p, s in zip(test_pairs, test_scores, strict=True) if p.kind == kind]
        print(f"    flagged among {kind:6} negatives: {sum(s < t for s in sub)}/{len(sub)}")
    contra = [p for p in test if p.kind == "contradict"]
    if contra:
        flagged = sum(score(p)["score"] < t for p in contra)  # type: ignore[operator]
        print(f"    (info) flagged among CONTRADICT pairs: {flagged}/{len(contra)}")
    out.update(threshold=t, dev=bounded, dev_max_f1=best_f1, test=result)
    return out


def lexical(p: Pair) -> dict[str, float | None]:
    sig = support_signals(p.claim, p.evidence)
    return {**sig.__dict__, "score": sig.score()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--zip", type=Path, default=ZIP)
    ap.add_argument("--max-false-flag", type=float, default=0.10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--embed", type=int, default=0, help="pairs per split for the cosine run")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    with zipfile.ZipFile(args.zip) as archive:
        corpus = load_corpus(archive)
        rng = random.Random(args.seed)
        dev = build_pairs(_rows(archive, "claims_train.csv"), corpus, rng)
        test = build_pairs(_rows(archive, "claims_validation.csv"), corpus, rng)
    for name, pairs in (("dev", dev), ("test", test)):
        counts: dict[str, int] = defaultdict(int)
        for p in pairs:
            counts[p.kind] += 1
        print(f"{name}: {dict(counts)}")
    report = {"lexical": calibrate(dev, test, lexical, args.max_false_flag, "lexical")}
    if args.embed:
        report["embed"] = _embed_run(dev, test, args)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    return 0


def _embed_run(dev: list[Pair], test: list[Pair], args: argparse.Namespace) -> dict:
    from citewise.config import EmbedSettings
    from citewise.embed import load_embedder

    embedder = load_embedder(EmbedSettings(threads=1))
    rng = random.Random(args.seed + 1)
    dev_s = rng.sample(dev, min(args.embed, len(dev)))
    test_s = rng.sample(test, min(args.embed, len(test)))

    def with_cosine(p: Pair) -> dict[str, float | None]:
        sig = support_signals(p.claim, p.evidence, embedder)
        lexical_only = replace(sig, cosine=None).score()  # the same pairs without the cosine
        return {**sig.__dict__, "lexical": lexical_only, "score": sig.score()}

    return calibrate(dev_s, test_s, with_cosine, args.max_false_flag,
                     f"lexical + cosine (all-MiniLM-L6-v2), {args.embed} pairs per split")


if __name__ == "__main__":
    sys.exit(main())
