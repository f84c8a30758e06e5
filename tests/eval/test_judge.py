"""The answer-correctness judge: agreement statistics (hand-computed), the judge's rules
(declines, unanswerable, failures), `eval run --answers --judge` and `eval judge-check`."""

from __future__ import annotations

import json
import math
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from click.testing import CliRunner

from citewise.cli.main import cli
from citewise.errors import ConfigError
from citewise.eval.agreement import accuracy, cohen_kappa, confusion, kappa_interval
from citewise.eval.judge import MAX_ANSWER_CHARS, AnswerJudge, judge_messages, prompt_hash
from citewise.eval.judge_labels import check_agreement, fit_threshold, load_labels
from citewise.eval.record import EvalRun
from citewise.testing import FakeJudgeModel

T, F = True, False


def test_kappa_and_accuracy_hand_computed():
    human = [T, T, T, T, F, F, F, F, T, F]
    judge = [T, T, T, F, F, F, T, F, T, F]
    # both 4, human_only 1, judge_only 1, neither 4: p_o 0.8, p_h = p_j = 0.5, p_e 0.5
    assert confusion(human, judge).to_dict() == {"both": 4, "human_only": 1, "judge_only": 1,
                                                 "neither": 4}
    assert accuracy(human, judge) == pytest.approx(0.8)
    assert cohen_kappa(human, judge) == pytest.approx((0.8 - 0.5) / 0.5)


def test_kappa_with_unequal_marginals():
    # 50 items: both 20, human_only 5, judge_only 10, neither 15.
    # p_o = 35/50 = 0.7; p_h = 25/50, p_j = 30/50; p_e = .5*.6 + .5*.4 = 0.5; kappa 0.4
    human = [T] * 20 + [T] * 5 + [F] * 10 + [F] * 15
    judge = [T] * 20 + [F] * 5 + [T] * 10 + [F] * 15
    assert accuracy(human, judge) == pytest.approx(0.7)
    assert cohen_kappa(human, judge) == pytest.approx(0.4)
    lo, hi = kappa_interval(human, judge)
    assert -1.0 <= lo < 0.4 < hi <= 1.0


def test_kappa_extremes():
    assert cohen_kappa([T, F, T], [T, F, T]) == pytest.approx(1.0)
    assert cohen_kappa([T, F], [F, T]) == pytest.approx(-1.0)
    # a judge that says "correct" to everything agrees 75 % of the time and not beyond chance
    assert accuracy([T, T, T, F], [T, T, T, T]) == pytest.approx(0.75)
    assert cohen_kappa([T, T, T, F], [T, T, T, T]) == pytest.approx(0.0)
    assert math.isnan(cohen_kappa([T, T], [T, T]))  # both raters constant: undefined
    assert math.isnan(cohen_kappa([], []))
    with pytest.raises(ConfigError, match="judge every labelled item once"):
        confusion([T], [T, F])


def test_judge_rules_and_model_calls():
    model = FakeJudgeModel()
    judge = AnswerJudge(model)
    right = judge.judge("default timeout?", ["5 seconds"], "It is 5 seconds [1].")
    assert right.correct is True and right.p_correct == pytest.approx(0.9)
    wrong = judge.judge("default timeout?", ["5 seconds"], "There is no timeout [2].")
    assert wrong.correct is False and wrong.reason == "judged"
    assert len(model.calls) == 2
    assert "[1]" not in model.calls[0][-1]["content"]  # citations stripped before judging
    declined = judge.judge("default timeout?", ["5 seconds"], "", declined=True)
    assert declined.correct is False and declined.p_correct is None
    na = judge.judge("rate limits?", [], "Insufficient evidence.", answerable=False)
    assert not na.applicable and "abstention" in na.reason
    assert not judge.judge("q", [], "an answer").applicable  # no reference to judge against
    assert len(model.calls) == 2  # none of the last three asked the model
    assert right.model == "fake-judge" and right.prompt_hash == prompt_hash()


