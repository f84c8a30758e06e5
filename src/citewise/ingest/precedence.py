"""Who decides a document's tenant and groups: the operator, never the file's content alone.

The operator speaks through the batch flags (``--tenant``, ``--groups``) and the ``--meta``
sidecar (its line for the file wins over the flags). The file speaks through its front matter
or HTML ``<meta>``. For everything but the ACL the most specific source wins (flags < file <
sidecar). For the ACL:

* **tenant** comes only from the operator (sidecar, else ``--tenant``, else ``default``); a
  tenant in the file is ignored, with a note;
* **groups** in the file may only *narrow* the operator's groups (the result is their
  intersection; a file cannot add a group, and with no operator groups it grants none), unless
  the operator passes ``--trust-file-acl``: then the file's groups count (and the sidecar's
  still win over them).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from citewise.ingest.metadata import access_key_meant

ACL_KEYS = ("tenant", "groups")


def merge_metadata(defaults: Mapping[str, Any], file_meta: Mapping[str, Any],
                   side: Mapping[str, Any], *, trust_file_acl: bool = False,
                   label: str = "") -> tuple[dict[str, Any], list[str]]:
    """``(metadata, notes)``: the merged metadata of one document and one-line notes about
    ACL values in the file that were ignored or narrowed (for the ingest report)."""
    meta = {k: v for k, v in {**defaults, **{k: v for k, v in file_meta.items()
                                             if k not in ACL_KEYS}, **side}.items()
            if not str(k).startswith("_")}  # internal keys are the loader's (_file_path, …)
    notes: list[str] = []
    tenant = side.get("tenant", defaults.get("tenant"))
    if tenant is not None:
        meta["tenant"] = tenant
    else:
        meta.pop("tenant", None)
    own_tenant = file_meta.get("tenant")
    if own_tenant is not None and own_tenant != (tenant or "default"):
        notes.append(f"{label}: its tenant {own_tenant!r} is ignored (a file cannot choose its "
                     f"tenant); it goes to {tenant or 'default'!r}. Fix: set the tenant with "
                     "--tenant or the --meta sidecar (an upload: its tenant field)")
    notes += [f"{label}: its front matter key {key!r} is not one citewise reads, so it "
              f"restricts nothing; it is readable by the groups given at ingest. Fix: set "
              f"{meant!r} with --{meant} or the --meta sidecar (an upload: its {meant} field), "
              f"or write {meant!r} in its front matter (a file's groups only narrow those "
              "given, unless --trust-file-acl)"
              for key in file_meta if (meant := access_key_meant(str(key)))]
    groups, note = _groups(defaults, file_meta, side, trust_file_acl, label)
    if groups is None:
        meta.pop("groups", None)
    else:
        meta["groups"] = groups
    if note:
        notes.append(note)
    return meta, notes


def _groups(defaults: Mapping[str, Any], file_meta: Mapping[str, Any], side: Mapping[str, Any],
            trust: bool, label: str) -> tuple[list[str] | None, str]:
    operator = side.get("groups", defaults.get("groups"))
    own = file_meta.get("groups")
    if own is None:
        return (None if operator is None else list(operator)), ""
    if trust:
        return list(side.get("groups", own)), ""
    allowed = set(operator or ())
    kept = [g for g in own if g in allowed]
    dropped = [g for g in own if g not in allowed]
    if not dropped:
        return kept, ""
    given = ", ".join(sorted(allowed)) if operator else "none"
    return kept, (f"{label}: its groups {', '.join(dropped)} are not among the operator's groups "
                  f"({given}) and were dropped; it is readable by "
                  f"{', '.join(kept) or 'nobody'}. Fix: grant them with --groups or the --meta "
                  "sidecar (an upload: its groups field), or pass --trust-file-acl to let "
                  "files set their groups")
