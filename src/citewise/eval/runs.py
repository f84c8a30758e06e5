"""TREC run and qrels files, so every ranking can be checked with trec_eval or ranx."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from citewise.errors import ConfigError
from citewise.private import open_private

_UNSAFE = re.compile(r"[%\s]")
_ENCODED = re.compile(r"%(09|0A|0B|0C|0D|20|25)")


def trec_id(value: str) -> str:
    """``value`` with whitespace and ``%`` percent-encoded: TREC files split on whitespace,
    so ``hr/leave policy.md`` broke every line naming it (a security review's finding)."""
    return _UNSAFE.sub(lambda m: "".join(f"%{b:02X}" for b in m.group().encode()), value)


def from_trec_id(value: str) -> str:
    """The id :func:`trec_id` encoded (ASCII whitespace and ``%`` only)."""
    return _ENCODED.sub(lambda m: chr(int(m.group(1), 16)), value)


def write_trec_run(path: str | Path, runs: Mapping[str, Sequence[tuple[str, float]]],
                   tag: str = "citewise") -> None:
    """``qid Q0 docid rank score tag`` per line, ranks 1-based, best first."""
    with open_private(path) as fh:
        for qid, ranked in runs.items():
            for rank, (doc, score) in enumerate(ranked, start=1):
                fh.write(f"{trec_id(qid)} Q0 {trec_id(doc)} {rank} {score:.6f} "
                         f"{trec_id(tag)}\n")


def read_qrels(path: str | Path) -> dict[str, dict[str, int]]:
    """BEIR ``qrels/*.tsv`` (``query-id corpus-id score`` with a header) or TREC qrels
    (``qid 0 docid grade``)."""
    qrels: dict[str, dict[str, int]] = {}
    with Path(path).open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            parts = line.split()
            if not parts or (lineno == 1 and parts[0] == "query-id"):
                continue
            if len(parts) == 3:
                qid, doc, grade = parts
            elif len(parts) == 4:
                qid, _, doc, grade = parts
            else:
                raise ConfigError(f"{path} line {lineno}: expected 3 (BEIR) or 4 (TREC) columns")
            try:
                qrels.setdefault(from_trec_id(qid), {})[from_trec_id(doc)] = int(grade)
            except ValueError as exc:
                raise ConfigError(f"{path} line {lineno}: grade {grade!r} is not an integer") \
                    from exc
    return qrels


def read_trec_run(path: str | Path) -> dict[str, list[tuple[str, float]]]:
    """A TREC run file (``qid Q0 docid rank score tag``) as ``{qid: [(doc, score), ...]}``
    in the file's rank order (the rank column, then line order; scores are not re-sorted)."""
    rows: dict[str, list[tuple[int, int, str, float]]] = {}
    with Path(path).open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            parts = line.split()
            if not parts:
                continue
            if len(parts) != 6:
                raise ConfigError(f"{path} line {lineno}: expected 6 columns "
                                  "(qid Q0 docid rank score tag). Fix: write a TREC run file")
            qid, _, doc, rank, score, _ = parts
            try:
                rows.setdefault(from_trec_id(qid), []).append(
                    (int(rank), lineno, from_trec_id(doc), float(score)))
            except ValueError as exc:
                raise ConfigError(f"{path} line {lineno}: rank/score not numeric ({exc}). "
                                  "Fix: write a TREC run file") from None
    return {q: [(d, s) for _, _, d, s in sorted(r)] for q, r in rows.items()}


def write_qrels(path: str | Path, qrels: Mapping[str, Mapping[str, int]]) -> None:
    """TREC qrels: ``qid 0 docid grade`` per line."""
    with open_private(path) as fh:
        for qid, docs in qrels.items():
            for doc, grade in docs.items():
                fh.write(f"{trec_id(qid)} 0 {trec_id(doc)} {grade}\n")
