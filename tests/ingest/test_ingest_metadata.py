"""Front matter, HTML head metadata and the JSONL sidecar, normalised to one key set."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from citewise.errors import IngestError
from citewise.ingest import load_file, normalize_metadata, read_sidecar
from citewise.ingest.metadata import parse_front_matter


def _write(tmp_path: Path, name: str, content: str) -> Path:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    return path


def _one_line_error(func, *args) -> str:
    with pytest.raises(IngestError) as info:
        func(*args)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_front_matter_is_normalised(tmp_path):
    doc = """---
title: Leave Policy
Owner: people-ops@example.com
updated_at: 2026-02-02
acl_groups: staff, hr , staff
tenant: northwind
url: https://intranet.example/leave
review:
  next: 2027-01-01
  by: [Sanne, Jonas]
doc_id: hr-leave
---
# Something else

Body.
"""
    parsed = load_file(_write(tmp_path, "leave.md", doc))
    assert parsed.title == "Leave Policy"  # front matter wins over the first heading
    assert dict(parsed.metadata) == {
        "title": "Leave Policy",
        "owner": "people-ops@example.com",
        "updated_at": "2026-02-02",
        "groups": ["staff", "hr"],
        "tenant": "northwind",
        "source_url": "https://intranet.example/leave",
        "review": {"next": "2027-01-01", "by": ["Sanne", "Jonas"]},
        "doc_id": "hr-leave",
    }
    json.dumps(dict(parsed.metadata))  # JSON-serialisable
    assert parsed.text.startswith("Something else")
    assert "title:" not in parsed.text


def test_front_matter_datetime_and_group_list(tmp_path):
    doc = "---\nupdated_at: 2026-02-02 10:30:00\ngroups: [staff, 42]\n---\nBody.\n"
    parsed = load_file(_write(tmp_path, "a.md", doc))
    assert parsed.metadata["updated_at"] == "2026-02-02T10:30:00"
    assert parsed.metadata["groups"] == ["staff", "42"]


def test_empty_group_list_is_kept(tmp_path):
    parsed = load_file(_write(tmp_path, "a.md", "---\ngroups: []\n---\nBody.\n"))
    assert parsed.metadata["groups"] == []


def test_invalid_yaml_names_the_line(tmp_path):
    doc = "---\ntitle: Leave\nowner: [unclosed\nbody: x\n---\n# Leave\n"
    message = _one_line_error(load_file, _write(tmp_path, "bad.md", doc))
    assert message.startswith("invalid YAML front matter at line ")
    assert "fix that line" in message


def test_invalid_yaml_line_number_is_the_file_line(tmp_path):
    doc = "---\ntitle: ok\nowner: a: b\n---\nBody\n"
    message = _one_line_error(load_file, _write(tmp_path, "bad.md", doc))
    assert message.startswith("invalid YAML front matter at line 3:")


def test_front_matter_must_be_a_mapping_and_closed(tmp_path):
    message = _one_line_error(load_file, _write(tmp_path, "a.md", "---\n- a\n- b\n---\nBody\n"))
    assert "must be key: value pairs" in message
    message = _one_line_error(load_file, _write(tmp_path, "b.md", "---\ntitle: x\n\nBody\n"))
    assert "never closed" in message


def test_bad_groups_type(tmp_path):
    message = _one_line_error(load_file,
                              _write(tmp_path, "a.md", "---\ngroups: {a: 1}\n---\nBody\n"))
    assert message.startswith("front matter: 'groups' must be a list or a comma-separated")


def test_a_group_name_with_a_comma_is_refused():
    """A security review: an API ACL change stored ["hr,staff"] as one group, which no key can
    hold (every --groups, key and form splits on commas) and which `status` printed exactly as
    the two groups hr and staff."""
    assert normalize_metadata({"groups": "hr, staff"}) == {"groups": ["hr", "staff"]}
    for bad in (["hr,staff"], ("staff", "a,b")):
        with pytest.raises(IngestError, match="cannot hold a comma.*own list item"):
            normalize_metadata({"groups": bad})


def test_updated_at_is_an_iso_date_or_time():
    for good in ("2026-03-01", "2026-03-01T09:30:00Z", "2026-03-01T09:30:00+02:00"):
        assert normalize_metadata({"updated_at": good}) == {"updated_at": good}
    for bad in ("not-a-date", "yesterday", 2026, "01/03/2026"):
        with pytest.raises(IngestError, match="not an ISO 8601 date"):
            normalize_metadata({"updated_at": bad})


def test_conflicting_aliases():
    with pytest.raises(IngestError, match="alias"):
        normalize_metadata({"url": "https://a", "source_url": "https://b"})
    assert normalize_metadata({"url": "https://a", "source_url": "https://a"}) == {
        "source_url": "https://a"}


def test_other_values_become_json_safe():
    meta = normalize_metadata({"reviewed": dt.date(2026, 1, 2), "tags": ("a", "b"),
                               "ratio": float("nan"), "doc_id": 1234})
    assert meta == {"reviewed": "2026-01-02", "tags": ["a", "b"], "ratio": "nan",
                    "doc_id": "1234"}


def test_thematic_break_is_not_front_matter_when_not_first(tmp_path):
    parsed = load_file(_write(tmp_path, "a.md", "Intro\n\n---\n\nAfter the rule.\n"))
    assert [b.text for b in parsed.blocks] == ["Intro", "After the rule."]
    assert dict(parsed.metadata) == {}


SIDECAR = """\
{"path": "compensation-bands.md", "groups": ["hr"], "owner": "hr@example.com"}

