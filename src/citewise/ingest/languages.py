"""Sites built in several languages: say so once, and how to index one.

Rust by Example ships its ``es/``, ``ja/``, ``zh/`` and ``ko/`` translations beside the English
book: a new user's folder ingest indexed 754 translated pages with 199 English ones, and
answers to English questions quoted Spanish, Japanese and Chinese pages (a partly translated
page keeps English text under a Spanish title, so it ranks well). Nothing in a question says
which language its asker reads, so ingest does not choose: it counts the pages per language
(``<html lang>``, its primary subtag, kept in the document's metadata as ``lang``) and, when
there are several, prints one line naming them and the ``--exclude`` of each language that
sits in a folder of its own. Search then prefers the question's language
(:mod:`citewise.retrieve.language`).
"""

from __future__ import annotations

import shlex
from collections import Counter, defaultdict
from collections.abc import Mapping


def primary_language(tag: str) -> str | None:
    """The primary subtag of a BCP 47 language tag (``zh`` of ``zh-Hans``), lowercased, or
    None when it is not one (``x-…`` private tags, empty)."""
    first = tag.strip().split("-")[0].split("_")[0].lower()
    return first if first.isalpha() and 2 <= len(first) <= 3 else None


def mixed_languages(languages: Mapping[str, str]) -> str | None:
    """The warning line for ``languages`` (``{document id: language}`` of the pages an ingest
    indexed that declare one), or None when they are all in one language."""
    counts = Counter(languages.values())
    if len(counts) < 2:
        return None
    folders: dict[str, set[str]] = defaultdict(set)
    for doc_id, lang in languages.items():
        folders[lang].add(doc_id.split("/", 1)[0] if "/" in doc_id else "")
    own = {lang: next(iter(f)) for lang, f in folders.items() if len(f) == 1 and "" not in f
           and not any(f & other for o, other in folders.items() if o != lang)}
    shown = ", ".join(f"{lang} {n}" for lang, n in counts.most_common())
    fix = (" ".join(f"--exclude {shlex.quote(own[lang])}" for lang, _ in counts.most_common()
                    if lang in own)
           if 0 < len(own) < len(counts) else "")
    if not fix:  # languages share folders (Debian's en/ Apache manual: six pages in pt)
        fix = _page_excludes(languages, counts.most_common(1)[0][0])
    return (f"the pages are in {len(counts)} languages ({shown}): a question retrieves and "
            "quotes all of them. Fix: index one language per index"
            + (f", e.g. with {fix}" if fix else " (--exclude the others' folders)"))


SHOWN_PAGES = 8


def _page_excludes(languages: Mapping[str, str], main: str) -> str:
    """``--exclude`` of each page not in the ``main`` language (the first
    :data:`SHOWN_PAGES`, then how many more)."""
    others = sorted(doc_id for doc_id, lang in languages.items() if lang != main)
    names = Counter(d.rsplit("/", 1)[-1] for d in languages)
    shown = " ".join(f"--exclude {shlex.quote(_name(d, names))}" for d in others[:SHOWN_PAGES])
    more = len(others) - SHOWN_PAGES
    return shown + (f" (and {more} more pages not in {main})" if more > 0 else "")


def _name(doc_id: str, names: Counter[str]) -> str:
    """A page's file name when no other page has it (``--exclude`` matches a name or a path
    relative to the folder), else its id (its path, unless ``--id-prefix`` changed it)."""
    name = doc_id.rsplit("/", 1)[-1]
    return name if names[name] == 1 else doc_id