def test_judge_failure_is_not_scored():
    verdict = AnswerJudge(FakeJudgeModel(fail="endpoint down")).judge("q", ["r"], "a")
    assert verdict.correct is None and verdict.reason.startswith("judge failed: endpoint down")


def test_threshold_and_long_answers():
    assert AnswerJudge(FakeJudgeModel(p=0.6), threshold=0.7).judge("q", ["r"], "a").correct \
        is False
    messages = judge_messages("q", ["r1", "r2"], "x" * (MAX_ANSWER_CHARS + 500))
    content = messages[-1]["content"]
    assert "Expected answer: r1 | r2" in content and "x" * (MAX_ANSWER_CHARS + 1) not in content


def test_evaluate_with_judge(engine, questions, personas, tmp_path):
    pytest.importorskip("citewise.cite.validate")
    engine.settings = engine.settings.model_copy(update={"generate": engine.settings.generate
                                                         .model_copy(update={"generator":
                                                                             "extractive"})})
    model = FakeJudgeModel()
    result = engine.evaluate(questions, {"default": personas["staff"], **personas},
                             answers=True, judge=AnswerJudge(model), out=tmp_path / "out")
    run = result.run
    judged = {r.id: r.judge for r in run.records}
    assert judged["parking"]["correct"] is None  # unanswerable: not applicable
    assert judged["train"]["correct"] is None  # answerable, but no reference answer
    meal = judged["meal"]
    assert meal["correct"] is not None and meal["model"] == "fake-judge"
    fig = result.summary["figures"]["judge_correct"]
    applicable = [v for v in judged.values() if v["correct"] is not None]
    assert fig["n"] == len(applicable) and 0.0 <= fig["lo"] <= fig["mean"] <= fig["hi"] <= 1.0
    assert result.summary["judge"]["interval"] == "wilson"
    again = EvalRun.load(tmp_path / "out" / "run.json")
    assert again.by_id()["meal"].judge == meal
    assert "judge_correct" in (tmp_path / "out" / "report.html").read_text()
    with pytest.raises(ConfigError, match="pass --answers with --judge"):
        engine.evaluate(questions, personas, as_persona="staff", judge=True)


def _label(i, correct, answer="It is 5 seconds.", question_id=None):
    return {"id": f"a{i}", "question_id": question_id or f"q{i}", "question": "default timeout?",
            "references": ["5 seconds"], "answer": answer, "generator": "extractive",
            "label": "correct" if correct else "incorrect", "reason": "test"}


def _write_labels(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_check_agreement_with_the_fake(tmp_path):
    rows = [_label(i, True) for i in range(6)] + [_label(i, False, "No timeout.")
                                                 for i in range(6, 10)]
    rows[0]["label"] = "incorrect"  # one human label the fake disagrees with
    result = check_agreement(_write_labels(tmp_path / "l.jsonl", rows), AnswerJudge(
        FakeJudgeModel())).to_dict()
    assert result["n"] == 10 and result["human_correct"] == 5
    assert result["accuracy"]["value"] == pytest.approx(0.9)
    assert result["confusion"] == {"both": 5, "human_only": 0, "judge_only": 1, "neither": 4}
    assert result["prompt_hash"] == prompt_hash() and len(result["items"]) == 10
    assert sum(h["n"] for h in result["halves"].values()) == 10


def test_fit_threshold_chooses_on_dev_and_reports_test():
    # dev: correct answers score 0.7-0.8, incorrect 0.55-0.6 -> a threshold in between
    items = [{"human": h, "p_correct": p, "half": half}
             for half in ("dev", "test")
             for h, p in ((T, 0.8), (T, 0.7), (F, 0.6), (F, 0.55))]
    fit = fit_threshold(items)
    assert fit["threshold"] == pytest.approx(0.7) and fit["dev_kappa"] == pytest.approx(1.0)
    assert fit["test"]["kappa"]["value"] == pytest.approx(1.0) and fit["test"]["n"] == 4


def test_labels_file_errors(tmp_path):
    bad = _label(1, True)
    bad["label"] = "maybe"
    with pytest.raises(ConfigError, match="line 1: label 'maybe'"):
        load_labels(_write_labels(tmp_path / "l.jsonl", [bad]))
    with pytest.raises(ConfigError, match="duplicate id"):
        load_labels(_write_labels(tmp_path / "l.jsonl", [_label(1, True), _label(1, False)]))
    with pytest.raises(ConfigError, match="cannot read labels"):
        load_labels(tmp_path / "none.jsonl")


class _JudgeEndpoint:
    """An OpenAI-compatible endpoint on loopback that answers the judge's question with
    top logprobs: Yes when the proposed answer contains the reference."""

    def __init__(self):
        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                p_yes = FakeJudgeModel().p_yes(body["messages"])
                top = [{"token": "Yes", "logprob": math.log(p_yes)},
                       {"token": "No", "logprob": math.log(1 - p_yes)}]
                data = json.dumps({"choices": [{"message": {"content": "Yes"},
                                                "logprobs": {"content": [
                                                    {"token": "Yes", "top_logprobs": top}]}}]})
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data.encode())

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    @property
    def base_url(self):
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"


