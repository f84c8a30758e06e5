"""Document metadata: YAML front matter and the normalised key set every source maps to.

Normalised keys (whatever the source spelled): ``title``, ``owner``, ``groups`` (always a
list of strings; ``acl_groups`` is accepted as an alias, and a comma-separated string is
split), ``tenant``, ``source_url`` (alias ``url``), ``updated_at`` (ISO 8601 string),
``doc_id``. Any other key is kept, converted to JSON-safe values (dates become ISO strings).
"""

from __future__ import annotations

import datetime as dt
import difflib
import math
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit
from urllib.request import url2pathname

import yaml

from citewise.errors import IngestError
from citewise.ingest.normalize import drop_controls, one_line
from citewise.text import has_surrogate

STRING_KEYS = ("title", "owner", "tenant", "source_url", "doc_id", "updated_at")
_ALIASES = {"acl_groups": "groups", "url": "source_url"}
_FENCE = "---"
_FENCE_ENDS = ("---", "...")
MAX_FRONT_MATTER_CHARS = 64 * 1024
"""Front matter is a few lines of metadata; more than this is refused before YAML parsing."""
MAX_DEPTH = 32
MAX_GROUPS = 1000
"""The most groups one document's ACL names: a security review's upload naming 100,000
froze the server for a minute while they were read."""
"""Most nested levels in metadata values (front matter, sidecar lines)."""


class _NoAliasLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses anchors and aliases: an alias expands to a copy of its
    anchor, so nine aliases of nine aliases (a 347-byte "billion laughs") make 10^9 values."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(
                None, None, "aliases (*name) are not allowed in front matter",
                event.start_mark)
        return super().compose_node(parent, index)


def normalize_metadata(raw: Mapping[Any, Any], *, access_keys: bool = False
                       ) -> dict[str, Any]:
    """Map raw key/values (front matter, sidecar line, ``<meta>``) to the normalised keys.

    Raises :class:`IngestError` (without location; callers prefix it) for a value of the
    wrong type, or for an alias that contradicts its key (``url`` vs ``source_url``);
    ``access_keys`` (a sidecar line, whose purpose is access): for a key that reads as a
    misspelt ``groups`` or ``tenant`` too. Front matter is the documents' own, where a
    ``group`` key may mean something else (a site generator's menu group).
    """
    out: dict[str, Any] = {}
    for raw_key, value in raw.items():
        key = str(raw_key).strip().lower().replace("-", "_")
        key = _ALIASES.get(key, key)
        if access_keys:
            _check_access_key(key)
        norm = _normalize_value(key, value)
        if key in out and out[key] != norm:
            raise IngestError(
                f"both {key!r} and its alias give different values; keep only one")
        out[key] = norm
    return out


_ACCESS_KEYS = ("groups", "tenant")
_ACCESS_WORDS = frozenset({"acl", "acls", "access", "allowed_groups", "readers", "permissions",
                           "visibility", "audience"})


def access_key_meant(key: str) -> str | None:
    """``groups`` or ``tenant`` when ``key`` (normalised) reads as a misspelling of one
    (``group``, ``tennant``, ``acl``, ``readers``), else None."""
    if key in _ACCESS_KEYS or key in STRING_KEYS:
        return None
    close = difflib.get_close_matches(key, _ACCESS_KEYS, n=1, cutoff=0.8)
    return close[0] if close else "groups" if key in _ACCESS_WORDS else None


def _check_access_key(key: str) -> None:
    """Refuse a key that reads as a misspelt ``groups`` or ``tenant`` (``group``, ``tennant``,
    ``acl``): kept as an ordinary key, it left the batch's wider ``--groups`` on a document
    its writer meant to restrict (security review)."""
    meant = access_key_meant(key)
    if meant is not None:
        raise IngestError(f"{key!r} is not a key citewise reads, so it would restrict nothing; "
                          f"write {meant!r} (who may read the document: "
                          f"{'a list of groups' if meant == 'groups' else 'one tenant name'})")


def _normalize_value(key: str, value: Any) -> Any:
    if key == "groups":
        return normalize_groups(value)
    if key in STRING_KEYS:
        if isinstance(value, dt.date | dt.datetime):
            return value.isoformat()
        if value is None or isinstance(value, Mapping | list | tuple):
            raise IngestError(f"{key!r} must be a single value, got {type(value).__name__}")
        text = drop_controls(str(value)).strip()
        if key == "source_url" and not is_openable_link(text):
            raise IngestError(f"'source_url' {text[:60]!r} is not a link a reader can open "
                              "safely: give an http(s):// or file:// URL or a path")
        if key == "doc_id":
            check_doc_id(text)
        if key == "tenant" and not text:
            raise IngestError("'tenant' is empty: give the tenant's name, or leave the key out "
                              "for the batch's --tenant")
        if key == "updated_at" and not _is_iso_time(text):
            raise IngestError(f"'updated_at' {text[:40]!r} is not an ISO 8601 date or time; "
                              "write it like 2026-03-01 or 2026-03-01T09:30:00Z")
        return text
    return json_safe(value)


