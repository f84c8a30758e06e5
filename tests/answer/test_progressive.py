"""Progressive context: the first passages answer when they can; a decline, an unsupported
answer or a reader's "no" on them reads the whole context (a prefix-extension of the first
prompt), and a terminal never sees a decline that is then replaced."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from citewise.answer.budget import FIRST_READ_TOKENS, MIN_CONTEXT_TOKENS
from citewise.answer.context import Context
from citewise.answer.progressive import WIDEN, hold_declines, prefix, steps
from citewise.answer.prompt import INSUFFICIENT_EVIDENCE
from citewise.config import Settings
from citewise.engine import Engine
from citewise.testing import FakeEmbedder, FakeGenerator
from citewise.testing.fakes import FakeReaderGenerator
from citewise.types import Principal

STAFF = Principal.of("staff", tenant="northwind")
LEAVE_Q = "How many weeks of parental leave do employees get?"
ANSWER = "Parents receive 20 weeks of paid parental leave [{sid:20 weeks}]."
SIZE = 1_117_320_768  # the shipped 1.5B's file: what the first-token cut is computed from


class Sized:
    """A scripted generator reporting a local model's size and threads, as LocalGenerator
    does, so that ``generate.first_token_s`` cuts its context."""

    threads = 1

    def model_bytes(self) -> int:
        return SIZE


class SizedGenerator(Sized, FakeGenerator):
    pass


class SizedReader(Sized, FakeReaderGenerator):
    pass


def engine_for(db: Path, **sections) -> Engine:
    data = {"gate": {"threshold": 0.2}, "generate": {"first_token_s": 2.0},
            "context": {"budget_tokens": 2500}, **sections}
    return Engine(db, Settings.model_validate(data), embedder=FakeEmbedder())


def passages(*tokens: int) -> Context:
    ps = tuple(SimpleNamespace(tokens=t, sid=f"S{i + 1}") for i, t in enumerate(tokens))
    return Context(ps, (), sum(tokens))  # type: ignore[arg-type]


def prompt_of(ps) -> int:
    return 40 + sum(p.tokens + 10 for p in ps)


def test_prefix_fits_the_prompt_and_holds_the_first_read_floor() -> None:
    full = passages(120, 150, 100, 90)
    assert [p.tokens for p in prefix(full, 400, prompt_of).passages] == [120, 150]
    # the first passage is kept past the budget; the next only while under the floor
    assert [p.tokens for p in prefix(full, 100, prompt_of).passages] == [120]
    assert [p.tokens for p in prefix(passages(30, 190, 50), 60, prompt_of).passages] == [30, 190]
    assert [p.tokens for p in prefix(passages(60, 70, 40), 60, prompt_of).passages] == [60, 70]
    assert 60 < FIRST_READ_TOKENS <= 120 < MIN_CONTEXT_TOKENS  # what these cases assume
    assert prefix(passages(MIN_CONTEXT_TOKENS + 100, 20), 100, prompt_of) is None  # too long
    assert len(prefix(full, 10_000, prompt_of).passages) == 4


def test_reading_on_widens_step_by_step_to_the_whole_context() -> None:
    full = passages(100, 60, 80, 120, 90, 200)
    path = steps(prefix(full, 150, prompt_of), full)
    # 160 tokens first; then at least 320: 360 (4 passages); then 720: more than all 650
    assert [len(c.passages) for c in path] == [2, 4, 6] and path[-1] is full
    for before, after in zip(path, path[1:], strict=False):
        assert after.passages[: len(before.passages)] == before.passages  # prefixes
        assert after is full or after.tokens >= WIDEN * before.tokens
    assert steps(full, full) == (full,)
    small = passages(100, 10)
    assert steps(passages(100), small) == (passages(100), small)  # the next step is all


def test_a_decline_is_held_back_and_an_answer_flows() -> None:
    seen: list[str] = []
    relay = hold_declines(seen.append)
    for piece in ("Insufficient", " evidence:", " the available sources"):
        relay(piece)
    assert seen == []
    seen.clear()
    relay = hold_declines(seen.append)
    for piece in ("In", "sulin", " is 20 [S1]."):
        relay(piece)
    assert "".join(seen) == "Insulin is 20 [S1]."  # held while it could be the decline
    assert hold_declines(None) is None


def test_a_decline_from_the_first_passages_reads_them_all(db: Path) -> None:
    gen = SizedGenerator(INSUFFICIENT_EVIDENCE, ANSWER)
    streamed: list[str] = []
    with engine_for(db) as engine:
        answer = engine.ask(LEAVE_Q, STAFF, generator=gen, on_token=streamed.append)
    assert answer.outcome == "answered" and "20 weeks" in answer.answer
    first, second = (p.passages for p in gen.prompts)
    assert 0 < len(first) < len(second)
    assert [p.text for p in second[: len(first)]] == [p.text for p in first]  # a prefix
    trace = answer.trace
    assert trace.escalated.why == "model_declined"
    assert trace.escalated.first_generation.tokens_out > 0
    assert len(trace.context.passages) == len(second)
    assert trace.budget.passages == len(first)
    assert any("did not answer (the model declined)" in n for n in answer.notes)
    assert "Insufficient" not in "".join(streamed)  # held back, then not streamed again


def test_declines_read_on_step_by_step_until_an_answer(db: Path) -> None:
    gen = SizedGenerator(INSUFFICIENT_EVIDENCE, INSUFFICIENT_EVIDENCE, ANSWER)
    with engine_for(db) as engine:
        answer = engine.ask(LEAVE_Q, STAFF, generator=gen)
    path = list(answer.trace.escalated.path)
    assert [len(p.passages) for p in gen.prompts] == path[: len(gen.prompts)]
    assert len(gen.prompts) == min(3, len(path)) and len(path) >= 3  # a middle step exists
    for before, after in zip(gen.prompts, gen.prompts[1:], strict=False):
        assert [p.text for p in after.passages[: len(before.passages)]] == \
            [p.text for p in before.passages]  # each a prefix of the next
    assert answer.outcome == "answered" and "20 weeks" in answer.answer
    assert answer.trace.escalated.first_generation.tokens_out > 0
    read_on = [n for n in answer.notes if "did not answer" in n]  # one line for every step
    assert read_on == [f"the first {path[0]}, then {path[1]} passage(s) did not answer "
                       f"(last: the model declined); read {'all ' if len(path) == 3 else ''}"
                       f"{path[2]}"], answer.notes


def test_reading_on_after_an_unsupported_answer_says_why_it_was_removed(db: Path) -> None:
    """A new user read "no sentence of the answer was supported" as the passages' fault; the
    model had only left its sentences uncited."""
    gen = SizedGenerator("Every parent is given a company car and a pony.", ANSWER)
    with engine_for(db) as engine:
        answer = engine.ask(LEAVE_Q, STAFF, generator=gen)
    assert answer.outcome == "answered" and answer.trace.escalated.why == "unsupported"
    assert any("did not answer (no sentence of the model's answer was kept: 1 no citation)"
               in n for n in answer.notes), answer.notes


def test_the_stage_timings_add_up_over_the_steps_read(db: Path) -> None:
    """Each step's generation time replaced the one before: a new user's ``--explain``
    showed 57 s of stages in a 126 s answer that read on three times."""
    import time

    class Slow(SizedGenerator):
        def generate(self, prompt, **kw):
            time.sleep(0.05)
            return super().generate(prompt, **kw)

    gen = Slow(INSUFFICIENT_EVIDENCE, INSUFFICIENT_EVIDENCE, ANSWER)
    with engine_for(db) as engine:
        answer = engine.ask(LEAVE_Q, STAFF, generator=gen)
    timings = answer.trace.timings_ms
    assert len(gen.prompts) == 3 and timings.generate >= 150
    stages = timings.to_dict()
    assert sum(v for k, v in stages.items() if k != "total") <= stages["total"]


def test_an_answer_from_the_first_passages_stops_there(db: Path) -> None:
    gen = SizedGenerator(ANSWER)
    with engine_for(db) as engine:
        answer = engine.ask(LEAVE_Q, STAFF, generator=gen)
    assert len(gen.prompts) == 1 and answer.trace.escalated is None
    assert len(answer.trace.context.passages) == answer.trace.budget.passages
    assert answer.trace.budget.passages < answer.trace.budget.of_passages


def test_a_failed_generator_is_not_asked_again(db: Path) -> None:
    gen = SizedGenerator(fail="timed out")
    with engine_for(db) as engine:
        answer = engine.ask(LEAVE_Q, STAFF, generator=gen)
    assert len(gen.prompts) == 1 and answer.trace.escalated is None


def test_the_reader_reads_on_before_declining(db: Path, capsys) -> None:
    gen = SizedReader(ANSWER, logprobs=({"No": 0.0}, {"Yes": 0.0}))
    with engine_for(db, gate={"threshold": 0.2, "reader": "on",
                              "reader_threshold": 0.5}) as engine:
        answer = engine.ask(LEAVE_Q, STAFF, generator=gen)
    assert answer.outcome == "answered" and len(gen.read) == 2
    assert answer.trace.escalated.why == "reader_no"
    assert answer.trace.escalated.first_reader.passed is False
    assert answer.trace.gate.reader.passed and answer.trace.gate.passed
    assert len(gen.prompts[0].passages) == answer.trace.escalated.to_passages
    no = SizedReader(ANSWER, logprobs=({"No": 0.0},))
    with engine_for(db, gate={"threshold": 0.2, "reader": "on",
                              "reader_threshold": 0.5}) as engine:
        declined = engine.ask(LEAVE_Q, STAFF, generator=no)
    path = declined.trace.escalated.path
    assert declined.declined and declined.reason == "reader_no" and len(no.read) == len(path)
    assert path[0] < path[-1] == declined.trace.budget.of_passages  # read on to all
    assert no.prompts == []
    from citewise.cli.ask import print_trace

    print_trace(declined)  # --explain says what was read first and that it read on
    out = capsys.readouterr().out
    first = declined.trace.escalated.from_passages
    assert f"-- first read: {first} of {declined.trace.budget.of_passages} passages" in out
    assert f"-- read on: reader_no with {first} passages; then read " \
           f"{' then '.join(map(str, path[1:]))} (of {path[-1]})" in out


def _passage(sid: str, text: str, chunk_id: str = "c1"):
    from tests.generate.conftest import passage

    return passage(sid, text, chunk_id=chunk_id, heading=("Simple Example",))


EXAMPLE = ("Here is a trivial example that calls puts.\n\nint main()\n{\n  ffi_cif cif;\n"
           "  if (ffi_prep_cif(&cif, FFI_DEFAULT_ABI, 1, &ffi_type_sint, args) == FFI_OK)\n"
           "    {\n      ffi_call(&cif, puts, &rc, values);\n    }\n  return 0;\n}")


def test_a_quote_shows_a_passage_the_first_read_cut_as_the_whole_context_holds_it():
    """The first read cuts its strongest passage for the first token's sake; the answer's
    fallback quotes it whole, under the same id, and is checked against that text."""
    from citewise.answer.progressive import whole_texts
    from citewise.answer.prompt import build_prompt
    from citewise.answer.supported import supported_answer
    from citewise.trace import GenerationTrace, TraceDraft
    from citewise.types import Generation

    cut = EXAMPLE[:EXAMPLE.index("      ffi_call")].rstrip()
    read = Context((_passage("S1", cut),), (), 40)
    whole = Context((_passage("S1", EXAMPLE), _passage("S2", "Other.", "c2")), (), 90)
    shown = whole_texts(read.passages, whole)
    assert [(p.sid, p.text, p.tokens) for p in shown] == [
        ("S1", EXAMPLE, whole.passages[0].tokens)]
    assert whole_texts(read.passages, None) == read.passages
    other = Context((_passage("S1", "A different text.", "c1"),), (), 5)
    assert whole_texts(other.passages, whole) == other.passages  # not a cut of it: as read

    model = ("You call it through a cif:\n\n```\nint main()\n{\n  ffi_cif cif;\n```\n\n"
             "Then puts prints the string.")
    draft = TraceDraft()
    draft.set(generation=GenerationTrace("fake", 0, 0, "stop", 0.0, 1.0))
    question = "how do I call puts with libffi?"
    args = (question, build_prompt(question, list(read.passages)), Generation(model, "fake"),
            read, draft)
    shown = supported_answer(*args, [], whole=whole)
    assert shown.outcome == "extractive" and "ffi_call(&cif, puts, &rc, values);" in shown.answer
    assert shown.answer.rstrip().endswith("}\n```") and shown.validation.ok
    as_read = supported_answer(*args, [])
    assert "ffi_call" not in as_read.answer
