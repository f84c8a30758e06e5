"""ACL canaries through every read path a user has, on SQLite and PostgreSQL, before and
after the writes that broke promises (issue 10): a rollback after a delete and an ACL change,
writes through an Engine opened before a promotion. Figures at scale:
``python benchmarks/canaries.py``."""

from __future__ import annotations

import json
from contextlib import closing
from pathlib import Path

from citewise.config import Settings
from citewise.engine import Engine
from citewise.index.versions import open_catalog
from citewise.testing.canaries import (
    PERSONAS,
    CanaryIndex,
    cli,
    controls,
    summary,
    sweep,
    sweep_eval,
)
from citewise.testing.fakes import FakeEmbedder

STAFF = ["--tenant", "acme", "--groups", "staff"]


def run(*args: str) -> str:
    code, out = cli(*args)
    assert code == 0, out
    return out


def found(index: CanaryIndex, query: str, *who: str, mode: str = "bm25") -> set[str]:
    hits = json.loads(run("search", query, "--mode", mode, "--json", "--top-k", "50", *who,
                          "--db", index.db))
    return {h["doc_id"] for h in hits}


def delete_and_tighten(index: CanaryIndex, via: Engine | None = None) -> None:
    """Delete todelete.md and narrow totighten.md to hr (CLI, or a given Engine)."""
    if via is None:
        assert "deleted 1" in run("delete", "todelete.md", "--db", index.db)
        run("acl", "totighten.md", "--groups", "hr", "--db", index.db)
    else:
        assert via.delete(["todelete.md"]) == 1
        via.set_acl("totighten.md", ["hr"])
    index.acl["todelete.md"] = None
    index.acl["totighten.md"] = ("acme", frozenset({"hr"}))


def assert_held(index: CanaryIndex) -> None:
    """The deleted document is gone and the tightened one is hr-only, in every mode."""
    for mode in ("bm25", "dense", "hybrid"):
        for doc in ("todelete.md", "totighten.md"):
            bait = "zqbait" + doc.removesuffix(".md")
            assert doc not in found(index, bait, *STAFF, mode=mode), (doc, mode)
    assert "totighten.md" in found(index, "zqbaittotighten", "--tenant", "acme", "--groups",
                                   "hr")


def test_canaries_hold_on_every_read_path(canary: CanaryIndex, tmp_path: Path) -> None:
    assert controls(canary) == []  # every persona finds what it may read: the sweep can see
    sweep(canary, queries_per_persona=4)
    sweep_eval(canary, tmp_path / "eval")
    assert canary.queries >= 600
    assert canary.leaks == [], summary([canary])


def test_hostile_front_matter_reads_nobody(canary: CanaryIndex) -> None:
    """hostile.md says tenant globex, groups [public, staff]; the operator said acme + hr
    (issue 10 item 4): it lands in acme, and the file can only narrow hr, to nothing."""
    for persona in PERSONAS.values():
        who = ["--tenant", persona.tenant, "--groups", ",".join(sorted(persona.groups))]
        assert "hostile.md" not in found(canary, "zqbaithostile", *who)
    status = json.loads(run("status", "--documents", "--json", "--db", canary.db))
    row = next(d for d in status["document_list"] if d["doc_id"] == "hostile.md")
    assert (row["tenant"], row["groups"]) == ("acme", [])


def test_rollback_does_not_resurrect(canary: CanaryIndex, tmp_path: Path) -> None:
    """Issue 10 item 1: ingest -> reindex --force -> delete -> acl -> rollback."""
    run("reindex", "--chunk-tokens", "128", "--force", "--db", canary.db)
    delete_and_tighten(canary)
    assert_held(canary)
    run("rollback", "--db", canary.db)  # back to version 1, built before both writes
    assert json.loads(run("versions", "--json", "--db", canary.db))[0]["state"] == "live"
    assert_held(canary)
    run("rollback", "2", "--db", canary.db)  # and forward again
    assert_held(canary)
    run("rollback", "--db", canary.db)
    sweep(canary, queries_per_persona=1, errors=False)
    sweep_eval(canary, tmp_path / "eval")
    assert canary.leaks == [], summary([canary])


