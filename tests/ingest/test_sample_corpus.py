"""The shipped Northwind Robotics sample corpus loads cleanly and says what the demo needs."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from citewise.ingest import SUPPORTED_SUFFIXES, load_file, read_sidecar

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CORPUS = EXAMPLES / "corpus"
SIDECAR = EXAMPLES / "corpus.meta.jsonl"


def _corpus_files() -> list[Path]:
    return sorted(p for p in CORPUS.rglob("*") if p.is_file())


def test_corpus_has_every_format_and_only_supported_files():
    files = _corpus_files()
    assert 12 <= len(files) <= 16
    assert all(p.suffix in SUPPORTED_SUFFIXES for p in files)
    assert {p.suffix for p in files} >= {".md", ".html", ".pdf", ".txt"}


@pytest.mark.parametrize("path", _corpus_files(), ids=lambda p: p.name)
def test_corpus_file_loads(path, check_offsets):
    parsed = load_file(path)
    check_offsets(parsed)
    words = len(parsed.text.split())
    assert 150 <= words <= 900, f"{path.name}: {words} words"
    assert parsed.title and parsed.title != path.stem
    if parsed.format == "markdown":
        assert {"title", "owner", "updated_at", "groups"} <= set(parsed.metadata)


def test_sidecar_restricts_compensation_bands_to_hr():
    entries = read_sidecar(SIDECAR)
    names = {p.relative_to(CORPUS).as_posix() for p in _corpus_files()}
    assert set(entries) <= names, "every sidecar path names a corpus file"
    assert entries["compensation-bands.md"]["groups"] == ["hr"]
    for key, meta in entries.items():
        if key != "compensation-bands.md":
            assert meta["groups"] == ["staff"]
    markdown_staff = [load_file(p) for p in _corpus_files() if p.suffix == ".md"]
    restricted = [d for d in markdown_staff if "hr" in d.metadata["groups"]]
    assert [d.title for d in restricted] == ["Compensation Bands 2026"]


def test_sample_answers_are_in_the_corpus():
    leave = load_file(CORPUS / "leave-policy.md")
    parental = [b for b in leave.blocks if b.heading_path[-1:] == ("Parental leave",)]
    assert any("100 working days (20 weeks)" in b.text for b in parental)
    assert parental[0].anchor == "parental-leave"
    manual = load_file(CORPUS / "manual.html")
    codes = next(b for b in manual.blocks if b.kind == "table" and b.text.startswith("Code"))
    assert codes.anchor == "error-codes"
    assert "E42 | Lift overload: the load on the lift deck is above 600 kg" in codes.text
    incident = load_file(CORPUS / "incident-response.pdf")
    assert incident.pages == 3
    sev1 = [b for b in incident.blocks if "SEV1" in b.text and "10 minutes" in b.text]
    assert sev1 and sev1[0].anchor == "page=1"


def test_make_pdf_is_deterministic(tmp_path):
    pytest.importorskip("reportlab")
    spec = importlib.util.spec_from_file_location("make_pdf", EXAMPLES / "make_pdf.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = module.build(tmp_path / "again.pdf")
    assert out.read_bytes() == (CORPUS / "incident-response.pdf").read_bytes()
