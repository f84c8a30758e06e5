"""The library façade: :func:`connect` and the Engine verbs the CLI and the HTTP API share.

``EngineVerbs`` is mixed into :class:`~citewise.engine.Engine`; it holds every verb whose setup
used to live in the CLI (status, documents, evaluate, calibrate, migrate, streaming ask; the
version verbs, backup among them, in :mod:`citewise.facade_versions`), so a command and an
HTTP route are both "parse, call, print".
Every verb returns a typed result with one ``to_dict()`` (:mod:`citewise.results`).
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from citewise.config import Settings
from citewise.errors import ConfigError, NotFoundError
from citewise.facade_versions import VersionVerbs
from citewise.index.location import shown
from citewise.results import (
    CalibrationResult,
    DocumentInfo,
    DocumentSection,
    EvalResult,
    IngestResult,
    MigrationResult,
    StatusReport,
    StreamEvent,
)
from citewise.text import first_few
from citewise.trace import ConversationTrace
from citewise.types import Principal

if TYPE_CHECKING:
    from citewise.engine import Engine


def connect(db_or_url: str | Path, settings: Settings | Mapping[str, Any] | None = None,
            **kwargs: Any) -> Engine:
    """An :class:`~citewise.engine.Engine` on the index at ``db_or_url`` (a SQLite path,
    ``sqlite:///path``, or ``postgresql://...``). ``settings``: a :class:`Settings` or a
    mapping validated into one (``{"retrieve": {"top_k": 5}}``). Opening is lazy and cheap;
    use it as a context manager (or call ``close()``) to release the index."""
    from citewise.engine import Engine

    if settings is not None and not isinstance(settings, Settings):
        settings = settings_from(settings)
    return Engine(db_or_url, settings, **kwargs)


def settings_from(data: Mapping[str, Any]) -> Settings:
    """Validate a settings mapping; the first problem becomes one :class:`ConfigError`."""
    from pydantic import ValidationError

    try:
        return Settings.model_validate(dict(data))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ConfigError(f"setting {where}: {first['msg']}. Fix: see `citewise config` for "
                          "the valid settings") from exc


def with_overrides(settings: Settings, **dotted: Any) -> Settings:
    """``settings`` with ``section.key`` overrides (``None`` values are ignored)."""
    data = settings.model_dump()
    for key, value in dotted.items():
        if value is not None:
            section, name = key.split(".", 1)
            data[section][name] = value
    return settings_from(data)


class EngineVerbs(VersionVerbs):
    """The verbs of :class:`~citewise.engine.Engine` beyond search/ask/ingest/delete/acl."""

    db: Any
    settings: Settings

    # -- catalog ------------------------------------------------------------------------------

    def status(self: Engine, documents: bool = False) -> StatusReport:
        counts = self.store.count()
        manifest = self.store.manifest()
        docs = tuple(self.documents()) if documents else None
        return StatusReport(shown(self.db), counts.documents, counts.chunks, counts.vectors,
                            manifest, docs, self.index_info().version)

    def documents(self: Engine, principal: Principal | None = None) -> list[DocumentInfo]:
        """Every document (``principal``: only those it may read), ordered by id."""
        docs = self.store.list_documents()
        if principal is not None:
            docs = [d for d in docs if principal.may_read(d)]
        return [DocumentInfo.of(d, principal) for d in sorted(docs, key=lambda d: d.doc_id)]

    def document(self: Engine, doc_id: str, principal: Principal | None = None) -> DocumentInfo:
        """One document; unknown (or, with ``principal``, unreadable) ids are NotFound, so a
        caller cannot tell a hidden document from a missing one."""
        doc = self.store.get_document(doc_id)
        if doc is None or (principal is not None and not principal.may_read(doc)):
            raise NotFoundError(f"not in the index: {doc_id}. Fix: list documents with "
                                "`citewise status --documents`")
        return DocumentInfo.of(doc, principal)

    def section(self: Engine, ref: str, principal: Principal,
                anchor: str | None = None) -> DocumentSection:
        """The section a citation opens, as ``principal`` may read it: ``ref`` is a document
        id or a citation's link (``file:///…/grep.info.gz#known-bugs``, the ``#anchor`` read
        unless ``anchor`` is given); the whole document without an anchor, or when no block
        has it. A browser opens no section of a compressed or Info file."""
        from citewise.section import section_around

        doc_id, anchor = self._cited(ref, principal, anchor)
        info = self.document(doc_id, principal)
        parsed = self.store.get_parsed(doc_id)
        every = () if parsed is None else tuple(parsed.blocks)
        around = section_around(every, anchor, info.title) if anchor else None
        start, end = around or (0, len(every))
        return DocumentSection(info, every[start:end], start, len(every), anchor,
                               found=around is not None or not anchor)

    def _cited(self: Engine, ref: str, principal: Principal,
               anchor: str | None) -> tuple[str, str | None]:
        """``(doc_id, anchor)`` of ``ref``: a readable document's id, else the readable
        document whose link (source URL, ``file://`` URI or local path) ``ref`` is, less its
        ``#anchor``. Only documents ``principal`` may read are matched."""
        from citewise.ingest.metadata import file_url_path

        doc = self.store.get_document(ref)
        if doc is not None and principal.may_read(doc):
            return ref, anchor
        base, _, fragment = ref.partition("#")
        anchor = (unquote(fragment) or None) if anchor is None else anchor
        local = file_url_path(base) or (base if "://" in base else _resolved(base))
        readable = [d for d in self.store.list_documents() if principal.may_read(d)]
        links = {base, *(base + index for index in _FOLDER_INDEXES
                         if "://" in base and base.endswith("/"))}
        linked = sorted(d.doc_id for d in readable if d.doc_id == base or d.source_url in links
                        or file_url_path(d.source_url or "") == local)
        if len(linked) > 1:  # a security review's upload took the handbook's link, and
            at = f"#{fragment}" if fragment else ""  # the anchor the link gave
            raise ConfigError(f"{base} is the link of {len(linked)} documents you may read "
                              f"({first_few(linked)}). Fix: show one by its id, e.g. "
                              f"`citewise show '{linked[0]}{at}'`")  # `show LINK` opened
            # the upload
        if linked:
            return linked[0], anchor
        tails = [d for d in readable if local.endswith("/" + d.doc_id)]
        if len(tails) == 1 and "://" not in local and self._same_file(tails[0], local):
            return tails[0].doc_id, anchor  # ingested with --base-url: the link is the
        return base, anchor  # site's, the id the path under the folder read (a new user's
        # show failed); else no such readable document: NotFound, as for an id

    def _same_file(self: Engine, doc: Any, path: str) -> bool:
        """Whether the file at ``path`` holds ``doc``'s longest block (the site's chrome
        and title suffix, removed at ingest, aside): a review's unrelated
        ``other/docs/install.md`` opened the indexed ``site/docs/install.md``."""
        from citewise.ingest import load_file

        stored = self.store.get_parsed(doc.doc_id)
        if stored is None or not stored.blocks or not Path(path).is_file():
            return False
        longest = " ".join(max(stored.blocks, key=lambda b: len(b.text)).text.split())[:200]
        try:
            text = load_file(Path(path), self.settings.limits).text
        except Exception:  # an unreadable file is not that document
            return False
        return longest in " ".join(text.split())

    def ingest_files(self: Engine, paths: Sequence[str | Path],
                     defaults: Mapping[str, Any] | None = None,
                     sidecar: Mapping[str, Mapping[str, Any]] | None = None,
                     **kwargs: Any) -> IngestResult:
        """:meth:`ingest_paths` with a typed result."""
        return IngestResult.of(self.ingest_paths(paths, dict(defaults or {}), sidecar,
                                                 **kwargs))

    # -- quality ------------------------------------------------------------------------------

    def evaluate(self: Engine, questions: str | Path | None = None,
                 personas: str | Path | None = None, *, as_persona: str | None = None,
                 k: int | None = None, answers: bool = False, out: str | Path | None = None,
                 name: str | None = None, judge: bool | Any = False,
                 on_progress: Callable[[int], None] | None = None) -> EvalResult:
        """Run an eval set; with ``out``, write run.json, run.trec, qrels.trec, report.html.
        ``judge`` (needs ``answers``): judge every answer's correctness with
        :meth:`answer_judge` (or the :class:`~citewise.eval.judge.AnswerJudge` given)."""
        from citewise.eval.bootstrap import run_summary
        from citewise.eval.harness import run_eval
        from citewise.eval.judge import judge_run

        ev = self.settings.eval
        questions = questions or ev.questions
        if not questions:
            raise ConfigError("no eval set. Fix: pass --questions FILE (or set eval.questions)")
        if judge is not False and not answers:
            raise ConfigError("the judge grades answers, and this run asks for none. "
                              "Fix: pass --answers with --judge")
        run = run_eval(self, questions, personas or ev.personas, as_persona=as_persona,
                       k=k or ev.k, answers=answers,
                       name=name or (Path(out).resolve().name if out else "run"),
                       on_progress=on_progress)
        if judge is not False:
            judge_run(run, self.answer_judge() if judge is True else judge)
        written: tuple[str, ...] = ()
        if out is not None:
            written = _write_eval_outputs(run, Path(out), ev.bootstrap_samples, ev.seed)
        summary = run_summary(run, ev.bootstrap_samples, ev.seed)
        return EvalResult(summary, run, written, tuple(run.warnings))

    def answer_judge(self: Engine) -> Any:
        """The answer-correctness judge of ``eval.judge`` / ``eval.judge_model`` (one per
        Engine; the model loads on its first judgement)."""
        from citewise.eval.judge import AnswerJudge
        from citewise.eval.judge_models import make_judge_model

        judge = getattr(self, "_answer_judge", None)
        if judge is None:
            judge = AnswerJudge(make_judge_model(self.settings),
                                self.settings.eval.judge_threshold)
            self._answer_judge = judge
        return judge

    def judge_check(self: Engine, labels: str | Path, *, judge: Any = None,
                    on_progress: Callable[[int], None] | None = None) -> Any:
        """The judge's agreement (accuracy, Cohen's kappa, 95 % intervals) with a file of
        hand-labelled answers (:mod:`citewise.eval.judge_labels`)."""
        from citewise.eval.judge_labels import check_agreement

        return check_agreement(labels, judge or self.answer_judge(), self.settings.eval.seed,
                               on_progress=on_progress)

    def calibrate(self: Engine, questions: str | Path | Sequence[Any],
                  personas: str | Path | None = None, *,
                  principal: Principal | None = None, as_persona: str | None = None,
                  max_false_decline: float = 0.1, store: bool = True,
                  source: str | None = None, force: bool = False,
                  on_progress: Callable[[int], None] | None = None) -> CalibrationResult:
        """Fit the grounding gate on ``questions`` (an eval-set path or loaded/synthesized
        questions) and store it in the index unless ``store`` is false or the fit is
        refused (``Calibration.refusal``: it declines nothing, or, unless ``force``, it does
        worse on its test half than the gate in force); the result says if it was stored."""
        from citewise.answer.calibration import run_calibration, store_calibration
        from citewise.eval.questions import load_personas

        loaded = load_personas(personas) if personas else {}
        principal = principal or loaded.get("default")
        if principal is None and as_persona is None:
            raise ConfigError("who asks the questions without a persona? Fix: pass --groups "
                              "(e.g. --groups staff) or a personas file with a `default` "
                              "persona.")
        result = run_calibration(self, questions, loaded, principal, as_persona,
                                 max_false_decline, on_progress=on_progress)
        stored = store and result.may_store(force)
        if stored:
            store_calibration(self, result, source=source or str(questions))
        return CalibrationResult(result, stored)

    def migrate(self: Engine, target: str, *, batch_docs: int = 200, sample: int = 20,
                on_progress: Callable[[int], None] | None = None) -> MigrationResult:
        """Copy this (SQLite) index into ``target`` (a PostgreSQL URL), then verify."""
        from citewise.index import open_store
        from citewise.index.migrate import migrate_index

        with open_store(target) as dst:
            return MigrationResult(migrate_index(self.store, dst, batch_docs=batch_docs,
                                                 sample=sample, on_progress=on_progress))

    # -- conversations ------------------------------------------------------------------------

    def converse(self: Engine, question: str, principal: Principal,
                 history: Sequence[Any] = (), **kwargs: Any) -> Any:
        """:meth:`ask` for a follow-up: earlier ``history`` turns (``Turn`` or
        ``{question, answer}``) make it a standalone query first (``trace.conversation``)."""
        from citewise.answer.rewrite import rewrite_followup

        turns = _turns(history)
        if not turns:
            return self.ask(question, principal, **kwargs)
        generator = kwargs.get("generator") or self.generator
        started = time.perf_counter()
        rw = rewrite_followup(question, turns, generator,
                              timeout_s=self.settings.generate.timeout_s or 30.0)
        rewrite_ms = round((time.perf_counter() - started) * 1000, 3)
        answer = self.ask(rw.query, principal, **kwargs)
        return _with_conversation(answer, question, rw, len(turns), rewrite_ms)

    # -- streaming ----------------------------------------------------------------------------

    def ask_stream(self: Engine, question: str, principal: Principal,
                   history: Sequence[Any] = (), *, gone: threading.Event | None = None,
                   **kwargs: Any) -> Iterator[StreamEvent]:
        """:meth:`ask` as events: ``token`` pieces while the generator writes, then one
        ``answer`` (validated, with citations). Errors are raised from the iterator. Closing
        the iterator early, or setting ``gone`` (a client that went away), stops the
        generation at its next token: a security review's abandoned streams each ran the
        model to the end."""
        events: queue.Queue[Any] = queue.Queue()
        done = object()
        left = gone or threading.Event()

        def token(piece: str) -> None:
            if left.is_set():
                raise _Left("nobody reads this answer any more")
            events.put(StreamEvent("token", piece) if piece else StreamEvent("held"))

        def work() -> None:
            try:
                answer = self.converse(question, principal, history, on_token=token, **kwargs)
                events.put(StreamEvent("answer", answer=answer))
            except BaseException as exc:  # handed to the consumer, raised there
                events.put(exc)
            events.put(done)

        threading.Thread(target=work, name="citewise-ask", daemon=True).start()
        try:
            while (item := events.get()) is not done:
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            left.set()


class _Left(Exception):
    """Raised into a generation whose stream nobody reads any more (it stops the model)."""


def _turns(history: Sequence[Any]) -> list[Any]:
    from citewise.answer.rewrite import Turn, turns_from

    if all(isinstance(t, Turn) for t in history):
        return list(history)
    return turns_from([t.to_dict() if isinstance(t, Turn) else t for t in history])


def _with_conversation(answer: Any, question: str, rw: Any, turns: int,
                       rewrite_ms: float = 0.0) -> Any:
    """``answer`` to the standalone query, as the answer to ``question``: the rewrite in its
    trace, and its time in the timings' total (a new user's 140 s follow-up showed 116)."""
    from dataclasses import replace

    conversation = ConversationTrace(rw.original, rw.query, rw.method, rw.note, turns)
    timings = answer.trace.timings_ms
    if timings is not None:
        timings = replace(timings, rewrite=rewrite_ms,
                          total=round((timings.total or 0.0) + rewrite_ms, 3))
    return replace(answer, question=question, trace=replace(
        answer.trace, conversation=conversation, timings_ms=timings))


def _write_eval_outputs(run: Any, out: Path, samples: int, seed: int) -> tuple[str, ...]:
    from citewise.eval.interop import questions_to_qrels
    from citewise.eval.report import render_report
    from citewise.eval.runs import write_qrels, write_trec_run
    from citewise.private import make_private_dir, write_private_text

    make_private_dir(out)
    run.save(out / "run.json")
    write_trec_run(out / "run.trec", run.doc_runs(), tag=f"citewise-{run.name}")
    write_qrels(out / "qrels.trec", questions_to_qrels([r.question for r in run.records]))
    write_private_text(out / "report.html", render_report(run, samples, seed))
    return tuple(str(out / n) for n in ("run.json", "run.trec", "qrels.trec", "report.html"))


def _resolved(path: str) -> str:
    """``path`` made absolute, or as given when the OS cannot resolve it (a symlink loop
    raised RuntimeError out of ``citewise show``)."""
    try:
        return str(Path(path).resolve())
    except (OSError, RuntimeError):
        return path


_FOLDER_INDEXES = ("index/", "index.html")
"""What a site serves at a folder's URL: a page ``ref/contrib/admin/index.html`` ingested
under a ``{stem}/`` template links as ``…/admin/index/``, which djangoproject.com redirects
to ``…/admin/``, the URL a new user then pasted into ``show`` ("not in the index")."""
