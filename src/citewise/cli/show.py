"""``citewise show``: read the section a citation opens, in the terminal."""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Sequence

import click

from citewise.answer.citations import place as shown_place
from citewise.cli.common import (
    TextCommand,
    db_option,
    default_db,
    echo,
    echo_json,
    engine_from,
    friendly_errors,
    settings_options,
)
from citewise.cli.hints import warn_without_groups
from citewise.errors import NotFoundError
from citewise.index.location import shown
from citewise.results import DocumentSection
from citewise.section import loose, loose_forms
from citewise.types import Block, Principal, linked

_UNREADABLE = re.compile(r"\.(?:gz|bz2|xz|info(?:-\d+)?(?:\.gz)?)$", re.IGNORECASE)


def opens_nowhere(source: str) -> bool:
    """Whether a citation's link is a local compressed or Info file: a browser downloads it
    instead of showing the cited section."""
    base = source.partition("#")[0]
    return base.lower().startswith("file:") and bool(_UNREADABLE.search(base))


def block_text(block: Block) -> str:
    """A block as plain text: a heading with ``#`` marks, code indented four spaces."""
    if block.kind == "heading":
        return "#" * max(block.level, 1) + " " + block.text
    if block.kind == "code":
        return "\n".join("    " + line if line.strip() else "" for line in block.text.split("\n"))
    return block.text


def show_options(db: str, groups: str, tenant: str, config_path: str | None) -> list[str]:
    """The options of this ask that ``citewise show`` takes too, as given: a new user pasted
    the hint, without the ask's ``--db`` and ``--groups``, and got "no index at citewise.db",
    then "not in the index" for a document that is. Files are named absolutely, so the hint
    works from another folder too; a PostgreSQL URL's password is not shown (a review)."""
    index = shown(db) if "://" in db else os.path.abspath(db)
    given = [("--db", None if db == default_db() == index else index),
             ("--groups", groups or None), ("--tenant", tenant if tenant != "default" else None),
             ("--config", config_path and os.path.abspath(config_path))]
    return [part for option, value in given if value for part in (option, value)]


def index_options(db: str) -> str:
    """`` --db INDEX`` (shell-quoted) to put after a command printed as a fix, when this one
    was given an index other than the default; "" otherwise."""
    return "".join(" " + shlex.quote(p) for p in show_options(db, "", "default", None))


def print_section(section: DocumentSection, show_args: Sequence[str] = ()) -> None:
    doc = section.document
    shown = len(section.blocks)
    where = (f"blocks {section.first_block + 1}-{section.first_block + shown} of "
             f"{section.total_blocks}" if shown < section.total_blocks else "whole document")
    if not section.found:  # the whole of a 20,000-line manual is no answer to a typo
        anchors, ref = _anchors(section.blocks), shlex.quote(doc.doc_id)
        names: dict[str | None, str] = {}
        for block in section.blocks:  # an anchor's own heading, not the last one under it
            if block.kind == "heading":
                names.setdefault(block.anchor, block.text)
        ref = " ".join([ref, *map(shlex.quote, show_args)])  # a new user pasted it without
        example = (f"`citewise show {ref} --anchor {shlex.quote(anchors[0])}`" if anchors
                   else f"`citewise show {ref}` (the whole document)")  # --groups: refused
        raise NotFoundError(f"no section of {doc.doc_id} has the anchor #{section.anchor}. "
                            f"Fix: pass one of its sections, e.g. {example}; its sections: "
                            f"{_listed(anchors, names)}")
    own, subsections = _own_blocks(section.blocks, section.anchor)
    first = section.blocks[0] if section.blocks else None
    within = () if first is None else first.heading_path[:-1] if first.kind == "heading" \
        else first.heading_path  # an anchor inside a section: that section's whole path
    place = shown_place(doc.title, within)  # "… › Changes in GDB 12": whose "New commands";
    # a first heading that is the title is not repeated
    anchor = first.anchor if first is not None and section.anchor else None
    echo(f"{place} ({linked(doc.source_url or doc.doc_id, anchor)}; {where})",
         one_line=True)  # the section's own link (a new user's named the page's)
    for block in own:
        echo("")
        echo(block_text(block))
    if subsections:
        echo("")
        echo(f"{len(subsections)} subsection(s) not shown; read one with --anchor NAME:")
        for block in subsections:
            echo(f"  {block_text(block)}  (--anchor {shlex.quote(block.anchor or '')})")


