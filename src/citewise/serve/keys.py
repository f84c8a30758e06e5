"""API keys: a JSON file of sha256 hashes, each mapped to a principal
``{name, tenant, groups, role}``. The key itself is shown once, when made
(``citewise keys add``), and never stored.

keys.json::

    {"keys": [{"name": "alice", "sha256": "…", "tenant": "acme", "groups": ["staff"],
               "role": "reader", "created_at": "2026-…"}],
     "retired": ["bob"]}

The request log and feedback belong to a key's *name*, so a removed key's name is retired:
a new key under it would read the old key's queries, traces and cited ids, so ``add`` refuses
it unless told the key is rotated for the same person (``reuse=True``, ``--reuse-name``).
A new name reads its records from the key's creation on (``reads_since``): servers over one
PostgreSQL index share the log, not this file, and a review's key made on a second server
under a name the first had used read that name's hr questions.
"""

from __future__ import annotations

import fcntl
import hashlib
import hmac
import json
import os
import secrets
import tempfile
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from citewise.errors import ConfigError
from citewise.private import open_private, write_private_text
from citewise.types import Principal

Role = Literal["reader", "editor", "admin", "operator"]
ROLES: tuple[str, ...] = ("reader", "editor", "admin", "operator")
"""reader < editor < admin < operator. An admin manages its own tenant (its documents, log
and drift); only an operator acts on the whole index or across tenants (reindex, rollback,
versions, writing into another tenant, ``/metrics`` under ``serve.metrics_key``): one
tenant's admin must not change what another tenant's users read."""
KEY_PREFIX = "cw_"


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


@dataclass(frozen=True)
class ApiPrincipal:
    """Who a key belongs to. ``principal`` is what retrieval filters on."""

    name: str
    tenant: str
    groups: tuple[str, ...]
    role: str = "reader"
    sha256: str = ""
    created_at: str = ""
    reads_since: str = ""
    """The log records of its name it reads begin here: its creation, or (a name reused with
    ``--reuse-name``, or a key made before this field) the start of the log."""

    def since(self) -> float | None:
        """:attr:`reads_since` as epoch seconds (None: every record of its name)."""
        return datetime.fromisoformat(self.reads_since).timestamp() if self.reads_since \
            else None

    @property
    def principal(self) -> Principal:
        return Principal.of(list(self.groups), tenant=self.tenant, name=self.name)

    def can(self, role: str) -> bool:
        """At least ``role`` (reader < editor < admin < operator)."""
        return ROLES.index(self.role) >= ROLES.index(role)

    def to_dict(self) -> dict[str, object]:
        return {"name": self.name, "tenant": self.tenant, "groups": list(self.groups),
                "role": self.role}


