"""Our metrics equal the reference implementations (pytrec_eval = trec_eval, and ranx) to
4 decimals on the full SciFact test set, for the ranking ``eval beir`` produces in bm25 mode
(the fake embedder only fills the vector table; bm25 never reads it).

Both our paths are checked: ``evaluate_beir``'s figures (metrics.py on document ids) and the
eval-set path (questions from qrels → EvalRun from the TREC run file → scoring.py).
Tie handling differs by tool (trec_eval re-sorts equal scores by docid; we keep the engine's
order), so the reference tools get the run with strictly decreasing rank-derived scores.
"""

from pathlib import Path

import pytest

from citewise.config import Settings
from citewise.engine import Engine
from citewise.eval.beir import evaluate_beir
from citewise.eval.bootstrap import summarize
from citewise.eval.interop import questions_from_beir, run_from_trec
from citewise.eval.runs import read_qrels, read_trec_run
from citewise.eval.scoring import score_run
from citewise.testing import FakeEmbedder

SCIFACT = Path(__file__).resolve().parents[3] / "shared" / "data" / "scifact-beir"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def scifact_run(tmp_path_factory):
    if not SCIFACT.is_dir():
        pytest.fail(f"{SCIFACT} is missing: the shared evaluation data must sit beside the repo")
    root = tmp_path_factory.mktemp("scifact")
    settings = Settings.model_validate({"retrieve": {"mode": "bm25"}})
    with Engine(root / "index.db", settings, embedder=FakeEmbedder(dim=8)) as engine:
        report = evaluate_beir(SCIFACT, engine, mode="bm25", run_file=root / "run.trec")
    return report, root / "run.trec"


def reference_run(path):
    """The run with scores replaced by n − rank (no ties), as dict-of-dicts."""
    return {q: {d: float(len(r) - i) for i, (d, _) in enumerate(r)}
            for q, r in read_trec_run(path).items()}


def test_matches_pytrec_eval(scifact_run):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    report, run_path = scifact_run
    qrels = read_qrels(SCIFACT / "qrels" / "test.tsv")
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, {"ndcg_cut.10", "recall.10", "recall.100", "recip_rank"})
    per_query = evaluator.evaluate(reference_run(run_path))
    n = len(qrels)  # trec_eval -c: judged queries missing from the run count as 0
    ref = {"ndcg@10": sum(v["ndcg_cut_10"] for v in per_query.values()) / n,
           "recall@10": sum(v["recall_10"] for v in per_query.values()) / n,
           "recall@100": sum(v["recall_100"] for v in per_query.values()) / n}
    assert report.queries == 300
    for name, value in ref.items():
        assert report.metrics[name] == pytest.approx(value, abs=5e-5), name
    assert report.metrics["ndcg@10"] > 0.5  # a real ranking, not an empty one


def test_matches_ranx_including_mrr_at_10(scifact_run):
    ranx = pytest.importorskip("ranx")
    report, run_path = scifact_run
    qrels = ranx.Qrels(read_qrels(SCIFACT / "qrels" / "test.tsv"))
    run = ranx.Run(reference_run(run_path))
    ref = ranx.evaluate(qrels, run, ["ndcg@10", "recall@10", "recall@100", "mrr@10"],
                        make_comparable=True)
    for name, value in ref.items():
        assert report.metrics[name] == pytest.approx(value, abs=5e-5), name


def test_eval_set_path_scores_the_same(scifact_run):
    """questions_from_beir + run_from_trec + scoring.py (pieces and credit) give the same
    means as metrics.py on document ids, so the harness inherits the reference match."""
    report, run_path = scifact_run
    run = run_from_trec(run_path, questions_from_beir(SCIFACT), k=100)
    figures = summarize(score_run(run).values(), samples=10)
    for name in ("ndcg@10", "recall@10", "recall@100", "mrr@10"):
        assert round(figures[name].mean, 4) == report.metrics[name], name
