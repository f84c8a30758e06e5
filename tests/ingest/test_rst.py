"""reStructuredText (docutils) and MyST Markdown: Sphinx's directives and roles read for their
text. A new user's pip documentation, read as plain text, showed ``.. tab::``, ``:ref:`` and
``(label)=`` in its chunks, had no anchors, and its "This page has moved" stubs were cited."""

from __future__ import annotations

from pathlib import Path

import pytest
from docutils.parsers.rst import directives, roles

from citewise.config import LimitSettings, Settings
from citewise.errors import IngestError, OnlyIncludesError
from citewise.ingest.registry import load_bytes
from citewise.sources import file_batch

LIMITS = LimitSettings()

PAGE = """\
:orphan:

.. _`pip install`:

===========
pip install
===========

.. toctree::
   :maxdepth: 2

   secret-nav

.. _install-caching:

Caching
=======

.. versionadded:: 6.0

pip caches wheels; see :ref:`the cache command <pip cache>` and :doc:`../topics/caching`.
Use :option:`--no-cache-dir` or :func:`~pip.cache.purge`.

.. tab:: Unix/macOS

   .. code-block:: shell

      python -m pip install --no-cache-dir SomePackage

.. option:: --no-cache-dir

   Disable the cache.

- one item
- two items

  - nested

=====  =====
key    value
=====  =====
a      1
=====  =====

term
   Its definition, with the term.

.. pip-command-usage:: install "python -m pip"

.. include:: {secret}

.. raw:: html

   <script>alert(1)</script>
"""


def _load(text: str, name: str = "page.rst"):  # noqa: ANN202
    return load_bytes(text.encode(), Path(name), LIMITS)


