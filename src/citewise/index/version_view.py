"""One version of an index opened by its own location: readable, never written.

``citewise versions`` lists where each version lives (``PATH.v2``, ``?schema=citewise_v2``),
and a version can be opened there to read it. A write there bypassed the change log that
every version honours (:mod:`citewise.index.changelog`): an ACL narrowed through the live
version's own file was undone by the next ``rollback``, and a delete through a retired
version's file said "deleted" while the live index still served the document (security
review). So a store opened on a version's own location refuses every write, naming the
index to write through instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NoReturn

from citewise.errors import VersionError
from citewise.types import Manifest


class ReadOnlyVersion:
    """Mixed in before a store class: its writes raise :class:`VersionError`. The concrete
    class sets ``home`` (what ``--db`` opens the whole index with) and ``number``."""

    home: str
    number: int

    def _refuse(self, what: str) -> NoReturn:
        raise VersionError(
            f"this is version {self.number} of the index {self.home}, opened by its own "
            f"location: {what} there would bypass the log every version honours (a rollback "
            f"would undo it, or the live version would not see it). Fix: pass --db "
            f"{self.home}, which writes to the live version and reaches every other")

    def write(self, batch: Sequence[Any]) -> None:
        self._refuse("writing documents")

    def delete(self, doc_ids: Sequence[str]) -> int:
        self._refuse("a delete")

    def set_acl(self, doc_id: str, groups: Sequence[str], tenant: str | None = None) -> None:
        self._refuse("an ACL change")

    def ensure_manifest(self, manifest: Manifest) -> Manifest:
        self._refuse("ingesting")

    def set_meta(self, key: str, value: str) -> None:
        self._refuse("storing settings")


__all__ = ["ReadOnlyVersion"]