_ROUTE_SUFFIXES = ("/content", "/acl")
_DRIVE = re.compile(r"[A-Za-z]:[\\/]")


def check_doc_id(doc_id: str) -> None:
    """Refuse a ``doc_id`` a reference to another document or file could be read as: an
    absolute path or one with ``.``/``..`` parts (``citewise delete PATH`` and ``acl PATH``
    try ids before paths, so an upload's id ``/srv/docs/it.md`` took an operator's delete of
    that file), a tab or line break (no API route can name it), or an API route's suffix
    (``GET /v1/documents/guide.md/content`` is guide.md's content)."""
    fix = "; give an id such as guide/intro.md"
    parts = doc_id.replace("\\", "/").split("/")
    if doc_id.startswith(("/", "\\")) or _DRIVE.match(doc_id):
        raise IngestError(f"'doc_id' {doc_id[:60]!r} is an absolute path, which commands "
                          f"that take a path would confuse with that file{fix}")
    if "." in parts or ".." in parts:
        raise IngestError(f"'doc_id' {doc_id[:60]!r} has a . or .. part{fix}")
    if any(c.isspace() and c != " " for c in doc_id):
        raise IngestError(f"'doc_id' {doc_id[:60]!r} holds a tab or line break{fix}")
    if doc_id.endswith(_ROUTE_SUFFIXES):
        raise IngestError(f"'doc_id' {doc_id[:60]!r} ends like an API route "
                          f"({' or '.join(_ROUTE_SUFFIXES)}){fix}")


def _is_iso_time(text: str) -> bool:
    """An ISO 8601 date or date-time (what sorting, freshness and drift read)."""
    try:
        dt.datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return False
    return True


_LINK_SCHEMES = frozenset({"http", "https", "file"})
_INVISIBLE = re.compile(r"[\x00-\x20\x7f]+")


def is_openable_link(url: str) -> bool:
    """True for an http(s)/file URL or a path (no scheme, or a Windows drive letter); false
    for ``javascript:``, ``data:``, ``vbscript:`` and every other scheme, however spelled
    (browsers drop the tabs, newlines and controls inside ``java\tscript:``)."""
    scheme = link_scheme(url)
    return scheme is None or len(scheme) == 1 or scheme in _LINK_SCHEMES


def is_web_or_relative_link(url: str) -> bool:
    """An http(s) URL, or a link relative to the page that cites it ("guide/intro.html"):
    what an upload may link to. Not a path on the server ("/etc/passwd", "C:/x"), nor a
    protocol-relative "//host/x" or a UNC "\\\\host\\share" (an SMB request that can leak a
    reader's credentials), which a security review's uploads stored as citation links, nor
    a URL with a user part, which spoofs its host (a second review)."""
    scheme = link_scheme(url)
    if scheme is not None:  # no user part: "https://docs.acme.example@evil.example/…" reads
        return scheme in ("http", "https") and "@" not in _authority(url)  # as the first
    return not _INVISIBLE.sub("", url).startswith(("/", "\\"))  # host, opens the second


def _authority(url: str) -> str:
    """The ``user@host:port`` part of an absolute URL, as a browser reads it."""
    rest = _INVISIBLE.sub("", url).partition(":")[2].replace("\\", "/").lstrip("/")
    return re.split(r"[/?#]", rest, maxsplit=1)[0]


def link_scheme(url: str) -> str | None:
    """The scheme of ``url`` lowercased, as a browser reads it (tabs, newlines, controls and
    spaces inside dropped), or None for a path ("guide/intro.html", "./a:b", "page#x:y")."""
    scheme, colon, _ = _INVISIBLE.sub("", url).partition(":")
    if not colon or "/" in scheme or "?" in scheme or "#" in scheme:
        return None
    return scheme.lower()


def is_file_link(url: str) -> bool:
    """Whether ``url`` is a ``file:`` URL, however spelled (see :func:`is_openable_link`):
    a link to a file on the machine that indexed it, which only ``citewise ingest`` records
    (an upload naming one would make the server look at its own files)."""
    return link_scheme(url) == "file"


def file_url_path(url: str) -> str | None:
    """The local path a ``file:`` URL names, percent-decoded (``file:///a/my%20docs/x.md``
    -> ``/a/my docs/x.md``), or None for any other link."""
    if not url.lower().startswith("file:"):
        return None
    return url2pathname(urlsplit(url).path)


