"""MaxScore pruning must return exactly what the unpruned FTS5 query returns."""

import math
import random

import pytest

from citewise.index import make_manifest
from citewise.index.sqlite import fts, prune
from citewise.index.sqlite.acl import resolve_principal
from citewise.index.sqlite.store import SQLiteStore
from citewise.index.sqlite.tenancy import layout_of
from citewise.testing import FakeEmbedder
from citewise.testing.conformance import make_write
from citewise.text import query_terms
from citewise.types import Principal

COMMON = ["protein", "cells", "patients", "increased"]  # in most documents
RARE = [f"marker{i}" for i in range(60)]


def test_upper_bound_matches_fts5_idf_formula():
    assert prune.upper_bound(1000, 10) == pytest.approx(2.2 * math.log(990.5 / 10.5))
    assert prune.upper_bound(1000, 900) == pytest.approx(2.2e-6)  # idf clamped like FTS5


@pytest.fixture(scope="module", params=["shared", "isolated"])
def store(tmp_path_factory, request):
    """acme's 400 documents plus 100 of globex's (which, under isolated tenancy, live in
    their own FTS table and so must not enter acme's statistics or bounds)."""
    rng = random.Random(7)
    embedder = FakeEmbedder(dim=16)
    s = SQLiteStore(tmp_path_factory.mktemp("prune") / "p.db")
    s.ensure_manifest(make_manifest(embedder.model_id, embedder.dim, {}, "x", request.param))
    writes = []
    for i in range(400):
        words = rng.sample(COMMON, 3) + rng.sample(RARE, rng.randint(0, 3))
        words += ["filler"] * rng.randint(0, 30)
        rng.shuffle(words)
        groups = ["all"] + (["few"] if i % 25 == 0 else [])
        writes.append(make_write(embedder, f"d{i}", [" ".join(words)], groups=groups))
    writes += [make_write(embedder, f"g{i}", [" ".join(COMMON + RARE[:5])], groups=["all"],
                          tenant="globex") for i in range(100)]
    s.write(writes)
    yield s
    s.close()


@pytest.mark.parametrize("groups", ["all", "few"])
@pytest.mark.parametrize("top_k", [3, 10, 50])
def test_pruned_equals_unpruned(store, monkeypatch, groups, top_k):
    rng = random.Random(top_k)
    calls = {"fallback": 0}
    unpruned = fts.search_sparse

    def counting(*args, **kwargs):
        calls["fallback"] += 1
        return unpruned(*args, **kwargs)

    conn = store._db()
    resolved = resolve_principal(conn, Principal.of(groups, tenant="acme"))
    tokens = resolved.tokens
    table = layout_of(conn).fts_table(resolved.tenant_id)
    queries = [" ".join(rng.sample(COMMON, 2) + rng.sample(RARE, 2)) for _ in range(40)]
    expected = {q: unpruned(conn, query_terms(q), tokens, top_k, table=table) for q in queries}
    assert expected[queries[0]] == store.search_sparse(queries[0], top_k,
                                                       Principal.of(groups, tenant="acme"))
    monkeypatch.setattr(prune.fts, "search_sparse", counting)
    stats = prune.TermStats(table, tokens.tenant)
    for q in queries:
        got = prune.search_sparse_pruned(conn, stats, query_terms(q), tokens, top_k,
                                          min_rows=0)
        assert [(h.chunk_id, round(h.score, 9)) for h in got] == \
            [(h.chunk_id, round(h.score, 9)) for h in expected[q]]
    if groups == "all" and top_k == 3:
        assert calls["fallback"] == 0  # every query took the pruned path
    if top_k == 50:
        assert calls["fallback"] == len(queries)  # bound not reached: exact fallback
