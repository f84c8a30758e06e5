"""The web page in real headless Chromium (Debian chromium + chromedriver via selenium): two
users ask the same question; the hr-restricted document's text reaches the one in hr and never
the DOM, network responses or console of the one without the group. Screenshots are kept in
test-artifacts/."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.serve.conftest import ROOT, SECRET, SECRET_DOC, Served, serve_index

from citewise.testing.browser import browser_missing, headless_chromium
from citewise.testing.server import serving

ARTIFACTS = ROOT / "test-artifacts"
QUESTION = "What is the salary band midpoint for a Director?"

pytestmark = pytest.mark.skipif(bool(browser_missing()), reason=browser_missing() or "ok")


def _wait(driver, script: str, timeout: float = 30.0):  # noqa: ANN202
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout).until(lambda d: d.execute_script(script))


def run_in_page(tmp_path: Path, ready: str, script: str, arg: object) -> object:
    """Serve an empty index's page, wait until its function ``ready`` is defined, and
    return what ``script`` (given ``arg`` as ``arguments[0]``) returns there."""
    _, app = serve_index(str(tmp_path / "index.db"), tmp_path)
    with serving(app) as url, headless_chromium() as driver:
        driver.get(url)
        _wait(driver, f"return typeof {ready} === 'function'")
        return driver.execute_script(script, arg)


def _bodies(driver) -> list[str]:
    """Every network response body the page received (performance log + CDP)."""
    out = []
    for entry in driver.get_log("performance"):
        msg = json.loads(entry["message"])["message"]
        if msg["method"] == "Network.responseReceived":
            url = msg["params"]["response"]["url"]
            try:
                body = driver.execute_cdp_cmd("Network.getResponseBody",
                                              {"requestId": msg["params"]["requestId"]})
            except Exception:  # e.g. a body the browser already dropped
                body = {"body": ""}
            out.append(f"{url}\n{body.get('body', '')}")
    return out


def _ask_as(url: str, key: str, name: str) -> dict:
    with headless_chromium() as driver:
        driver.get(url)
        driver.find_element("id", "key").send_keys(key)
        driver.find_element("css selector", "#key-form button").click()
        _wait(driver, f"return document.getElementById('who').textContent.includes('{name}')")
        driver.find_element("id", "question").send_keys(QUESTION)
        driver.find_element("id", "ask").click()
        _wait(driver, "return !document.getElementById('answer').classList.contains('streaming')"
                      " && document.getElementById('feedback').hidden === false")
        ARTIFACTS.mkdir(exist_ok=True)
        driver.save_screenshot(str(ARTIFACTS / f"page-{name}.png"))
        print(f"screenshot: {ARTIFACTS / f'page-{name}.png'}")
        driver.find_element("css selector", "#why summary").click()
        driver.find_element("id", "trace-link").click()
        _wait(driver, "return document.querySelector('.trace-json') !== null")
        driver.find_element("id", "thumbs-down").click()
        _wait(driver, "return document.getElementById('feedback-done').textContent !== ''")
        links = driver.find_elements("css selector", ".citation a.source")
        if links:
            links[0].click()
            _wait(driver, "return document.getElementById('viewer').hidden === false")
        shot = ARTIFACTS / f"page-{name}-why-and-source.png"
        driver.save_screenshot(str(shot))
        print(f"screenshot: {shot}")
        question = driver.find_element("id", "question")  # a follow-up in the conversation
        question.clear()
        question.send_keys("And the bonus target?")
        driver.find_element("id", "ask").click()
        _wait(driver, "return !document.getElementById('answer').classList.contains('streaming')"
                      " && document.getElementById('feedback').hidden === false")
        driver.find_element("css selector", "#why summary").click()
        followup = driver.find_element("id", "why-body").text
        return {"followup": followup,"dom": driver.page_source, "network": _bodies(driver),
                "console": json.dumps(driver.get_log("browser")),
                "cards": [c.text for c in driver.find_elements("css selector", ".citation")],
                "decline": driver.find_element("id", "decline").text,
                "why": driver.find_element("id", "why-body").text}


def test_two_users_ask_the_same_question(tmp_path: Path) -> None:
    keys, app = serve_index(str(tmp_path / "index.db"), tmp_path)
    with serving(app) as url:
        hana = _ask_as(url, keys["hana"], "hana")
        sam = _ask_as(url, keys["sam"], "sam")
        s = Served(url, keys, "", app)
        log = s.client("ada").get("/v1/log").json()["records"]
    # the one in hr sees the restricted passage: in a card, the DOM and a network response
    assert any("Compensation Bands" in c for c in hana["cards"])
    assert SECRET in hana["dom"] and any(SECRET in b for b in hana["network"])
    assert "Grounding gate" in hana["why"] and "Stage latencies" in hana["why"]
    assert "Follow-up searched as" in hana["followup"] and "salary" in hana["followup"]
    # the one without the group: nowhere
    assert sam["network"], "the performance log recorded no responses"
    for where in ("dom", "console"):
        assert SECRET not in sam[where] and SECRET_DOC not in sam[where], where
    for body in sam["network"]:
        assert SECRET not in body and SECRET_DOC not in body, body[:200]
    assert sam["cards"] or sam["decline"].startswith("Declined:")
    rated = {r["principal"]: r["feedback"] for r in log if r["feedback"] is not None}
    assert rated == {"hana": -1, "sam": -1}


def test_code_in_an_answer_is_shown_as_code_and_never_as_html(tmp_path: Path) -> None:
    """Extractive answers quote code fenced (``generate/examples.py``); the page shows each
    block as a <pre> of its own lines, and a quoted '<img onerror=…>' stays text."""
    text = ("You can install SOCKS support using pip [1]:\n```\n$ pip install httpx[socks]\n"
            "```\nThen <img src=x onerror=alert(1)> [1].")
    shown = run_in_page(tmp_path, "answerView",
                        "const box = document.getElementById('answer'); box.replaceChildren("
                        "...answerView(arguments[0])); return [box.querySelectorAll("
                        "'pre.code').length, box.querySelector('pre.code').textContent, "
                        "box.querySelectorAll('img').length, box.textContent];", text)
    assert shown[:3] == [1, "$ pip install httpx[socks]", 0]
    assert shown[3].startswith("You can install SOCKS support using pip [1]:")
    assert "<img src=x onerror=alert(1)> [1]." in shown[3] and "```" not in shown[3]


def test_admin_page_charts_drift(tmp_path: Path) -> None:
    keys, app = serve_index(str(tmp_path / "index.db"), tmp_path)
    with serving(app) as url:
        s = Served(url, keys, "", app)
        for q in ("parental leave weeks", "share price target 2030", QUESTION):
            s.client("sam").post("/v1/ask", json={"question": q})
        _history(app.state.citewise.log)
        with headless_chromium() as driver:
            driver.get(url + "/admin")
            driver.find_element("id", "key").send_keys(keys["ada"])
            driver.find_element("css selector", "#key-form button").click()
            _wait(driver, "return document.querySelectorAll('#drift-chart polyline').length == 6")
            _wait(driver, "return document.querySelectorAll('#requests tbody tr').length >= 3")
            ARTIFACTS.mkdir(exist_ok=True)
            shot = ARTIFACTS / "admin-drift.png"
            driver.save_screenshot(str(shot))
            print(f"screenshot: {shot}")
            totals = driver.find_element("id", "totals").text
        assert "203 requests (203 asks)" in totals and "abstention 2" in totals


def _history(log) -> None:  # noqa: ANN001
    """Twenty past days of asks whose abstention rate climbs (the chart has something to
    show)."""
    import time

    from citewise.reqlog.record import LogRecord

    now = time.time()
    for day in range(20):
        for i in range(10):
            declined = i < 1 + day // 5
            log.write(LogRecord(f"h{day}-{i}", now - (20 - day) * 86400, "sam", "northwind",
                                "ask", "q", "h", (("c", "d", 0.1),), 1, declined=declined,
                                reason="weak_evidence" if declined else None,
                                gate_passed=not declined))


def test_a_citations_web_link_names_the_site_it_opens(tmp_path: Path) -> None:
    """Stop 63's security review: a title copied from another source ("Official Security
    Policy › Password rotation") and the link shown only as "open source at this section":
    a reader could not see the host before clicking."""
    card = {"id": 1, "doc_id": "notes.md", "title": "Official Security Policy",
            "heading_path": ["Password rotation"], "quote": "every 5 days",
            "source": "https://evil.example/notes#password-rotation", "anchor": None,
            "updated_at": "2026-12-01T00:00:00Z"}
    shown = run_in_page(tmp_path, "citationCard",
                        "const a = citationCard(arguments[0]).querySelector('a.source');"
                        "return [a.textContent, a.href];", card)
    assert shown == ["open source at this section (evil.example)",
                     "https://evil.example/notes#password-rotation"]


def test_a_streaming_draft_shows_citation_numbers_not_source_ids(tmp_path: Path) -> None:
    """The model cites [S3]; the final answer shows [1]. While tokens arrive the page showed
    the raw ids, then swapped in other numbers: now the draft is numbered as it streams, and
    a bracket split across tokens is shown once it closes."""
    pieces = ["Leave is 20 weeks [S", "3]. Blocks: three [S1, s", "03]. Pay ", "[see S2]."]
    shown = run_in_page(tmp_path, "handleEvent",
                        "resetResult(); const out = [];"
                        "for (const text of arguments[0]) {"
                        "  handleEvent('event: token\\ndata: ' + JSON.stringify({text}));"
                        "  out.push(document.getElementById('answer').textContent); }"
                        "return out;", pieces)
    assert shown == ["Leave is 20 weeks ", "Leave is 20 weeks [1]. Blocks: three ",
                     "Leave is 20 weeks [1]. Blocks: three [2, 1]. Pay ",
                     "Leave is 20 weeks [1]. Blocks: three [2, 1]. Pay [see S2]."]


def test_a_decline_names_the_terms_no_readable_passage_mentions(tmp_path: Path) -> None:
    """The page said "missing_terms" raw, and a weak decline did not say that a term of the
    question was in no passage (a new user's "… with --json?")."""
    said = run_in_page(tmp_path, "declineReason", "return arguments[0].map(declineReason)", [
        {"reason": "missing_terms", "trace": {"gate": {"missing": ["--json"]}}},
        {"reason": "weak_evidence", "trace": {"gate": {"missing": ["--json", "4.0"]}}},
        {"reason": "weak_evidence", "trace": {"gate": {"missing": []}}},
        {"question": "Does XSLT 3.0 have xsltTransformToJsonString?", "reason": "missing_terms",
         "trace": {"gate": {"missing": ["xslttransformtojsonstring", "3.0", "3"]}}},
        {"question": "How do I package a module for Python 4?", "reason": "weak_evidence",
         "trace": {"gate": {"missing": ["4", "python"]}}}])
    assert said == [
        "none of the passages you may read that match the question best mentions --json",
        "the best matching passages are too weak to answer from, and none of them mentions "
        "--json, 4.0",
        "the best matching passages are too weak to answer from",
        # as the question wrote them (it said "xslttransformtojsonstring" and "3.0, 3")
        "none of the passages you may read that match the question best mentions "
        "xsltTransformToJsonString, XSLT 3.0",
        # a version's number with its name (it said "mentions 4, Python")
        "the best matching passages are too weak to answer from, and none of them mentions "
        "Python 4"]


def test_forgetting_the_key_leaves_nothing_of_its_conversation(tmp_path: Path) -> None:
    """A security review: the page kept the key in localStorage with no way to sign out, and
    the conversation (its turns, sent with the next question) stayed when another key was
    given. "Forget key" removes the key; forgetting it or giving another clears the answer
    shown and the turns kept."""
    keys, app = serve_index(str(tmp_path / "index.db"), tmp_path)
    with serving(app) as url, headless_chromium() as driver:
        driver.get(url)
        assert not driver.find_element("id", "forget-key").is_displayed()
        driver.find_element("id", "key").send_keys(keys["hana"])
        driver.find_element("css selector", "#key-form button").click()
        _wait(driver, "return document.getElementById('who').textContent.includes('hana')")
        driver.find_element("id", "question").send_keys(QUESTION)
        driver.find_element("id", "ask").click()
        _wait(driver, "return !document.getElementById('answer').classList.contains('streaming')"
                      " && document.getElementById('feedback').hidden === false")
        assert driver.execute_script("return history.length") == 1
        driver.find_element("id", "key").send_keys(keys["sam"])  # another user, same browser
        driver.find_element("css selector", "#key-form button").click()
        _wait(driver, "return document.getElementById('who').textContent.includes('sam')")
        assert driver.execute_script("return history.length") == 0
        assert not driver.find_element("id", "result").is_displayed()
        driver.find_element("id", "forget-key").click()
        _wait(driver, "return document.getElementById('who').textContent === 'no key yet'")
        assert driver.execute_script("return localStorage.getItem('citewise.key')") is None
        assert not driver.find_element("id", "forget-key").is_displayed()
        driver.get(url)  # a reload finds no key either
        _wait(driver, "return document.getElementById('who').textContent === 'no key yet'")
