"""A PDF file from its objects, for tests that need one no PDF library would write (an
outline that loops, pages that all draw one huge shared stream)."""

from __future__ import annotations

from collections.abc import Sequence


def raw_pdf(objects: Sequence[bytes]) -> bytes:
    """A PDF whose objects, numbered from 1 in order, are ``objects`` (object 1 the catalog),
    with its cross-reference table and trailer."""
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, xref)
    return bytes(out)
