"""Print the answer-level figures of an `eval run --answers --json` output, overall and per
persona, with their 95% bootstrap intervals.

Usage: python evals/summary.py eval-out/valgrind/answers.json
       python evals/summary.py eval-out/valgrind/run.json   (scored again by this release)

A ``run.json`` (written by ``eval run --out``) is scored with this release's metrics, so a
run made before a metric changed (containment's tokens, 2026-12-03) is comparable to a new one.

On the valgrind set the persona slices separate the two kinds of unanswerable question:
``default`` holds the ones the manual cannot answer by nature, ``public`` the ones whose
answer sits only in pages restricted from that persona.
"""

import json
import sys

FIGURES = ("abstention_accuracy", "false_decline_rate", "acl_leaks", "unsupported_claim_rate",
           "citation_validity", "containment", "token_f1", "hit@5", "ndcg@10")


def _line(label: str, figures: dict) -> str:
    cells = []
    for name in FIGURES:
        f = figures.get(name)
        if f:
            cells.append(f"{name} {f['mean']:.3f} [{f['lo']:.3f}, {f['hi']:.3f}] n={f['n']}")
    return "\n".join([label] + [f"    {c}" for c in cells])


def main(path: str) -> None:
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    data = json.loads(text)
    if "records" in data:  # a run.json: score it now
        from citewise.eval.bootstrap import run_summary
        from citewise.eval.record import EvalRun

        data = run_summary(EvalRun.from_json(text, path))
    boot = data["bootstrap"]
    print(f"{data['questions']} questions ({data['answerable']} answerable); "
          f"{boot['level']:.0%} bootstrap intervals ({boot['samples']} samples)")
    print(_line("all", data["figures"]))
    for name, figures in sorted(data["slices"].get("persona", {}).items()):
        print(_line(f"persona {name}", figures))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python evals/summary.py ANSWERS_JSON|RUN_JSON (from eval run --answers "
                 "--json, or run.json from its --out folder)")
    main(sys.argv[1])
