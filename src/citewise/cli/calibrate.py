"""``citewise calibrate``: choose the grounding gate's signal and threshold from labelled
questions, print the curve, and store the choice in the index."""

from __future__ import annotations

import click

from citewise.answer.calibrate import Calibration
from citewise.cli.common import (
    db_option,
    echo,
    echo_json,
    engine_from,
    friendly_errors,
    settings_options,
)
from citewise.cli.progress import make_bar, progress_mode, progress_options
from citewise.errors import ConfigError
from citewise.index.location import shown
from citewise.private import write_private_text
from citewise.types import Principal


def _ci(lo_hi: tuple[float, float]) -> str:
    return f"[{lo_hi[0]:.1%}, {lo_hi[1]:.1%}]"


def _asker(principal: Principal | None, personas_path: str | None,
           as_persona: str | None) -> Principal:
    from citewise.eval.questions import load_personas

    if principal is not None:
        return principal
    personas = load_personas(personas_path) if personas_path else {}
    asker = personas.get(as_persona or "default")
    if asker is None:
        raise ConfigError(f"--synthesize: who asks? no persona {as_persona or 'default'!r}. "
                          "Fix: pass --groups or a --personas file that defines it.")
    return asker


def print_calibration(result: Calibration, points: int = 12) -> None:
    echo(f"dev {result.n_dev} questions, test {result.n_test}; "
         f"decline when score < threshold; false declines allowed ≤ "
         f"{result.max_false_decline:.0%}")
    if result.warning:
        echo(f"warning: {result.warning}", err=True)
    echo("ROC AUC on dev (95% bootstrap interval): " + ", ".join(
        f"{k} {v:.3f} [{result.auc_interval.get(k, (v, v))[0]:.3f}, "
        f"{result.auc_interval.get(k, (v, v))[1]:.3f}]" for k, v in result.auc.items()))
    curve = result.curves[result.signal]
    step = max(1, len(curve) // points)
    echo(f"\ncurve of {result.signal} on dev (threshold, abstention, false decline, "
         f"95% Wilson intervals):")
    for p in [*curve[::step], result.dev]:
        mark = "  <- chosen" if p is result.dev else ""
        ci = p.intervals()
        echo(f"  {p.threshold:8.4f}  {p.abstention:6.1%} {_ci(ci['abstention'])}  "
             f"{p.false_decline:6.1%} {_ci(ci['false_decline'])}{mark}")
    echo(f"\nchosen: {result.signal} ≥ {result.threshold:.4f}")
    now = result.in_force
    rows = [("dev", result.dev), ("test", result.test)]
    if now is not None and now.test is not None:
        echo(f"in force now: {now.signal} ≥ {now.threshold:.4f} ({now.source})")
        rows.append(("test, in force now", now.test))
    for name, p in rows:
        if p is not None:
            ci = p.intervals()
            echo(f"  {name}: abstention accuracy {p.abstention:.1%} "
                 f"{_ci(ci['abstention'])} (n={p.n_unanswerable}), false-decline rate "
                 f"{p.false_decline:.1%} {_ci(ci['false_decline'])} "
                 f"(n={p.n_answerable}), decision accuracy {p.accuracy:.1%}")
    if result.reader is not None:
        from citewise.answer.reader_fit import describe

        echo(describe(result.reader))
        for name, p in (("dev", result.reader.dev), ("test", result.reader.test)):
            if p is not None:
                ci = p.intervals()
                echo(f"  {name}, retrieval + reader: abstention {p.abstention:.1%} "
                     f"{_ci(ci['abstention'])}, false-decline rate "
                     f"{p.false_decline:.1%} {_ci(ci['false_decline'])}")


def _synthesized(engine, principal: Principal, n: int, save_path: str | None):
    from citewise.answer.synthesize import as_jsonl, synthesize

    made = synthesize(engine, principal, n, engine.generator)
    answerable, unanswerable = made.counts()
    echo(f"synthesized {answerable} answerable and {unanswerable} unanswerable "
         f"questions ({len(made.rejected)} dropped)", err=True)
    if save_path:
        write_private_text(save_path, as_jsonl(made.questions))  # it quotes restricted text
    if unanswerable == 0 or answerable == 0:
        what = ("none of its near misses was verified unanswerable (a name no readable "
                "document contains, or an answer only a restricted one holds)"
                if made.questions else "none of its replies held a question")
        seen = "; ".join(made.rejected[:3]) or "no reply"
        raise ConfigError(f"the model wrote from {n} passages, but {what} ({seen}), so the "
                          "gate cannot be calibrated on them. Fix: calibrate on labelled "
                          "questions (--questions), or let a stronger model write them "
                          "(generate.generator: openai in --config)")
    return made.questions, f"synthesized:{n}"


@click.command()
@click.option("--questions", "questions_path", default=None,
              type=click.Path(dir_okay=False, exists=True),
              help="Eval set JSONL (questions with `relevant: []` are unanswerable).")
@click.option("--synthesize", type=click.IntRange(min=4), default=None, metavar="N",
              help="No labels: the LLM writes questions from N passages the asker may read "
                   "(answerable), near misses about things the corpus lacks (checked absent "
                   "by search) and questions from N passages the asker may not read (checked "
                   "unanswered elsewhere), and the gate is calibrated on those.")
@click.option("--save", "save_path", type=click.Path(dir_okay=False), default=None,
              help="With --synthesize: also write the questions (JSONL) for review.")
@click.option("--personas", "personas_path", type=click.Path(dir_okay=False, exists=True),
              default=None, help="Personas JSON for questions that name one.")
@click.option("--as", "as_persona", default=None, help="Ask every question as this persona.")
@click.option("--groups", default=None,
              help="Groups of the asker for questions without a persona "
                   "(default: the `default` persona).")
@click.option("--tenant", default="default", show_default=True, help="Tenant of that asker.")
@click.option("--max-false-decline", type=click.FloatRange(0, 1), default=0.1,
              show_default=True, help="Most answerable questions the gate may decline.")
@click.option("--no-store", is_flag=True, help="Print the result without storing it.")
@click.option("--force", is_flag=True,
              help="Store it even when it does worse on its test half than the gate in force "
                   "(never one that declines nothing).")
@click.option("--json", "as_json", is_flag=True, help="Print the result and curve as JSON.")
@progress_options
@db_option
@settings_options
@friendly_errors
def calibrate(questions_path, synthesize, save_path, personas_path, as_persona, groups, tenant,
              max_false_decline, no_store, force, as_json, progress, quiet, db, config_path,
              model, threads):
    """Calibrate the grounding gate on labelled questions (or synthesized ones) and store it
    in the index."""
    if (questions_path is None) == (synthesize is None):
        raise click.UsageError("pass either --questions FILE or --synthesize N")
    from citewise.eval.questions import load_questions

    principal = Principal.of(groups, tenant=tenant) if groups else None
    with engine_from(db, config_path, model, threads, must_exist=True) as engine:
        if synthesize is not None:
            asker = _asker(principal, personas_path, as_persona)
            questions, source = _synthesized(engine, asker, synthesize, save_path)
        else:
            questions, source = load_questions(questions_path), str(questions_path)
            for warning in (w for q in questions for w in q.warnings):
                echo(f"warning: {warning}", err=True)
        with make_bar("calibrate", total=len(questions), unit="question",
                      mode=progress_mode(progress, quiet, as_json=as_json)) as bar:
            result = engine.calibrate(questions, personas_path, principal=principal,
                                      as_persona=as_persona,
                                      max_false_decline=max_false_decline,
                                      store=not no_store, source=source, force=force,
                                      on_progress=bar.update)
    if as_json:
        echo_json(result.to_dict())
    else:
        print_calibration(result.calibration)
    if not result.stored and not no_store:  # refused: printed, the index keeps its gate
        raise ConfigError(f"this calibration is not stored: {result.calibration.refusal}")
    if result.stored and not as_json:
        echo(f"stored in {shown(db)} for tenant {result.calibration.tenant}'s users "
             "(gate.signal, gate.threshold, gate.reader)")
