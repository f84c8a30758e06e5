"""A page's source copy (Sphinx's ``_sources/page.rst.txt``) is not indexed beside the page:
it duplicated every page, was cited without a section to open, and leaked a restricted page
whose copy the ACL sidecar did not name."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from citewise.cli import ingest as ingest_module
from citewise.cli.main import cli
from citewise.config import Settings
from citewise.engine import Engine
from citewise.ingest.source_copies import page_candidates, source_copies
from citewise.testing import FakeEmbedder
from citewise.types import Principal

PAGE = ("<html><head><title>{t}</title></head><body><div class='body'>"
        "<h1 id='{s}'>{t}</h1><p>{b}</p></div></body></html>")


def site(tmp_path: Path) -> Path:
    root = tmp_path / "html"
    pages = {"index": ("Welcome", "The widget manual starts here."),
             "usage/init": ("Init", "Run widget init to create a repository."),
             "internals": ("Internals", "The zqsegment files are 500 MB each.")}
    for name, (title, body) in pages.items():
        path = root / f"{name}.html"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(PAGE.format(t=title, s=name.replace("/", "-"), b=body))
        copy = root / "_sources" / f"{name}.rst.txt"
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_text(f"{title}\n{'=' * len(title)}\n\n{body} See :ref:`other`.\n")
    (root / "_sources" / "orphan.md.txt").write_text("# Orphan\n\nOnly the source is here.\n")
    return root


def test_which_pages_a_copy_may_be_the_source_of() -> None:
    assert page_candidates(Path("s/_sources/a/b.rst.txt")) == (Path("s/a/b.html"),
                                                               Path("s/a/b/index.html"))
    assert page_candidates(Path("_sources/nb.ipynb.txt"))[0] == Path("nb.html")
    nested = Path("s/_sources/x/_sources/c.md.txt.gz")
    assert page_candidates(nested)[0] == Path("s/_sources/x/c.html")
    assert page_candidates(Path("s/_sources/intro.md"))[0] == Path("s/intro.html")  # Jupyter
    assert page_candidates(Path("d/gitweb.conf.txt"))[0] == Path("d/gitweb.conf.html")
    for other in ("s/a/b.rst.txt", "s/a/c.md.txt", "s/_sources"):
        assert page_candidates(Path(other)) == ()
    files = [Path("s/a.html"), Path("s/_sources/a.rst.txt"), Path("s/b/index.html.gz"),
             Path("s/_sources/b.rst.txt"), Path("s/_sources/c.rst.txt")]
    assert source_copies(files) == {Path("s/_sources/a.rst.txt"): Path("s/a.html"),
                                    Path("s/_sources/b.rst.txt"): Path("s/b/index.html.gz")}


def test_copies_are_skipped_and_reported_and_a_restricted_page_does_not_leak(tmp_path) -> None:
    root = site(tmp_path)
    side = {"internals.html": {"groups": ["developers"]}}
    with Engine(tmp_path / "i.db", Settings(), embedder=FakeEmbedder()) as engine:
        report = engine.ingest_paths([root], {"groups": ["public"]}, side)
        assert sorted(report.copies) == [("_sources/index.rst.txt", "index.html"),
                                         ("_sources/internals.rst.txt", "internals.html"),
                                         ("_sources/usage/init.rst.txt", "usage/init.html")]
        ids = {d.doc_id for d in engine.store.list_documents()}
        assert ids == {"index.html", "usage/init.html", "internals.html",
                       "_sources/orphan.md.txt"}  # a copy without its page is read
        public = engine.search("zqsegment files size", Principal.of("public"), mode="bm25")
        assert public.hits == [] or all(h.document.doc_id != "internals.html"
                                        for h in public.hits)
        assert not any("zqsegment" in h.chunk.text for h in public.hits)
        hit = engine.search("create a repository", Principal.of("public"), mode="bm25").hits[0]
        assert hit.document.doc_id == "usage/init.html" and hit.chunk.anchor == "usage-init"


def test_the_cli_reports_copies_and_names_the_fix_for_copies_indexed_before(tmp_path,
                                                                           monkeypatch):
    root, db = site(tmp_path), tmp_path / "i.db"
    monkeypatch.setattr(ingest_module, "engine_from", lambda *a, **k: Engine(
        db, Settings(), embedder=FakeEmbedder()))
    pages = sorted(root.rglob("*.html"))
    for page in pages:  # a folder holding only the sources: they are read
        page.rename(page.with_suffix(".away"))
    run = CliRunner()
    ingest = ["ingest", str(root), "--db", str(db), "--groups", "public", "--no-progress"]
    first = run.invoke(cli, ingest)
    assert first.exit_code == 0 and "4 new" in first.output, first.output
    for page in pages:
        page.with_suffix(".away").rename(page)
    out = run.invoke(cli, ingest)
    assert out.exit_code == 0, out.output
    assert ("skipped 3 copies of pages it indexed (Sphinx _sources/, a .txt beside its "
            ".html, a PDF or text edition of the HTML pages), e.g. _sources/index.rst.txt -> "
            "index.html; name one to ingest it") in out.output
    warning = next(line for line in out.output.splitlines() if "still indexed" in line)
    fix = warning.split("Fix: citewise ")[1].split()
    assert sorted(fix[1:]) == ["_sources/index.rst.txt", "_sources/internals.rst.txt",
                               "_sources/usage/init.rst.txt"]
    assert run.invoke(cli, [*fix, "--db", str(db)]).exit_code == 0
    again = run.invoke(cli, [*ingest[:-1], "--json"])
    assert "still indexed" not in again.output
    listed = json.loads(again.output)
    assert {"path": "_sources/usage/init.rst.txt", "page": "usage/init.html"} in \
        listed["source_copies"]
    with Engine(db, Settings(), embedder=FakeEmbedder()) as engine:
        assert {d.doc_id for d in engine.store.list_documents()} == {
            "index.html", "usage/init.html", "internals.html", "_sources/orphan.md.txt"}


def test_an_asciidoc_source_beside_its_page_is_a_copy_too(tmp_path) -> None:
    """Debian's git-doc ships ``git-rebase.txt`` beside ``git-rebase.html`` for every page:
    a new user's ingest of the folder indexed each page twice (26 minutes), and the sidecar
    line restricting ``git-daemon.html`` left ``git-daemon.txt`` to every reader."""
    assert page_candidates(Path("d/git-rebase.txt")) == (Path("d/git-rebase.html"),
                                                         Path("d/git-rebase.htm"))
    root = tmp_path / "git-doc"
    (root / "howto").mkdir(parents=True)
    for name, body in (("git-rebase", "Reapply commits on top of another base tip."),
                       ("git-daemon", "A zqdaemon server for Git repositories."),
                       ("howto/maintain-git", "How the maintainer zqmaintains Git.")):
        title = name.rsplit("/", 1)[-1]
        (root / f"{name}.html").write_text(PAGE.format(t=title, s=title, b=body))
        (root / f"{name}.txt").write_text(f"{title}(1)\n{'=' * 12}\n\n{body}\n")
    (root / "config.txt").write_text("core.editor::\n\tThe editor zqeditor uses.\n")
    side = {"git-daemon.html": {"groups": ["gitadmin"]}}
    with Engine(tmp_path / "i.db", Settings(), embedder=FakeEmbedder()) as engine:
        report = engine.ingest_paths([root], {"groups": ["dev"]}, side)
        assert sorted(report.copies) == [("git-daemon.txt", "git-daemon.html"),
                                         ("git-rebase.txt", "git-rebase.html"),
                                         ("howto/maintain-git.txt", "howto/maintain-git.html")]
        ids = sorted(d.doc_id for d in engine.store.list_documents())
        assert ids == ["config.txt", "git-daemon.html", "git-rebase.html",
                       "howto/maintain-git.html"]
        dev = Principal.of("dev", tenant="default")
        hits = engine.search("zqdaemon server", dev).hits
        assert not [h for h in hits if "zqdaemon" in h.chunk.text], hits



def test_a_fragment_an_asciidoc_copy_includes_is_a_copy_of_its_page(tmp_path) -> None:
    """git-doc ships 40 fragments with no page of their own (``diff-options.txt``, included
    by seven pages' sources): a new user's index held them as documents of raw AsciiDoc. A
    fragment no copy includes (``technical/rerere.txt``), or one named, is read."""
    root = tmp_path / "git-doc"
    (root / "technical").mkdir(parents=True)
    (root / "git-diff.html").write_text(PAGE.format(
        t="git-diff", s="git-diff", b="Show changes. -p Generate a zqpatch."))
    (root / "git-diff.txt").write_text("git-diff(1)\n===========\n\nShow changes.\n\n"
                                       "include::diff-options.txt[]\n")
    (root / "diff-options.txt").write_text("-p::\n\tGenerate a zqpatch.\n\n"
                                           "include::technical/../line-range.txt[]\n")
    (root / "line-range.txt").write_text("-L::\n\tTrace a zqrange.\n")
    (root / "technical" / "rerere.txt").write_text("Rerere\n======\n\nRecorded zqrerere.\n")
    with Engine(tmp_path / "i.db", Settings(), embedder=FakeEmbedder()) as engine:
        report = engine.ingest_paths([root], {"groups": ["dev"]})
        assert sorted(report.copies) == [("diff-options.txt", "git-diff.html"),
                                         ("git-diff.txt", "git-diff.html"),
                                         ("line-range.txt", "git-diff.html")]
        ids = sorted(d.doc_id for d in engine.store.list_documents())
        assert ids == ["git-diff.html", "technical/rerere.txt"]
        named = engine.ingest_paths([root / "diff-options.txt", root / "git-diff.txt",
                                     root / "git-diff.html"], {"groups": ["dev"]})
        assert ("diff-options.txt", "git-diff.html") not in named.copies
    # the review of this stop: a fragment with readers of its own is read, and an include
    # line names no page of another kind (include::../handbook/leave.md[])
    (root / "leave.md").write_text("# Leave\n\nzqleave days.\n")
    (root / "git-diff.html").write_text(PAGE.format(
        t="git-diff", s="git-diff", b="Show changes. Options include leave and a zqpatch."))
    (root / "git-diff.txt").write_text("git-diff(1)\n===========\n\nShow changes.\n\n"
                                       "include::diff-options.txt[]\ninclude::leave.md[]\n")
    side = {"diff-options.txt": {"groups": ["staff"]}}
    with Engine(tmp_path / "j.db", Settings(), embedder=FakeEmbedder()) as engine:
        report = engine.ingest_paths([root], {"groups": ["dev"]}, side)
        assert sorted(report.copies) == [("git-diff.txt", "git-diff.html"),
                                         ("line-range.txt", "git-diff.html")]
        groups = {d.doc_id: sorted(d.acl_groups) for d in engine.store.list_documents()}
        assert groups["diff-options.txt"] == ["staff"] and "leave.md" in groups
    # the second review: a fragment with no line of its own, included by a page the sidecar
    # restricts, stays its page's copy (read for the batch's groups, it leaked the page)
    side = {"git-diff.html": {"groups": ["hr"]}, "git-diff.txt": {"groups": ["hr"]}}
    with Engine(tmp_path / "k.db", Settings(), embedder=FakeEmbedder()) as engine:
        report = engine.ingest_paths([root], {"groups": ["staff"]}, side)
        assert ("diff-options.txt", "git-diff.html") in report.copies
        assert engine.store.get_document("diff-options.txt") is None


def test_a_txt_beside_a_page_that_says_otherwise_or_named_on_its_own_is_read(tmp_path) -> None:
    """The second review of this stop: a README.txt of ops notes beside an unrelated
    README.html, restricted to ops by the sidecar, was skipped by its name alone (ops lost
    it); one named on the command line was skipped too."""
    root = tmp_path / "docs"
    root.mkdir()
    (root / "README.html").write_text(PAGE.format(t="Welcome", s="welcome",
                                                  b="The widget manual starts here."))
    (root / "README.txt").write_text("Restart the zqpager service on the night shift.\n")
    (root / "guide.html").write_text(PAGE.format(t="Guide", s="guide", b="Use the widget."))
    (root / "guide.txt").write_text("Guide\n=====\n\nUse the widget.\n")
    side = {"README.txt": {"groups": ["ops"]}}
    with Engine(tmp_path / "i.db", Settings(), embedder=FakeEmbedder()) as engine:
        report = engine.ingest_paths([root], {"groups": ["public"]}, side)
        assert sorted(report.copies) == [("guide.txt", "guide.html")]
        ids = {d.doc_id: sorted(d.acl_groups) for d in engine.store.list_documents()}
        assert ids["README.txt"] == ["ops"] and "guide.txt" not in ids
        named = engine.ingest_paths([root / "guide.txt", root / "guide.html"],
                                    {"groups": ["public"]})
        assert named.copies == [], named.copies
