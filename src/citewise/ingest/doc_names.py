"""Files a project names by convention, read as plain text whatever their suffix.

A Debian package's documentation folder (``/usr/share/doc/gdb``) holds ``NEWS.gz``,
``README.gz`` and ``README.Debian``: no suffix a loader knows, so a folder walk skipped all
of them and a new user's ``citewise ingest /usr/share/doc/gdb`` indexed nothing. A name of
this list (upper case, as projects write them), alone or with qualifiers (``README.Debian``,
``README.Debian.amd64``, dpkg's ``README.bug-usertags``, ``RELEASE-NOTES``; after a release
number: util-linux's ``v2.38-ReleaseNotes.gz``), is plain text; a qualifier that names a
program or a binary format (``INSTALL.sh``, ``TODO.py``) is not. ``AUTHORS``, ``THANKS``,
``COPYING``, Debian's ``changelog`` and GNU's ``ChangeLog`` are left out: lists of names,
licences and commit logs answer few questions and crowd the ones that do (name such a file
to read it as text). A project's ``CHANGELOG`` (``CHANGELOG.md``, ``changelog.rst``) is its
release history, read like ``CHANGES``: a new user's walk of httplib2's, funcsigs' and
google-auth's folders left theirs out, and "which version added …" had nothing to read.

Such a file titled only by its name ("NEWS") says nothing in a citation beside another
package's "NEWS": :func:`name_title` adds the folder that holds it ("gdb NEWS").
"""

from __future__ import annotations

import re
from pathlib import Path

_NAME = re.compile(r"(?:v?\d+(?:\.\d+)*[-_])?"  # a release first: util-linux's v2.38-ReleaseNotes
                   r"(?:README|NEWS|FAQ|INSTALL|CHANGES|CHANGELOG|HISTORY|TODO|BUGS|HACKING"
                   r"|USAGE|NOTES"
                   r"|CONTRIBUTING|RELEASE[-_]NOTES|ReleaseNotes)(?:[-_][A-Z][A-Z0-9_]*)?"
                   r"((?:\.[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*){0,3})")
_PROGRAM = frozenset({"sh", "bash", "py", "pl", "rb", "js", "c", "h", "cc", "cpp", "bat",
                      "cmd", "ps1", "exe", "in", "am", "ac", "m4", "mk", "ps", "dvi", "tex",
                      "db", "json", "xml", "yml", "yaml", "toml", "css", "png", "jpg", "gif",
                      "svg", "log", "diff", "patch", "bz2", "xz", "zip", "tar", "tgz", "zst",
                      "lz", "lzma", "7z", "rar", "z", "deb", "rpm", "lz4", "tbz2", "txz",
                      "sig", "gpg", "asc", "jar", "so", "o", "a", "bin"})
UPLOAD_PREFIX = "citewise-upload-"
"""The prefix of the temporary folder API uploads were read from before they were read from
memory (an upload's path has no folder now): no folder of the document's (a review's
uploaded README was titled "citewise-upload-rjznxws9 README"); such a folder still names no
title."""
FORMAT_BY_SUFFIX: dict[str, str] = {
    ".md": "markdown", ".markdown": "markdown",
    ".html": "html", ".htm": "html",
    ".txt": "text", ".text": "text", ".rst": "rst", ".rest": "rst",
    ".pdf": "pdf",
    ".info": "info",
    ".docx": "docx",
}
"""The format each suffix a loader reads names (:func:`~citewise.ingest.registry.format_of`),
kept here, below the loaders, so that :func:`name_title` knows them too."""
FORMAT_SUFFIXES = frozenset(FORMAT_BY_SUFFIX)
"""The suffixes a loader reads: "README.md" is titled "README", "README.Debian" keeps its
qualifier."""
FILE_TYPE = re.compile(r"\.[a-z0-9]{1,10}")
"""What a suffix that names a file type looks like (a man page's ".1", ".3pm" too: refused
when named, as before): not ".1-notes" in "v2.38.1-notes", which is a name's dot (named on
the command line, such a file is read as text, like one with no suffix, and titled by its
whole name)."""


