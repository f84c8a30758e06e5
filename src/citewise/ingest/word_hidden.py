"""Text a Word document hides from its readers: what :mod:`citewise.ingest.word` removes
before reading, and tracked insertions it shows.

A security review's ``.docx`` held runs marked hidden (``w:vanish``, directly or through a
character or paragraph style), white text and 1-point text: Word shows none of it, and
citewise indexed and cited all of it (``w:webHidden`` text stays: Word's print layout shows
it). Runs whose properties (their own,
else their character style's, else their paragraph style's, each with its base styles) hide
them are removed; so are runs in white with no shading or highlight behind them, and runs
of 2 points or less. Tracked insertions (``w:ins``, ``w:moveTo``), which Word shows and
python-docx's paragraph text skips, are read as ordinary runs.
"""

from __future__ import annotations

from typing import Any

from docx.oxml.ns import qn

_OFF = ("0", "false", "off")
MIN_HALF_POINTS = 4
"""Runs of this size or less (in half-points: 2 pt) are too small to read."""
_WHITE = ("ffffff",)
_HIDING = ("w:vanish",)


def drop_hidden_runs(document: Any) -> int:
    """Unwrap tracked insertions and remove hidden runs from ``document``'s body (a
    python-docx Document); returns how many runs were removed."""
    body = document.element.body
    for tag in ("w:ins", "w:moveTo"):
        for wrapper in list(body.iter(qn(tag))):
            _unwrap(wrapper)
    styles = _StyleLook(document)
    doomed = []
    for paragraph in body.iter(qn("w:p")):
        props = paragraph.find(qn("w:pPr"))
        para_style = _value(props, "w:pStyle")
        shaded = _coloured(_value(props, "w:shd", "w:fill"))
        for run in paragraph.iter(qn("w:r")):
            if _hidden(run, styles, para_style, shaded):
                doomed.append(run)
    for run in doomed:
        parent = run.getparent()
        if parent is not None:
            parent.remove(run)
    return len(doomed)


def _unwrap(element: Any) -> None:
    """Put ``element``'s children in its place."""
    parent = element.getparent()
    if parent is None:
        return
    index = parent.index(element)
    for offset, child in enumerate(list(element)):
        parent.insert(index + offset, child)
    parent.remove(element)


def _value(props: Any, tag: str, attribute: str = "w:val") -> str | None:
    """``attribute`` of the ``tag`` child of ``props`` (None when either is missing)."""
    found = None if props is None else props.find(qn(tag))
    return None if found is None else found.get(qn(attribute))


def _hidden(run: Any, styles: _StyleLook, para_style: str | None, shaded: bool) -> bool:
    props = run.find(qn("w:rPr"))
    char_style = _value(props, "w:rStyle")
    chain = [props, *styles.chain(char_style), *styles.chain(para_style)]
    for tag in _HIDING:
        value = _setting(chain, tag)
        if value is not None and value.lower() not in _OFF:
            return True
    size = _setting(chain, "w:sz")
    if size is not None and size.isdigit() and int(size) <= MIN_HALF_POINTS:
        return True
    color = _setting(chain, "w:color")
    highlight = _setting(chain, "w:highlight")
    behind = shaded or _coloured(_setting(chain, "w:shd", "w:fill")) or \
        (highlight is not None and highlight.lower() != "none")
    return color is not None and color.lower() in _WHITE and not behind


def _coloured(fill: str | None) -> bool:
    """Whether a shading ``fill`` puts a colour other than white behind the text."""
    return fill is not None and fill.lower() not in ("auto", "on", *_WHITE)


def _setting(chain: list[Any], tag: str, attribute: str = "w:val") -> str | None:
    """The first ``tag`` set along ``chain`` (run properties, nearest first): its
    ``attribute`` (``"on"`` when present without one), or None when none sets it."""
    for props in chain:
        if props is None:
            continue
        found = props.find(qn(tag))
        if found is not None:
            return found.get(qn(attribute)) or "on"
    return None


class _StyleLook:
    """Each style's run properties and its base styles' (at most 10), read once."""

    def __init__(self, document: Any) -> None:
        self.props: dict[str, tuple[Any, str | None]] = {}
        try:
            found = document.styles.element.findall(qn("w:style"))
        except (KeyError, ValueError, AttributeError):
            found = []
        for style in found:
            sid = style.get(qn("w:styleId")) or ""
            based = style.find(qn("w:basedOn"))
            self.props.setdefault(sid, (style.find(qn("w:rPr")),
                                        based.get(qn("w:val")) if based is not None else None))
        self._chains: dict[str | None, list[Any]] = {}

    def chain(self, sid: str | None) -> list[Any]:
        if sid not in self._chains:
            out, at = [], sid
            while at is not None and at in self.props and len(out) < 10:
                props, at = self.props[at]
                out.append(props)
            self._chains[sid] = out
        return self._chains[sid]
