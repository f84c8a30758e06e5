"""``citewise ingest --workers N`` / ``--ray ADDRESS`` end to end, with the shipped model."""

import json
import sqlite3
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from citewise.cli.main import cli

CORPUS = Path(__file__).resolve().parents[2] / "examples" / "corpus"
META = CORPUS.parent / "corpus.meta.jsonl"


def ingest_json(db: Path, *extra: str) -> dict:
    result = CliRunner().invoke(cli, ["ingest", str(CORPUS), "--db", str(db), "--tenant",
                                      "northwind", "--groups", "staff", "--meta", str(META),
                                      "--no-progress", "--json", "--threads", "1", *extra])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def chunk_rows(db: Path) -> list:
    conn = sqlite3.connect(db)
    try:
        return conn.execute("SELECT chunk_id, embed_hash FROM chunks ORDER BY chunk_id").fetchall()
    finally:
        conn.close()


def vectors(db: Path) -> dict[str, np.ndarray]:
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute("SELECT embed_hash, vec FROM vectors").fetchall()
    finally:
        conn.close()
    return {h: np.frombuffer(v, dtype=np.float32) for h, v in rows}


def counts(summary: dict) -> dict:
    return {k: v for k, v in summary.items() if k not in ("seconds", "model_seconds")}


@pytest.mark.model
@pytest.mark.slow
def test_two_workers_match_one_and_rerun_embeds_nothing(tmp_path):
    one = ingest_json(tmp_path / "one.db")
    two = ingest_json(tmp_path / "two.db", "--workers", "2")
    assert counts(two) == counts(one)
    assert two["new"] == 13 and two["failed"] == 0 and two["chunks_embedded"] == two["chunks"]
    assert chunk_rows(tmp_path / "two.db") == chunk_rows(tmp_path / "one.db")
    # Texts meet other mini-batch neighbours with 2 workers (other padded shapes); padding is
    # masked, so vectors agree (bit for bit on docs-httpx; allow float summation-order noise).
    a, b = vectors(tmp_path / "one.db"), vectors(tmp_path / "two.db")
    assert a.keys() == b.keys()
    assert max(float(np.abs(a[h] - b[h]).max()) for h in a) < 1e-4
    again = ingest_json(tmp_path / "two.db", "--workers", "2")
    assert again["unchanged"] == 13 and again["chunks_embedded"] == 0
    found = CliRunner().invoke(cli, ["search", "how many vacation days", "--db",
                                     str(tmp_path / "two.db"), "--tenant", "northwind",
                                     "--groups", "staff", "--json"])
    assert found.exit_code == 0 and json.loads(found.output), found.output


def test_workers_must_be_positive(tmp_path):
    result = CliRunner().invoke(cli, ["ingest", str(CORPUS), "--db", str(tmp_path / "x.db"),
                                      "--workers", "0"])
    assert result.exit_code == 2 and "--workers" in result.output


def test_bad_ray_address_says_what_to_pass(tmp_path):
    result = CliRunner().invoke(cli, ["ingest", str(CORPUS), "--db", str(tmp_path / "x.db"),
                                      "--ray", "10.0.0.1:6379", "--no-progress"])
    assert result.exit_code == 1
    assert "expected auto, local or ray://host:port" in result.output and "Fix:" in result.output


def test_missing_ray_is_one_line_with_the_install_command(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "ray", None)
    result = CliRunner().invoke(cli, ["ingest", str(CORPUS), "--db", str(tmp_path / "x.db"),
                                      "--ray", "local", "--no-progress"])
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        "Error: --ray needs the Ray package, which is not installed. "
        "Fix: pip install 'citewise[ray]'"]


@pytest.mark.parametrize("workers", [[], ["--workers", "2"]])
def test_a_file_of_include_lines_only_is_left_out_not_failed(tmp_path, workers):
    """A Sphinx ``index.rst`` that only includes other files has no text of its own: it is
    left out, named with what it includes, and ``--strict`` passes (it was a failure)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "part.rst").write_text("Part\n====\n\nWidgets are blue.\n")
    (docs / "index.rst").write_text(".. include:: part.rst\n")
    args = ["ingest", str(docs), "--db", str(tmp_path / "x.db"), "--groups", "staff",
            "--no-progress", "--strict", "--threads", "1", *workers]
    shown = CliRunner().invoke(cli, args)
    assert shown.exit_code == 0, shown.output
    assert (f"left out 1 file(s) with no text of their own, e.g. {docs / 'index.rst'}: "
            "only includes part.rst") in shown.output
    assert "0 failed" in shown.output
    summary = json.loads(CliRunner().invoke(cli, [*args, "--json"]).output)
    assert summary["includes_only"] == [{"path": str(docs / "index.rst"),
                                         "note": "only includes part.rst"}]
    assert summary["failed"] == 0 and summary["unchanged"] == 1


def test_workers_do_not_index_a_file_again_under_another_id(tmp_path):
    """With ``--workers`` a file already indexed under another id (its folder ingested on
    its own before) was indexed a second time, as the serial path refuses (one file, one
    document: :mod:`citewise.source_claims`)."""
    sub = tmp_path / "docs" / "yq"
    sub.mkdir(parents=True)
    (sub / "README.md").write_text("# yq\n\nyq transcodes YAML.\n")
    common = ["--db", str(tmp_path / "x.db"), "--groups", "staff", "--no-progress",
              "--threads", "1"]
    assert CliRunner().invoke(cli, ["ingest", str(sub), *common]).exit_code == 0
    again = CliRunner().invoke(cli, ["ingest", str(tmp_path / "docs"), *common,
                                     "--workers", "2"])
    assert "this file is indexed already, as 'README.md'; not indexed again as " \
           "'yq/README.md'" in again.output
    listed = CliRunner().invoke(cli, ["status", "--documents", "--db", str(tmp_path / "x.db")])
    assert "yq/README.md" not in listed.output, listed.output


def test_a_file_indexed_before_that_now_only_includes_others_is_named_stale(tmp_path):
    """The review of this stop: an index.rst indexed with text of its own, then rewritten as
    include lines only, left its old text searchable, the ingest saying nothing of it."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "part.rst").write_text("Part\n====\n\nWidgets are blue.\n")
    (docs / "index.rst").write_text("Index\n=====\n\nOld overview text.\n")
    args = ["ingest", str(docs), "--db", str(tmp_path / "x.db"), "--groups", "staff",
            "--no-progress", "--threads", "1"]
    assert CliRunner().invoke(cli, args).exit_code == 0
    (docs / "index.rst").write_text(".. include:: part.rst\n")
    shown = CliRunner().invoke(cli, args)
    assert "are still indexed from an earlier ingest. Fix: citewise delete index.rst" \
        in shown.output, shown.output