{"path": "./policies/leave.md", "acl_groups": "staff, hr", "updated_at": "2026-01-01", "x": 1}
{"doc_id": "legacy-42", "tenant": "acme", "url": "https://wiki.example/42"}
"""


def test_read_sidecar(tmp_path):
    entries = read_sidecar(_write(tmp_path, "meta.jsonl", "\ufeff" + SIDECAR))
    assert entries == {
        "compensation-bands.md": {"groups": ["hr"], "owner": "hr@example.com"},
        "policies/leave.md": {"groups": ["staff", "hr"], "updated_at": "2026-01-01", "x": 1},
        "legacy-42": {"doc_id": "legacy-42", "tenant": "acme",
                      "source_url": "https://wiki.example/42"},
    }


@pytest.mark.parametrize("line,expected", [
    ('{"path": "a.md", "groups": ["x"]', "meta.jsonl line 3: not valid JSON: "),
    ('["a.md"]', "meta.jsonl line 3: expected a JSON object"),
    ('{"groups": ["x"]}', 'meta.jsonl line 3: no "path" or "doc_id"'),
    ('{"path": "/etc/passwd"}', "meta.jsonl line 3: \"path\" '/etc/passwd' must be relative"),
    ('{"path": "../up.md"}', "meta.jsonl line 3: \"path\" '../up.md' must be relative"),
    ('{"path": "a.md", "groups": 5}', "meta.jsonl line 3: 'groups' must be a list"),
    ('{"path": "ok.md"}', "meta.jsonl line 3: duplicate entry for 'ok.md' (first on line 1)"),
    ('{"path": "a.md", "updated_at": "not-a-date"}',
     "meta.jsonl line 3: 'updated_at' 'not-a-date' is not an ISO 8601 date or time; write it"),
    ('{"path": "a.md", "updated_at": 1e400}', "meta.jsonl line 3: 'updated_at' 'inf' is not"),
    # a security review: these kept the batch's wider --groups / put the document in the
    # tenant "default", silently
    ('{"path": "a.md", "group": ["hr"]}',
     "meta.jsonl line 3: 'group' is not a key citewise reads, so it would restrict nothing; "
     "write 'groups'"),
    ('{"path": "a.md", "acl": "hr"}', "meta.jsonl line 3: 'acl' is not a key citewise reads"),
    ('{"path": "a.md", "tennant": "acme"}',
     "meta.jsonl line 3: 'tennant' is not a key citewise reads, so it would restrict nothing; "
     "write 'tenant'"),
    ('{"path": "a.md", "tenant": " "}', "meta.jsonl line 3: 'tenant' is empty: give the"),
])
def test_sidecar_errors_name_the_line(tmp_path, line, expected):
    content = '{"path": "ok.md"}\n{"path": "b.md"}\n' + line + "\n"
    message = _one_line_error(read_sidecar, _write(tmp_path, "meta.jsonl", content))
    assert message.startswith(expected), message


def test_sidecar_missing_file(tmp_path):
    message = _one_line_error(read_sidecar, tmp_path / "nope.jsonl")
    assert message.startswith("cannot read sidecar")


def test_a_front_matter_date_that_does_not_exist_is_a_guided_error():
    """An audit's `updated_at: 2026-13-45` gave Python's bare "month must be in 1..12"."""
    from citewise.errors import IngestError
    from citewise.ingest.metadata import split_front_matter

    with pytest.raises(IngestError, match="date that does not exist.*2026-03-01"):
        split_front_matter("---\nupdated_at: 2026-13-45\n---\nBody.\n")


def test_front_matter_may_name_its_own_group():
    """A site generator's front matter uses ``group`` for menus: kept as an ordinary key
    there (only a sidecar, whose purpose is access, refuses a misspelt ``groups``)."""
    meta = parse_front_matter("title: Intro\ngroup: getting-started\n")
    assert meta["group"] == "getting-started" and "groups" not in meta


@pytest.mark.parametrize("line", ["sub/a.txt", "a.txt"])
@pytest.mark.parametrize("order", [["docs", "docs/sub"], ["docs/sub", "docs"]])
def test_a_file_under_two_roots_of_one_ingest_keeps_its_sidecar_acl(tmp_path, monkeypatch,
                                                                    line, order):
    """A review: `ingest docs docs/sub` with the sidecar line "sub/a.txt: groups secret"
    indexed the secret file a second time, public, under the outer root with the inner
    root's path; the second review: a line naming it from the inner root ("a.txt") lost
    the same way, depending on the order of the folders. Such a file is listed once, and a
    line may name it from either root."""
    from citewise.engine import Engine
    from citewise.testing import FakeEmbedder
    from citewise.types import Principal

    monkeypatch.chdir(tmp_path)
    (tmp_path / "docs" / "sub").mkdir(parents=True)
    (tmp_path / "docs" / "b.txt").write_text("Other.\n")
    (tmp_path / "docs" / "sub" / "a.txt").write_text("The vault combination is 4417.\n")
    with Engine(tmp_path / "i.db", embedder=FakeEmbedder()) as engine:
        report = engine.ingest_paths(order, {"groups": ["staff"]},
                                     {line: {"groups": ["secret"]}})
        assert [o.status for o in report.outcomes] == ["new", "new"]
        seen = engine.search("vault combination", Principal.of("staff"), mode="bm25").hits
        assert [h.chunk.text for h in seen] == []
        kept = engine.search("vault combination", Principal.of("secret"), mode="bm25").hits
        assert len(kept) == 1