def _own_blocks(blocks: tuple[Block, ...],
                anchor: str | None) -> tuple[tuple[Block, ...], tuple[Block, ...]]:
    """``(the section's own blocks, the headings of its subsections)``. A citation anchors
    its text to the nearest heading above it, so text cited under a chapter's heading is in
    the chapter's own blocks, before its first subsection: a new user's `show` of an Info
    chapter printed 354 lines for a sentence of its first paragraph. Everything is shown
    when the anchored block is not among the own blocks (a long section cut to a window),
    the section has no text of its own or a subsection's heading has no anchor of its own to
    pass (libxslt's News: 59 releases listed as ``--anchor News``, which printed the same
    list again)."""
    if not anchor or not blocks or blocks[0].kind != "heading":
        return blocks, ()
    first = next((i for i, b in enumerate(blocks[1:], 1)
                  if b.kind == "heading" and b.level > blocks[0].level), len(blocks))
    rest = blocks[first:]
    heads = tuple(b for b in rest if b.kind == "heading")
    own = blocks[:first]
    anchored = any(b.anchor and loose(b.anchor) in loose_forms(anchor) for b in own)
    if (not heads or not anchored or all(b.kind == "heading" for b in own)
            or not all(b.anchor and loose(b.anchor) not in loose_forms(anchor)
                       for b in heads)):
        return blocks, ()
    return own, heads


def _anchors(blocks: tuple[Block, ...]) -> list[str]:
    """The anchors of ``blocks``' headings, in order, each once; a document with none
    (plain text) is named by its headings' words."""
    anchored = [b.anchor for b in blocks if b.kind == "heading" and b.anchor]
    return list(dict.fromkeys(anchored or [b.text for b in blocks if b.kind == "heading"]))


def _listed(anchors: list[str], names: dict[str | None, str] | None = None,
            most: int = 30) -> str:
    """``#anchor`` for each, with its heading when the anchor does not spell it (DocBook's
    ``#AEN113`` is "<rescan>": a new user read a list of opaque ids)."""
    def one(anchor: str) -> str:
        name = " ".join((names or {}).get(anchor, "").split())[:40]
        spelled = re.sub(r"[^a-z0-9]", "", name.lower()) == re.sub(r"[^a-z0-9]", "",
                                                                   anchor.lower())
        return f"#{anchor}" if not name or spelled else f"#{anchor} ({name})"

    more = f" and {len(anchors) - most} more (`--json` lists every block's)" \
        if len(anchors) > most else ""
    return (", ".join(one(a) for a in anchors[:most]) + more) if anchors else "none"


@click.command(cls=TextCommand)
@click.argument("ref")
@click.option("--anchor", default=None,
              help="Section to show (default: the #fragment of REF; none: the whole document).")
@click.option("--groups", default="", help="Comma-separated groups of the reading user.")
@click.option("--tenant", default="default", show_default=True, help="Tenant of the user.")
@click.option("--json", "as_json", is_flag=True, help="Print the blocks as JSON.")
@db_option
@settings_options
@friendly_errors
def show(ref, anchor, groups, tenant, as_json, db, config_path, model, threads):
    """Print the section of a document that a citation opens, if the user may read it. REF
    is a document id or a citation's link (`file:///usr/share/info/grep.info.gz#Usage`, as
    `ask` prints it): a browser opens no section of a compressed or Info file."""
    principal = Principal.of(groups, tenant=tenant)
    if not as_json:
        warn_without_groups(principal)
    with engine_from(db, config_path, model, threads, must_exist=True) as engine:
        section = engine.section(ref, principal, anchor)
    if as_json:
        echo_json(section.to_dict())
    else:
        print_section(section, show_options(db, groups, tenant, config_path))