def test_judge_check_cli_against_an_endpoint(tmp_path):
    server = _JudgeEndpoint()
    try:
        config = tmp_path / "c.json"
        config.write_text(json.dumps({"eval": {"judge": "openai"}, "generate": {
            "openai": {"base_url": server.base_url, "model": "judge-x"}}}))
        rows = [_label(i, True) for i in range(4)] + [_label(i, False, "No.")
                                                     for i in range(4, 8)]
        labels = _write_labels(tmp_path / "l.jsonl", rows)
        out = tmp_path / "agreement.json"
        result = CliRunner().invoke(cli, ["eval", "judge-check", "--labels", str(labels),
                                          "--config", str(config), "--write", str(out), "-q"])
        assert result.exit_code == 0, result.output
        assert "judge openai:judge-x" in result.output and "kappa 1.0000" in result.output
        assert json.loads(out.read_text())["accuracy"]["value"] == 1.0
    finally:
        server.httpd.shutdown()



def test_eval_run_answers_judge_cli(engine, questions, tmp_path):
    from citewise.eval.questions import write_questions

    pytest.importorskip("citewise.cite.validate")
    qpath, ppath = tmp_path / "set.jsonl", tmp_path / "personas.json"
    write_questions(qpath, questions)
    ppath.write_text(json.dumps({"default": {"groups": ["staff"]},
                                 "staff": {"groups": ["staff"]},
                                 "hr": {"groups": ["staff", "hr"]}}))
    engine.close()
    server = _JudgeEndpoint()
    try:
        config = tmp_path / "c.json"
        config.write_text(json.dumps({"eval": {"judge": "openai"}, "generate": {
            "generator": "extractive",
            "openai": {"base_url": server.base_url, "model": "judge-x"}}}))
        base = ["eval", "run", "--questions", str(qpath), "--personas", str(ppath), "--db",
                str(engine.db), "--mode", "bm25", "--config", str(config), "-q"]
        refused = CliRunner().invoke(cli, [*base, "--judge", "--out", str(tmp_path / "x")])
        assert refused.exit_code == 1 and "Fix: pass --answers with --judge" in refused.output
        result = CliRunner().invoke(cli, [*base, "--answers", "--judge",
                                          "--out", str(tmp_path / "out")])
        assert result.exit_code == 0, result.output
        assert "judge_correct" in result.output and "judge openai:judge-x" in result.output
        run = EvalRun.load(tmp_path / "out" / "run.json")
        assert run.by_id()["parking"].judge["correct"] is None
        assert "judge_correct" in (tmp_path / "out" / "report.html").read_text()
    finally:
        server.httpd.shutdown()
