"""The one text layer: a library stemmer, one stopword list, and no other copies of either."""

from __future__ import annotations

import ast
import threading
from pathlib import Path

import pysqlite3 as sqlite3

from citewise.text import STOPWORDS, query_terms, stem

SRC = Path(__file__).resolve().parents[1] / "src" / "citewise"


def test_stem_conflates_word_forms() -> None:
    assert stem("policies") == stem("policy") == stem("Policy")
    assert stem("scheduled") == stem("schedule") == stem("scheduling")
    assert {stem(w) for w in ("reduces", "reduced", "reducing", "reduce")} == {"reduc"}
    assert stem("inhibition") == stem("inhibits") == "inhibit"
    assert stem("runs") == "run" and stem("class") == "class" and stem("virus") == "virus"


def test_stem_agrees_with_the_sqlite_index_on_ordinary_words() -> None:
    """FTS5's ``porter`` tokenizer and :func:`stem` (Porter2) conflate the same word forms
    for ordinary inflections, so the gate's coverage counts what BM25 matched."""
    pairs = [("policies", "policy"), ("scheduled", "schedule"), ("connections", "connection"),
             ("timeouts", "timeout"), ("retrying", "retry"), ("headers", "header")]
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(w, tokenize='porter unicode61')")
    for a, b in pairs:
        db.execute("INSERT INTO t(w) VALUES (?)", (a,))
        hit = db.execute("SELECT count(*) FROM t WHERE t MATCH ?", (f'"{b}"',)).fetchone()[0]
        db.execute("DELETE FROM t")
        assert hit == 1 and stem(a) == stem(b), (a, b)


def test_stem_is_safe_across_threads() -> None:
    words = [f"connection{'s' * (i % 2)}" for i in range(2000)]
    out: list[set[str]] = []
    threads = [threading.Thread(target=lambda: out.append({stem(w) for w in words}))
               for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert out == [{"connect"}] * 4


def test_one_stopword_list_used_by_query_terms() -> None:
    assert {"the", "however", "may", "without"} <= STOPWORDS
    assert "policy" not in STOPWORDS and "time" not in STOPWORDS
    assert query_terms("However, may the policy apply without approval?") == [
        "policy", "apply", "approval"]


def test_no_other_stemmer_or_stopword_list_in_the_package() -> None:
    """Every stage uses :mod:`citewise.text`: no module defines its own ``stem`` function or
    a ``STOPWORDS`` set."""
    offenders = []
    for path in SRC.rglob("*.py"):
        if path == SRC / "text.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name == "stem":
                offenders.append(f"{path.relative_to(SRC)}: def stem")
            targets = node.targets if isinstance(node, ast.Assign) else (
                [node.target] if isinstance(node, ast.AnnAssign) else [])
            for target in targets:
                if isinstance(target, ast.Name) and "STOPWORD" in target.id.upper():
                    offenders.append(f"{path.relative_to(SRC)}: {target.id}")
    assert offenders == []