def test_long_lived_engine_writes_reach_the_live_version(canary: CanaryIndex) -> None:
    """Issue 10 item 2: an Engine opened (and used) before a promotion deletes and re-ACLs
    on the version live now; its own searches follow too."""
    with Engine(canary.db, Settings(), embedder=FakeEmbedder()) as engine:
        staff = PERSONAS["acme-staff"]
        assert engine.search("zqbaittodelete", staff, mode="bm25").hits
        assert engine.index_info().version == 1
        run("reindex", "--chunk-tokens", "128", "--force", "--db", canary.db)
        assert engine.index_info().version == 2
        delete_and_tighten(canary, via=engine)
        assert_held(canary)  # fresh processes (the CLI) see it
        for mode in ("bm25", "dense", "hybrid"):
            hits = engine.search("zqbaittodelete zqbaittotighten", staff, mode=mode).hits
            assert not {h.document.doc_id for h in hits} & {"todelete.md", "totighten.md"}
        run("rollback", "--db", canary.db)
        assert engine.index_info().version == 1
        assert not engine.search("zqbaittodelete", staff, mode="bm25").hits
        assert_held(canary)


def test_acl_changed_by_re_ingest_survives_rollback(canary: CanaryIndex,
                                                     tmp_path: Path) -> None:
    """An ACL changed by re-ingesting with a new sidecar line (not `citewise acl`) also holds
    in the version a rollback brings back. A document deleted and ingested again is gone from
    the retired version at the delete (every version at once) and, like any document ingested
    while another version was live, is not in it after the rollback."""
    run("reindex", "--chunk-tokens", "128", "--force", "--db", canary.db)
    acme = tmp_path / "docs" / "acme"
    meta = tmp_path / "tighter.jsonl"
    meta.write_text(json.dumps({"path": "totighten.md", "groups": ["hr"]}) + "\n")
    config = tmp_path / "v2.json"  # the chunking version 2 was built with
    config.write_text(json.dumps({"chunk": {"chunk_tokens": 128}}))
    run("delete", "handbook.md", "--db", canary.db)
    run("ingest", str(acme / "totighten.md"), str(acme / "handbook.md"), "--tenant", "acme",
        "--groups", "staff", "--meta", str(meta), "--config", str(config), "--db", canary.db,
        "--no-progress")
    canary.acl["totighten.md"] = ("acme", frozenset({"hr"}))
    with closing(open_catalog(canary.db)) as catalog, closing(catalog.open(1)) as retired:
        doc = retired.get_document("totighten.md")  # at once (a server pinned to v1 showed it)
        assert doc is not None and list(doc.acl_groups) == ["hr"]
    run("rollback", "--db", canary.db)
    assert "totighten.md" not in found(canary, "zqbaittotighten", *STAFF)
    assert "totighten.md" in found(canary, "zqbaittotighten", "--tenant", "acme", "--groups",
                                   "hr")
    assert "handbook.md" not in found(canary, "zqbaithandbook", *STAFF)  # deleted from v1
    sweep(canary, queries_per_persona=1, errors=False)
    assert canary.leaks == [], summary([canary])


def _restrict_edit_and_roll_back(canary: CanaryIndex, tmp_path: Path) -> list[str]:
    """``acl`` a page to hr, reindex, edit and re-ingest it (which removes its old text from
    version 1), roll back to version 1 (which lacks it); returns the page's ingest command."""
    acme = tmp_path / "docs" / "acme"
    run("acl", "handbook.md", "--groups", "hr", "--db", canary.db)
    canary.acl["handbook.md"] = ("acme", frozenset({"hr"}))
    run("reindex", "--chunk-tokens", "128", "--force", "--db", canary.db)
    page = acme / "handbook.md"
    page.write_text(page.read_text() + "\n\nEdited after the reindex.\n")
    config = tmp_path / "v2.json"
    config.write_text(json.dumps({"chunk": {"chunk_tokens": 128}}))
    ingest = ["ingest", str(page), "--tenant", "acme", "--groups", "staff", "--db",
              canary.db, "--no-progress"]
    run(*ingest, "--config", str(config))
    run("rollback", "--db", canary.db)
    assert "handbook.md" not in found(canary, "zqbaithandbook", "--tenant", "acme",
                                      "--groups", "hr")  # not in version 1: named by rollback
    return ingest


def test_a_page_restricted_by_hand_keeps_its_readers_after_an_edit_and_a_rollback(
        canary: CanaryIndex, tmp_path: Path) -> None:
    """An operator restricted a page by hand, reindexed, edited the page and re-ingested
    it (which removes its old text from version 1), rolled back to version 1 (which lacks
    it) and ran the folder's routine ingest: the page was new to the live version and got
    the batch's groups, and every staff member read it. The change log remembers readers
    set by hand (an ``acl`` change, and each ingest that kept them), whichever version was
    live; the ingest keeps them."""
    out = run(*_restrict_edit_and_roll_back(canary, tmp_path))
    assert "keeps the readers set by hand" in out, out
    assert "handbook.md" not in found(canary, "zqbaithandbook", *STAFF)
    assert "handbook.md" in found(canary, "zqbaithandbook", "--tenant", "acme", "--groups",
                                  "hr")
    sweep(canary, queries_per_persona=1, errors=False)
    assert canary.leaks == [], summary([canary])


