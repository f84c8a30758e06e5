"""Timing side channels in the in-process caches: the query-embedding cache and the llm-judge
score cache answer a repeated input faster, so both are keyed by the asking principal's
permissions too (:mod:`citewise.cache_scope`). Globex asking what acme asked (about a passage
both hold), or an acme reader with other groups, must cost a full embedding / judgement, as a
first question does."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewise.cache_scope import cache_scope
from citewise.config import Settings
from citewise.embed.query_cache import cached_embedder
from citewise.engine import Engine
from citewise.rerank import rerank_with_deadline
from citewise.rerank.llm_judge import LLMJudgeReranker
from citewise.testing.fakes import FakeEmbedder
from citewise.types import Principal

TEXT = "# Memo\n\nMerger plan code name Falcon closes in March.\n"
QUESTION = "falcon merger plan"
ACME, GLOBEX = Principal.of("staff", tenant="acme"), Principal.of("staff", tenant="globex")


class CountingJudge(LLMJudgeReranker):
    """The real class (its cache) with the model call replaced by a counter."""

    def __init__(self) -> None:
        super().__init__("/nonexistent/model.gguf")
        self.judged: list[str] = []

    @property
    def model_id(self) -> str:
        return "counting"

    def judge(self, query: str, passage: str) -> float:
        self.judged.append(passage)
        return 0.5


@pytest.fixture(params=["shared", "isolated"])
def engine(request, tmp_path: Path):
    settings = Settings.model_validate({"index": {"tenancy": request.param},
                                        "retrieve": {"mode": "hybrid"}})
    embedder = FakeEmbedder()  # records each query it embeds
    with Engine(tmp_path / "index.db", settings, embedder) as eng:
        for tenant in ("acme", "globex"):
            folder = tmp_path / tenant
            folder.mkdir()
            (folder / f"{tenant}-memo.md").write_text(TEXT, encoding="utf-8")
            eng.ingest_paths([folder], {"groups": ["staff"], "tenant": tenant})
        yield cached_embedder(eng), embedder


def test_query_embedding_cache_is_per_tenant(engine) -> None:
    eng, inner = engine

    def embedded() -> int:
        return inner.queries.count(QUESTION)

    assert eng.search(QUESTION, ACME).hits and embedded() == 1
    eng.search(QUESTION, ACME)
    assert embedded() == 1  # acme's repeat: a hit
    assert eng.search(QUESTION, GLOBEX).hits
    assert embedded() == 2, "globex got acme's cached query vector"
    eng.search(QUESTION, GLOBEX)
    assert embedded() == 2


def test_judge_score_cache_is_per_tenant_through_ask(engine) -> None:
    eng, _ = engine
    judge = CountingJudge()
    eng.ask(QUESTION, ACME, reranker=judge, dry_run=True)
    first = len(judge.judged)
    assert first >= 1
    eng.ask(QUESTION, ACME, reranker=judge, dry_run=True)
    assert len(judge.judged) == first  # acme's repeat: from the cache
    eng.ask(QUESTION, GLOBEX, reranker=judge, dry_run=True)
    assert len(judge.judged) == 2 * first, "globex got acme's cached judgement"


def test_rerank_thread_keeps_the_scope() -> None:
    """The deadline runs the judge in its own thread: the scope goes with it."""
    from tests.rerank.test_deadline import make_hits

    judge = CountingJudge()
    hits = make_hits()
    for tenant, judged in (("acme", 1), ("acme", 1), ("globex", 2)):
        with cache_scope(tenant):
            rerank_with_deadline(judge, QUESTION, hits, top_n=1, deadline_s=5.0)
        assert len(judge.judged) == judged, tenant


def test_query_embedding_cache_is_per_permission_set_and_per_principal_when_set(
        tmp_path: Path) -> None:
    """A security review timed ``embed_query`` at 0.01 ms for a staff reader repeating the
    question an hr colleague had asked (8 ms for a new one), under either
    ``serve.cache_scope``: the cache was scoped by tenant alone."""
    hr = Principal.of("staff,hr", tenant="acme", name="ada")
    staff, same = (Principal.of("staff", tenant="acme", name=n) for n in ("sam", "sue"))
    for scope, shared in (("permissions", True), ("principal", False)):
        settings = Settings.model_validate({"serve": {"cache_scope": scope}})
        inner = FakeEmbedder()
        with Engine(tmp_path / f"{scope}.db", settings, inner) as eng:
            folder = tmp_path / scope
            folder.mkdir()
            (folder / "memo.md").write_text(TEXT, encoding="utf-8")
            eng.ingest_paths([folder], {"groups": ["staff"], "tenant": "acme"})
            eng = cached_embedder(eng)
            for who in (hr, staff, staff, same):
                eng.search(QUESTION, who)
        assert inner.queries.count(QUESTION) == (2 if shared else 3), scope
