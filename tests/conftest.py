"""Fixtures shared across test packages."""

from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parents[1] / "examples" / "corpus"


@pytest.fixture
def bad_docs(tmp_path: Path) -> Path:
    """A folder with one good file and three bad ones: a PNG named .md, a .txt that mixes
    UTF-8 with a stray Latin-1 byte, and a truncated PDF (each must fail alone, with a
    one-line message)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ok.md").write_text("# Fine\n\nThis document is fine.\n")
    (docs / "image.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (docs / "bad.txt").write_bytes(b"caf\xc3\xa9 au lait \xe0 2 \xe9uros")
    (docs / "cut.pdf").write_bytes((CORPUS / "incident-response.pdf").read_bytes()[:4000])
    return docs
