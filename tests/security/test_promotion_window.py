"""Issue 10 item 2, the narrow case: a delete made through a long-lived Engine while a reindex
is between its last catch-up and the flip. "Unretrievable when the command returns" must hold
then too: the write waits for the flip and lands on the new live version."""

from __future__ import annotations

import threading
import time
from typing import Any

from citewise.config import Settings
from citewise.engine import Engine
from citewise.index.versions import open_catalog
from citewise.reindex import ReindexReport, reindex
from citewise.testing.canaries import PERSONAS, CanaryIndex
from citewise.testing.fakes import FakeEmbedder

STAFF = PERSONAS["acme-staff"]


class SlowFlip:
    """The index's catalog, but ``promote`` says it is about to flip, then takes its time."""

    def __init__(self, catalog: Any) -> None:
        self._catalog = catalog
        self.flipping = threading.Event()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._catalog, name)

    def promote(self, number: int, note: str = "") -> None:
        self.flipping.set()
        time.sleep(0.5)
        self._catalog.promote(number, note)


def served(db: str, doc_id: str, bait: str) -> bool:
    """Whether a fresh Engine (a new process would do the same) finds ``doc_id``."""
    with Engine(db, Settings(), embedder=FakeEmbedder()) as fresh:
        for mode in ("bm25", "dense"):
            hits = fresh.search(bait, STAFF, mode=mode, top_k=50).hits
            if doc_id in {h.document.doc_id for h in hits}:
                return True
    return False


def test_delete_between_last_catch_up_and_flip(canary: CanaryIndex) -> None:
    catalog = SlowFlip(open_catalog(canary.db))
    settings = Settings.model_validate({"chunk": {"chunk_tokens": 128}})
    reports: list[ReindexReport] = []
    errors: list[BaseException] = []

    def build() -> None:
        try:
            reports.append(reindex(catalog, settings, None, embedder=FakeEmbedder(),
                                   live_embedder=FakeEmbedder(), force=True))
        except BaseException as exc:  # reported below
            errors.append(exc)

    with Engine(canary.db, Settings(), embedder=FakeEmbedder()) as engine:  # long-lived
        assert engine.search("zqbaittodelete", STAFF, mode="bm25").hits
        thread = threading.Thread(target=build)
        thread.start()
        try:
            assert catalog.flipping.wait(60), errors
            assert engine.delete(["todelete.md"]) == 1
            assert not served(canary.db, "todelete.md", "zqbaittodelete")  # when it returns
            engine.set_acl("totighten.md", ["hr"])
            assert not served(canary.db, "totighten.md", "zqbaittotighten")
        finally:
            thread.join(timeout=120)
        assert not errors, errors
        assert reports and reports[0].promoted and reports[0].version == 2
        assert engine.index_info().version == 2
        assert not served(canary.db, "todelete.md", "zqbaittodelete")  # after the flip
        assert not served(canary.db, "totighten.md", "zqbaittotighten")
        assert not engine.search("zqbaittodelete", STAFF, mode="bm25").hits
