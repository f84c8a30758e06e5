"""The index metadata keys citewise writes: the grounding gate's calibration, per tenant.

``citewise calibrate`` stores what it fitted for the tenant whose questions it measured,
under ``gate.<name>@<tenant>``; a release before this one stored it index-wide under
``gate.<name>``, which ``ask`` still reads for a tenant with no calibration of its own
(:mod:`citewise.answer.gate_store`). ``migrate`` copies these keys and no others.
"""

from __future__ import annotations

from collections.abc import Iterable

GATE_NAMES: tuple[str, ...] = ("signal", "threshold", "reader", "calibration")


def gate_key(name: str, tenant: str | None) -> str:
    """The key of ``name`` for ``tenant`` (None: the index-wide key)."""
    return f"gate.{name}" if tenant is None else f"gate.{name}@{tenant}"


def calibration_keys(tenants: Iterable[str]) -> list[str]:
    """Every calibration key citewise may have written: index-wide and for each tenant."""
    return [gate_key(name, tenant) for tenant in (None, *sorted(set(tenants)))
            for name in GATE_NAMES]


def gate_name(key: str) -> str | None:
    """The calibration field ``key`` holds (``threshold`` of ``gate.threshold@acme``), or
    None when citewise does not write such a key."""
    base = key.split("@", 1)[0]
    name = base.removeprefix("gate.")
    return name if base.startswith("gate.") and name in GATE_NAMES else None