def normalize_groups(value: Any) -> list[str]:
    """Groups as a de-duplicated list of non-empty strings, from a list or "a, b" string."""
    if isinstance(value, str):
        items: list[Any] = value.split(",")
    elif isinstance(value, list | tuple | set | frozenset):
        items = list(value)
    else:
        raise IngestError(
            "'groups' must be a list or a comma-separated string, "
            f"got {type(value).__name__}")
    groups: dict[str, None] = {}  # ordered; a list's `in` made 100,000 groups take a minute
    for item in items:
        if isinstance(item, Mapping | list | tuple) or item is None:
            raise IngestError("'groups' items must be plain names like staff or hr")
        name = drop_controls(str(item)).strip()  # an ESC in a name reached every listing
        if "," in name:  # every key, --groups and form splits on commas: no one could hold it
            raise IngestError(f"group names cannot hold a comma ({name[:60]!r}): no key can "
                              "be given such a group. Fix: give each group as its own list "
                              'item, e.g. ["hr", "staff"]')
        if name:
            groups[name] = None
        if len(groups) > MAX_GROUPS:
            raise IngestError(f"a document may name at most {MAX_GROUPS} groups. Fix: give "
                              "its readers fewer, broader groups")
    return list(groups)


def json_safe(value: Any) -> Any:
    """Dates to ISO strings, tuples/sets to lists, other non-JSON scalars to strings."""
    if isinstance(value, dt.date | dt.datetime | dt.time):
        return value.isoformat()
    if isinstance(value, Mapping):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [json_safe(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


def split_front_matter(text: str) -> tuple[dict[str, Any], str, int]:
    """Split ``---`` YAML front matter off a Markdown text.

    Returns ``(metadata, body, body_first_line)`` where ``body_first_line`` is the 1-based
    line of the file where ``body`` starts. Without front matter: ``({}, text, 1)``.
    """
    lines = text.split("\n")
    if not lines or lines[0].rstrip() != _FENCE:
        return {}, text, 1
    for index in range(1, len(lines)):
        if lines[index].rstrip() in _FENCE_ENDS:
            meta = parse_front_matter("\n".join(lines[1:index]))
            return meta, "\n".join(lines[index + 1:]), index + 2
    raise IngestError(
        "front matter opened by '---' on line 1 is never closed; "
        "add a closing '---' line after the YAML")


def parse_front_matter(source: str) -> dict[str, Any]:
    """Parse the YAML between the fences into normalised metadata (line numbers in errors).

    Bounded: over :data:`MAX_FRONT_MATTER_CHARS`, YAML aliases and values nested deeper than
    :data:`MAX_DEPTH` are refused with an :class:`IngestError`."""
    if len(source) > MAX_FRONT_MATTER_CHARS:
        raise IngestError(
            f"front matter is {len(source):,} characters, over the {MAX_FRONT_MATTER_CHARS:,} "
            "allowed; keep metadata short (put long text in the body)")
    try:
        data = yaml.load(source, Loader=_NoAliasLoader)  # noqa: S506 - a SafeLoader
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 2 if mark is not None else 2
        raise IngestError(
            f"invalid YAML front matter at line {line}: {one_line(exc.problem or exc)}; "
            "fix that line (key: value pairs between the --- lines)") from None
    except yaml.YAMLError as exc:
        raise IngestError(
            f"invalid YAML front matter: {one_line(exc)}; fix the lines between the ---"
        ) from None
    except RecursionError:
        raise IngestError("front matter nests too deeply; write flat key: value pairs "
                          "between the --- lines") from None
    except ValueError as exc:  # a value YAML reads as a date that is none: 2026-13-45
        raise IngestError(
            f"front matter holds a date that does not exist ({one_line(exc)}); write it like "
            "2026-03-01, or quote it if it is not a date") from None
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        raise IngestError(
            f"front matter must be key: value pairs, got a {type(data).__name__}; "
            "write it as 'title: ...' lines between the --- lines")
    try:
        check_depth(data)
        return normalize_metadata(data)
    except IngestError as exc:
        raise IngestError(f"front matter: {exc}") from None


def check_depth(value: Any, limit: int = MAX_DEPTH) -> None:
    """Raise :class:`IngestError` when ``value`` nests lists/mappings deeper than ``limit``
    (checked iteratively, so any input is safe to check), or a key or string of it holds a
    lone surrogate: JSON's ``"\\udcff"`` parses to one, no index can store it, and a
    security review's upload metadata gave a 500 (a sidecar line, a traceback)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str) and has_surrogate(item):
            raise IngestError(f"metadata holds {ascii(item)[:40]}, a lone UTF-16 surrogate, "
                              "which is no text; write the character itself or drop it")
        if isinstance(item, Mapping):
            children: Any = [*item.keys(), *item.values()]
        elif isinstance(item, list | tuple | set | frozenset):
            children = item
        else:
            continue
        if depth > limit:
            raise IngestError(f"metadata nests more than {limit} levels deep; "
                              "use flat values like groups: [a, b]")
        stack.extend((child, depth + 1) for child in children)
