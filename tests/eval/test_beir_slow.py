"""A pinned effectiveness check on real data (Pyserini style): a fixed SciFact subset, the
real shipped model, all three modes. Anything that changes retrieval output must update
these numbers on purpose."""

import json
from pathlib import Path

import pytest

from citewise.config import Settings
from citewise.engine import Engine
from citewise.eval.beir import evaluate_beir

SCIFACT = Path(__file__).resolve().parents[3] / "shared" / "data" / "scifact-beir"

pytestmark = [pytest.mark.slow, pytest.mark.model]


def subset(dst: Path, n_queries: int = 60, n_distractors: int = 300) -> Path:
    """The first ``n_queries`` judged queries, their relevant documents, and the first
    ``n_distractors`` other documents of the corpus."""
    qrels_lines = (SCIFACT / "qrels" / "test.tsv").read_text().splitlines()
    header, rows = qrels_lines[0], [r.split("\t") for r in qrels_lines[1:] if r.strip()]
    keep_q = list(dict.fromkeys(r[0] for r in rows))[:n_queries]
    rows = [r for r in rows if r[0] in keep_q]
    relevant = {r[1] for r in rows}
    corpus = []
    with (SCIFACT / "corpus.jsonl").open() as fh:
        for line in fh:
            doc = json.loads(line)
            if doc["_id"] in relevant or len(corpus) - len(relevant) < n_distractors:
                corpus.append(line)
    (dst / "qrels").mkdir(parents=True)
    (dst / "qrels" / "test.tsv").write_text("\n".join([header, *("\t".join(r) for r in rows)]))
    (dst / "corpus.jsonl").write_text("".join(corpus))
    queries = [line for line in (SCIFACT / "queries.jsonl").read_text().splitlines()
               if json.loads(line)["_id"] in keep_q]
    (dst / "queries.jsonl").write_text("\n".join(queries) + "\n")
    return dst


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    if not SCIFACT.is_dir():
        pytest.fail(f"{SCIFACT} is missing: the shared evaluation data must sit beside the repo")
    root = tmp_path_factory.mktemp("beir")
    data = subset(root / "scifact-subset")
    with Engine(root / "index.db", Settings()) as eng:
        eng.data_dir = data
        yield eng


# Pinned on the shipped int8 model; the tolerance absorbs float noise across CPUs/threads.
EXPECTED = {"bm25": 0.8970, "dense": 0.9482, "hybrid": 0.9247}


@pytest.mark.parametrize("mode", ["bm25", "dense", "hybrid"])
def test_scifact_subset_effectiveness_is_pinned(engine, mode, tmp_path):
    run_file = tmp_path / "run.trec"
    report = evaluate_beir(engine.data_dir, engine, mode=mode, run_file=run_file)
    assert report.queries == 60
    assert report.metrics["ndcg@10"] == pytest.approx(EXPECTED[mode], abs=0.005)
    first = run_file.read_text().splitlines()[0].split()
    assert first[1] == "Q0" and first[3] == "1"
