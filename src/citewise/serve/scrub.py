"""What an asker below operator may see of the server itself: its own endpoints, file paths
and upstream error bodies, in notes, traces, log records and error messages, are replaced by
``<endpoint>``/``<path>`` (the server's log file and an operator keep them). A security
review's reader saw the internal LLM endpoint's URL and its error body in an answer's notes,
then in the rewriter's ``note``, ``GET /v1/log`` and the stream's ``error`` event."""

from __future__ import annotations

import hashlib
import hmac
import re
from typing import Any

from citewise.errors import BackendUnavailable, NotFoundError, StoreError, VersionError
from citewise.index.location import scrub as secrets_masked
from citewise.serve.keys import ApiPrincipal
from citewise.text import without_bodies

_URL = re.compile(r"(?:https?|postgres(?:ql)?)://[^\s)\"']+")  # the index's URL too
_SERVER_AT = re.compile(r"""(?:server at|host|hostaddr|port|role|database|user)(?::)? """
                        r"""(["'])[^"'\n]*\1(?:,? port \d+)?""")
"""psycopg's ways of naming the database server and its account: 'connection to server at
"10.0.0.5", port 5432', "failed to resolve host 'db.internal'", "host: '10.0.0.5', port:
'1', hostaddr: …", 'role "svc" does not exist' (reviews read them in scrubbed errors)."""
_PATH = re.compile(r"(?<![\w.:/])/(?!v1/)(?:[\w.\-]+/)+[\w.\-]*")  # the API's own routes stay
SERVER_KEYS = frozenset({"notes", "note", "error", "chosen", "detail", "fix"})
"""Keys whose strings may hold the server's own text (exceptions, model choices). Other
strings (answers, a citation's source URL) are the documents' and stay."""


def scrub(text: str) -> str:
    """``text`` without server URLs, file paths and upstream error bodies."""
    text = _SERVER_AT.sub("<endpoint>", _URL.sub("<endpoint>", without_bodies(text)))
    return _PATH.sub("<path>", text)


def for_asker(data: Any, who: ApiPrincipal | None, key: str = "") -> Any:
    """``data`` (JSON: an answer, a log record, a problem) as ``who`` may see it: unchanged
    for an operator; otherwise :func:`scrub` applied to the strings under
    :data:`SERVER_KEYS`. ``who=None`` (not yet authenticated) sees it scrubbed."""
    if who is not None and who.can("operator"):
        return data
    if isinstance(data, dict):
        return {k: for_asker(v, who, k) for k, v in data.items()}
    if isinstance(data, list):
        return [for_asker(v, who, key) for v in data]
    if isinstance(data, str) and key in SERVER_KEYS:
        return scrub(data)
    return data


def store_error_text(exc: Exception, text: str, db: object) -> str:
    """``text``, the message of ``exc``, with the secrets of the index's URL ``db`` masked
    when the store or its driver wrote it (:class:`~citewise.errors.StoreError` but a
    missing id or version, :class:`~citewise.errors.BackendUnavailable`: a driver quotes a
    URL it cannot parse back; the CLI masks them so). Only there: masked in every message,
    a reader's own input echoed back ("not in the index: hunter2" as "…: ***") told a
    password guess right (the review of this stop)."""
    url = str(db)
    if "://" not in url or not isinstance(exc, StoreError | BackendUnavailable) \
            or isinstance(exc, NotFoundError | VersionError):  # these name what was asked
        return text
    return secrets_masked(text, url)


def pseudonymous_chunks(data: Any, key: bytes) -> Any:
    """``data`` (a log record as JSON) with every ``chunk_id`` replaced by a keyed pseudonym
    (HMAC-SHA256 under ``key``, a secret of this server process; 32 hex digits): what an
    admin sees of someone else's request. A chunk id hashes its document's id, offsets and
    text with no secret in it, so a security review's admin who read the chunk ids of an
    hr-only document in ``GET /v1/log`` confirmed guessed sentences of it offline ("The
    savings target … is 4.2 million euro"). One chunk keeps one pseudonym while the server
    runs, so records can still be compared."""
    if isinstance(data, dict):
        return {k: (_pseudonym(v, key) if k == "chunk_id" and isinstance(v, str)
                    else pseudonymous_chunks(v, key)) for k, v in data.items()}
    if isinstance(data, list):
        return [pseudonymous_chunks(v, key) for v in data]
    return data


def _pseudonym(chunk_id: str, key: bytes) -> str:
    return hmac.new(key, chunk_id.encode(), hashlib.sha256).hexdigest()[:32]


SCORE_KEYS = frozenset({"score", "p_yes"})
"""Keys of the figures a chunk's text decides (its BM25 and dense scores, the fused score,
the gate's signals, the reader's P(yes)), withheld from someone else's record
(:func:`without_scores`)."""


def without_scores(data: Any, parent: str = "") -> Any:
    """``data`` (a log record as JSON) with every score computed from a passage's text set
    to None (:data:`SCORE_KEYS`, and the numbers of a ``signals`` mapping): what an admin sees
    of someone else's request, besides :func:`pseudonymous_chunks`. A security review's
    admin outside hr read an hr record's dense score (0.770852, six decimals) and the logged
    question, embedded guesses of the hr passage with the same open model, and the true
    text alone gave that score. Ranks, thresholds, token counts and timings stay."""
    if isinstance(data, dict):
        return {k: (None if (k in SCORE_KEYS or parent == "signals")
                    and isinstance(v, (int, float)) and not isinstance(v, bool)
                    else without_scores(v, k)) for k, v in data.items()}
    if isinstance(data, list):
        return [without_scores(v, parent) for v in data]
    return data
