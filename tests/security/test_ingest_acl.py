"""Issue 10 items 3-5 through `citewise ingest`, as an operator runs it: sidecar lines that
match nothing are reported by line, the operator decides the ACL over file content, symlinks
out of the ingest folder are not followed by default."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from citewise.testing.canaries import cli

SALARY = "# Salary bands\n\nLevel 5 salary band zqsecretsalary: 98,000 to 120,000 euros.\n"


def docs_with(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "docs"
    root.mkdir(exist_ok=True)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def sidecar(tmp_path: Path, *lines: dict) -> Path:
    path = tmp_path / "meta.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


def acl_of(db: Path | str) -> dict[str, tuple[str, list[str]]]:
    code, out = cli("status", "--documents", "--json", "--db", str(db))
    assert code == 0, out
    return {d["doc_id"]: (d["tenant"], d["groups"]) for d in json.loads(out)["document_list"]}


def ingest(db: Path | str, *args: str, code: int = 0) -> str:
    got, out = cli("ingest", *args, "--db", str(db), "--no-progress")
    assert got == code, out
    return out


# -- item 3: sidecar lines -------------------------------------------------------------------


def test_sidecar_case_mismatch_is_reported_with_its_line(tmp_path: Path) -> None:
    """A line that sets groups and matches no file stops the batch before anything is
    written: the file it meant to restrict would be read by the batch's groups (a new
    user's 14 restricted pages were indexed for everyone, said in a warning after a
    20-minute ingest). A line that sets no ACL stays a warning."""
    root = docs_with(tmp_path, {"salary.md": SALARY, "travel.md": "# Travel\n\nBook early.\n"})
    meta = sidecar(tmp_path, {"path": "travel.md", "owner": "finance"},
                   {"path": "Salary.md", "groups": ["hr"]})
    db = tmp_path / "i.db"
    out = ingest(db, str(root), "--tenant", "acme", "--groups", "staff", "--meta", str(meta),
                 code=1)
    assert "meta.jsonl line 2: path 'Salary.md' matches no document" in out
    assert "nothing was ingested" in out and "line 1" not in out
    code, _ = cli("status", "--json", "--db", str(db))
    assert code != 0 or acl_of(db) == {}
    meta = sidecar(tmp_path, {"path": "Travel.md", "owner": "finance"})
    out = ingest(db, str(root), "--tenant", "acme", "--groups", "staff", "--meta", str(meta))
    assert "warning: meta.jsonl line 1: path 'Travel.md' matches no document" in out
    assert acl_of(db)["salary.md"] == ("acme", ["staff"])
    # a line for a file this ingest does not take (excluded, or another folder's) loses no
    # ACL and is left for that file's ingest: no stop, no warning (a new user was told to
    # "correct" such lines)
    meta = sidecar(tmp_path, {"path": "salary.md", "groups": ["hr"]},
                   {"path": "travel.md", "groups": ["staff"]})
    out = ingest(db, str(root), "--tenant", "acme", "--groups", "staff", "--meta", str(meta),
                 "--exclude", "travel.md", "--strict")
    assert "path 'travel.md'" not in out
    assert acl_of(db)["salary.md"] == ("acme", ["hr"])


def test_a_pattern_line_says_lines_name_one_file(tmp_path: Path) -> None:
    """A new user wrote ``{"path": "unstable-book/*", "groups": ["nightly"]}`` and was told
    only to "correct the line"."""
    root = docs_with(tmp_path, {"salary.md": SALARY})
    meta = sidecar(tmp_path, {"path": "*.md", "groups": ["hr"]})
    out = ingest(tmp_path / "i.db", str(root), "--groups", "staff", "--meta", str(meta), code=1)
    assert 'Fix: name one file or folder per line (a line is no pattern: {"path": "dir/"} ' \
           "gives every file under dir its metadata)" in out, out


def test_a_path_line_too_long_for_the_file_system_is_one_line(tmp_path: Path) -> None:
    """The second review: a name over 255 bytes crashed the ingest (File name too long)."""
    root = docs_with(tmp_path, {"salary.md": SALARY})
    meta = sidecar(tmp_path, {"path": "x" * 300 + ".md", "groups": ["hr"]})
    out = ingest(tmp_path / "i.db", str(root), "--groups", "staff", "--meta", str(meta), code=1)
    assert "matches no document" in out and "Traceback" not in out


def test_strict_stops_before_writing_on_an_unmatched_path(tmp_path: Path) -> None:
    root = docs_with(tmp_path, {"salary.md": SALARY})
    meta = sidecar(tmp_path, {"path": "Salary.md", "groups": ["hr"]})
    db = tmp_path / "i.db"
    out = ingest(db, str(root), "--groups", "staff", "--meta", str(meta), "--strict", code=1)
    assert "meta.jsonl line 1" in out and "nothing was ingested" in out
    code, _ = cli("status", "--json", "--db", str(db))
    assert code != 0 or acl_of(db) == {}


def test_sidecar_path_relative_to_the_current_directory(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    docs_with(tmp_path, {"hr/salary.md": SALARY, "travel.md": "# Travel\n\nGo.\n"})
    meta = sidecar(tmp_path, {"path": "docs/hr/salary.md", "groups": ["hr"]},
                   {"path": "travel.md", "groups": ["staff", "sales"]})
    monkeypatch.chdir(tmp_path)
    out = ingest(tmp_path / "i.db", "docs", "--groups", "staff", "--meta", str(meta),
                 "--strict")
    assert "warning" not in out
    acl = acl_of(tmp_path / "i.db")
    assert acl["hr/salary.md"] == ("default", ["hr"])  # cwd-relative
    assert acl["travel.md"] == ("default", ["sales", "staff"])  # root-relative


def test_doc_id_line_matches_after_front_matter(tmp_path: Path) -> None:
    root = docs_with(tmp_path, {"salary.md": "---\ndoc_id: hr-salary\n---\n" + SALARY})
    meta = sidecar(tmp_path, {"doc_id": "hr-salary", "groups": ["hr"]},
                   {"doc_id": "no-such-doc", "owner": "hr"})
    db = tmp_path / "i.db"
    out = ingest(db, str(root), "--groups", "staff", "--meta", str(meta))
    assert acl_of(db) == {"hr-salary": ("default", ["hr"])}
    assert "meta.jsonl line 2: doc_id 'no-such-doc' matches no document" in out
    assert "line 1" not in out
    ingest(db, str(root), "--groups", "staff", "--meta", str(meta), "--strict", code=1)


def test_a_doc_id_line_that_sets_readers_and_matches_nothing_stops_the_ingest(
        tmp_path: Path) -> None:
    """A line ``{"doc_id": "hr-handbook", "groups": ["hr"]}`` meant for ``salary.md`` (whose
    id is its path) matched nothing: the ingest gave the page to staff and said so in a
    warning afterwards (left open at stop 52). It now stops before anything is read; a
    line for a document already indexed, or one of a folder ingested in the same command,
    or one a Markdown file's front matter names (gzipped too), matches as before."""
    root = docs_with(tmp_path, {"salary.md": SALARY, "travel.md": "# Travel\n\nBook early.\n"})
    db = tmp_path / "i.db"
    lost = sidecar(tmp_path, {"doc_id": "hr-handbook", "groups": ["hr"]})
    out = ingest(db, str(root), "--groups", "staff", "--meta", str(lost), code=1)
    assert "doc_id 'hr-handbook' matches no document" in out and "nothing was ingested" in out
    assert "Traceback" not in out
    code, status = cli("status", "--documents", "--json", "--db", str(db))
    assert code != 0 or json.loads(status)["document_list"] == []
    ingest(db, str(root), "--groups", "staff")  # indexed: a line for it now matches
    ingest(db, str(root), "--groups", "staff", "--meta",
           str(sidecar(tmp_path, {"doc_id": "travel.md", "groups": ["sales"]})))
    assert acl_of(db)["travel.md"] == ("default", ["sales"])
    other = tmp_path / "other"
    other.mkdir()
    import gzip
    with gzip.open(other / "hb.md.gz", "wt", encoding="utf-8") as f:
        f.write("---\ndoc_id: hr-handbook\n---\n# Handbook\n\nBand L4 is zqband.\n")
    lost = sidecar(tmp_path, {"doc_id": "hr-handbook", "groups": ["hr"]})  # (rewritten)
    ingest(db, str(root), str(other), "--groups", "staff", "--meta", str(lost))
    assert acl_of(db)["hr-handbook"] == ("default", ["hr"])


