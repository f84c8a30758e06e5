"""``index.tenancy`` and name confidentiality as a user meets them: `citewise ingest --config`,
`search --explain/--sql/--json`, with the shipped model."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from citewise.cli.main import cli

pytestmark = pytest.mark.model

SECRET = "Project Falcon: the acquisition of Initech closes on March 3rd."


def invoke(*args: str, ok: bool = True):
    result = CliRunner().invoke(cli, list(args))
    if ok:
        assert result.exit_code == 0, result.output
    return result


def folder(root: Path, name: str, text: str) -> Path:
    (root / name).mkdir(parents=True)
    (root / name / f"{name}.md").write_text(f"# Memo\n\n{text}\n", encoding="utf-8")
    return root / name


def config(root: Path, tenancy: str) -> str:
    path = root / f"{tenancy}.json"
    path.write_text(json.dumps({"index": {"tenancy": tenancy}}), encoding="utf-8")
    return str(path)


@pytest.fixture(scope="module")
def isolated_db(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("tenancy")
    db = root / "iso.db"
    invoke("ingest", str(folder(root, "acme", SECRET)), "--db", str(db), "--tenant", "acme",
           "--groups", "staff", "--config", config(root, "isolated"), "--no-progress")
    return db


def test_isolated_ingest_embeds_another_tenants_text_again(isolated_db: Path, tmp_path):
    out = invoke("ingest", str(folder(tmp_path, "globex", SECRET)), "--db", str(isolated_db),
                 "--tenant", "globex", "--groups", "staff", "--no-progress", "--json").output
    report = json.loads(out)
    assert report["new"] == 1 and report["chunks_embedded"] >= 1


def test_changing_tenancy_later_is_a_one_line_error(isolated_db: Path, tmp_path):
    result = invoke("ingest", str(folder(tmp_path, "more", "More text.")), "--db",
                    str(isolated_db), "--config", config(tmp_path, "shared"), "--no-progress",
                    ok=False)
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error:")
    assert "tenancy 'isolated'" in lines[0] and "Fix:" in lines[0]
    assert "citewise reindex --config" in lines[0]


@pytest.mark.parametrize("flag", ["--explain", "--sql", "--json --explain"])
def test_explain_and_sql_never_confirm_names(isolated_db: Path, flag: str):
    """A tenant and group the index holds vs ones it does not: the same text, names swapped
    (timings, which vary run to run, are left out)."""
    def shown(tenant: str, groups: str) -> str:
        out = invoke("search", "falcon acquisition", "--db", str(isolated_db), "--tenant",
                     tenant, "--groups", groups, "--mode", "bm25", *flag.split()).output
        if flag == "--json --explain":
            data = json.loads(out)
            out = json.dumps([data["explain"]["filter"], data["explain"]["candidates"]])
        elif flag == "--explain":
            out = "\n".join(line for line in out.splitlines() if "timings" not in line)
        return out.replace(tenant, "<T>").replace(groups, "<G>")

    assert shown("initech", "staff") == shown("initech", "ghosts")  # neither exists
    known, unknown = shown("acme", "hr"), shown("initech", "hr")  # tenant exists / not
    assert known == unknown
    assert shown("acme", "admins") == shown("acme", "auditor")
    assert "<T>" in known and "<G>" in known
