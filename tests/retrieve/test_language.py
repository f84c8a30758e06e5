"""A multilingual site: hits in the question's language first (a new user's English
questions on Rust by Example got Spanish, Japanese and Korean pages in all ten hits); an index
in one language is searched as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewise.config import Settings
from citewise.engine import Engine
from citewise.retrieve.language import in_language_first, question_language
from citewise.testing import FakeEmbedder
from citewise.types import Document, Principal

PUBLIC = Principal.of("public")
EXAMPLE = "while let Some(top) = stack.pop() { println!(\"{top}\"); }"


def _doc(lang: str | None) -> Document:
    return Document(doc_id=f"d-{lang}", title="t", content_hash="c", tenant="default",
                    acl_groups=frozenset({"public"}), metadata={"lang": lang} if lang else {})


def test_the_question_language_is_read_among_the_sites_languages() -> None:
    langs = ["en", "es", "ja", "ko", "zh"]
    assert question_language("how do I loop while a pattern keeps matching?", langs) == "en"
    assert question_language("¿Cómo recorro un vector hasta vaciarlo?", langs) == "es"
    assert question_language("クロージャの所有権を移すには？", langs) == "ja"
    assert question_language("Vec::pop", langs) is None  # not sure: nothing reordered
    assert question_language("how do I loop?", ["en", "x-klingon"]) is None


def test_pages_in_the_question_language_come_first_and_score_above_the_others() -> None:
    docs = {"a": _doc("es"), "b": _doc("en"), "c": _doc(None), "d": _doc("ja")}
    order = in_language_first([("a", 0.9), ("b", 0.5), ("c", 0.4), ("d", 0.3)], docs, "en")
    assert [cid for cid, _ in order] == ["b", "c", "a", "d"]
    scores = [score for _, score in order]
    assert scores == sorted(scores, reverse=True) and scores[:2] == [0.5, 0.4]


def _site(root: Path) -> Path:
    pages = {"while_let.html": ("en", "while let", "Pop every element of a stack with while "
                                "let until the stack is empty."),
             "es/while_let.html": ("es", "while let", "Saca cada elemento de una pila con "
                                   "while let hasta que la pila esté vacía."),
             "ja/while_let.html": ("ja", "while let", "スタックが空になるまで while let で要素を"
                                   "取り出します。")}
    for rel, (lang, title, text) in pages.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"<html lang='{lang}'><head><title>{title}</title></head><body><main>"
                        f"<h1>{title}</h1><p>{text}</p><pre><code>{EXAMPLE}</code></pre>"
                        "</main></body></html>", encoding="utf-8")
    return root


@pytest.mark.parametrize("question, first", [
    ("how do I pop every element of a stack until it is empty with while let?", "en"),
    ("¿cómo saco cada elemento de una pila hasta que esté vacía con while let?", "es")])
def test_search_prefers_the_question_language_of_a_multilingual_site(
        tmp_path: Path, question: str, first: str) -> None:
    with Engine(tmp_path / "i.db", Settings(), embedder=FakeEmbedder()) as engine:
        engine.ingest_paths([_site(tmp_path / "book")], {"groups": ["public"]})
        result = engine.search(question, PUBLIC, top_k=3)
    langs = [h.document.metadata.get("lang") for h in result.hits]
    assert langs[0] == first, langs
    code = [h for h in result.hits if h.chunk.text.strip().startswith("while let Some")]
    assert not code or code[0].document.metadata["lang"] == first  # the example's copy too
    assert any(f"those in {first}, the question's, first" in n for n in result.notes)


def test_a_site_in_one_language_is_searched_as_before(tmp_path: Path) -> None:
    with Engine(tmp_path / "i.db", Settings(), embedder=FakeEmbedder()) as engine:
        engine.ingest_paths([_site(tmp_path / "book")], {"groups": ["public"]},
                            exclude=["es", "ja"])
        result = engine.search("how do I pop every element of a stack?", PUBLIC)
    assert result.hits and not any("languages" in n for n in result.notes)


def test_one_search_does_not_narrow_the_next_ones_languages() -> None:
    """A review: the identifier's languages, narrowed for one tenant's search, were the
    candidates of the next (another tenant's), whose language was then never found."""
    french = "comment puis-je parcourir un vecteur jusqu'à ce qu'il soit vide ?"
    assert question_language(french, ["en", "fr"]) == "fr"
    assert question_language("how do I loop over a vector?", ["de", "en", "es"]) == "en"
    assert question_language(french, ["en", "fr"]) == "fr"


def test_a_declared_language_is_read_as_its_primary_subtag() -> None:
    """A review: front matter's ``lang: en-US`` was a third language beside en and fr, and
    its page, BM25's and the embedder's first, went below an English one."""
    docs = {"a": _doc("fr"), "b": _doc("en-US"), "c": _doc("en"), "d": _doc(["en"])}
    order = in_language_first([("a", 0.9), ("b", 0.8), ("c", 0.5), ("d", 0.4)], docs, "en")
    assert [cid for cid, _ in order] == ["b", "c", "d", "a"]  # a list declares nothing
