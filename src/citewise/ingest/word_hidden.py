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
_WHITE = ("ffffff",)  # shading fills that put nothing behind the text
MIN_SCALE = 10
"""Character widths (``w:w``, percent) at or under which a run is a dot, not text."""
_HIGHLIGHTS = {"black": "000000", "white": "ffffff", "darkgray": "808080",
               "lightgray": "c0c0c0", "yellow": "ffff00", "green": "00ff00", "cyan": "00ffff",
               "magenta": "ff00ff", "blue": "0000ff", "red": "ff0000", "darkblue": "000080",
               "darkcyan": "008080", "darkgreen": "008000", "darkmagenta": "800080",
               "darkred": "800000", "darkyellow": "808000"}
"""Word's highlight colours; a run of the colour of its highlight or shading is a
"redaction" nobody can read (a security review's black-highlighted name was quoted)."""
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
        para_style = _value(props, "w:pStyle") or styles.default_paragraph
        shaded = _coloured(_value(props, "w:shd", "w:fill")) or _in_cell(paragraph)
        for run in paragraph.iter(qn("w:r")):
            if _hidden(run, styles, para_style, shaded):
                doomed.append(run)
    for run in doomed:
        parent = run.getparent()
        if parent is not None:
            parent.remove(run)
    return len(doomed)


def _in_cell(paragraph: Any) -> bool:
    """Whether ``paragraph`` is in a table cell, where a table style or the cell may shade
    what is behind it (white header text on a dark row, the review of this stop: a
    corporate template's header row was dropped); white text there is not judged."""
    parent = paragraph.getparent()
    while parent is not None and parent.tag == qn("w:sdtContent"):
        parent = parent.getparent().getparent() if parent.getparent() is not None else None
    return parent is not None and parent.tag == qn("w:tc")


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
    chain = [props, *styles.chain(char_style), *styles.chain(para_style), styles.defaults]
    for tag in _HIDING:
        value = _setting(chain, tag)
        if value is not None and value.lower() not in _OFF:
            return True
    size = _half_points(_setting(chain, "w:sz"))
    if size is not None and size <= MIN_HALF_POINTS:
        return True
    scale = _setting(chain, "w:w")  # character width, percent
    if scale is not None and scale.isdigit() and int(scale) <= MIN_SCALE:
        return True
    color = _setting(chain, "w:color")
    highlight = _HIGHLIGHTS.get((_setting(chain, "w:highlight") or "none").lower(), "")
    fill = _setting(chain, "w:shd", "w:fill")
    if color is not None and color.lower() in (highlight, (fill or "").lower()):
        return True  # a "redaction": black on black (a review's incident report's name)
    behind = shaded or _coloured(fill) or highlight not in ("", "ffffff")
    return _white(color, _setting(chain, "w:color", "w:themeColor")) and not behind


def _half_points(size: str | None) -> float | None:
    """A ``w:sz`` in half-points: a number, or a measure in points ("1pt")."""
    if size is None:
        return None
    try:
        return float(size[:-2]) * 2 if size.lower().endswith("pt") else float(size)
    except ValueError:
        return None


def _white(color: str | None, theme: str | None) -> bool:
    """Whether a run's colour is white or nearly (each channel at least F0), or the theme's
    background colour."""
    if theme is not None and theme.lower() in ("background1", "bg1", "light1"):
        return True
    if color is None or len(color) != 6:
        return False
    try:
        return all(int(color[i:i + 2], 16) >= 0xF0 for i in (0, 2, 4))
    except ValueError:
        return False


def _coloured(fill: str | None) -> bool:
    """Whether a shading ``fill`` puts a colour other than white (or nearly: FEFEFE, a
    review's) behind the text."""
    return fill is not None and fill.lower() not in ("auto", "on", *_WHITE) \
        and not _white(fill, None)


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
        self.default_paragraph: str | None = None
        self.defaults = None  # w:docDefaults' run properties
        try:
            root = document.styles.element
            found = root.findall(qn("w:style"))
            self.defaults = root.find(f"{qn('w:docDefaults')}/{qn('w:rPrDefault')}/"
                                      f"{qn('w:rPr')}")
        except (KeyError, ValueError, AttributeError):
            found = []
        for style in found:
            sid = style.get(qn("w:styleId")) or ""
            if style.get(qn("w:type")) == "paragraph" and \
                    style.get(qn("w:default")) in ("1", "true", "on"):
                self.default_paragraph = sid  # what a paragraph without a style uses
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