@dataclass
class KeyFile:
    """The keys file; lookups compare hashes in constant time and first re-read the file
    when it changed (``citewise keys remove`` revokes a key in a running server at once)."""

    path: Path
    entries: list[ApiPrincipal] = field(default_factory=list)
    stamp: tuple[int, ...] | None = None
    retired: list[str] = field(default_factory=list)  # names of removed keys
    problem: str | None = None  # why the file last failed to parse (no key is accepted)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @classmethod
    def load(cls, path: str | Path, must_exist: bool = True) -> KeyFile:
        p = Path(path)
        if not p.exists():
            if must_exist:
                raise ConfigError(f"no keys file at {p}. Fix: create a key with `citewise keys "
                                  f"add NAME --keys {p} --groups GROUPS`")
            return cls(p)
        try:
            data = json.loads(p.read_text(encoding="utf-8-sig"))  # an editor's BOM: fine
            entries = [_entry(e) for e in data.get("keys", [])]
            retired = [str(name) for name in data.get("retired", [])]
        except (ValueError, TypeError, AttributeError, KeyError, RecursionError,
                OSError) as exc:  # a review's 100,000-deep file, or a folder: every
            why = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)[:160]
            raise ConfigError(f"{p}: not a citewise keys file ({why}). Fix: recreate it "  # 500
                              f"with `citewise keys add NAME --keys {p}`") from None
        return cls(p, entries, _stamp(p), retired)

    def refresh(self) -> None:
        """Re-read the file if it changed since it was read; a file that is gone holds no
        keys, and so does one that no longer parses (``problem`` says why; it is read again
        on every lookup until it parses): a hand edit that removed a key and left a typo kept
        the removed key working (a security review). A file that does not parse is read
        whatever its stamp: an operator's `cp -p` of the backup put back the last good
        file's very stamp, and every key stayed refused."""
        with self._lock:  # one reader at a time: a slow read of a broken file finishing
            stamp = _stamp(self.path)  # after a good one must not undo it (a review's race)
            if stamp == self.stamp and self.problem is None:
                return
            try:
                self.entries = KeyFile.load(self.path, must_exist=False).entries
            except ConfigError as exc:
                import logging

                if self.problem != str(exc):
                    logging.getLogger("citewise.serve").error("keys file unreadable, every "
                                                              "key refused: %s", exc)
                self.entries, self.problem = [], str(exc)
                return
            self.stamp, self.problem = stamp, None

    def lookup(self, key: str) -> ApiPrincipal | None:
        self.refresh()
        digest = hash_key(key)
        found = None
        for entry in self.entries:
            if hmac.compare_digest(entry.sha256, digest):
                found = entry
        return found

    def add(self, name: str, tenant: str, groups: Sequence[str], role: str,
            reuse: bool = False) -> str:
        """Make a key for a new principal, store its hash, return the key (shown once).
        A retired name needs ``reuse`` (see the module docstring)."""
        if role not in ROLES:
            raise ConfigError(f"role {role!r}: use one of {', '.join(ROLES)}")
        with self._editing():
            return self._add(name, tenant, groups, role, reuse)

    def _add(self, name: str, tenant: str, groups: Sequence[str], role: str,
             reuse: bool) -> str:
        if any(e.name == name for e in self.entries):
            raise ConfigError(f"a key named {name!r} exists. Fix: pick another name, or "
                              f"`citewise keys remove {name} --keys {self.path}` first")
        if name in self.retired and not reuse:
            raise ConfigError(f"{name!r} was the name of a removed key, and its request log "
                              "would become this key's. Fix: pick another name, or pass "
                              "--reuse-name when the key is rotated for the same person")
        rotated = name in self.retired  # (with reuse): the old key's log is this one's
        self.retired = [n for n in self.retired if n != name]
        key = KEY_PREFIX + secrets.token_urlsafe(32)
        made = datetime.now(UTC).isoformat(timespec="seconds")
        self.entries.append(ApiPrincipal(
            name, tenant, tuple(sorted(set(groups))), role, hash_key(key), made,
            "" if rotated else made))
        self.save()
        return key

    def remove(self, name: str) -> None:
        with self._editing():
            self._remove(name)

    def _remove(self, name: str) -> None:
        kept = [e for e in self.entries if e.name != name]
        if len(kept) == len(self.entries):
            raise ConfigError(f"no key named {name!r}. Fix: list them with `citewise keys list "
                              f"--keys {self.path}`")
        self.entries = kept
        self.retired = [*(n for n in self.retired if n != name), name]
        self.save()

    @contextmanager
    def _editing(self) -> Iterator[None]:
        """Change the file under an exclusive lock (``keys.json.lock``), from what it holds
        now: two `citewise keys` commands at once each read the file, changed it and wrote
        it back, and a `keys add` that read before a `keys remove` and wrote after it
        brought the removed key back, in a running server too (a reliability review: 2
        of 20 trials; 3 added keys were printed and never stored)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open_private(self.path.with_name(self.path.name + ".lock"), own=False) as lock:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
            if self.path.exists():
                fresh = KeyFile.load(self.path)
                self.entries, self.retired = fresh.entries, fresh.retired
            yield

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=self.path.name + ".", suffix=".tmp",
                                    dir=self.path.parent)  # one per writer, owner-only
        os.close(fd)
        tmp = Path(name)
        try:
            write_private_text(tmp, json.dumps({"keys": [asdict(e) | {"groups": list(e.groups)}
                                                         for e in self.entries],
                                                "retired": self.retired}, indent=2) + "\n")
            tmp.replace(self.path)
        finally:
            tmp.unlink(missing_ok=True)
        self.stamp = _stamp(self.path)


def _stamp(path: Path) -> tuple[int, ...] | None:
    """What changes when the file is rewritten (``save`` replaces it: a new inode)."""
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_size)


def _entry(data: dict) -> ApiPrincipal:
    role = data.get("role", "reader")
    if role not in ROLES:
        raise ValueError(f"key {data.get('name')!r}: unknown role {role!r}")
    digest = str(data["sha256"])
    if len(digest) != 64:
        raise ValueError(f"key {data.get('name')!r}: sha256 is not a sha256 hex digest")
    groups = data.get("groups", [])
    if not isinstance(groups, list) or not all(isinstance(g, str) for g in groups):
        # "staff" read as a list gave the key the groups a, f, s, t
        raise ValueError(f"key {data.get('name')!r}: groups must be a list of names, "
                         'e.g. ["staff"]')
    since = str(data.get("reads_since", ""))
    if since:
        datetime.fromisoformat(since)  # a ValueError names the bad value: the file is refused
    return ApiPrincipal(str(data["name"]), str(data.get("tenant", "default")),
                        tuple(sorted(groups)), role, digest,
                        str(data.get("created_at", "")), since)