def test_a_line_matching_two_documents_is_reported(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    for root, fm in ((a, ""), (b, "---\ndoc_id: other-x\n---\n")):
        root.mkdir()
        (root / "x.md").write_text(fm + "# X\n\nSame name, two folders.\n", encoding="utf-8")
    meta = sidecar(tmp_path, {"path": "x.md", "groups": ["hr"]})
    got, out = cli("ingest", str(a), str(b), "--groups", "staff", "--meta", str(meta),
                   "--db", str(tmp_path / "i.db"), "--no-progress", "--json")
    assert got == 0
    assert any("line 1" in w and "matches 2 documents" in w
               for w in json.loads(out[out.index("{"):])["warnings"])


# -- item 4: the operator decides the ACL -----------------------------------------------------

HOSTILE = "---\ntenant: globex\ngroups: [public]\n---\n" + SALARY


def test_file_content_cannot_move_or_open_a_document(tmp_path: Path) -> None:
    root = docs_with(tmp_path, {"salary.md": HOSTILE})
    db = tmp_path / "i.db"
    out = ingest(db, str(root), "--tenant", "acme", "--groups", "hr")
    assert acl_of(db)["salary.md"] == ("acme", [])  # public is not among hr: nobody
    assert "tenant 'globex' is ignored" in out and "--trust-file-acl" in out
    for tenant, groups in (("globex", "public"), ("acme", "public"), ("globex", "hr")):
        code, hits = cli("search", "salary band", "--tenant", tenant, "--groups", groups,
                         "--mode", "bm25", "--json", "--db", str(db))
        assert code == 0 and json.loads(hits) == []


def test_a_misspelt_acl_key_in_front_matter_is_reported(tmp_path: Path) -> None:
    """A security review: front matter saying ``acl: [hr]`` or ``group: [hr]`` (not keys
    citewise reads) left the batch's wider --groups on the document without a word."""
    root = docs_with(tmp_path, {"a.md": "---\nacl: [hr]\n---\n" + SALARY,
                                "b.md": "---\ngroup: hr\n---\n" + SALARY,
                                "c.md": "---\ntitle: Plain\naudiences: all\n---\n" + SALARY})
    db = tmp_path / "i.db"
    out = ingest(db, str(root), "--tenant", "acme", "--groups", "staff")
    assert "a.md: its front matter key 'acl' is not one citewise reads" in out
    assert "b.md: its front matter key 'group'" in out and "write 'groups'" in out
    assert "c.md" not in out and acl_of(db)["a.md"] == ("acme", ["staff"])


def test_file_groups_narrow_and_trust_file_acl_opts_in(tmp_path: Path) -> None:
    root = docs_with(tmp_path, {"salary.md": "---\ngroups: [hr]\n---\n" + SALARY,
                                "open.md": HOSTILE})
    db = tmp_path / "i.db"
    ingest(db, str(root), "--tenant", "acme", "--groups", "staff,hr")
    assert acl_of(db) == {"salary.md": ("acme", ["hr"]), "open.md": ("acme", [])}
    ingest(db, str(root), "--tenant", "acme", "--groups", "staff", "--trust-file-acl")
    assert acl_of(db) == {"salary.md": ("acme", ["hr"]), "open.md": ("acme", ["public"])}


def test_sidecar_groups_are_the_operators(tmp_path: Path) -> None:
    """A sidecar line is the operator speaking: it sets the groups the file may narrow."""
    root = docs_with(tmp_path, {"salary.md": "---\ngroups: [hr, staff]\n---\n" + SALARY})
    meta = sidecar(tmp_path, {"path": "salary.md", "groups": ["hr"], "tenant": "people"})
    db = tmp_path / "i.db"
    ingest(db, str(root), "--tenant", "acme", "--groups", "staff", "--meta", str(meta))
    assert acl_of(db) == {"salary.md": ("people", ["hr"])}


# -- item 5: symlinks ---------------------------------------------------------------------------


def test_symlinks_out_of_the_ingest_folder_are_skipped(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret\n\nzqsecretoutside keys.\n", encoding="utf-8")
    (outside / "more").mkdir()
    (outside / "more" / "deep.md").write_text("# Deep\n\nzqsecretdeep.\n", encoding="utf-8")
    root = docs_with(tmp_path, {"ok.md": "# Ok\n\nFine.\n", "sub/in.md": "# In\n\nInside.\n"})
    (root / "leak.md").symlink_to(outside / "secret.md")
    (root / "dir").symlink_to(outside / "more", target_is_directory=True)
    (root / "alias.md").symlink_to(root / "sub" / "in.md")  # inside: read at its own path
    (outside / "theme.css").write_text("body {}", encoding="utf-8")
    (root / "theme.css").symlink_to(outside / "theme.css")  # not read either way: no warning
    db = tmp_path / "i.db"
    out = ingest(db, str(root), "--groups", "staff")
    assert set(acl_of(db)) == {"ok.md", "sub/in.md"}
    skipped = [line for line in out.splitlines() if "outside" in line and "skipped" in line]
    assert len(skipped) == 2 and all("--follow-symlinks" in line for line in skipped)
    ingest(db, str(root), "--groups", "staff", "--follow-symlinks")
    assert set(acl_of(db)) == {"ok.md", "sub/in.md", "leak.md", "dir/deep.md"}  # alias.md:
    # its file is indexed at its own path already (refused as a second name of it)


def test_a_symlink_to_a_restricted_file_inside_the_folder_keeps_its_readers(
        tmp_path: Path) -> None:
    """A security review: ``pub/notes.md -> ../hr/salary.md`` (hr by the sidecar), a link to a
    file ``--exclude`` leaves out and ``pub/salaries.txt -> ../hr/salaries.csv`` (a type not
    read) were each indexed with pub/'s readers, everyone, with no warning. A link to a file
    inside the folder is skipped with a note; the file is read at its own path."""
    root = docs_with(tmp_path, {"hr/salary.md": SALARY, "pub/ok.md": "# Ok\n\nFine.\n",
                                "private/plan.md": "# Plan\n\nzqplan merger.\n",
                                "hr/salaries.csv": "name,salary\nceo,900000\n"})
    (root / "pub" / "notes.md").symlink_to(Path("..") / "hr" / "salary.md")
    (root / "pub" / "plan-notes.md").symlink_to(Path("..") / "private" / "plan.md")
    (root / "pub" / "salaries.txt").symlink_to(Path("..") / "hr" / "salaries.csv")
    meta = sidecar(tmp_path, {"path": "hr/", "groups": ["hr"]})
    db = tmp_path / "i.db"
    out = ingest(db, str(root), "--groups", "everyone", "--meta", str(meta),
                 "--exclude", "private")
    assert acl_of(db) == {"hr/salary.md": ("default", ["hr"]),
                          "pub/ok.md": ("default", ["everyone"])}, out
    assert "skipped 1 symlink(s) to files inside the folder, each file read at its own " \
        "path" in out
    assert "skipped 2 symlink(s) to files inside the folder that this ingest leaves out" in out


def test_follow_symlinks_never_indexes_a_link_to_a_restricted_file_inside(
        tmp_path: Path) -> None:
    """A new user of Exim's manual: ``ch33.html -> ch-smtp_authentication.html`` (mxsec by
    the sidecar); the note said "Fix: pass --follow-symlinks to also index a link under its
    own name", and with it the chapter was indexed again as ``ch33.html`` for everyone. A
    link to a folder inside (``pub/hr -> ../hr``) took pub/'s readers the same way."""
    root = docs_with(tmp_path, {"hr/salary.md": SALARY, "pub/ok.md": "# Ok\n\nFine.\n"})
    (root / "pub" / "notes.md").symlink_to(Path("..") / "hr" / "salary.md")
    (root / "pub" / "alias").symlink_to(Path("..") / "hr")
    meta = sidecar(tmp_path, {"path": "hr/", "groups": ["hr"]})
    db = tmp_path / "i.db"
    out = ingest(db, str(root), "--groups", "everyone", "--meta", str(meta),
                 "--follow-symlinks")
    assert acl_of(db) == {"hr/salary.md": ("default", ["hr"]),
                          "pub/ok.md": ("default", ["everyone"])}, out
    assert "--follow-symlinks" not in out, out
    versions = root / ".versions" / "3.2"  # the review: what the walk leaves out is followed
    versions.mkdir(parents=True)
    (versions / "install.md").write_text("# Install\n\nRun the installer.\n")
    (root / "latest").symlink_to(Path(".versions") / "3.2")
    ingest(db, str(root), "--groups", "everyone", "--meta", str(meta), "--follow-symlinks")
    assert acl_of(db)["latest/install.md"] == ("default", ["everyone"])


def test_a_symlink_to_a_file_the_walk_leaves_out_is_not_said_to_be_read(
        tmp_path: Path) -> None:
    """The review of the symlink fix: ``CONTRIBUTING.md -> .github/CONTRIBUTING.md`` was
    said to be read at its own path, and the file in the hidden folder was read nowhere."""
    from citewise.ingest.walk import discover

    root = docs_with(tmp_path, {".github/CONTRIBUTING.md": "# Contributing\n\nSend PRs.\n",
                                "ok.md": "# Ok\n\nFine.\n"})
    (root / "CONTRIBUTING.md").symlink_to(Path(".github") / "CONTRIBUTING.md")
    notes: list[str] = []
    assert [f.name for _, f in discover([root], notes=notes)] == ["ok.md"]
    assert notes == [f"skipped 1 symlink(s) to files inside the folder that this ingest "
                     "leaves out (hidden, --exclude'd or of a type not read), so they are not "
                     f"indexed (e.g. {root / 'CONTRIBUTING.md'} -> "
                     f"{(root / '.github' / 'CONTRIBUTING.md').resolve()}). Fix: name such a "
                     "file on its own to index it, with the readers of its own folder"]


def test_a_file_swapped_for_a_symlink_inside_the_folder_after_the_listing_is_not_read(
        tmp_path: Path) -> None:
    """The review of this stop: ``pub/notes.md`` swapped for a link to ``../hr/salary.md``
    after the folder was listed was indexed as ``pub/notes.md`` (only links out of the folder
    were refused at the read)."""
    from citewise.errors import IngestError
    from citewise.ingest.registry import load_file

    root = docs_with(tmp_path, {"hr/salary.md": SALARY, "pub/notes.md": "# Notes\n\nOk.\n"})
    notes = root / "pub" / "notes.md"
    notes.unlink()
    notes.symlink_to(Path("..") / "hr" / "salary.md")
    with pytest.raises(IngestError, match="became a symlink"):
        load_file(notes, within=root.resolve())


def test_a_chain_of_folders_deeper_than_the_walk_goes_is_skipped_with_a_note(
        tmp_path: Path) -> None:
    """A security review: a chain of 2,100 folders held an ingest past 2 minutes."""
    from citewise.ingest.walk import MAX_DEPTH, discover

    root = docs_with(tmp_path, {"ok.md": "# Ok\n\nFine.\n"})
    deep = root
    for _ in range(MAX_DEPTH + 5):
        deep = deep / "d"
    deep.mkdir(parents=True)
    (deep / "bottom.md").write_text("# Bottom\n\nDeep.\n", encoding="utf-8")
    notes: list[str] = []
    found = discover([root], notes=notes)
    assert [f.name for _, f in found] == ["ok.md"]
    assert any(f"more than {MAX_DEPTH} folders deep" in n for n in notes), notes


def test_symlink_loops_end(tmp_path: Path) -> None:
    root = docs_with(tmp_path, {"a/x.md": "# X\n\nText.\n"})
    (root / "a" / "loop").symlink_to(root, target_is_directory=True)
    db = tmp_path / "i.db"
    ingest(db, str(root), "--groups", "staff", "--follow-symlinks")
    assert set(acl_of(db)) == {"a/x.md"}


def test_a_link_to_itself_or_to_nothing_is_one_line_and_the_rest_is_ingested(tmp_path: Path):
    """A symlink to itself ("Too many levels of symbolic links") aborted the whole ingest with
    a traceback, nothing indexed (security review)."""
    root = docs_with(tmp_path, {"ok.md": "# Ok\n\nFine.\n"})
    (root / "self").symlink_to("self")
    (root / "gone.md").symlink_to(tmp_path / "nowhere.md")
    db = tmp_path / "i.db"
    for follow in ([], ["--follow-symlinks"]):
        out = ingest(db, str(root), "--groups", "staff", *follow)
        assert "Traceback" not in out and set(acl_of(db)) == {"ok.md"}, out
        assert any("self" in line and "skipped" in line for line in out.splitlines()), out


# -- hostile input: two files naming one doc_id ------------------------------------------------


@pytest.mark.parametrize("workers", [None, "2"])
def test_two_files_with_one_doc_id_fail_alone(tmp_path: Path, workers: str | None) -> None:
    """Two front matters saying ``doc_id: shared`` (in one write batch) used to abort the
    whole ingest ("appears twice in one write batch"); now the second fails on one line and
    every other file is ingested."""
    root = docs_with(tmp_path, {
        "a.md": "---\ndoc_id: shared\n---\n# Alpha\n\nAlpha text zqalpha.\n",
        "b.md": "---\ndoc_id: shared\n---\n# Beta\n\nBeta text zqbeta.\n",
        "c.md": "# Gamma\n\nGamma text zqgamma.\n"})
    db = tmp_path / "i.db"
    extra = ["--workers", workers] if workers else []
    got, out = cli("ingest", str(root), "--groups", "staff", "--db", str(db), "--no-progress",
                   *extra)
    assert "appears twice" not in out and "Traceback" not in out, out
    failed = [line for line in out.splitlines() if "already given by" in line]
    assert len(failed) == 1 and "b.md" in failed[0] and "a.md" in failed[0], out
    assert sorted(acl_of(db)) == ["c.md", "shared"]
    code, found = cli("search", "zqalpha", "--groups", "staff", "--db", str(db), "--json")
    assert code == 0 and "zqalpha" in found
    code, found = cli("search", "zqbeta", "--groups", "staff", "--db", str(db), "--json")
    assert "zqbeta" not in found
    assert got == 0, out  # as for any other file that fails: reported, the rest ingested


# -- two tenants, one doc_id -------------------------------------------------------------------


@pytest.mark.parametrize("workers", [None, "2"])
def test_a_tenants_ingest_never_replaces_another_tenants_document(
        tmp_path: Path, workers: str | None) -> None:
    """doc_ids are shared by all tenants, and a relative path is the default id: tenant
    beta's ``README.md`` silently replaced tenant acme's (acme lost its document, and beta's
    text was served under acme's record history). Now that file fails on one line with the
    fix, acme's document is untouched, and a front matter naming acme's id fails the same
    way; the operator can still move a document with ``citewise acl --tenant``."""
    (tmp_path / "acme").mkdir()
    (tmp_path / "beta").mkdir()
    acme = docs_with(tmp_path / "acme", {"README.md": "# Notes\n\nAcme launch code zqalpha.\n"})
    beta = docs_with(tmp_path / "beta", {
        "README.md": "# Notes\n\nBeta gardening zqbeta.\n",
        "other.md": "---\ndoc_id: README.md\n---\n# Other\n\nBeta other zqother.\n",
        "own.md": "# Own\n\nBeta own zqown.\n"})
    db = tmp_path / "i.db"
    extra = ["--workers", workers] if workers else []
    ingest(db, str(acme), "--tenant", "acme", "--groups", "staff")
    out = ingest(db, str(beta), "--tenant", "beta", "--groups", "staff", *extra)
    refused = [line for line in out.splitlines() if "another tenant's document" in line]
    assert len(refused) == 2 and all("Fix:" in line for line in refused), out
    # another file's document: moving it would show acme's text to beta (a new user did)
    assert all("--id-prefix" in line and "citewise acl" not in line for line in refused), out
    assert acl_of(db) == {"README.md": ("acme", ["staff"]), "own.md": ("beta", ["staff"])}
    code, found = cli("search", "launch code", "--groups", "staff", "--tenant", "acme",
                      "--db", str(db), "--json")
    assert code == 0 and "zqalpha" in found and "zqbeta" not in found, found
    code, out = cli("acl", "README.md", "--groups", "staff", "--tenant", "beta", "--db", str(db))
    assert code == 0, out
    ingest(db, str(beta), "--tenant", "beta", "--groups", "staff")
    assert acl_of(db)["README.md"] == ("beta", ["staff"])


def test_a_second_folders_file_does_not_replace_the_firsts(tmp_path: Path) -> None:
    """A doc_id is the path relative to the folder ingested, so the second manual's
    index.html was the first manual's index.html, replaced without a word ("1 changed").
    Now it fails on one line naming the file it would replace, and --id-prefix gives the
    second folder its own ids; a folder moved elsewhere (the old file gone) still updates."""
    first, second = tmp_path / "alpha", tmp_path / "beta"
    for root, word in ((first, "zqalpha"), (second, "zqbeta")):
        root.mkdir()
        (root / "index.md").write_text(f"# Start\n\nThe {word} widget ships in blue.\n")
    db = tmp_path / "i.db"
    ingest(db, str(first), "--groups", "staff")
    out = ingest(db, str(second), "--groups", "staff", code=1)  # every file failed: exit 1
    assert (f"doc_id 'index.md' is already indexed from {first / 'index.md'}, another file "
            "that still exists; not replaced. Fix: ingest this folder with its own ids "
            "(--id-prefix NAME/)") in out, out
    code, found = cli("search", "zqalpha", "--groups", "staff", "--db", str(db), "--json")
    assert code == 0 and "zqalpha" in found
    ingest(db, str(second), "--groups", "staff", "--id-prefix", "beta/")
    assert sorted(acl_of(db)) == ["beta/index.md", "index.md"]
    moved = tmp_path / "alpha-moved"
    first.rename(moved)
    out = ingest(db, str(moved), "--groups", "staff")
    assert "1 metadata-only" in out and "failed:" not in out, out


def test_folders_ingested_in_one_command_get_their_own_ids(tmp_path: Path) -> None:
    """Ingesting two Rust books in one command failed on every page name they share
    (``destructors.html``), because ids were relative to each folder. A batch of several
    folders now puts each folder's path from their common parent before its files' ids, and
    what a batch leaves out (a redirect stub) is reported under the same path."""
    docs = tmp_path / "docs"
    for name, word in (("book", "zqalpha"), ("reference", "zqbeta")):
        (docs / name).mkdir(parents=True)
        (docs / name / "destructors.md").write_text(f"# Drop\n\nThe {word} value drops.\n")
    (docs / "reference" / "old.html").write_text(
        '<meta http-equiv="refresh" content="0; url=destructors.html">')
    db = tmp_path / "i.db"
    out = ingest(db, str(docs / "book"), str(docs / "reference"), "--groups", "staff")
    assert "failed" not in out.replace("0 failed", "") and "reference/old.html ->" in out, out
    assert sorted(acl_of(db)) == ["book/destructors.md", "reference/destructors.md"]
    code, found = cli("search", "zqbeta", "--groups", "staff", "--db", str(db), "--json")
    assert code == 0 and "reference/destructors.md" in found, found
    ingest(db, str(docs / "book"), "--groups", "staff", "--id-prefix", "book/")  # unchanged
    assert sorted(acl_of(db)) == ["book/destructors.md", "reference/destructors.md"]


def test_acl_and_delete_show_an_ids_line_break_as_backslash_n(tmp_path: Path) -> None:
    """A file named "notes\\nsalary.md: groups everyone\\nnotes.md" made `acl` and `delete`
    print a forged "salary.md: groups everyone" line (security review); `ingest` and `status`
    already showed it as ``\\n``."""
    name = "notes\nsalary.md: groups everyone\nnotes.md"
    root = docs_with(tmp_path, {name: "# B\n\nbeta.\n"})
    db = tmp_path / "i.db"
    ingest(db, str(root), "--groups", "staff")
    for verb in (["acl", name, "--groups", "hr"], ["delete", name]):
        code, out = cli(*verb, "--db", str(db))
        assert code == 0 and "notes\\nsalary.md: groups everyone\\nnotes.md" in out, out
        assert "\nsalary.md: groups everyone" not in out


def test_a_file_swapped_for_a_symlink_after_the_folder_was_listed_is_not_read(tmp_path):
    """Replacing a listed file (or its folder) with a symlink to a server file while ingest
    embedded the batch got that file indexed under the batch's groups (security review); a
    FIFO swapped in would hang the read."""
    from citewise.config import LimitSettings
    from citewise.errors import IngestError
    from citewise.sources import file_batch

    outside = tmp_path / "outside"
    (outside / "sub").mkdir(parents=True)
    (outside / "secret.md").write_text("# S\n\nzqkiwi outside.\n", encoding="utf-8")
    (outside / "sub" / "a.md").write_text("# S\n\nzqkiwi deep.\n", encoding="utf-8")
    root = docs_with(tmp_path, {"zzz.md": "# Z\n\nzed.\n", "sub/a.md": "# A\n\na.\n",
                                "pipe.md": "# P\n\np.\n", "ok.md": "# Ok\n\nfine.\n"})
    items = {i.doc_id: i for i in file_batch([root], LimitSettings()).items}
    (root / "zzz.md").unlink()
    (root / "zzz.md").symlink_to(outside / "secret.md")
    (root / "sub").rename(tmp_path / "old-sub")
    (root / "sub").symlink_to(outside / "sub", target_is_directory=True)
    (root / "pipe.md").unlink()
    os.mkfifo(root / "pipe.md")
    for doc_id, why in (("zzz.md", "leads outside|became a symlink"),
                        ("sub/a.md", "leads outside"),
                        ("pipe.md", "not a regular file")):
        with pytest.raises(IngestError, match=why):
            items[doc_id].load()
    assert "fine" in items["ok.md"].load().text
    followed = {i.doc_id: i for i in file_batch([root], LimitSettings(),
                                                follow_symlinks=True).items}
    assert "zqkiwi outside" in followed["zzz.md"].load().text  # the operator's choice


@pytest.mark.parametrize("link", ["base-url", "spoofed"])
def test_a_file_naming_another_files_doc_id_cannot_replace_it(tmp_path: Path, link: str) -> None:
    """A security review replaced a restricted document, and took over its ACL, from another
    folder: a file whose front matter names its doc_id (and, when that document's link was a
    file's, the same link). The document read from another file that still exists is kept;
    the file that names it fails alone, with a fix that exists."""
    hr = docs_with(tmp_path, {"bands.md": SALARY})
    db = tmp_path / "i.db"
    args = ["--base-url", "https://hr.example/"] if link == "base-url" else []
    ingest(db, str(hr), "--groups", "hr", "--id-prefix", "hr/", *args)
    victim = (hr / "bands.md").resolve().as_uri()
    spoof = "" if link == "base-url" else f'source_url: "{victim}"\n'
    evil = tmp_path / "evil"
    evil.mkdir()
    (evil / "x.md").write_text(f"---\ndoc_id: hr/bands.md\n{spoof}---\n# Bands\n\nEvery band is "
                               "zqforged 250000 euros.\n", encoding="utf-8")
    got, out = cli("ingest", str(evil), "--groups", "staff", "--id-prefix", "evil/",
                   "--db", str(db), "--no-progress")
    assert "0 changed" in out and "1 failed" in out, out
    assert "named by this file's own metadata" in out and "remove the doc_id line" in out
    assert acl_of(db) == {"hr/bands.md": ("default", ["hr"])}
    code, found = cli("search", "zqforged", "--groups", "staff,hr", "--db", str(db), "--json")
    assert code == 0 and "zqforged" not in found
    # the file that does own the id is still re-ingested after an edit
    (hr / "bands.md").write_text(SALARY + "\nReviewed in May.\n", encoding="utf-8")
    out = ingest(db, str(hr), "--groups", "hr", "--id-prefix", "hr/", *args)
    assert "1 changed" in out, out


def test_a_doc_id_claimed_while_its_owners_folder_is_away_cannot_change_its_readers(
        tmp_path: Path) -> None:
    """A review: with the owner's folder away (a share not mounted), a front-matter id took
    the hr document over as staff and locked the owner out when the folder came back."""
    hr = docs_with(tmp_path, {"bands.md": SALARY})
    db = tmp_path / "i.db"
    ingest(db, str(hr), "--groups", "hr", "--id-prefix", "hr/")
    away = hr.rename(tmp_path / "away")
    evil = tmp_path / "evil"
    evil.mkdir()
    (evil / "x.md").write_text("---\ndoc_id: hr/bands.md\n---\n# Bands\n\nzqforged.\n",
                               encoding="utf-8")
    got, out = cli("ingest", str(evil), "--groups", "staff", "--db", str(db), "--no-progress")
    assert "1 failed" in out and "would change who may read it" in out, out
    assert acl_of(db) == {"hr/bands.md": ("default", ["hr"])}
    away.rename(hr)
    assert "0 failed" in ingest(db, str(hr), "--groups", "hr", "--id-prefix", "hr/")


def test_an_index_made_before_homes_were_recorded_still_re_ingests_a_linked_export(
        tmp_path: Path) -> None:
    """A review: a document whose sidecar link names its original (a .docx beside the .md
    export), indexed before homes were recorded, was refused on every re-ingest."""
    from citewise.ingest.ownership import another_file
    from citewise.types import Document

    original = tmp_path / "handbook.docx"
    original.write_bytes(b"PK")
    export = tmp_path / "handbook.md"
    export.write_text("# H\n", encoding="utf-8")
    link = original.resolve().as_uri()
    old = Document(doc_id="handbook.md", title="H", content_hash="h", tenant="default",
                   acl_groups=frozenset({"staff"}), source_url=link)
    meta = {"_file_path": str(export.resolve()), "source_url": link}
    assert another_file(old, meta) is None
    assert another_file(old, {**meta, "_own_doc_id": True}) == str(original)  # a claim
    assert another_file(old, {**meta, "source_url": "https://x/"}) == str(original)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_readers_set_by_hand_outlive_a_routine_reingest(tmp_path: Path, workers: str) -> None:
    """Two new users restricted a page with `citewise acl`, ran their routine ingest again
    and the page was readable by staff (exit 0, even under --strict): a re-ingest gave back
    the batch's readers with a warning only. It now keeps readers set by hand, edited or
    not, says so with the command that changes them; setting them by hand to what the
    ingest gives hands them back to the ingests."""
    root = docs_with(tmp_path, {"salary.md": SALARY, "travel.md": "# Travel\n\nBook early.\n"})
    db = tmp_path / "i.db"
    run = ("--groups", "staff", "--workers", workers)
    ingest(db, str(root), *run)
    code, out = cli("acl", "salary.md", "--groups", "hr", "--db", str(db))
    assert code == 0, out
    out = ingest(db, str(root), *run, "--strict")
    assert "salary.md: keeps the readers set by hand since its last ingest (groups hr)" in out
    assert f"`citewise acl --groups staff --db {db} -- salary.md`" in out
    assert "nothing to do (each ingest keeps them)" in out  # never "give its ingest the
    assert "(--groups" not in out  # same groups (--groups …)": that hands them back (review)
    (root / "salary.md").write_text(SALARY + "\nLevel 6: 130,000.\n", encoding="utf-8")
    ingest(db, str(root), *run)
    assert acl_of(db) == {"salary.md": ("default", ["hr"]), "travel.md": ("default", ["staff"])}
    code, out = cli("search", "zqsecretsalary", "--groups", "staff", "--db", str(db))
    assert "zqsecretsalary" not in out
    cli("acl", "salary.md", "--groups", "staff", "--db", str(db))
    out = ingest(db, str(root), "--groups", "staff,sales", "--workers", workers)
    assert "keeps the readers" not in out
    assert acl_of(db)["salary.md"] == ("default", ["sales", "staff"])


def test_a_large_utf16_files_front_matter_id_is_read(tmp_path: Path) -> None:
    """The review of this stop: the head of a UTF-16LE Markdown file over 256 KiB was cut
    after a newline byte, splitting a code unit; its front matter's doc_id was missed and
    the sidecar line naming it stopped the ingest."""
    root = tmp_path / "docs"
    root.mkdir()
    text = "---\ndoc_id: hr-handbook\n---\n# Handbook\n\n" + "Band L4 is zqband.\n" * 20_000
    (root / "hb.md").write_bytes(b"\xff\xfe" + text.encode("utf-16-le"))
    db = tmp_path / "i.db"
    ingest(db, str(root), "--groups", "staff", "--meta",
           str(sidecar(tmp_path, {"doc_id": "hr-handbook", "groups": ["hr"]})))
    assert acl_of(db) == {"hr-handbook": ("default", ["hr"])}


@pytest.mark.parametrize("workers", ["1", "2"])
@pytest.mark.parametrize("change", ["acl", "delete"])
def test_an_acl_change_or_delete_made_while_an_ingest_embeds_is_not_undone(
        db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: str,
        change: str) -> None:
    """A security review: `citewise acl salary.md --groups hr` (or a delete) made while the
    routine re-ingest embedded its batch was undone by the ingest's write a minute later,
    exit 0 and no warning, on SQLite and PostgreSQL: the write replaced the record read
    before embedding. A document changed since it was read is decided again on what the
    index holds now: readers set by hand meanwhile are kept, a deleted one stays deleted."""
    import citewise.indexing
    import citewise.parallel.pipeline
    from citewise import connect

    root = docs_with(tmp_path, {"salary.md": SALARY, "travel.md": "# Travel\n\nBook early.\n"})
    run = ("--groups", "staff", "--workers", workers)
    ingest(db, str(root), *run)
    (root / "salary.md").write_text(SALARY + "\nLevel 6: 130,000.\n", encoding="utf-8")
    (root / "travel.md").write_text("# Travel\n\nBook early, fly economy.\n", encoding="utf-8")

    def meanwhile(embed):  # noqa: ANN001, ANN202
        def racing(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            with connect(db) as other:  # another command, while this ingest embeds
                if change == "acl":
                    other.set_acl("salary.md", ["hr"])
                else:
                    other.delete(["salary.md"])
            return embed(*args, **kwargs)
        return racing

    for module in (citewise.indexing, citewise.parallel.pipeline):
        monkeypatch.setattr(module, "_embed_missing", meanwhile(module._embed_missing))
    out = ingest(db, str(root), *run)
    readers = acl_of(db)
    assert readers["travel.md"] == ("default", ["staff"])
    code, found = cli("search", "zqsecretsalary", "--groups", "staff", "--db", str(db))
    assert "zqsecretsalary" not in found, out
    if change == "acl":
        assert readers["salary.md"] == ("default", ["hr"]), out
        assert "salary.md: keeps the readers set by hand" in out
        code, found = cli("search", "Level 6", "--groups", "hr", "--db", str(db))
        assert "130,000" in found  # the edit is indexed, for its readers
    else:
        assert "salary.md" not in readers, out
        assert ("salary.md: deleted by another command while this ingest read it; not "
                "written back. Fix: ingest it again with --undelete") in out


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_page_restricted_by_hand_is_not_opened_when_its_file_moves(
        tmp_path: Path, workers: str) -> None:
    """A security review restricted salary.md by hand to hr, moved the file into pay/ and
    ran the routine ingest: staff read the page under its new id, no word said. A new
    document with the text of one whose readers were set by hand and whose file is gone is
    not ingested when it would open that text to more groups, with the fix; within those
    readers, or with --allow-wider-readers, it is."""
    root = docs_with(tmp_path, {"salary.md": SALARY, "travel.md": "# Travel\n\nBook early.\n"})
    db = tmp_path / "i.db"
    run = ("--groups", "staff", "--workers", workers)
    ingest(db, str(root), *run)
    assert cli("acl", "salary.md", "--groups", "hr", "--db", str(db))[0] == 0
    (root / "pay").mkdir()
    (root / "salary.md").rename(root / "pay" / "salary.md")
    out = ingest(db, str(root), *run)
    assert ("pay/salary.md: has the text of salary.md, whose file is gone and whose readers "
            "were set by hand (groups hr); this ingest would let groups staff read it; not "
            "ingested.") in out
    assert f"`citewise delete --db {db} -- salary.md` and ingest it again" in out
    assert "pay/salary.md" not in acl_of(db)
    code, found = cli("search", "zqsecretsalary", "--groups", "staff", "--db", str(db))
    assert "zqsecretsalary" not in found
    ingest(db, str(root), "--groups", "hr", "--workers", workers)  # within its readers
    assert acl_of(db)["pay/salary.md"] == ("default", ["hr"])


def test_a_moved_pages_readers_go_to_no_other_document(tmp_path: Path) -> None:
    """The review of this stop: the first version gave every new document of the same text
    the moved page's readers, overriding a board sidecar line with hr,staff. Nothing is
    given now; a copy within the old readers (board is not) is refused, with the fix."""
    root = docs_with(tmp_path, {"a/plan.md": SALARY})
    db = tmp_path / "m.db"
    ingest(db, str(root / "a"), "--groups", "hr")
    assert cli("acl", "plan.md", "--groups", "hr,staff", "--db", str(db))[0] == 0
    (root / "a" / "plan.md").unlink()
    docs_with(tmp_path, {"board/minutes.md": SALARY})
    meta = sidecar(tmp_path, {"path": "minutes.md", "groups": ["board"]})
    out = ingest(db, str(root / "board"), "--groups", "board", "--meta", str(meta), code=1)
    assert "minutes.md: has the text of plan.md" in out and "groups board read it" in out
    assert "minutes.md" not in acl_of(db)
    ingest(db, str(root / "board"), "--groups", "board", "--meta", str(meta),
           "--allow-wider-readers")
    assert acl_of(db)["minutes.md"] == ("default", ["board"])


def test_a_sidecar_line_naming_a_folder_gives_every_file_under_it_its_readers(
        tmp_path: Path) -> None:
    """A new user restricted the Clippy book's development/ folder with 23 sidecar lines, one
    per page (a line was a file only); forgetting one left that page to staff. A line naming
    a folder applies to every file under it, a deeper folder's line and a file's own line
    winning; one that matches no file still stops the ingest."""
    root = docs_with(tmp_path, {"dev/a.md": "# A\n\nAlpha.\n", "dev/b.md": "# B\n\nBeta.\n",
                                "dev/inner/c.md": "# C\n\nGamma.\n",
                                "pub/d.md": "# D\n\nDelta.\n"})
    meta = sidecar(tmp_path, {"path": "dev/", "groups": ["maint"]},
                   {"path": "dev/b.md", "groups": ["core"]},
                   {"path": "dev/inner", "groups": ["inner"]})
    db = tmp_path / "i.db"
    ingest(db, str(root), "--groups", "staff", "--meta", str(meta), "--strict")
    assert acl_of(db) == {"dev/a.md": ("default", ["maint"]), "dev/b.md": ("default", ["core"]),
                          "dev/inner/c.md": ("default", ["inner"]),
                          "pub/d.md": ("default", ["staff"])}
    wrong = sidecar(tmp_path, {"path": "Dev/", "groups": ["maint"]})
    out = ingest(db, str(root), "--groups", "staff", "--meta", str(wrong), code=1)
    assert "path 'Dev' matches no document" in out and "nothing was ingested" in out


def test_a_sidecar_line_naming_a_file_this_ingest_does_not_read_is_no_problem(
        tmp_path: Path) -> None:
    """A new user re-ingested one file of Node's docs with the folder's sidecar: each line
    naming another file was a warning to "correct the line" (under --strict, exit 1). A
    line naming a file that exists and is not read this time is left for its ingest; a line
    naming no file still is a problem."""
    root = docs_with(tmp_path, {"tls.md": "# TLS\n\nSessions.\n",
                                "crypto.md": "# Crypto\n\nCiphers.\n"})
    db = tmp_path / "i.db"
    meta = sidecar(tmp_path, {"path": "tls.md", "groups": ["security"]},
                   {"path": "crypto.md", "groups": ["security"]})
    out = ingest(db, str(root / "tls.md"), "--groups", "staff", "--meta", str(meta),
                 "--strict")
    assert "crypto.md" not in out and acl_of(db) == {"tls.md": ("default", ["security"])}
    typo = sidecar(tmp_path, {"path": "tls.md", "groups": ["security"]},
                   {"path": "crypt.md", "owner": "x@example.com"})
    out = ingest(db, str(root / "tls.md"), "--groups", "staff", "--meta", str(typo),
                 "--strict", code=1)
    assert "path 'crypt.md' matches no document" in out


def test_a_deeper_folders_line_wins_whatever_path_each_line_is_written_from(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The review of this stop: folder lines were ordered by their own text's slashes, so a
    line for ``docs/site/book`` (written from the current folder) outranked the ``dev`` folder
    inside it (from the ingest root), and lines of one depth came in a set's order: the
    salary page went to staff in three runs of six."""
    docs_with(tmp_path, {"site/book/intro.md": "# Intro\n\nShips on Mondays.\n",
                         "site/book/dev/salary.md": SALARY})
    meta = sidecar(tmp_path, {"path": "docs/site/book", "groups": ["staff"]},
                   {"path": "dev", "groups": ["hr"]}, {"path": "docs/site", "owner": "o@x"})
    monkeypatch.chdir(tmp_path)
    ingest(tmp_path / "i.db", "docs/site/book", "--groups", "public", "--meta", str(meta))
    assert acl_of(tmp_path / "i.db") == {"dev/salary.md": ("default", ["hr"]),
                                         "intro.md": ("default", ["staff"])}


def test_a_folder_line_for_a_folder_this_ingest_does_not_read_is_left_for_its_ingest(
        tmp_path: Path) -> None:
    """The review of this stop: re-ingesting one file with the folder's sidecar stopped on
    a folder line ("path 'dev' matches no document … nothing was ingested"), though file
    lines for files it does not read are left for their ingest."""
    root = docs_with(tmp_path, {"intro.md": "# Intro\n\nShips on Mondays.\n",
                                "dev/salary.md": SALARY})
    meta = sidecar(tmp_path, {"path": "dev", "groups": ["hr"]},
                   {"path": "dev/salary.md", "owner": "x@example.com"})
    ingest(tmp_path / "i.db", str(root / "intro.md"), "--groups", "staff", "--meta",
           str(meta), "--strict")
    assert acl_of(tmp_path / "i.db") == {"intro.md": ("default", ["staff"])}


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_reingest_without_the_sidecar_does_not_open_the_pages_it_restricted(
        tmp_path: Path, workers: str) -> None:
    """Two new users re-ran an ingest without the --meta sidecar that had restricted 23
    pages: staff read them at once, said in 23 warnings, exit 0. Readers a sidecar line (or
    the file) gave are not replaced by the batch's --groups without --allow-wider-readers;
    restricting a page with a new line, and a change of --groups alone, go through."""
    root = docs_with(tmp_path, {"salary.md": SALARY, "travel.md": "# Travel\n\nBook early.\n"})
    db = tmp_path / "i.db"
    meta = sidecar(tmp_path, {"path": "salary.md", "groups": ["hr"]})
    run = ("--groups", "staff", "--workers", workers)
    ingest(db, str(root), *run)
    out = ingest(db, str(root), *run, "--meta", str(meta))  # a new restriction: applied
    assert acl_of(db)["salary.md"] == ("default", ["hr"]) and "changes who may read" in out
    out = ingest(db, str(root), *run)  # the sidecar forgotten
    assert ("salary.md: this ingest would give salary.md the batch's groups staff instead of "
            "groups hr from its --meta sidecar line; not ingested.") in out
    assert acl_of(db)["salary.md"] == ("default", ["hr"])
    code, found = cli("search", "zqsecretsalary", "--groups", "staff", "--db", str(db))
    assert "zqsecretsalary" not in found
    ingest(db, str(root), "--groups", "staff,sales", "--workers", workers, "--meta", str(meta))
    assert acl_of(db)["travel.md"] == ("default", ["sales", "staff"])  # --groups alone
    ingest(db, str(root), *run, "--allow-wider-readers")
    assert acl_of(db)["salary.md"] == ("default", ["staff"])


def test_the_same_groups_by_hand_keep_the_sidecars_protection(tmp_path: Path) -> None:
    """A new user of the AWS CLI's examples followed a fix with ``--groups security-admins``
    (the groups the sidecar had given the KMS pages), and the next ingest with ``--groups
    users`` opened all 51 to users with only warnings: the readers counted as the batch's."""
    root = docs_with(tmp_path, {"salary.md": SALARY})
    db = tmp_path / "i.db"
    meta = sidecar(tmp_path, {"path": "salary.md", "groups": ["hr"]})
    ingest(db, str(root), "--groups", "staff", "--meta", str(meta))
    ingest(db, str(root), "--groups", "hr")  # the same readers, given by --groups
    out = ingest(db, str(root), "--groups", "staff", code=1)  # the routine run
    assert "would give salary.md the batch's groups staff instead of groups hr" in out
    assert acl_of(db)["salary.md"] == ("default", ["hr"])


def test_many_pages_restricted_by_hand_are_counted_in_one_line(tmp_path: Path) -> None:
    """A folder restricted page by page with `citewise acl` printed a line per page on every
    routine ingest; past three, the rest are counted in one line (--json keeps each)."""
    root = docs_with(tmp_path, {f"d{i}.md": f"# D{i}\n\nText {i}.\n" for i in range(6)})
    db = tmp_path / "i.db"
    ingest(db, str(root), "--groups", "staff")
    for i in range(6):
        assert cli("acl", f"d{i}.md", "--groups", "hr", "--db", str(db))[0] == 0
    out = ingest(db, str(root), "--groups", "staff")
    assert out.count("keeps the readers set by hand") == 3
    assert ("warning: 3 more document(s) keep the readers set by hand since their last "
            "ingest (d3.md, d4.md, d5.md)") in out
    code, shown = cli("ingest", str(root), "--groups", "staff", "--db", str(db), "--json",
                      "--no-progress")
    assert code == 0 and sum("keeps the readers" in w
                             for w in json.loads(shown)["warnings"]) == 6


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_deleted_page_stays_deleted_when_its_folder_is_ingested_again(
        tmp_path: Path, db: str, workers: str) -> None:
    """A deleted document came back with the next routine ingest of its folder while its
    file was still there (left open since stop 50): `citewise delete` now holds until an
    ingest says `--undelete`, on both backends and both ingest paths; the file left out is
    no failure (`--strict` exits 0) and is named with the fix."""
    root = docs_with(tmp_path, {"salary.md": SALARY, "travel.md": "# Travel\n\nBook early.\n"})
    run = ("--groups", "staff", "--workers", workers)
    ingest(db, str(root), *run)
    code, out = cli("delete", "salary.md", "--db", db)
    assert code == 0, out
    out = ingest(db, str(root), *run, "--strict")
    assert ("left out 1 file(s) whose documents were deleted with `citewise delete` "
            f"({root / 'salary.md'}); to index them again, ingest them with --undelete") in out
    assert "0 new" in out and set(acl_of(db)) == {"travel.md"}
    code, out = cli("search", "zqsecretsalary", "--groups", "staff", "--db", db)
    assert "zqsecretsalary" not in out
    code, out = cli("ingest", str(root), *run, "--json", "--no-progress", "--db", db)
    assert code == 0 and json.loads(out)["deleted"] == [str(root / "salary.md")], out
    out = ingest(db, str(root), *run, "--undelete")
    assert "1 new" in out and set(acl_of(db)) == {"salary.md", "travel.md"}
    out = ingest(db, str(root), *run)  # indexed again: routine ingests keep it
    assert "left out" not in out and "2 unchanged" in out
    assert cli("acl", "salary.md", "--groups", "hr", "--tenant", "globex", "--db", db)[0] == 0
    assert cli("delete", "salary.md", "--db", db)[0] == 0  # deleted in another tenant: ids
    out = ingest(db, str(root), *run)  # are one namespace (the review of this stop)
    assert "left out 1 file(s) whose documents were deleted" in out, out


def test_a_page_gone_from_its_folder_is_named_and_pruned(tmp_path: Path, db: str) -> None:
    """An operator's trial: a page moved out of the folder (or renamed) was still answered
    from after the re-ingest ("0 new … 255 unchanged"), its link a missing file, and
    nothing said so. It is named with the fix; --prune deletes it, and a file that comes
    back is indexed again."""
    root = docs_with(tmp_path, {"salary.md": SALARY, "travel.md": "# Travel\n\nBook early.\n"})
    ingest(db, str(root), "--groups", "staff")
    (root / "salary.md").rename(tmp_path / "salary.md")
    out = ingest(db, str(root), "--groups", "staff")
    assert "1 document(s) read from files no longer in the folder, or --exclude'd now, are " \
        "still indexed" in out
    assert "--prune" in out and "`citewise delete salary.md --db " in out  # this index
    code, out = cli("ingest", str(root), "--groups", "staff", "--json", "--no-progress",
                    "--db", db)
    assert code == 0 and json.loads(out)["gone"] == ["salary.md"]
    out = ingest(db, str(root), "--groups", "staff", "--prune")
    assert "deleted 1 document(s) whose files are no longer in the folder" in out
    assert set(acl_of(db)) == {"travel.md"}
    code, out = cli("search", "zqsecretsalary", "--groups", "staff", "--db", db)
    assert "zqsecretsalary" not in out
    (tmp_path / "salary.md").rename(root / "salary.md")
    assert "1 new" in ingest(db, str(root), "--groups", "staff")  # no hand delete to undo


def test_a_file_excluded_now_is_named_and_pruned(tmp_path: Path, db: str) -> None:
    """A new user found the Debian Reference's PDF and text copies indexed beside its pages
    (its restricted chapters readable through them), re-ran the ingest with ``--exclude
    '*.pdf' --prune``: both copies stayed indexed and readable, and nothing said so."""
    root = docs_with(tmp_path, {"salary.md": SALARY, "travel.md": "# Travel\n\nBook early.\n",
                                "old/notes.md": "# Notes\n\nzqoldnotes here.\n"})
    ingest(db, str(root), "--groups", "staff")
    out = ingest(db, str(root), "--groups", "staff", "--exclude", "salary.md")
    assert "1 document(s) read from files no longer in the folder, or --exclude'd now" in out
    out = ingest(db, str(root), "--groups", "staff", "--exclude", "salary.md", "--exclude",
                 "old", "--prune")
    assert "deleted 2 document(s) whose files are no longer in the folder or are " \
        "--exclude'd" in out, out
    assert set(acl_of(db)) == {"travel.md"}
    # a review: what another ingest of the excluded folder made (for hr), and what this one
    # just indexed from a folder named beside it, stay
    ingest(db, str(root / "old"), "--groups", "hr")
    out = ingest(db, str(root), "--groups", "staff", "--exclude", "old", "--prune")
    assert "document(s) whose files" not in out
    assert set(acl_of(db)) == {"travel.md", "salary.md", "notes.md"}
    (root / "new").mkdir()
    (root / "new" / "x.md").write_text("# X\n\nzqnewx.\n", encoding="utf-8")
    out = ingest(db, str(root), str(root / "new"), "--groups", "staff", "--exclude", "new",
                 "--exclude", "old", "--prune")
    assert "document(s) whose files" not in out and "new/x.md" in acl_of(db), acl_of(db)
    # the second review: a file named on its own adds no folder to prune
    out = ingest(db, str(root / "travel.md"), "--groups", "staff", "--exclude", "new",
                 "--prune")
    assert "document(s) whose files" not in out and "new/x.md" in acl_of(db), out


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_delete_made_after_an_ingest_began_is_not_undone_by_it(
        tmp_path: Path, db: str, workers: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The review of this stop: an ingest reads the deletes asked for once, when its first
    new document comes; a page deleted after that and read after its delete was written back,
    its delete mark replaced, so every later ingest indexed it too. The write checks them
    again under the write gate (here the ingest's early read is made to miss the delete)."""
    import citewise.source_claims

    root = docs_with(tmp_path, {"salary.md": SALARY, "travel.md": "# Travel\n\nBook early.\n"})
    run = ("--groups", "staff", "--workers", workers)
    ingest(db, str(root), *run)
    assert cli("delete", "salary.md", "--db", db)[0] == 0
    monkeypatch.setattr(citewise.source_claims, "hand_deleted", lambda store: set())
    out = ingest(db, str(root), *run)
    assert "left out 1 file(s) whose documents were deleted" in out and "0 new" in out, out
    monkeypatch.undo()
    assert set(acl_of(db)) == {"travel.md"}
    out = ingest(db, str(root), *run)  # the delete is still remembered
    assert "left out 1 file(s) whose documents were deleted" in out, out


def test_files_whose_own_text_links_their_citations_are_named(tmp_path: Path) -> None:
    """A security review: without --base-url, a page's front matter source_url or canonical
    link sent its citations to any host (https://evil.example/login under the page's real
    title), no word said. The ingest names such files in one line; with --base-url (or a
    sidecar link) the operator's link wins and nothing is said."""
    root = docs_with(tmp_path, {
        "reset.md": "---\nsource_url: https://evil.example/login\n---\n# Reset\n\nAsk IT.\n",
        "wifi.html": '<html><head><link rel="canonical" href="https://evil.example/wifi">'
                     "</head><body><h1>Wifi</h1><p>Use the guest network.</p></body></html>",
        "plain.md": "# Plain\n\nNothing to link.\n"})
    db = tmp_path / "i.db"
    out = ingest(db, str(root), "--groups", "staff")
    assert "2 file(s) link their citations where their own text says" in out, out
    assert "--base-url" in out
    code, out = cli("ingest", str(root), "--groups", "staff", "--db", str(tmp_path / "j.db"),
                    "--no-progress", "--json")
    links = {Path(e["path"]).name: e["link"] for e in json.loads(out)["own_links"]}
    assert links == {"reset.md": "https://evil.example/login",
                     "wifi.html": "https://evil.example/wifi"}
    out = ingest(tmp_path / "k.db", str(root), "--groups", "staff",
                 "--base-url", "https://docs.example/")
    assert "link their citations where" not in out


def test_many_files_failing_for_one_reason_are_counted_in_one_line(tmp_path: Path) -> None:
    """An ingest that forgot its --meta printed 75 failed: lines before its summary (a new
    user of Git's release notes); past three, the rest are counted (--json lists each)."""
    root = docs_with(tmp_path, {f"s{i}.md": f"# S{i}\n\nSecret {i}.\n" for i in range(6)})
    db = tmp_path / "i.db"
    meta = sidecar(tmp_path, *({"path": f"s{i}.md", "groups": ["hr"]} for i in range(6)))
    ingest(db, str(root), "--groups", "staff", "--meta", str(meta))
    out = ingest(db, str(root), "--groups", "staff", code=1)
    assert out.count("would give s") == 3
    assert "failed: 3 more file(s) for the same reason (" in out
    code, shown = cli("ingest", str(root), "--groups", "staff", "--db", str(db), "--json",
                      "--no-progress")
    assert len(json.loads(shown)["failures"]) == 6
