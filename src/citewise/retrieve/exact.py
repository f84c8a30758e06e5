"""Exact identifiers: the candidates that name a question's identifier as it is written.

A question naming an option or a name from code (``--small``, ``max_keepalive_connections``,
``Vec::pop``) is answered where that name is: bzip2's ``'-s --small'`` entry. Neither
signal sees the name whole: BM25 reads ``--small`` as the common word "small", and an
embedding blurs it with its neighbours, so a new user's "What does the --small flag of
bzip2 do?" missed that entry in its top 16, and the gate declined it as naming something
no top passage mentions. :func:`identifiers` takes the question's identifiers;
:func:`exact_run` ranks the candidates both signals returned that contain one as a whole
token (the most identifiers first, then the order they were found in), a third run for RRF
(:mod:`citewise.retrieve.hybrid`). A question without identifiers has no such run.

A name of letters and digits (``E0384``, ``ext4``) is no identifier to the text (below); a
code (``E0384``) counts for a candidate whose page or section it *titles*
(:func:`titled_names`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence

from citewise.text import MARKUP_ELEMENT, release_numbers, titles
from citewise.types import ScoredId

_CODE = re.compile(r"`([^`\n]{2,80})`")
_TOKEN = re.compile(r"(?<![\w-])(?:--?[A-Za-z][\w-]*[A-Za-z0-9]|-[A-Za-z](?![\w-])"
                    r"|[A-Za-z]\w*(?:_|::)\w+)")
"""An identifier: an option (``--small``, ``-mtime``, ``-u``: a new user's "What does the
-u option do in diff?" missed the options list's ``'-u'`` entry and the Unified Format
section, which BM25 reads as one letter, and was declined; not a hyphenated word, nor
``-1``) or a name with an inner ``_`` or ``::`` (``max_keepalive_connections``,
``Vec::pop``). Not dotted or slashed names, camelCase or letters with digits: on SciFact's
claims those are biology (``mRNA``, ``H2A.Z``, ``TCR/CD8``, ``p53``), and an exact run for
them cost hybrid nDCG@10 0.7285 -> 0.7162; ``ext4`` or ``bzip2`` are names mentioned in
passing on many pages (borg's unanswerable "…ext4 VMs…" got a page naming ext4 past the
gate)."""
_CALL = re.compile(r"(?<![\w.$])([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\(\)")
"""A name written as a call, ``setImmediate()`` or ``process.nextTick()``: code whatever its
spelling (camelCase and dotted names alone are not, above). A new user's "What is the
difference between setImmediate() and process.nextTick()?" had ten ``process.nextTick``
passages on top and was declined as naming something no top passage mentions, the
``setImmediate`` sections ranking 11th to 17th in BM25. A dotted call also names its last
part (``response.raise_for_status()``: a page writes ``r.raise_for_status()``)."""
_CONFIG_NAME = re.compile(
    r"(?<![\w.$-])(?:\$[A-Za-z]\w{2,}"  # $ActionQueueFileName, $programname
    r"|[a-z]{2,}(?:[A-Z][a-z]{2,})+"  # camelCase: pollingInterval, not miRNA or clpC
    r"|[A-Z][a-z]+(?:[A-Z][a-z]{2,})+"  # PascalCase: PollingInterval, not FoxO3a
    r"|[a-z][a-z0-9_]+(?:\.[a-z][a-z0-9_]*)*\.[a-z][a-z0-9_]+)"  # queue.filename, gc.auto
    r"(?![\w-]|\.\w)")
"""A configuration name as a manual writes it: a legacy directive or variable with its
``$``, a camelCase or PascalCase name of two humps, a lowercase dotted name (a config key
or a file: ``queue.filename``, ``pull.rebase``, ``named.conf``). A new user of rsyslog's
documentation asked "what's the default for imfile's PollingInterval" and for
``$ActionQueueFileName`` and ``queue.filename``: the gate asked for those names in the top
passages (:func:`citewise.cite.terms.is_identifier`), but no run looked for them as written.
Not SciFact's biology: each hump is a capital and two lowercase letters or more, after two
lowercase letters for camelCase (``iTregs``, ``miRNA``, ``clpC``, ``FoxO3a``, ``TatAd`` are
not), and a dotted name is lowercase (``H2A.Z`` is not); of its 300 queries one names such a
name (``AlphaBeta``), which none of its 5,183 abstracts holds: its exact run is empty."""
MAX_IDENTIFIERS = 4
_MIXED = re.compile(r"(?<![\w.-])[A-Za-z]{1,3}\d{3,}(?![\w-]|\.\w)")
"""A code: one to three letters, then three digits or more (``E0384``, ``SC2086``,
``iso8601``): not a value (``30s``, ``1GB``), part
of a dotted or hyphenated name, nor a short name with a version (``ext4``, ``md5``,
``http2``): the review of this stop found "how do I create an ext4 filesystem" led by a page
titled "Release notes for ext4", and "is md5 secure" by an MD5 page of history alone."""
_SHORT = re.compile(r"-[A-Za-z]")  # -n is not -N
_HUMPED = re.compile(r"[A-Za-z][A-Za-z0-9]*[a-z][A-Z][A-Za-z0-9]*")
"""A camelCase or PascalCase name (``PollingInterval``, ``setImmediate``, ``getElementById``,
``XMLHttpRequest``) is matched as written: SciFact's "AlphaBeta production" is not its
abstracts' "alphabeta T cell". An option, a tag or a legacy directive (``-maxDepth``,
``<myElement``, ``$ActionQueueFileName``) is any case, as before (the reviews of this
stop)."""
_WORDS = re.compile(r"[A-Za-z][a-z]+(?:[ \t]+[A-Za-z][a-z]+)+")  # a run of words, no punctuation
MAX_PHRASES = 200
"""Phrases looked up per question (a set lookup each, per candidate's own options): a cap
of 24 dropped "ignore case" from a question of twenty words."""
_LONG_NAME = re.compile(r"--[A-Za-z][\w-]*")
_LONG = re.compile(r"(?<![\w-])" + _LONG_NAME.pattern)  # one in a text


def identifiers(query: str) -> list[str]:
    """The identifiers ``query`` names (backticked spans first, then elements, then calls,
    options and names, release numbers: :func:`~citewise.text.release_numbers`), each
    once, in order."""
    found = [m.strip() for m in _CODE.findall(query)]
    rest = _CODE.sub(" ", query)  # an element is found as its tag, attributes or not
    found += [f"<{name}" for name in MARKUP_ELEMENT.findall(rest)]
    rest = MARKUP_ELEMENT.sub(" ", rest)
    for call in _CALL.findall(rest):  # "process.nextTick" and "nextTick" ("r.nextTick")
        last = call.rsplit(".", 1)[-1]
        found += [name for name in (call, last) if len(name) >= 3]  # not it(), x(), $()
    rest = _CALL.sub(" ", rest)
    found += _TOKEN.findall(rest)
    found += _CONFIG_NAME.findall(rest)
    found += release_numbers(rest)
    return list(dict.fromkeys(f for f in found if f))[:MAX_IDENTIFIERS]


def titled_names(query: str) -> list[str]:
    """The codes ``query`` holds outside backticks (:data:`_MIXED`),
    each once, in order: looked up in the candidates' titles and headings alone
    (:func:`~citewise.text.titles`), not their text, where such names are mentioned in
    passing (the SciFact and borg measurements above). The rustc error index titles each
    page by its code, "Error code E0384": BM25 ranked that page first for "what does error
    E0384 mean in Rust?", the embedding did not have it in its top 100, and RRF left it out
    of the top ten, so the gate declined the question as naming something no top passage
    mentions."""
    rest = MARKUP_ELEMENT.sub(" ", _CODE.sub(" ", query))
    return list(dict.fromkeys(_MIXED.findall(rest)))[:MAX_IDENTIFIERS]


def phrase_options(query: str) -> list[str]:
    """The long options two or three consecutive words of ``query`` would spell
    (``--ignore-case`` from "make diff ignore case"): a new user's "How do I make diff
    ignore case?" was answered from a passage about ``--ignore-file-name-case``, the
    words' most frequent page, while the section saying "use the '-i' or '--ignore-case'
    option" ranked third. Options' names are the words people ask in; none is an identifier
    the question *names*, so only a candidate holding one counts (never the gate)."""
    found: list[str] = []
    for run in _WORDS.findall(_CODE.sub(" ", query)):
        words = run.lower().split()
        for size in (3, 2):
            found += ["--" + "-".join(words[i:i + size]) for i in range(len(words) - size + 1)]
    return list(dict.fromkeys(found))[:MAX_PHRASES]


def exact_run(names: Sequence[str], texts: Mapping[str, str], titled: Sequence[str] = (),
              headings: Mapping[str, Sequence[str]] | None = None) -> list[ScoredId]:
    """The chunks of ``texts`` (``chunk_id -> text``, in the order they were found) that hold
    one of ``names`` as a whole token, case aside, or whose ``headings`` (``chunk_id ->``
    its page's title and its headings) title one of ``titled`` (:func:`titled_names`),
    ranked by the names they hold, each weighted ``ln(1 + N / df)`` over the N candidates
    (the rarer, the more it tells: the ``--small`` entry above every page naming ``bzip2``),
    then by that order. A name most candidates hold tells none of them apart: not counted."""
    held = dict(zip(texts, _held(names, texts.values()), strict=True))
    for cid, found in held.items():
        found.update(len(names) + i for i, name in enumerate(titled)
                     if any(titles(t, name) for t in (headings or {}).get(cid, ())))
    names = [*names, *titled]
    df = [sum(i in h for h in held.values()) for i in range(len(names))]
    weight = [0.0 if not n or n > max(len(texts) // 2, 1)  # in most: tells none apart
              else math.log(1 + len(texts) / n) for n in df]
    matched = []
    for position, (cid, found) in enumerate(held.items()):
        score = math.fsum(weight[i] for i in found)
        if score > 0:
            matched.append((-score, position, cid))
    matched.sort()
    return [ScoredId(cid, -neg, rank) for rank, (neg, _, cid) in enumerate(matched, start=1)]


def _held(names: Sequence[str], texts: Iterable[str]) -> Iterator[set[int]]:
    """For each text, the indexes of ``names`` it holds as whole tokens. Long options are
    looked up among the text's own (one scan a text: the phrases' 24 patterns over 160
    candidates took 40 ms a search), others matched one pattern each."""
    long: dict[str, int] = {}
    patterns: list[tuple[int, re.Pattern[str]]] = []
    for i, n in enumerate(names):
        if _LONG_NAME.fullmatch(n):
            long.setdefault(n.lower(), i)
        else:
            patterns.append((i, re.compile(
                rf"(?<![\w-]){re.escape(n)}(?![\w-])" if n[0] != "<" else
                rf"{re.escape(n)}(?=[\s/>])",  # an element's tag
                0 if _SHORT.fullmatch(n) or _HUMPED.fullmatch(n) else re.IGNORECASE)))
    for text in texts:
        found = {i for i, p in patterns if p.search(text)}
        if long and "--" in text:
            found.update(long[t] for t in map(str.lower, _LONG.findall(text)) if t in long)
        yield found