def test_an_id_set_by_hand_in_one_tenant_is_refused_to_another_until_deleted(
        canary: CanaryIndex, tmp_path: Path) -> None:
    """Ids are one namespace: the same id ingested into another tenant once the page left
    the live version is refused, as it is while the live version has it, without naming the
    first tenant's groups (the review of an earlier attempt). A security review moved a page
    from acme to globex by hand, rolled back past it, and acme's routine ingest put it back
    in acme for its staff. ``delete`` forgets the id in every version; ``--undelete`` then
    ingests it with its own batch's groups."""
    ingest = _restrict_edit_and_roll_back(canary, tmp_path)
    elsewhere = [("globex" if a == "acme" else a) for a in ingest]
    _, out = cli(*elsewhere)  # exit 1: its one file failed
    assert "another tenant's document" in out and "hr" not in out, out
    assert "handbook.md" not in found(canary, "zqbaithandbook", "--tenant", "globex",
                                      "--groups", "staff")
    assert "deleted 1" in run("delete", "--db", canary.db, "--", "handbook.md")
    canary.acl.pop("handbook.md", None)
    run(*elsewhere, "--undelete")
    assert "handbook.md" in found(canary, "zqbaithandbook", "--tenant", "globex", "--groups",
                                  "staff")


def _ingest_after_a_reindex_then_roll_back(canary: CanaryIndex, tmp_path: Path, name: str,
                                           text: str) -> list[str]:
    """Reindex (version 2), ingest acme's page ``name`` there for staff, roll back to
    version 1 (which lacks it); the ingest's arguments."""
    page = tmp_path / "docs" / "acme" / name
    page.write_text(f"# Page\n\n{text}\n")
    run("reindex", "--chunk-tokens", "128", "--force", "--db", canary.db)
    ingest = ["ingest", str(page), "--tenant", "acme", "--groups", "staff", "--db",
              canary.db, "--no-progress"]
    run(*ingest)
    run("rollback", "--db", canary.db)
    return ingest


def test_a_page_a_rollback_left_behind_is_deleted_everywhere_by_delete(
        canary: CanaryIndex, tmp_path: Path) -> None:
    """Stop 62's security review (F4): a page ingested after a reindex and rolled back past
    was "not in the index" to ``delete``, and the roll forward brought it back. ``delete``
    reaches the retired version that holds it; a later ingest of its file needs
    ``--undelete``."""
    ingest = _ingest_after_a_reindex_then_roll_back(
        canary, tmp_path, "layoffs.md", "zqbaitlayoffs: the Porto office closes in May.")
    assert "deleted 1" in run("delete", "--db", canary.db, "--", "layoffs.md")
    run("rollback", "2", "--db", canary.db)
    assert "layoffs.md" not in found(canary, "zqbaitlayoffs", *STAFF)
    assert "--undelete" in cli(*ingest)[1]
    sweep(canary, queries_per_persona=1, errors=False)
    assert canary.leaks == [], summary([canary])


def test_a_ref_naming_a_rolled_back_id_and_a_live_file_is_refused_as_ambiguous(
        canary: CanaryIndex, tmp_path: Path, monkeypatch) -> None:
    """The review of this stop: `delete -- a.md` run in site/, where site/a.md is a live
    document's file, deleted that document, and the rolled-back a.md came back with the
    roll forward. An `acl` of the rolled-back id names the fix."""
    _ingest_after_a_reindex_then_roll_back(canary, tmp_path, "a.md",
                                           "zqbaitamd: the rolled-back page.")
    site = tmp_path / "site"
    site.mkdir()
    (site / "a.md").write_text("# Live A\n\nThe live page.\n")
    run("ingest", str(site), "--tenant", "acme", "--groups", "staff", "--id-prefix", "site/",
        "--db", canary.db, "--no-progress")
    acl = cli("acl", "a.md", "--groups", "hr", "--db", canary.db)
    assert acl[0] == 1 and "retired version" in acl[1] and "citewise delete -- a.md" in acl[1]
    monkeypatch.chdir(site)
    code, out = cli("delete", "--db", canary.db, "--", "a.md")
    assert code == 1 and "is both a document only a retired version holds" in out, out
    assert "site/a.md" in found(canary, "live page", *STAFF)


