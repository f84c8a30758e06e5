"""HTML tables: a data table's rows, and whether a table lays the page out instead
(:func:`is_layout_table`), in which case the HTML loader reads its cells as containers."""

from __future__ import annotations

from selectolax.lexbor import LexborNode

from citewise.ingest.normalize import collapse


def table_rows(table: LexborNode) -> tuple[list[str], int]:
    """Rows of this table (not of nested ones) as ``a | b`` lines, and the header row count:
    the rows of its first ``thead`` (a ``thead`` repeated further down, as HAProxy's keyword
    matrix repeats its column names nine times, is neither header nor row: its nine were
    counted as header rows, eight of them data), else its leading rows of ``th`` cells. An
    image in a cell reads as its ``alt`` text (the matrix's check marks: every cell blank)."""
    rows: list[str] = []
    in_thead = 0
    counting_thead = True
    leading_th = 0
    counting_th = True
    for row in table.css("tr"):
        if _owner_table(row) != table.mem_id:
            continue
        cells = [c for c in row.iter() if c.tag in ("th", "td")]
        if not cells:
            continue
        line = " | ".join(_cell_text(c) for c in cells)
        parent = row.parent
        head = parent is not None and parent.tag == "thead"
        counting_thead = counting_thead and head
        if head and not counting_thead and line in rows[:in_thead]:
            continue  # the header again
        rows.append(line)
        in_thead += counting_thead
        counting_th = counting_th and all(c.tag == "th" for c in cells)
        leading_th += counting_th
    header_lines = in_thead or leading_th
    return rows, min(header_lines, len(rows))


def _cell_text(cell: LexborNode) -> str:
    if cell.css_first("img[alt]") is None:
        return collapse(cell.text(deep=True))
    parts = []
    for node in cell.traverse(include_text=True):
        if node.tag == "-text":
            parts.append(node.text_content or "")
        elif node.tag == "img":
            parts.append(f" {node.attrs.get('alt') or ''} ")
    return collapse("".join(parts))


def is_layout_table(table: LexborNode) -> bool:
    """Whether ``table`` lays a page out instead of holding data: ``role=presentation``, a
    heading inside it, or a column of content boxes (one cell per row, holding paragraphs,
    lists or code) in it or in a table inside it. Its cells are read as containers. Read as
    rows, a page laid out in nested tables was one table row: libxslt's old site
    (``/usr/share/doc/libxslt1-dev/html``) made its FAQ one 1,942-character cell that began
    with the 30 links of its menus (which no boilerplate rule could then remove), and a
    DocBook ``screen`` (a one-cell table around a ``pre``) lost its line breaks."""
    if (table.attrs.get("role") or "").strip().lower() in ("presentation", "none"):
        return True
    inner = [n for n in table.css("table, h1, h2, h3, h4, h5, h6") if n.mem_id != table.mem_id]
    if any(n.tag != "table" for n in inner):  # (a node's css() matches the node itself too)
        return True
    return any(_boxes(t) for t in (table, *inner))


def _boxes(table: LexborNode) -> bool:
    """One cell per row, and some cell holds block content."""
    cells = own_cells(table)
    rows = {_owner_row(cell) for cell in cells}
    return bool(cells) and len(rows) == len(cells) and any(
        cell.css_first(_BLOCK_CONTENT) is not None for cell in cells)


_BLOCK_CONTENT = "p, ul, ol, dl, pre, blockquote, div"


def own_cells(table: LexborNode) -> list[LexborNode]:
    """The ``td``/``th`` cells of ``table`` itself (not of tables nested in it), in order."""
    return [c for c in table.css("td, th") if _owner_table(c) == table.mem_id]


def _owner_row(cell: LexborNode) -> int | None:
    parent = cell.parent
    return parent.mem_id if parent is not None else None


def _owner_table(node: LexborNode) -> int | None:
    parent = node.parent
    while parent is not None and parent.tag != "table":
        parent = parent.parent
    return parent.mem_id if parent is not None else None
