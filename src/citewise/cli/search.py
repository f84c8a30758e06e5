"""``citewise search``."""

from __future__ import annotations

import re

import click

from citewise.cli.common import (
    TextCommand,
    db_option,
    echo,
    echo_json,
    engine_from,
    friendly_errors,
    settings_options,
)
from citewise.cli.hints import warn_nothing_readable, warn_without_groups
from citewise.text import query_terms
from citewise.types import SEARCH_MODES, Hit, Principal, SearchResult, SectionMark


def hit_json(hit: Hit) -> dict:
    return hit.to_dict()


def explain_json(result: SearchResult) -> dict:
    return {"mode": result.mode, "filter": result.filter, "candidates": dict(result.candidates),
            "timings_ms": dict(result.timings_ms), "dropped": list(result.notes),
            "hits": [{"rank": h.rank, "chunk_id": h.chunk.chunk_id, "fused": round(h.score, 6),
                      **{f"{n}_rank": s.rank for n, s in h.signals.items()},
                      **{f"{n}_score": round(s.score, 6) for n, s in h.signals.items()}}
                     for h in result.hits]}


def breadcrumb(hit: Hit, heading_path: tuple[str, ...] | None = None) -> str:
    """``Title › Heading › Subheading`` (of ``heading_path``, else the chunk's) without
    repeating a top heading equal to the title."""
    path = list(hit.chunk.heading_path if heading_path is None else heading_path)
    if path and path[0].strip().lower() == hit.document.title.strip().lower():
        path = path[1:]
    return " › ".join([hit.document.title, *path])


def _signal(hit: Hit, name: str) -> str:
    s = hit.signals.get(name)
    return f"#{s.rank} ({s.score:.4f})" if s else "—"


def print_explain(result: SearchResult) -> None:
    echo(f"mode: {result.mode}   filter: {result.filter}")
    cands = ", ".join(f"{k} {v}" for k, v in result.candidates.items())
    times = ", ".join(f"{k} {v:.1f}" for k, v in result.timings_ms.items())
    echo(f"candidates: {cands}   timings ms: {times}")
    for note in result.notes:
        echo(f"  {note}")


def _rarest_term(text: str, query: str) -> tuple[str | None, list[int]]:
    """The query word that occurs least often in ``text`` (ties: the earliest), with its
    positions in ``text`` (lowercased)."""
    lower = text.lower()
    found = {t: [m.start() for m in re.finditer(rf"\b{re.escape(t)}\b", lower)]
             for t in query_terms(query)}
    found = {t: pos for t, pos in found.items() if pos}
    rarest = min(found, key=lambda t: (len(found[t]), found[t][0]), default=None)
    return rarest, found.get(rarest, []) if rarest else []


def focus(hit: Hit, query: str) -> SectionMark:
    """The section of ``hit``'s chunk that holds the rarest query word the snippet shows:
    a chunk that merged small sections (a glossary's entries) was listed under, and linked
    to, its first one."""
    _, positions = _rarest_term(hit.chunk.text, query)
    return hit.chunk.section_at(positions[0] if positions else 0)


def snippet(text: str, query: str, width: int = 300) -> str:
    """``width`` characters of ``text`` around the query word that occurs least often in it
    (ties: the earliest), with … where text was cut."""
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    _, positions = _rarest_term(flat, query)
    hit = positions[0] if positions else 0
    start = max(0, min(hit - width // 3, len(flat) - width))
    return ("…" if start else "") + flat[start:start + width] + \
        ("…" if start + width < len(flat) else "")


def print_hits(result: SearchResult, explain: bool, query: str = "") -> None:
    if explain:
        print_explain(result)
    if not result.hits:
        echo("No results visible to this principal.")
    for h in result.hits:
        where = focus(h, query)
        echo(f"[{h.rank}] {breadcrumb(h, where.heading_path)}  ({h.link(where.anchor)}"
             f"{', updated ' + h.document.updated_at[:10] if h.document.updated_at else ''})",
             one_line=True)
        if explain:
            echo(f"    fused {h.score:.5f}   bm25 {_signal(h, 'bm25')}   "
                 f"dense {_signal(h, 'dense')}")
        echo(f"    {snippet(h.chunk.text, query)}")


def print_sql(engine, query: str, principal: Principal) -> None:
    builder = getattr(engine.store, "build_sparse_sql", None)
    if builder is None:
        echo("this backend cannot show its SQL")
        return
    retrieve = engine.settings.retrieve
    built = builder(query, retrieve.candidates, principal, retrieve.title_weight)
    if built is None:
        echo("-- no query is run: no searchable terms, or nothing visible to this "
             f"principal ({engine.store.describe_filter(principal)})")
        return
    sql, params = built
    echo(sql.strip())
    echo("-- parameters: " + ", ".join(f"{k}={v!r}" for k, v in params.items()))


@click.command(cls=TextCommand)
@click.argument("query")
@click.option("--groups", default="", help="Comma-separated groups of the asking user.")
@click.option("--tenant", default="default", show_default=True, help="Tenant of the user.")
@click.option("--top-k", type=click.IntRange(1, 1000), default=None, help="Hits to return.")
@click.option("--mode", type=click.Choice(SEARCH_MODES), default=None,
              help="Retrieval signals (default: hybrid).")
@click.option("--json", "as_json", is_flag=True, help="Print hits as JSON.")
@click.option("--explain", is_flag=True,
              help="Show the filter, per-signal ranks and scores, timings, dropped hits.")
@click.option("--sql", "show_sql", is_flag=True,
              help="Print the BM25 SQL (with the ACL filter inside it) instead of searching.")
@db_option
@settings_options
@friendly_errors
def search(query, groups, tenant, top_k, mode, as_json, explain, show_sql, db, config_path,
           model, threads):
    """Search as a user: only chunks of documents in the user's tenant that share a group
    with the user are candidates. A user with no groups sees nothing."""
    principal = Principal.of(groups, tenant=tenant)
    with engine_from(db, config_path, model, threads, must_exist=True) as engine:
        if show_sql:
            print_sql(engine, query, principal)
            return
        result = engine.search(query, principal, mode=mode, top_k=top_k, explain=explain)
        if not as_json:
            warn_without_groups(principal, engine.store)
            if not result.hits:
                warn_nothing_readable(engine.store, principal)
    if as_json:
        hits = [hit_json(h) for h in result.hits]
        echo_json({"hits": hits, "explain": explain_json(result)} if explain else hits)
    else:
        print_hits(result, explain, query)
