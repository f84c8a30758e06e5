"""An answer is not sent from passages its asker lost while it was written
(:mod:`citewise.answer.still_readable`). A security review narrowed a document with
``citewise acl`` while a streamed answer was being written; 30 s after the command returned,
the stream sent the document's restricted text."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from citewise.config import Settings
from citewise.engine import Engine
from citewise.testing import FakeEmbedder, FakeGenerator
from citewise.types import Principal

HR = Principal.of("hr", tenant="acme")
BONUS = "The executive bonus pool is CANARY-7f3q9z, paid in March."


class ChangesMeanwhile(FakeGenerator):
    """Runs ``meanwhile`` (another process's write) before it writes its scripted answer."""

    def __init__(self, meanwhile, *answers: str) -> None:
        super().__init__(*answers)
        self.meanwhile = meanwhile

    def generate(self, prompt, **kwargs):
        self.meanwhile()
        return super().generate(prompt, **kwargs)


@pytest.fixture
def engine(tmp_path: Path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "bonus.md").write_text(f"# Bonus\n\n{BONUS}\n")
    with Engine(tmp_path / "i.db", Settings.model_validate({"gate": {"threshold": 0.1}}),
                embedder=FakeEmbedder()) as engine:
        engine.ingest_paths([docs], {"tenant": "acme", "groups": ["hr"]})
        yield engine


@pytest.mark.parametrize("change", ["acl", "delete"])
@pytest.mark.parametrize("stream", [True, False])
def test_a_source_lost_while_answering_is_not_shown(engine: Engine, change: str,
                                                    stream: bool) -> None:
    (doc,) = engine.store.list_documents()
    write = (lambda: engine.set_acl(doc.doc_id, ["exec"])) if change == "acl" else (
        lambda: engine.delete([doc.doc_id]))
    gen = ChangesMeanwhile(write, "The executive bonus pool is CANARY-7f3q9z, paid in March "
                                  "[{sid:CANARY}].")
    sent: list[str] = []
    answer = engine.ask("What is the executive bonus pool?", HR, generator=gen,
                        on_token=sent.append if stream else None)
    assert answer.declined and answer.reason == "sources_changed", answer
    assert "CANARY" not in "".join(sent) + answer.answer + " ".join(answer.notes)
    assert any("Ask again" in n for n in answer.notes)


def test_an_unchanged_source_is_answered(engine: Engine) -> None:
    gen = ChangesMeanwhile(lambda: None, "The executive bonus pool is CANARY-7f3q9z, paid in "
                                         "March [{sid:CANARY}].")
    sent: list[str] = []
    answer = engine.ask("What is the executive bonus pool?", HR, generator=gen,
                        on_token=sent.append)
    assert answer.outcome == "answered" and "CANARY-7f3q9z" in "".join(sent)


@pytest.mark.parametrize("change", ["acl", "delete"])
def test_a_raw_stream_stops_once_its_source_is_lost(engine: Engine, change: str) -> None:
    """A security review: under ``cite.policy: flag`` the model's tokens went straight to the
    client, and a stream sent a salary table for 29 s after `citewise acl` had narrowed it;
    only the final answer was a decline."""
    settings = Settings.model_validate({"gate": {"threshold": 0.1},
                                        "cite": {"policy": "flag"}})
    with Engine(engine.db, settings, embedder=FakeEmbedder()) as raw:
        (doc,) = raw.store.list_documents()
        write = (lambda: raw.set_acl(doc.doc_id, ["exec"])) if change == "acl" else (
            lambda: raw.delete([doc.doc_id]))

        class Midway(FakeGenerator):  # the change lands after the first words went out
            def generate(self, prompt, *, on_token=None, **kwargs):
                words = ["The", "executive", "bonus", "pool", "is", "CANARY-7f3q9z", "[S1]."]
                on_token(words[0] + " ")
                write()
                time.sleep(0.3)  # past the relay's recheck interval
                for word in words[1:]:
                    on_token(word + " ")
                return super().generate(prompt, **kwargs)

        sent: list[str] = []
        answer = raw.ask("What is the executive bonus pool?", HR, generator=Midway("x"),
                         on_token=sent.append)
    assert "".join(sent) == "The " and answer.declined, (sent, answer)
    assert answer.reason == "sources_changed"
