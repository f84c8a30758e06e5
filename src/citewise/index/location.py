"""How an index's location is shown in messages: a PostgreSQL URL without its secrets.

Imports nothing of the PostgreSQL backend (psycopg is the ``postgres`` extra: a command that
imported it to print a path crashed on start in a plain install)."""

from __future__ import annotations

import re
from os import PathLike
from urllib.parse import urlsplit

_USER_PASSWORD = re.compile(r"://[^/:@?#]*:([^@/?#]*)@")
_SECRET_PARAMS = re.compile(r"(^|&)((?:password|sslpassword|passfile)=)[^&]*", re.IGNORECASE)


def redact(url: str) -> str:
    """The URL without its secrets, for messages: the password in the user part
    (``u:secret@host``) and libpq's ``password``, ``sslpassword`` and ``passfile``
    parameters (``?password=secret``)."""
    try:
        password = urlsplit(url).password
    except ValueError:  # "[" without "]": still no password shown
        password = m.group(1) if (m := _USER_PASSWORD.search(url)) else None
    head, mark, rest = url.partition("?")
    if mark:
        query, hash_mark, fragment = rest.partition("#")
        rest = _SECRET_PARAMS.sub(r"\1\2***", query) + hash_mark + fragment
    if password is not None:
        head = head.replace(f":{password}@", ":***@", 1)
    return head + mark + rest


def shown(db: str | PathLike[str]) -> str:
    """``db`` (a SQLite path or a PostgreSQL URL) as a message shows it."""
    text = str(db)
    return redact(text) if "://" in text else text
