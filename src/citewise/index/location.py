"""How an index's location is shown in messages: a PostgreSQL URL without its secrets.

Imports nothing of the PostgreSQL backend (psycopg is the ``postgres`` extra: a command that
imported it to print a path crashed on start in a plain install)."""

from __future__ import annotations

import re
from os import PathLike
from urllib.parse import quote, unquote

_USER_PASSWORD = re.compile(r"^([A-Za-z][\w+.-]*://[^/@:?#]*:)([^/]*)@")
"""The password of ``scheme://user:password@host`` as libpq reads it: up to the ``@``, any
``#``, ``?`` or ``@`` in it included (a review: ``u:s3cr#et@`` was shown whole)."""
SECRET_PARAMS = frozenset({"password", "sslpassword", "passfile"})


def redact(url: str) -> str:
    """The URL without its secrets, for messages: the password in the user part
    (``u:secret@host``) and libpq's ``password``, ``sslpassword`` and ``passfile``
    parameters (``?password=secret``, also with the name percent-encoded)."""
    url = _USER_PASSWORD.sub(r"\1***@", url, count=1)
    head, mark, query = url.partition("?")
    if not mark:
        return url
    parts = []
    for part in query.split("&"):
        key, equals, _ = part.partition("=")
        secret = equals and unquote(key).strip().lower() in SECRET_PARAMS
        parts.append(f"{key}=***" if secret else part)
    return head + mark + "&".join(parts)


def scrub(text: str, url: str) -> str:
    """``text`` (a message) with every secret of ``url`` masked, as written, decoded or
    encoded: a URL libpq cannot parse is quoted back in its error ("invalid URI query
    parameter: \"cret@127.0.0.1…\"" for a password with a ``?`` in it; the second review),
    and the URL a message names may be a rebuilt one the masking of :func:`redact` no longer
    reads."""
    secrets = []
    if (m := _USER_PASSWORD.search(url)) is not None:
        secrets.append(m.group(2))
    _, mark, query = url.partition("?")
    for part in query.split("&") if mark else ():
        key, equals, value = part.partition("=")
        if equals and unquote(key).strip().lower() in SECRET_PARAMS:
            secrets.append(value)
    for secret in sorted({s for raw in secrets if raw
                          for s in (raw, unquote(raw), quote(raw, safe=""),
                                    quote(unquote(raw), safe=""))}, key=len, reverse=True):
        text = text.replace(secret, "***")
    return text


def shown(db: str | PathLike[str]) -> str:
    """``db`` (a SQLite path or a PostgreSQL URL) as a message shows it."""
    text = str(db)
    return redact(text) if "://" in text else text
