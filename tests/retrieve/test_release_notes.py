"""Release notes below the pages that document a feature, unless the question asks about
versions or changes (new users of Django's docs and the BIND manual got how-to answers cited
from release notes of versions long gone)."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewise.config import Settings
from citewise.engine import Engine
from citewise.retrieve.release_notes import (
    asks_about_changes,
    is_release_notes,
    release_notes_later,
)
from citewise.testing import FakeEmbedder
from citewise.types import Document, Principal

PUBLIC = Principal.of("public")


def _doc(doc_id: str, title: str) -> Document:
    return Document(doc_id=doc_id, title=title, content_hash="c", tenant="default",
                    acl_groups=frozenset({"public"}))


@pytest.mark.parametrize("doc_id, title", [
    ("releases/1.2.html", "Django 1.2 release notes"), ("changelog.html.gz", "Changelog"),
    ("html/dist.news.html", "2. NEWS"), ("changes.html", "Important notes"),
    ("html/dist.news.old.html", "3. OLDER NEWS"),
    ("changelog/migration_14.html", "What's New in SQLAlchemy 1.4?"),
    ("notes.html", "Release Notes for BIND Version 9.18"), ("CHANGES.rst", "CHANGES"),
    ("docs/NEWS", "gdb NEWS")])
def test_release_notes_are_told_by_title_or_path(doc_id: str, title: str) -> None:
    assert is_release_notes(_doc(doc_id, title))


@pytest.mark.parametrize("doc_id, title", [
    ("topics/email.html", "Sending email"), ("ref/settings.html", "Settings"),
    ("usage/history.html", "Command history"), ("howto/upgrade-version.html", "How to upgrade"),
    ("newsletter.html", "Newsletter templates"), ("topics/changes/tracking.md", "Tracking edits"),
    ("internals/release-process.html", "Django's release process"),
    ("contributing/releases.md", "Releases"), ("howto/news.html", "Setting up a news feed"),
    ("topics/db/tracking.html", "Tracking changes in your models")])
def test_other_pages_are_not(doc_id: str, title: str) -> None:
    assert not is_release_notes(_doc(doc_id, title))


@pytest.mark.parametrize("question, asks", [
    ("how do I make Django send emails to the console", False),
    ("how do I change the admin site's title", False),
    ("how do I create a new superuser without a prompt", False),
    ("how do I fix a migration conflict", False),
    ("what's new in Django 3.2", True), ("what changed in 1.4 for JSONField", True),
    ("is url() deprecated", True), ("which version added the console backend", True),
    ("what do I need to change when upgrading", True), ("when was this feature released", True),
    ("what did Django 5 add", True), ("when did Django add JSONField", True),
    ("since when does Django support async views", True), ("is python 2 still supported", True),
    ("what's changed since Django 4", True), ("what was fixed for CVE-2024-27351", True),
    ("how do I release a connection back to the pool", False)])
def test_a_question_asks_about_changes_or_not(question: str, asks: bool) -> None:
    assert asks_about_changes(question) is asks


def test_a_release_note_ranks_lower_but_stays() -> None:
    docs = {"a": _doc("releases/1.2.html", "Django 1.2 release notes"),
            "b": _doc("topics/email.html", "Sending email"),
            "c": _doc("ref/settings.html", "Settings")}
    order = [("a", 0.033), ("b", 0.030), ("c", 0.012), ("d", 0.010)]  # d: not hydrated
    later, scaled = release_notes_later(order, docs)
    assert scaled == 1 and [cid for cid, _ in later] == ["b", "a", "c", "d"]
    assert release_notes_later(order[1:], docs) == (order[1:], 0)


def _site(root: Path) -> Path:
    (root / "releases").mkdir(parents=True)
    (root / "topics").mkdir()
    (root / "releases" / "1.2.html").write_text(
        "<html><head><title>Django 1.2 release notes</title></head><body><main>"
        "<h1>Django 1.2 release notes</h1><h2>Email backends</h2><p>You can now send email "
        "to the console with the console email backend, new in this release.</p>"
        "</main></body></html>")
    (root / "topics" / "email.html").write_text(
        "<html><head><title>Sending email</title></head><body><main><h1>Sending email</h1>"
        "<h2>Console backend</h2><p>The console backend writes email to the console; set "
        "EMAIL_BACKEND to use it.</p></main></body></html>")
    return root


def test_search_puts_the_feature_page_before_its_release_note(tmp_path: Path) -> None:
    with Engine(tmp_path / "i.db", Settings(), embedder=FakeEmbedder()) as engine:
        engine.ingest_paths([_site(tmp_path / "docs")], {"groups": ["public"]})
        howto = engine.search("send email to the console backend", PUBLIC, top_k=2)
        asked = engine.search("which release added the console email backend", PUBLIC,
                              top_k=2)
    assert [h.document.doc_id for h in howto.hits] == ["topics/email.html",
                                                         "releases/1.2.html"]
    assert any("release notes or changelogs ranked lower" in n for n in howto.notes)
    assert not any("release notes" in n for n in asked.notes)
