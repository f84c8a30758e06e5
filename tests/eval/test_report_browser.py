"""report.html as a user sees it after the README's install (no plotting library): opened in
headless Chromium, every slice has a drawn chart with bars and error bars (issue 12, item 9)."""

from __future__ import annotations

import sys

import pytest

from citewise.eval.questions import parse_question
from citewise.eval.record import EvalRun, QuestionRecord
from citewise.eval.report import render_report
from citewise.testing.browser import browser_missing, headless_chromium


def rec(qid, docs, kind, persona, relevant=("good",)):
    q = parse_question({"id": qid, "question": f"question {qid}?", "kind": kind,
                        "relevant": [{"doc": d} for d in relevant]}, "t")
    hits = [{"rank": i, "doc_id": d, "anchor": None, "heading_path": [], "start": 0, "end": 1,
             "text_hash": d, "tokens": 3, "score": 1.0, "snippet": d}
            for i, d in enumerate(docs, start=1)]
    return QuestionRecord(q, persona, hits, latency_ms=1.0)


@pytest.fixture
def report(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as installed by `make install`
    records = [rec("a", ["good"], "howto", "staff"), rec("b", ["x", "good"], "howto", "hr"),
               rec("c", ["x"], "config", "staff"), rec("d", ["good", "x"], "config", "hr"),
               rec("e", [], "config", "staff", relevant=())]
    path = tmp_path / "report.html"
    path.write_text(render_report(EvalRun(records, name="browser"), samples=100),
                    encoding="utf-8")
    return path


def test_report_plots_render_in_chromium_without_matplotlib(report):
    if why := browser_missing():
        pytest.fail(why)
    page = report.read_text()
    assert "matplotlib" not in page and "pip install" not in page
    with headless_chromium() as driver:
        driver.get(report.as_uri())
        charts = driver.execute_script("""
            return [...document.querySelectorAll('svg.plot')].map(svg => {
              const box = svg.getBoundingClientRect();
              const bars = [...svg.querySelectorAll('g.bar rect')].map(r => r.getBBox());
              return {w: box.width, h: box.height, title: svg.querySelector('title').textContent,
                      bars: bars.length, tall: bars.filter(b => b.height > 1).length,
                      errors: svg.querySelectorAll('g.bar path').length};
            });""")
        console = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
    assert not console, console
    titles = sorted(c["title"] for c in charts)
    assert titles == ["retrieval by answerable", "retrieval by kind",
                      "retrieval by persona"], titles
    for chart in charts:
        assert chart["w"] > 200 and chart["h"] > 200, chart  # laid out, visible
        assert chart["bars"] >= 2 and chart["tall"] >= 1, chart  # bars actually drawn
        assert chart["errors"] >= 1, chart  # with their 95% intervals
