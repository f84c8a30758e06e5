"""How an index's location is shown in messages: a PostgreSQL URL without its secrets
(and an HTTP endpoint's URL, the same way: :func:`redact`, :func:`scrub`).

Imports nothing of the PostgreSQL backend (psycopg is the ``postgres`` extra: a command that
imported it to print a path crashed on start in a plain install)."""

from __future__ import annotations

import re
from os import PathLike
from urllib.parse import quote, unquote

_USER_PASSWORD = re.compile(r"^([A-Za-z][\w+.-]*://[^/@:?#]*:)([^/]*)@")
"""The password of ``scheme://user:password@host`` as libpq reads it: up to the ``@``, any
``#``, ``?`` or ``@`` in it included (a review: ``u:s3cr#et@`` was shown whole)."""
SECRET_PARAMS = frozenset({"password", "sslpassword", "passfile", "key", "apikey", "api_key",
                           "sig", "signature", "auth", "code"})
"""Query parameters whose value is a secret: libpq's, and an HTTP endpoint's key
(``?api-key=…``, ``?key=…``); besides these, any name with a word of
:data:`_SECRET_WORDS` (``access_token``, ``client_secret``; not ``passwordless``)."""
_SECRET_WORDS = frozenset({"token", "secret", "password", "key", "apikey"})


POSTGRES_SCHEMES = ("postgresql://", "postgresql+psycopg://", "postgres://")


def is_postgres(target: str | PathLike[str]) -> bool:
    """Whether ``target`` (a ``--db`` value) is a PostgreSQL URL."""
    return str(target).startswith(POSTGRES_SCHEMES)


def split_query(url: str) -> tuple[str, str]:
    """``(url before its query, the query)``, the query starting at the first ``?`` after
    the user part, which ends at the last ``@`` before the path (as libpq reads a URL: a
    password may hold a ``?``)."""
    head = url.find("://") + 3 if "://" in url else 0
    slash = url.find("/", head)
    at = url.rfind("@", head, slash if slash >= 0 else len(url))
    mark = url.find("?", at + 1 if at >= 0 else head)
    return (url, "") if mark < 0 else (url[:mark], url[mark + 1:])


def _secret(part: str) -> str | None:
    """The value of a query ``part`` (``key=value``) whose key names a secret, else None."""
    key, equals, value = part.partition("=")
    name = unquote(key).strip().lower().replace("-", "_")
    secret = name in SECRET_PARAMS or bool(_SECRET_WORDS & set(name.split("_")))
    return value if equals and secret else None


def redact(url: str) -> str:
    """The URL without its secrets, for messages: the password in the user part
    (``u:secret@host``) and libpq's ``password``, ``sslpassword`` and ``passfile``
    parameters (``?password=secret``, also with the name percent-encoded)."""
    masked = _USER_PASSWORD.sub(r"\1***@", url, count=1)
    head, query = split_query(masked)
    if not query:
        return masked
    parts = [part if _secret(part) is None else f"{part.partition('=')[0]}=***"
             for part in query.split("&")]
    return f"{head}?{'&'.join(parts)}"


def scrub(text: str, url: str) -> str:
    """``text`` (a message) with every secret of ``url`` masked, as written, decoded or
    encoded: a URL libpq cannot parse is quoted back in its error ("invalid URI query
    parameter: \"cret@127.0.0.1…\"" for a password with a ``?`` in it; the second review),
    and the URL a message names may be a rebuilt one the masking of :func:`redact` no longer
    reads."""
    secrets = [m.group(2)] if (m := _USER_PASSWORD.search(url)) is not None else []
    secrets += [v for part in split_query(url)[1].split("&") if (v := _secret(part))]
    secrets += [piece for raw in secrets for piece in _at_pieces(raw)]
    for secret in sorted({s for raw in secrets if raw
                          for s in (raw, unquote(raw), quote(raw, safe=""),
                                    quote(unquote(raw), safe=""))}, key=len, reverse=True):
        text = text.replace(secret, "***")
    return text


def _at_pieces(secret: str) -> list[str]:
    """The parts of a password with an ``@`` in it before and after each ``@`` (4 characters
    or more): libpq splits ``u:first@TAIL@host`` at the first ``@`` and quotes the rest as
    the host name in its error, "failed to resolve host 'TAIL@host'" (a security review)."""
    parts = secret.split("@")
    pieces = ["@".join(parts[i:]) for i in range(1, len(parts))]
    pieces += ["@".join(parts[:i]) for i in range(1, len(parts))]
    return [p for p in pieces if len(p) >= 4]


def shown(db: str | PathLike[str]) -> str:
    """``db`` (a SQLite path or a PostgreSQL URL) as a message shows it."""
    text = str(db)
    return redact(text) if "://" in text else text
