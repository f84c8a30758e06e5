"""One file, one document (:mod:`citewise.source_claims`): a new user ingested several Debian
doc folders at once, then one of them on its own, and its files were indexed a second time
under shorter ids (``cli-doc.txt`` beside ``yq/cli-doc.txt``)."""

from __future__ import annotations

from pathlib import Path

from citewise.engine import Engine
from citewise.testing import FakeEmbedder


def test_a_file_indexed_under_another_id_is_not_indexed_again(tmp_path: Path) -> None:
    for name, text in (("yq", "yq transcodes YAML."), ("perf", "perf records samples.")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "README.md").write_text(f"# {name}\n\n{text}\n")
    with Engine(tmp_path / "i.db", embedder=FakeEmbedder()) as engine:
        first = engine.ingest_paths([tmp_path / "yq", tmp_path / "perf"],
                                    {"groups": ["staff"], "tenant": "acme"})
        assert sorted(o.doc_id for o in first.outcomes) == ["perf/README.md", "yq/README.md"]
        engine.set_acl("yq/README.md", ["ops", "staff"])
        again = engine.ingest_paths([tmp_path / "yq"], {"groups": ["public"], "tenant": "acme"})
        (outcome,) = again.outcomes
        assert outcome.status == "failed" and "--id-prefix yq/" in outcome.error, outcome
        # its readers come with the fix (a new user's --groups public opened a restricted page)
        assert "--id-prefix yq/ --groups ops,staff --tenant acme to update" in outcome.error
        assert "'yq/README.md'" in outcome.error and "\n" not in outcome.error
        updated = engine.ingest_paths([tmp_path / "yq"], {"groups": ["ops", "staff"],
                                                           "tenant": "acme"}, id_prefix="yq/")
        # "updated": the record of the groups its ingest gives, now those set by hand
        assert [o.status for o in updated.outcomes] == ["updated"]
        assert sorted(d.doc_id for d in engine.store.list_documents()) == [
            "perf/README.md", "yq/README.md"]


def test_files_are_told_apart_by_the_file_read_not_by_their_link(tmp_path: Path) -> None:
    """A review: two exports whose sidecar names one original .docx as their source_url are
    two files (the second was refused, and the fix offered deleted the first); under
    --base-url the same file has two links, and was indexed twice."""
    share = tmp_path / "share"
    (share / "yq").mkdir(parents=True)
    (share / "yq" / "README.md").write_text("# yq\n\nyq transcodes YAML.\n")
    (share / "handbook.md").write_text("# Handbook\n\nLeave is 20 weeks.\n")
    sidecar = {"handbook.md": {"source_url": "https://intranet.example/handbook.docx"},
               "handbook-faq.md": {"source_url": "https://intranet.example/handbook.docx"}}
    with Engine(tmp_path / "i.db", embedder=FakeEmbedder()) as engine:
        engine.ingest_paths([share], {"groups": ["staff"]}, sidecar)
        (share / "handbook-faq.md").write_text("# Handbook FAQ\n\nAsk HR.\n")
        faq = engine.ingest_paths([share], {"groups": ["staff"]}, sidecar)
        assert {o.doc_id: o.status for o in faq.outcomes}["handbook-faq.md"] == "new"
        again = engine.ingest_paths([share / "yq"], {"groups": ["staff"]},
                                    base_url="https://x.example/")
        assert [o.status for o in again.outcomes] == ["failed"], again.outcomes


def test_the_fix_keeps_the_link_a_base_url_gave(tmp_path: Path) -> None:
    """A new user edited one page of the rustc book and followed the fix ("ingest its folder
    with --id-prefix rustc/codegen-options/") with the book's --base-url: the page's link
    became ``…/rustc/index.html#linker``. The fix names the base URL that keeps its link."""
    for book in ("rustc", "edition-guide"):
        (tmp_path / book / "codegen").mkdir(parents=True)
        (tmp_path / book / "codegen" / "index.md").write_text(f"# {book}\n\nLinker flags.\n")
    with Engine(tmp_path / "i.db", embedder=FakeEmbedder()) as engine:
        engine.ingest_paths([tmp_path / "rustc", tmp_path / "edition-guide"],
                            {"groups": ["staff"]}, base_url="https://doc.rust-lang.org/")
        (outcome,) = engine.ingest_paths([tmp_path / "rustc" / "codegen"],
                                         {"groups": ["staff"]}).outcomes
        assert outcome.status == "failed", outcome
        fix = ("--id-prefix rustc/codegen/ --base-url https://doc.rust-lang.org/rustc/codegen/ "
               "--groups staff "
               "to update it, or the folders it was ingested with, as then")
        assert fix in outcome.error, outcome.error
        updated = engine.ingest_paths([tmp_path / "rustc" / "codegen"], {"groups": ["staff"]},
                                      id_prefix="rustc/codegen/",
                                      base_url="https://doc.rust-lang.org/rustc/codegen/")
        assert [o.status for o in updated.outcomes] == ["unchanged"]
        assert engine.store.get_document("rustc/codegen/index.md").source_url == \
            "https://doc.rust-lang.org/rustc/codegen/index.md"


def test_the_fix_keeps_the_link_a_base_url_template_gave(tmp_path: Path) -> None:
    """A new user of the AWS CLI's examples followed the fix for ``docs/kms`` with their
    ``--base-url '…/reference/{stem}.html'``: every KMS page's link lost its ``kms/``. The fix
    names the template that keeps it."""
    (tmp_path / "docs" / "kms").mkdir(parents=True)
    (tmp_path / "docs" / "kms" / "create-key.rst").write_text("To create a key.\n")
    template = "https://docs.aws.amazon.com/cli/latest/reference/{stem}.html"
    with Engine(tmp_path / "i.db", embedder=FakeEmbedder()) as engine:
        engine.ingest_paths([tmp_path / "docs"], {"groups": ["admins"]}, base_url=template)
        (outcome,) = engine.ingest_paths([tmp_path / "docs" / "kms"],
                                         {"groups": ["admins"]}, base_url=template).outcomes
        kept = "https://docs.aws.amazon.com/cli/latest/reference/kms/{stem}.html"
        assert f"--id-prefix kms/ --base-url '{kept}' --groups admins" in outcome.error
        updated = engine.ingest_paths([tmp_path / "docs" / "kms"], {"groups": ["admins"]},
                                      id_prefix="kms/", base_url=kept)
        assert [o.status for o in updated.outcomes] == ["unchanged"]
        assert engine.store.get_document("kms/create-key.rst").source_url == \
            "https://docs.aws.amazon.com/cli/latest/reference/kms/create-key.html"
        assert updated.relinked == []
        wrong = engine.ingest_paths([tmp_path / "docs" / "kms"], {"groups": ["admins"]},
                                    id_prefix="kms/", base_url=template)  # the user's run
        assert wrong.relinked == [("kms/create-key.rst", kept.format(stem="create-key"),
                                   template.format(stem="create-key"))]

