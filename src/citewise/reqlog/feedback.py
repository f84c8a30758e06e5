"""``citewise feedback export``: thumbs-down and declined requests as eval-set candidates.

Each candidate is an eval-format question (:mod:`citewise.eval.questions`) whose ``relevant``
pieces are the documents the request retrieved or cited, marked *unconfirmed*: a person must
confirm or fix them (and the answer) before the line joins an eval set. Requests logged with
a hashed query cannot be exported (their question was never stored)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from citewise.reqlog.monitor import UNSEARCHED
from citewise.reqlog.record import LogRecord


def candidates(records: Iterable[LogRecord], *, max_docs: int = 5) -> Iterator[dict[str, Any]]:
    seen: set[str] = set()
    for r in records:
        why = "thumbs_down" if (r.feedback or 0) < 0 else "declined" if r.declined else None
        if why is None or r.kind != "ask" or r.query is None or r.reason in UNSEARCHED:
            continue  # a "thanks!" or a cut-short ask is no eval question
        key = " ".join(r.query.casefold().split())
        if key in seen:
            continue
        seen.add(key)
        docs = list(dict.fromkeys([*r.cited, *(d for _, d, _ in r.retrieved)]))[:max_docs]
        yield {"id": f"fb-{r.request_id[:12]}", "question": r.query,
               "relevant": [{"doc": d, "section": None} for d in docs],
               "kind": f"feedback:{why}", "persona": r.principal or None,
               "unconfirmed": True,
               "source": {"request_id": r.request_id, "time": r.iso_time, "reason": why,
                          "declined": r.declined, "decline_reason": r.reason,
                          "feedback_note": r.feedback_note, "index_version": r.index_version}}