def test_a_page_moved_by_hand_to_another_tenant_stays_out_after_a_rollback(
        canary: CanaryIndex, tmp_path: Path) -> None:
    """The security review's sequence: ingest a page into acme on version 2, move it by hand
    to globex, roll back to version 1 (which lacks it), run acme's routine ingest again (as
    the rollback's warning says): refused as before the rollback, not acme's staff's."""
    page = tmp_path / "docs" / "acme" / "ceo-pay.md"
    page.write_text("# Salaries\n\nzqbaitceopay: the CEO is paid 900000 a year.\n")
    run("reindex", "--chunk-tokens", "128", "--force", "--db", canary.db)
    ingest = ["ingest", str(page), "--tenant", "acme", "--groups", "staff", "--db",
              canary.db, "--no-progress"]
    run(*ingest)
    run("acl", "ceo-pay.md", "--tenant", "globex", "--groups", "board", "--db", canary.db)
    canary.acl["ceo-pay.md"] = ("globex", frozenset({"board"}))
    run("rollback", "--db", canary.db)
    assert "another tenant's document" in cli(*ingest)[1]
    assert "ceo-pay.md" not in found(canary, "zqbaitceopay", *STAFF)
    sweep(canary, queries_per_persona=1, errors=False)
    assert canary.leaks == [], summary([canary])


def test_a_draft_rolled_back_past_never_takes_its_redacted_text_s_readers(
        canary: CanaryIndex, tmp_path: Path) -> None:
    """A security review: an hr-only draft ingested on version 3, a rollback to 2 (which
    lacks it), its redacted text ingested there for staff (new to the live version, so the
    other versions were left alone), rollback 1, rollback 3: the draft came back with
    staff's groups. A write new to the live version reaches the other versions too: the
    draft's copy, other text, is deleted there."""
    draft = tmp_path / "draft" / "memo.md"
    redacted = tmp_path / "redacted" / "memo.md"
    for page, text in ((draft, "zqbaitmemo: the Porto team is laid off; codename ONYX-77."),
                       (redacted, "A reorganisation is planned; details follow.")):
        page.parent.mkdir()
        page.write_text(f"# Reorg memo\n\n{text}\n", encoding="utf-8")
    for _ in range(2):
        run("reindex", "--chunk-tokens", "128", "--force", "--db", canary.db)
    ingest = ["--tenant", "acme", "--db", canary.db, "--no-progress"]
    run("ingest", str(draft.parent), "--groups", "hr", *ingest)
    run("rollback", "2", "--db", canary.db)
    run("ingest", str(redacted.parent), "--groups", "staff", *ingest)
    canary.acl["memo.md"] = ("acme", frozenset({"staff"}))
    run("rollback", "1", "--db", canary.db)
    run("rollback", "3", "--db", canary.db)
    for mode in ("bm25", "hybrid"):
        assert "memo.md" not in found(canary, "zqbaitmemo Porto ONYX", *STAFF, mode=mode)
    sweep(canary, queries_per_persona=1, errors=False)
    assert canary.leaks == [], summary([canary])


def test_an_acl_to_the_ingest_s_own_groups_is_not_kept_over_a_narrower_ingest(
        canary: CanaryIndex, tmp_path: Path) -> None:
    """The review of this stop: ``acl`` to the very groups the ingest gave (a no-op) was
    logged as set by hand; after a rollback past the page, the routine ingest that narrowed
    it to hr kept staff, and staff read the salary page."""
    page = tmp_path / "docs" / "acme" / "salaries.md"
    page.write_text("# Salaries\n\nzqbaitsalaries bands are set each spring.\n")
    run("reindex", "--chunk-tokens", "128", "--force", "--db", canary.db)
    ingest = ["ingest", str(page), "--tenant", "acme", "--db", canary.db, "--no-progress"]
    run(*ingest, "--groups", "staff")
    run("acl", "salaries.md", "--groups", "staff", "--db", canary.db)  # what it has
    run("rollback", "--db", canary.db)  # version 1 lacks it
    out = run(*ingest, "--groups", "hr")
    assert "set by hand" not in out, out
    canary.acl["salaries.md"] = ("acme", frozenset({"hr"}))
    assert "salaries.md" not in found(canary, "zqbaitsalaries", *STAFF)
    assert "salaries.md" in found(canary, "zqbaitsalaries", "--tenant", "acme", "--groups",
                                  "hr")
    sweep(canary, queries_per_persona=1, errors=False)
    assert canary.leaks == [], summary([canary])
