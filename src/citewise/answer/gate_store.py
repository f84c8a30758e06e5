"""Where an index keeps its grounding gate's calibration: one per tenant.

``citewise calibrate`` measures the gate on one tenant's questions, asked by that tenant's
users over that tenant's documents, so what it fits is that tenant's: it is stored under
``gate.<name>@<tenant>`` (``signal``, ``threshold``, ``reader``, ``calibration``) and ``ask``
uses it for that tenant's users only. A security review found the release before storing it
index-wide (``gate.<name>``): calibrating acme's questions changed what globex's users were
told or declined, and an acme editor who uploaded a page echoing acme's unanswerable questions
steered globex's threshold (two of its answered questions declined). A tenant with no
calibration of its own uses the index-wide keys, which only a release before this one wrote,
else the shipped default (:data:`citewise.answer.gate.SHIPPED`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from citewise.index.meta_keys import calibration_keys, gate_key

if TYPE_CHECKING:
    from citewise.protocols import Store


@dataclass(frozen=True)
class StoredGate:
    """The calibration ``ask`` uses for one tenant (each None when nothing was stored)."""

    signal: str | None
    threshold: str | None
    reader: str | None
    shared: bool = False  # read from the index-wide keys a release before this one wrote

    def source(self, chosen: str) -> str:
        """The gate trace's ``source`` for ``chosen`` (:func:`~citewise.answer.gate.
        choose_threshold`'s): ``index-wide`` when the index's calibration is an old one every
        tenant shares (the review of this stop: it said ``index`` either way)."""
        return "index-wide" if chosen == "index" and self.shared else chosen


def stored_gate(store: Store, tenant: str) -> StoredGate:
    """``tenant``'s own calibration when it has one, else the index-wide one."""
    own = store.get_meta(gate_key("signal", tenant))
    scope = tenant if own is not None else None
    signal = own if own is not None else store.get_meta(gate_key("signal", None))
    return StoredGate(signal, store.get_meta(gate_key("threshold", scope)),
                      store.get_meta(gate_key("reader", scope)),
                      shared=scope is None and signal is not None)


def carry_calibration(source: Store, target: Store,
                      tenants: Iterable[str]) -> tuple[list[str], list[str]]:
    """``(carried, not carried)``: the tenants (``*`` for the index-wide keys) whose gate
    calibration ``source`` holds, copied to ``target`` when both were built with the same
    embedder and chunking (its scores are the source's), else named: they must calibrate
    again, their users answered from the shipped gate. ``reindex`` carries it so: a security
    review's rebuild answered every tenant from the shipped gate, its calibrated threshold
    lost until ``citewise calibrate`` ran again."""
    before, after = source.manifest(), target.manifest()
    same = (before is not None and after is not None
            and (before.embedder_id, before.chunker_hash) == (after.embedder_id,
                                                              after.chunker_hash))
    held = [t for t in ("*", *sorted(set(tenants)))
            if source.get_meta(gate_key("signal", None if t == "*" else t)) is not None]
    if not same:
        return [], held
    for key in calibration_keys(tenants):
        value = source.get_meta(key)
        if value is not None:
            target.set_meta(key, value)
    return held, []
