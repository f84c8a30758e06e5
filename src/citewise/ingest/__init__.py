"""citewise.ingest: turn files into :class:`~citewise.types.ParsedDocument` values.

One loader per format (``markdown``, ``html``, ``text``, ``pdf``, ``info``, ``docx``), a
registry that picks one by suffix (through gzip too) and guards size and content
(:func:`load_file`), and metadata readers (front matter in the loaders,
:func:`read_sidecar` for a JSONL sidecar).
"""

from citewise.ingest.html import HtmlLoader
from citewise.ingest.info import InfoLoader
from citewise.ingest.markdown import MarkdownLoader
from citewise.ingest.metadata import normalize_groups, normalize_metadata
from citewise.ingest.pdf import PdfLoader
from citewise.ingest.registry import (
    SUPPORTED_SUFFIXES,
    format_of,
    inner_path,
    is_supported,
    load_bytes,
    load_file,
    make_loader,
    sniff_format,
)
from citewise.ingest.sidecar import read_sidecar
from citewise.ingest.text import TextLoader
from citewise.ingest.word import DocxLoader

__all__ = [
    "SUPPORTED_SUFFIXES",
    "DocxLoader",
    "HtmlLoader",
    "InfoLoader",
    "MarkdownLoader",
    "PdfLoader",
    "TextLoader",
    "format_of",
    "inner_path",
    "is_supported",
    "load_bytes",
    "load_file",
    "make_loader",
    "normalize_groups",
    "normalize_metadata",
    "read_sidecar",
    "sniff_format",
]