def test_sections_code_lists_and_roles_read_as_a_reader_sees_them(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("SERVER-SECRET-42\n")
    parsed = _load(PAGE.format(secret=secret))
    assert parsed.title == "pip install" and parsed.format == "rst"
    text = parsed.text
    for markup in (".. ", ":ref:", ":doc:", ":option:", "orphan", "maxdepth", "secret-nav",
                   "pip-command-usage", "<script>", "SERVER-SECRET-42", "`"):
        assert markup not in text, markup
    headings = {b.text: b.anchor for b in parsed.blocks if b.kind == "heading"}
    assert headings == {"pip install": "pip-install", "Caching": "caching"}
    kinds = {b.text: b.kind for b in parsed.blocks}
    assert "python -m pip install --no-cache-dir SomePackage" in kinds
    assert kinds["python -m pip install --no-cache-dir SomePackage"] == "code"
    assert kinds["- one item\n- two items\n  - nested"] == "list"
    assert kinds["key | value\na | 1"] == "table"
    assert "New in version 6.0:" in kinds and "term\nIts definition, with the term." in kinds
    assert "pip caches wheels; see the cache command and caching. Use --no-cache-dir or " \
           "purge." in kinds
    assert "--no-cache-dir\nDisable the cache." in text and "Unix/macOS" in kinds
    assert all(b.anchor == "caching" for b in parsed.blocks[2:])


def test_no_stand_in_outlives_its_parse_and_broken_markup_still_loads():
    before = (dict(directives._directives), dict(roles._roles))
    parsed = _load("Title\n=====\n\n.. unknown-thing:: x\n\n   kept text\n\n"
                   ":weird-role:`shown` and `unclosed\n\n.. code-block::\n")
    assert "kept text" in parsed.text and "shown" in parsed.text
    assert (dict(directives._directives), dict(roles._roles)) == before


def test_pep_and_rfc_references_with_a_title_read_as_their_title():
    """setuptools' build_meta.rst: ":pep:`in-tree backend <517#in-tree-build-backends>`" is
    Sphinx's syntax, which docutils' own pep role refuses, and the raw markup was quoted."""
    before = (dict(directives._directives), dict(roles._roles))
    text = _load("Title\n=====\n\nUse an :pep:`in-tree backend <517#in-tree-build-backends>`"
                 " as :pep:`517` says, or :rfc:`the spec <2616#section-3>` and :RFC:`7230`.\n").text
    assert text.endswith("Use an in-tree backend as PEP 517 says, or the spec and RFC 7230.")
    assert (dict(directives._directives), dict(roles._roles)) == before


def test_a_moved_page_is_a_redirect_and_is_not_indexed(tmp_path):
    root = tmp_path / "docs"
    root.mkdir()
    (root / "installing.rst").write_text(
        ":orphan:\n\n.. meta::\n\n  :http-equiv=refresh: 3; url=../installation/\n\n"
        "This page has moved\n===================\n\nYou should be redirected. Here's a "
        "link: :doc:`installation`\n")
    (root / "installation.rst").write_text("Installation\n============\n\nRun it.\n")
    parsed = _load((root / "installing.rst").read_text())
    assert parsed.metadata["redirect_to"] == "../installation/"
    batch = file_batch([root], Settings().limits, {"groups": ["staff"]}, None, None)
    assert [p.doc_id for p in batch.items] == ["installation.rst"]
    assert [target for _, target in batch.redirects] == ["../installation/"]


def test_myst_roles_targets_and_directive_fences():
    parsed = _load("(wheel-caching)=\n\n# Locally built wheels\n\nSee {ref}`caching <Caching>`"
                   ", {doc}`../cli/pip_cache` and {term}`sdist <Source Distribution>`.\n\n"
                   "% a comment nobody reads\n\n```{toctree}\n:maxdepth: 1\n\nsecret-nav\n```"
                   "\n\n```{note}\n:class: tip\nA **note** with {file}`pip.conf`.\n```\n\n"
                   "```{code-block} shell\npip cache purge\n```\n", "page.md")
    blocks = [(b.kind, b.text, b.anchor) for b in parsed.blocks]
    assert blocks == [
        ("heading", "Locally built wheels", "wheel-caching"),
        ("text", "See caching, pip_cache and sdist.", "wheel-caching"),
        ("text", "A note with pip.conf.", "wheel-caching"),
        ("code", "pip cache purge", "wheel-caching")]


def test_plain_markdown_keeps_lines_that_look_like_myst_comments():
    parsed = _load("# Formats\n\n%d prints a number.\n", "page.md")
    assert "%d prints a number." in parsed.text


def test_directive_fences_nested_deeply_do_not_recurse_without_end():
    fences = "".join("`" * (40 - i) + "{note}\n" for i in range(30))
    closes = "".join("`" * (11 + i) + "\n" for i in range(30))
    parsed = _load("# Deep\n\n" + fences + "inner text\n" + closes, "page.md")
    assert "inner text" in parsed.text


def test_review_findings_code_options_long_lines_role_leaks_and_size():
    """A review's findings: Sphinx options dropped a whole code-block; one 10,001-character
    line dropped the document; a `.. role::` in one page changed how later pages read; a
    name pattern took quadratic time (120 KB: 24 s, every upload waiting)."""
    import time

    code = _load("T\n=\n\n.. code-block:: python\n   :caption: conf.py\n   :linenos:\n\n"
                 "   DEBUG = True\n")
    assert [(b.kind, b.text) for b in code.blocks][1:] == [("code", "DEBUG = True")]
    long = _load("T\n=\n\nText.\n\n::\n\n   " + "x" * 10_001 + "\n")
    assert "x" * 10_001 in long.text
    other = "B\n=\n\nSee :ref:`caching <Caching>`.\n"
    assert "See caching." in _load(other).text
    _load("A\n=\n\n.. role:: ref\n\nSee :ref:`x <y>`.\n")
    assert "See caching." in _load(other).text  # the role did not outlive its page
    started = time.monotonic()
    _load("T\n=\n\n" + ".:a" * 40_000 + "\n")
    assert time.monotonic() - started < 5
    big = _load("T\n=\n\n" + "word " * 250_000)
    assert big.format == "text" and "plain text" in big.metadata["_notes"][0]


def test_plain_markdown_with_braces_and_code_cells_is_not_read_as_myst():
    """`GET /users/{id}` in inline code made a file look like MyST, whose rules then dropped
    a "%APPDATA%" line; Quarto's ```{r} cells lost their code."""
    parsed = _load("# API\n\nCall `GET /users/{id}` or `${PLAN}`.\n\n%APPDATA%\\pip.ini is "
                   "read.\n\n```{r}\n# Compute the mean\nmean(x)\n```\n", "page.md")
    assert [(b.kind, b.text) for b in parsed.blocks] == [
        ("heading", "API"), ("text", "Call GET /users/{id} or ${PLAN}."),
        ("text", "%APPDATA%\\pip.ini is read."), ("code", "# Compute the mean\nmean(x)")]


def test_cmake_s_version_notes_conditions_and_placeholder_names_read_as_sphinx_shows_them():
    """A new user of CMake's manuals: 110 version notes with their text on the directive's
    lines read "New in version 3.2 Added the ``UTF-16LE`` … encodings.:", markup and all;
    ``.. only:: html`` left a line "html" in 21 pages; a role naming
    ``CMAKE_DISABLE_FIND_PACKAGE_<PackageName>`` read "CMAKE_DISABLE_FIND_PACKAGE_" (a
    variable that does not exist), and one with a bracketed target was shown raw."""
    page = ("Reading\n=======\n\n.. versionadded:: 3.2\n  Added the ``UTF-16LE`` and "
            ":variable:`CMAKE_X` encodings.\n\n.. versionchanged:: 3.19\n\n  Several "
            "configurations.\n\n.. only:: html\n\n  Shown in HTML.\n\nSet "
            ":variable:`CMAKE_DISABLE_FIND_PACKAGE_<PackageName>` or "
            ":variable:`CMAKE_CXX_COMPILER <CMAKE_<LANG>_COMPILER>` or "
            ":data:`ssl.OP_X<python:ssl.OP_X>`, see :ref:`here <Pre Release>`.\n")
    parsed = load_bytes(page.encode(), Path("file.rst"), LIMITS)
    assert [b.text for b in parsed.blocks if b.kind != "heading"] == [
        "New in version 3.2: Added the UTF-16LE and CMAKE_X encodings.",
        "Changed in version 3.19:", "Several configurations.", "Shown in HTML.",
        "Set CMAKE_DISABLE_FIND_PACKAGE_<PackageName> or CMAKE_CXX_COMPILER or ssl.OP_X, "
        "see here."]


def test_a_glued_explicit_title_is_a_title_but_a_placeholder_is_part_of_the_name():
    from citewise.ingest.roles import role_text

    assert role_text("ref", "pip install Examples<pip install Examples>") == \
        "pip install Examples"  # Sphinx reads a title glued to its target (the review)
    assert role_text("ref", "file(REAL_PATH)<REAL_PATH>") == "file(REAL_PATH)"
    for name in ("CMAKE_DISABLE_FIND_PACKAGE_<PackageName>", "$<CONFIG>", "<LANG>"):
        assert role_text("variable", name) == name


def test_escaped_brackets_and_cmake_s_placeholders_stay_in_a_role_s_text():
    """The second review: CMake's ``:ref:`Linking Object Libraries via \\$\\<TARGET_OBJECTS\\>```
    read "… via $", and ``:variable:`CMAKE_POLICY_DEFAULT_CMP<NNNN>``` "…_CMP", a variable
    that does not exist (CMake's roles take a title only before a blank and ``<``)."""
    page = ("T\n=\n\nSee :ref:`Linking via \\$\\<TARGET_OBJECTS\\>` and "
            ":variable:`CMAKE_POLICY_DEFAULT_CMP<NNNN>` and :ref:`x<y>`.\n")
    parsed = load_bytes(page.encode(), Path("file.rst"), LIMITS)
    assert parsed.blocks[-1].text == (
        "See Linking via $<TARGET_OBJECTS> and CMAKE_POLICY_DEFAULT_CMP<NNNN> and x.")


def test_a_console_session_in_a_directive_of_its_own_is_code():
    """pip's own ``{pip-cli}`` fences ("$ pip install sampleproject", "[...]") were read as
    Markdown: one line of prose a user could not copy. A body whose first line is a prompt
    is code, whatever the directive's name; other text stays text."""
    parsed = _load("# Install\n\n```{pip-cli}\n$ pip install sampleproject\n[...]\n"
                   "Successfully installed sampleproject\n```\n\n```{note}\n$5 a month.\n```\n",
                   "page.md")
    assert [(b.kind, b.text) for b in parsed.blocks] == [
        ("heading", "Install"),
        ("code", "$ pip install sampleproject\n[...]\nSuccessfully installed sampleproject"),
        ("text", "$5 a month.")]
    rst = _load("Run\n===\n\n.. pip-cli::\n\n   $ pip --version\n   pip 24.0\n")
    assert ("code", "$ pip --version\npip 24.0") in [(b.kind, b.text) for b in rst.blocks]


def test_code_in_a_list_items_tabs_keeps_its_lines_under_their_labels():
    """pip's examples are "#. Generate a requirements file…" with ``.. tab:: Unix/macOS``
    holding a ``code-block``: the label and both commands were one line of prose."""
    parsed = _load("Examples\n========\n\n#. Generate a requirements file.\n\n"
                   "   .. tab:: Unix/macOS\n\n      .. code-block:: shell\n\n"
                   "         env1/bin/python -m pip freeze > requirements.txt\n"
                   "         env2/bin/python -m pip install -r requirements.txt\n\n"
                   "   .. tab:: Windows\n\n      .. code-block:: shell\n\n"
                   "         py -m pip freeze > requirements.txt\n")
    [listed] = [b.text for b in parsed.blocks if b.kind == "list"]
    assert listed.split("\n") == [
        "1. Generate a requirements file.", "  Unix/macOS",
        "  env1/bin/python -m pip freeze > requirements.txt",
        "  env2/bin/python -m pip install -r requirements.txt", "  Windows",
        "  py -m pip freeze > requirements.txt"]


def test_a_file_of_include_lines_only_is_left_out_naming_what_it_includes():
    """A new user's Sphinx tree had its ``index.rst`` of ``.. include::`` lines reported as a
    failed file (``--strict``: exit 1), though the files it includes are read on their own."""
    with pytest.raises(OnlyIncludesError, match=r"only includes part\.rst, \.\./README\.rst"):
        _load(".. include:: part.rst\n\n.. include:: ../README.rst\n   :start-line: 2\n")
    with pytest.raises(IngestError, match="no extractable text") as empty:
        _load(".. comment only\n")
    assert not isinstance(empty.value, OnlyIncludesError)
    assert _load("Title\n=====\n\n.. include:: part.rst\n").title == "Title"  # text of its own


AWS_EXAMPLE = """\
**Example 1: Sync all local objects to the specified bucket**

The following ``sync`` command syncs objects from a local directory. ::

    aws s3 sync . s3://amzn-s3-demo-bucket

**Example 2: Sync all S3 objects from the specified S3 bucket to another
bucket**

The following ``sync`` command copies S3 objects.

**Note:** a lead-in, not a label.

**Do not run this as root.**

.. note::

   **Inside a note**
"""


def test_a_bold_line_over_an_example_is_its_heading():
    """The AWS CLI's examples title each example with a bold line and have no sections: a
    chunk ran across two examples, citations named none, and titles were quoted as
    sentences (a new user)."""
    parsed = _load(AWS_EXAMPLE, "sync.rst")
    assert parsed.title == "sync"  # a label never titles the document
    paths = {b.text: b.heading_path for b in parsed.blocks}
    one = ("Example 1: Sync all local objects to the specified bucket",)
    two = ("Example 2: Sync all S3 objects from the specified S3 bucket to another bucket",)
    assert paths["aws s3 sync . s3://amzn-s3-demo-bucket"] == one
    assert paths["The following sync command copies S3 objects."] == two  # not nested in one
    assert paths["Note: a lead-in, not a label."] == two
    assert paths["Do not run this as root."] == two and paths["Inside a note"] == two
    assert [b.text for b in parsed.blocks if b.kind == "heading"] == [*one, *two]


def test_a_page_is_titled_by_its_title_field_or_else_by_its_name_when_text_comes_first():
    """``s3api/get-bucket-policy.rst``'s first example, above the section "Get and put a
    bucket policy", was cited under that section's title; the AWS CLI's topic guides name
    their title in a field (``:title: AWS CLI S3 Configuration``)."""
    body = "The following command gets a policy::\n\n  aws s3api get-bucket-policy\n\n" \
           "Get and put a bucket policy\n---------------------------\n\nDownload it.\n"
    assert _load(body, "get-bucket-policy.rst").title == "get-bucket-policy"
    topic = ":title: AWS CLI S3 Configuration\n:category: S3\n\n" + body
    assert _load(topic, "s3-config.rst").title == "AWS CLI S3 Configuration"
    assert _load("Title\n=====\n\nText.\n", "t.rst").title == "Title"  # a heading first
    noted = ".. note::\n\n   Deprecated.\n\nFlask-Thing\n===========\n\nText.\n"
    assert _load(noted, "README.rst").title == "Flask-Thing"  # a note is no body text


def test_text_written_under_an_autodoc_directive_is_kept_with_its_signature():
    """cachetools documents every cache class under ``.. autoclass::``: all of it was
    dropped, and "how do I make a cache whose items expire" found nothing (a new user). Its
    options are no text; an autodoc directive alone (its text is generated from code) and
    autosummary stay out."""
    page = ("Caches\n======\n\n.. autoclass:: TTLCache(maxsize, ttl, timer=time.monotonic)\n"
            "   :members: popitem, timer, ttl\n\n   This class associates a time-to-live value"
            " with each item.\n\n.. automodule:: cachetools.keys\n   :members:\n\n"
            ".. autosummary::\n\n   cachetools.LRUCache\n")
    texts = [b.text for b in _load(page).blocks if b.kind != "heading"]
    assert texts == ["TTLCache(maxsize, ttl, timer=time.monotonic)\nThis class associates a "
                     "time-to-live value with each item."]
    fenced = _load("# Caches\n\n```{autofunction} cached(cache)\n:noindex:\nA memoizing "
                   "decorator.\n```\n\n```{autofunction} keys.hashkey\n```\n", "page.md")
    assert [b.text for b in fenced.blocks][1:] == ["cached(cache)", "A memoizing decorator."]
    nested = "Resp\n====\n\n.. autoclass:: urllib3.HTTPResponse\n\n   .. automethod:: read\n"
    assert [b.text for b in _load(nested).blocks] == ["Resp"]  # a name alone is no passage


def test_code_under_a_described_name_stays_code_after_its_lead_in():
    """six's ``.. function:: with_metaclass`` example was read as the prose "… like this:
    from six import with_metaclass class Meta(type): pass …" (a new user)."""
    page = ("Six\n===\n\n.. function:: with_metaclass(metaclass, *bases)\n\n   Create a new "
            "class.  Use it like this: ::\n\n      class MyClass(with_metaclass(Meta, Base)):"
            "\n          pass\n\n   Another way is add_metaclass.\n")
    blocks = [(b.kind, b.text) for b in _load(page).blocks if b.kind != "heading"]
    assert blocks == [
        ("text", "with_metaclass(metaclass, *bases)\nCreate a new class. Use it like this:"),
        ("code", "class MyClass(with_metaclass(Meta, Base)):\n    pass"),
        ("text", "Another way is add_metaclass.")]


def test_a_changelog_opening_on_its_newest_release_is_titled_by_its_name():
    """cachetools' CHANGELOG.rst opens on "v5.5.0 (2024-08-18)": every citation of an older
    release read "v5.5.0 (2024-08-18) › v4.1.0 (2020-04-08)" (a new user)."""
    log = ("v5.5.0 (2024-08-18)\n===================\n\n- Docs.\n\n"
           "v5.0.0 (2021-12-21)\n===================\n\n- Require Python 3.7.\n")
    assert _load(log, "CHANGELOG.rst").title == "CHANGELOG"
    guide = "Install\n=======\n\nRun it.\n\nVersion 2.0 notes\n=================\n\nNew.\n"
    assert _load(guide, "guide.rst").title == "Install"  # one release heading titles nothing
