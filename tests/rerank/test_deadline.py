"""rerank_with_deadline: ok / timeout / error / off, with the deterministic fake rerankers."""

from __future__ import annotations

import time

import pytest

from citewise.errors import ConfigError
from citewise.rerank import reorder, rerank_with_deadline
from citewise.testing import FakeReranker, SlowReranker
from citewise.types import Chunk, Document, Hit, ScoredId

TEXTS = ["the stock market fell", "cats sat on the mat", "aspirin lowers heart attack risk",
         "heart disease risk factors", "aspirin dosage", "weather report"]
QUERY = "aspirin heart risk"


def make_hits(texts: list[str] = TEXTS) -> list[Hit]:
    doc = Document(doc_id="d", title="t", content_hash="h", tenant="default",
                   acl_groups=frozenset({"g"}))
    hits = []
    for i, text in enumerate(texts):
        chunk = Chunk(chunk_id=f"c{i}", doc_id="d", ordinal=i, text=text,
                      text_for_embedding=text, embed_hash=f"e{i}", start=0, end=len(text))
        hits.append(Hit(rank=i + 1, score=1.0 / (61 + i), chunk=chunk, document=doc,
                        signals={"bm25": ScoredId(f"c{i}", 10.0 - i, i + 1)}))
    return hits


def ids(hits: tuple[Hit, ...]) -> list[str]:
    return [h.chunk.chunk_id for h in hits]


def test_ok_reorders_all_top_n_and_keeps_fused_scores() -> None:
    hits = make_hits()
    out = rerank_with_deadline(FakeReranker(), QUERY, hits, top_n=6, deadline_s=5.0)
    assert out.status == "ok" and out.scored == 6 and out.error is None
    # overlap with {aspirin, heart, risk}: c2=3/3, c3=2/3, c4=1/3, others 0 (fused order kept)
    assert ids(out.hits) == ["c2", "c3", "c4", "c0", "c1", "c5"]
    assert [h.rank for h in out.hits] == [1, 2, 3, 4, 5, 6]
    top = out.hits[0]
    assert top.score == pytest.approx(1.0 / 63)  # the fused score stays visible
    assert top.signals["rerank"] == ScoredId("c2", 1.0, 1)
    assert top.signals["bm25"].rank == 3


def test_only_top_n_are_rescored_the_rest_keep_fused_order() -> None:
    out = rerank_with_deadline(FakeReranker(), QUERY, make_hits(), top_n=2, deadline_s=5.0)
    assert out.status == "ok" and out.scored == 2
    assert ids(out.hits) == ["c0", "c1", "c2", "c3", "c4", "c5"]  # both score 0: tie keeps order
    assert "rerank" not in out.hits[2].signals


def test_timeout_returns_at_the_deadline_with_the_scored_prefix_only() -> None:
    slow = SlowReranker(delay_s=0.25)
    hits = make_hits(list(reversed(TEXTS)))  # c2's text (best) is now 4th
    t0 = time.perf_counter()
    out = rerank_with_deadline(slow, QUERY, hits, top_n=6, deadline_s=0.6, batch_size=1)
    waited = time.perf_counter() - t0
    assert out.status == "timeout"
    assert waited < 0.6 + 0.3  # stopped waiting at the deadline, not after all 6 (1.5 s)
    assert 0 <= out.scored < 6
    rescored = [h for h in out.hits if "rerank" in h.signals]
    assert len(rescored) == out.scored and out.hits[:out.scored] == tuple(rescored)
    scores = [h.signals["rerank"].score for h in rescored]
    assert scores == sorted(scores, reverse=True)
    assert ids(out.hits)[out.scored:] == ids(tuple(hits))[out.scored:]  # the rest: fused order
    time.sleep(0.6)  # the worker finishes its call and stops; the outcome never changes
    assert len(slow.calls) <= out.scored + 1
    assert [h for h in out.hits if "rerank" in h.signals] == rescored


def test_error_keeps_fused_order_and_reports_the_message() -> None:
    hits = make_hits()
    out = rerank_with_deadline(FakeReranker(fail_on="aspirin"), QUERY, hits, top_n=6,
                               deadline_s=5.0, batch_size=2)
    assert out.status == "error" and out.scored == 0
    assert "simulated failure" in (out.error or "")
    assert ids(out.hits) == ids(tuple(hits))
    assert all("rerank" not in h.signals for h in out.hits)


class WrongLength:
    model_id = "wrong"

    def rerank(self, query: str, texts: list[str]) -> list[float]:
        return [1.0]


def test_a_wrong_number_of_scores_is_an_error_not_a_silent_misorder() -> None:
    out = rerank_with_deadline(WrongLength(), QUERY, make_hits(), top_n=4, deadline_s=5.0,
                               batch_size=2)
    assert out.status == "error" and "1 scores for 2 texts" in (out.error or "")


def test_off_without_reranker_or_hits() -> None:
    hits = make_hits()
    out = rerank_with_deadline(None, QUERY, hits, top_n=8, deadline_s=1.0)
    assert out.status == "off" and ids(out.hits) == ids(tuple(hits))
    assert rerank_with_deadline(FakeReranker(), QUERY, [], 8, 1.0).status == "off"


def test_bad_limits_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="Fix"):
        rerank_with_deadline(FakeReranker(), QUERY, make_hits(), top_n=4, deadline_s=0)


def test_reorder_hand_computed() -> None:
    out = reorder(make_hits()[:4], [0.1, 0.9, 0.5])
    assert ids(out) == ["c1", "c2", "c0", "c3"]
    assert [h.signals["rerank"].rank for h in out[:3]] == [1, 2, 3]
    assert out[3].rank == 4 and "rerank" not in out[3].signals