def is_doc_name(name: str) -> bool:
    """Whether a file ``name`` (without ``.gz``) is a conventional documentation file:
    ``NEWS``, ``README.Debian``; not ``INSTALL.sh``."""
    match = _NAME.fullmatch(name)
    if match is None:
        return False
    return not any(q.lower() in _PROGRAM for q in match.group(1).split(".")[1:])


_LEFT_OUT = re.compile(r"(?:changelog|authors|thanks|copying|copyright|licen[cs]e)"
                       r"(?:\.[A-Za-z0-9]+){0,3}", re.IGNORECASE)


_NAMED_LICENCE = re.compile(r"(?:[A-Z0-9]+[-_])*LICEN[CS]E(?:[-_][A-Z0-9]+)*(?:\.txt)?")
"""A licence named after what it licenses, in capitals: mdBook's ``OPEN-SANS-LICENSE.txt``
and ``SOURCE-CODE-PRO-LICENSE.txt`` beside a book's fonts (a new user's question about the
Rustonomicon was answered from one), Rust's ``LICENSE-MIT``; not a page about licences
(``license-faq.md``)."""


def is_named_licence(name: str) -> bool:
    """Whether ``name`` is a licence named after what it licenses (:data:`_NAMED_LICENCE`),
    gzipped or not: a folder walk leaves it out though its suffix is read (``.txt``)."""
    return _NAMED_LICENCE.fullmatch(name.removesuffix(".gz")) is not None


def is_requirements(name: str) -> bool:
    """Whether ``name`` is a pip requirements file (:data:`_REQUIREMENTS`), gzipped or not:
    a folder walk leaves it out though its suffix is read (``.txt``)."""
    return _REQUIREMENTS.fullmatch(name.removesuffix(".gz")) is not None


def is_left_out(name: str) -> bool:
    """Whether a file ``name`` is one a walk leaves out on purpose (module docstring):
    ``changelog.Debian.gz``, ``AUTHORS``, ``copyright`` (a new user read them counted among
    "files of a type citewise does not read"), ``SOURCE-CODE-PRO-LICENSE.txt``,
    ``requirements-docs.txt``."""
    if is_requirements(name):
        return True
    bare = name.removesuffix(".gz")
    if any(part.lower() in _PROGRAM for part in bare.split(".")[1:]):
        return False  # a stylesheet or script so named (SQLAlchemy's changelog.css) is no
        # changelog: a file of a type citewise does not read (a new user was told otherwise)
    return (_LEFT_OUT.fullmatch(name) is not None or _NAMED_LICENCE.fullmatch(bare) is not None) \
        and not is_doc_name(bare) and _MARKED_CHANGELOG.fullmatch(bare) is None


_REQUIREMENTS = re.compile(r"(?!.*\.(?:rst|rest|md|markdown|myst|ipynb)\.txt$)"
                           r"(?:requirements|constraints)(?:[-_.][\w.-]*)?\.txt")
"""pip's requirements files (``docs/requirements.txt``, ``requirements-docs.txt``): lists of
packages a docs build installs, indexed as two new users' documents. Lower case, as pip's
are: a project's ``REQUIREMENTS.txt`` may be prose ("You need a C compiler…"). Sphinx's copy
of a page named requirements (``_sources/requirements.rst.txt``, Knot DNS's "Requirements"
chapter) is that page's source, which a new user was told was a pip file."""


_MARKED_CHANGELOG = re.compile(r"changelog\.(?:md|markdown|rst|txt|adoc)", re.IGNORECASE)
"""A changelog written as a page (``Changelog.md``), not Debian's or GNU's log."""


def name_title(path: Path) -> str:
    """A title for a document that has none of its own: its name without the suffix
    (``guide``), or, for a conventional name, the name after its folder's ("gdb NEWS",
    "gdb README.Debian"; not a temporary folder's)."""
    name = path.stem if path.suffix.lower() in FORMAT_SUFFIXES else path.name
    if not is_doc_name(name):
        return path.stem if FILE_TYPE.fullmatch(path.suffix.lower()) else path.name
    folder = path.parent.name
    anonymous = not folder or folder.startswith(UPLOAD_PREFIX)
    return name if anonymous else f"{folder} {name}"
