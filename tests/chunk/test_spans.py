"""Cut points: sentences, lines, code statements, words (absolute offsets, whitespace
trimmed)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citewise.chunk.spans import (
    inner_statement_spans,
    line_spans,
    sentence_spans,
    statement_spans,
    word_spans,
)


def sentences(text: str) -> list[str]:
    return [text[a:b] for a, b in sentence_spans(text, 0, len(text))]


@pytest.mark.parametrize("text, expected", [
    ("One. Two! Three? Four", ["One.", "Two!", "Three?", "Four"]),
    ("See Fig. 2 and Eq. 3 here. Next.", ["See Fig. 2 and Eq. 3 here.", "Next."]),
    ("Use e.g. Python or i.e. the U.S. Army. Done.", ["Use e.g. Python or i.e. the U.S. Army.",
                                                     "Done."]),
    ("Pi is 3.14 roughly. Yes.", ["Pi is 3.14 roughly.", "Yes."]),
    ("Ask Dr. Who and J. Smith et al. Now.", ["Ask Dr. Who and J. Smith et al. Now."]),
    ("He said no. Then left.", ["He said no.", "Then left."]),  # "no." only before a digit
    ("See No. 5 now.", ["See No. 5 now."]),
    ("It ended (badly). Then \"Quoted.\" Next", ["It ended (badly).", "Then \"Quoted.\"", "Next"]),
    ("lowercase after. period stays", ["lowercase after. period stays"]),
    ("Option b. Next one.", ["Option b.", "Next one."]),
    ("第一句。第二句。", ["第一句。", "第二句。"]),
    ("  padded.   Both ends.  ", ["padded.", "Both ends."]),
    # strace's NEWS: one paragraph of entries, one wrapped over two lines
    ("* Improvements\n  * Added decoding of bind on sparc.\n  * Added decoding of osf\n"
     "    syscalls on alpha.", ["* Improvements", "* Added decoding of bind on sparc.",
                               "* Added decoding of osf\n    syscalls on alpha."]),
    ("A - b stays. x\n-1 is a value", ["A - b stays. x\n-1 is a value"]),
])
def test_sentence_spans(text, expected):
    assert sentences(text) == expected


def test_spans_are_absolute_offsets_within_the_range():
    text = "xx One. Two. yy"
    assert sentence_spans(text, 3, 12) == [(3, 7), (8, 12)]
    assert word_spans(text, 3, 12) == [(3, 7), (8, 12)]


def test_line_spans_keep_indentation_and_skip_blank_lines():
    text = "def f():\n    return 1\n   \n\nx = 2\n"
    assert [text[a:b] for a, b in line_spans(text, 0, len(text))] == [
        "def f():", "    return 1", "x = 2"]


NODE = """const { createReadStream } = require('node:fs');
const rl = readline.createInterface({
  input: createReadStream('input.txt'),
  crlfDelay: Infinity,
});

// Each line in input.txt will be successively available here.
for await (const line of rl) {
  console.log(`Line from file: ${line}`);
}"""

PYTHON = """class Auth(httpx.Auth):
    def __init__(self, token):
        self.token = token

    @property
    def header(self):
        return f"Bearer {self.token}"

    def auth_flow(self, request):
        if self.token:
            request.headers["Authorization"] = self.header
        else:
            raise ValueError(
                "no token")
        yield request"""


def cut(splitter, text: str) -> list[str]:
    return [text[a:b] for a, b in splitter(text, 0, len(text))]


def test_code_statements_keep_brackets_and_comments_with_their_statement():
    assert cut(statement_spans, NODE) == [
        "const { createReadStream } = require('node:fs');",
        NODE[NODE.index("const rl"):NODE.index("});") + 3],
        NODE[NODE.index("// Each"):],
    ]
    assert cut(statement_spans, PYTHON) == [PYTHON]  # one class: one statement


def test_inner_statements_cut_one_statement_between_the_parts_of_its_body():
    methods = cut(inner_statement_spans, PYTHON)
    assert [m.split("\n")[0].strip() for m in methods] == [
        "class Auth(httpx.Auth):", "@property", "def auth_flow(self, request):"]
    assert methods[0].endswith("self.token = token") and methods[-1].endswith("yield request")
    loop = NODE[NODE.index("for await"):]
    assert cut(inner_statement_spans, loop) == [loop]  # one line of body: nothing to cut
    assert cut(statement_spans, "a = 1\n\nb = 2\n") == ["a = 1", "b = 2"]


@given(st.lists(st.tuples(st.integers(0, 3), st.sampled_from(
    ["x = 1", "}", "f(", "# note", "@dec", "else:", "a &&", "", "  "])), max_size=12))
def test_statements_cover_every_line_in_order_without_overlap(rows):
    text = "\n".join(" " * (2 * depth) + line for depth, line in rows)
    lines = line_spans(text, 0, len(text))
    for splitter in (statement_spans, inner_statement_spans):
        spans = splitter(text, 0, len(text))
        assert all(a < b <= c for (a, b), (c, _) in zip(spans, spans[1:], strict=False))
        assert all(text[a:b] == text[a:b].rstrip() and (a == 0 or text[a - 1] == "\n")
                   for a, b in spans)  # whole lines, indentation kept
        assert [s for s in lines if any(a <= s[0] and s[1] <= b for a, b in spans)] == lines


def test_a_string_literal_over_lines_is_inside_its_statement() -> None:
    """rustdoc's LineWriter example: a byte string runs five lines at the margin, and a window
    opened at its last line ("And that has made all the difference.";), quoted as an
    answer's example. Python's triple quotes and a '"' character literal read right too."""
    code = ('fn main() {\n    let poem = b"I shall be telling this with a sigh\n'
            'Somewhere ages and ages hence:\nAnd that has made all the difference.";\n\n'
            '    let file = File::create("poem.txt")?;\n    let q = \'"\';\n    Ok(())\n}\n'
            'fn other() {}\n')
    assert [code[a:b].split("\n")[0] for a, b in statement_spans(code, 0, len(code))] == [
        "fn main() {", "fn other() {}"]
    a, b = statement_spans(code, 0, len(code))[0]
    assert [code[x:y].strip().split("\n")[-1] for x, y in inner_statement_spans(code, a, b)] == [
        'And that has made all the difference.";', 'let file = File::create("poem.txt")?;',
        "let q = '\"';", ["Ok(())", "}"][-1]]
    doc = 'def f():\n    """Doc\nstring at the margin\n"""\n    return 1\nx = 2\n'
    assert len(statement_spans(doc, 0, len(doc))) == 2
