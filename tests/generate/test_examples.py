"""Code examples in extractive answers: which blocks are code, and how they are quoted so that
the citation checker keeps them (real shapes from the httpx, borg, valgrind and ninja docs)."""

from __future__ import annotations

import pytest

from citewise.answer.prompt import build_prompt
from citewise.cite.enforce import enforce
from citewise.cite.validate import judge, source_line
from citewise.generate.examples import clipped, is_code, statement_lines
from citewise.generate.extractive import ExtractiveGenerator

from .conftest import passage

SOCKS = ("SOCKS\n\nIn addition to HTTP proxies, httpcore also supports proxies using the SOCKS "
         "protocol. This is an optional feature that requires an additional third-party library "
         "be installed before use.\n\nYou can install SOCKS support using pip:\n\n"
         "$ pip install httpx[socks]")
DIGEST = ("Digest authentication\n\nHTTP digest authentication is a challenge-response "
          "authentication scheme. Unlike basic authentication it provides encryption. It "
          "requires an additional round-trip in order to negotiate the authentication.\n\n"
          '>>> auth = httpx.DigestAuth(username="olivia", password="secret")\n'
          ">>> client = httpx.Client(auth=auth)")
OPTIONS = ("--log-fd=<number> [default: 2, stderr]\n\nSpecifies that Valgrind should send all "
           "of its messages to the specified file descriptor.\n\n--log-file=<filename>\n\n"
           "Specifies that Valgrind should send all of its messages to the specified file.")


def _answer(question, *texts, heading=()):
    passages = [passage(f"S{i}", t, heading=heading) for i, t in enumerate(texts, start=1)]
    return ExtractiveGenerator().generate(build_prompt(question, passages)).text, passages


@pytest.mark.parametrize("block", [
    "$ pip install httpx[socks]",
    "valgrind --tool=massif prog",
    "import asyncio\nimport httpx",
    "machine example.org\nlogin example-username\npassword example-password",
    "build out: ... || foo\n  dyndep = foo\nbuild foo: ...",
    "client = httpx.Client()  # Use a default 5s timeout everywhere.\n"
    "client = httpx.Client(timeout=None)  # Disable all timeouts by default.",
    'with httpx.Client(proxy="http://localhost:8030") as client:',
    "# pkgconfig MUST be available before borg is installed!\npip install pkgconfig",
    "# This SSL context is equivalent to the default `verify=True`.\n"
    "ctx = ssl.create_default_context(cafile=certifi.where())\nclient = httpx.Client(verify=ctx)",
    # gettext's example, quoted by a new user's answer as a sentence with "[1]." after it
    'printf (ngettext ("One file removed", "%d files removed", n), n);',
])
def test_code_blocks(block):
    assert is_code(block)


@pytest.mark.parametrize("block", [
    "Digest authentication",
    "Available since Ninja 1.10.",
    "Alternatively, use await client.aclose() if you want to close a client explicitly:",
    "Borg can initialize and access repositories on remote hosts if the\nhost is accessible "
    "using SSH, in which case the following syntax is used::",
    "The <codepage> is one of:",
    "Memory (RAM) server:",
    "Call free (p); when done with the buffer.",
    "- item one\n- item two (x=1)",
    "Level | Minimum\nL4 | 68,000",
    "Examples\n~~~~~~~~\n::",
    "Non-file data fields can be included in the multipart form using by passing them to "
    "data=....",
    "98756 Cannot valgrind signal-heavy kdrive X server 98966 valgrinding the JVM fails with a "
    "sanity check assertion 99035 Valgrind crashes while profiling (using QThread::start) x=1",
    "Stability: 0 - Deprecated: Use Buffer.from(array) instead.",  # Node's banner: a sentence
    "0\nSuccessful completion.",  # sed's exit status table: a term and what it means
    "‘nonblock’\nUse non-blocking I/O.",  # an Info table item after dd's example: quoted
    "'-b'\n'--bytes'\nCount bytes.",  # inside its fence
])
def test_prose_lists_tables_and_unfenceable_blocks_are_not_code(block):
    assert not is_code(block)


def test_a_program_output_of_numbers_does_not_read_as_prose():
    from citewise.generate.examples import reads_as_prose

    assert not reads_as_prose("0\n1\n2\n3\nDone.")  # a review: numbers are most of it


def test_a_sentence_leading_into_code_with_a_comma_reads_as_prose():
    """A new user's Clippy book answer quoted "You can add Clippy to GitLab CI by using …
    configuration file below," as the first line of the YAML's fence."""
    from citewise.generate.examples import reads_as_prose

    assert reads_as_prose("You can add Clippy to GitLab CI by using the latest stable rust "
                          "docker image, as it is shown in the .gitlab-ci.yml CI "
                          "configuration file below,")
    assert not reads_as_prose('    "name": "value",')
    assert not reads_as_prose("foo(alpha, beta, gamma, delta, epsilon, zeta, eta, theta,")
    for code in ("# call this function with the name of the user and then the password,",
                 '    description="Run the linter on every file of the workspace and its '
                 'tests",', 'msg = ("the server could not open the file because it does not '
                 'exist",', "SELECT name, email, phone, address, city, country, zip, created, "
                 "updated,"):  # the review of this stop: lines of code, fenced as before
        assert not reads_as_prose(code), code


def test_a_long_example_is_cut_after_a_whole_step():
    code = "\n".join([f"step{i} = {i}" for i in range(12)] + [""] +
                     [f"more{i} = {i}" for i in range(12)])
    assert clipped(code) == "\n".join(f"step{i} = {i}" for i in range(12))
    assert clipped("\n".join(f"x{i} = {i}" for i in range(30))).count("\n") == 19


NODE_GET = """http.get({
  hostname: 'localhost',
  port: 80,
  path: '/',
  agent: false,
}, (res) => {
  const { statusCode } = res;
  const contentType = res.headers['content-type'];

  let error;
  if (statusCode !== 200) {
    error = new Error('Request Failed.\\n' +
                      `Status Code: ${statusCode}`);
  } else if (!/^application\\/json/.test(contentType)) {
    error = new Error('Invalid content-type.\\n' +
                      `Expected application/json but received ${contentType}`);
  }
  if (error) {
    console.error(error.message);
    res.resume();
    return;
  }
  res.setEncoding('utf8');
});"""


def test_a_long_example_is_cut_between_statements_never_inside_one():
    setup = "const http = require('node:http');"
    assert clipped(f"{setup}\n{NODE_GET}") == f"{setup}\n{NODE_GET}"  # the call runs
    # across line 20 and ends within 40: shown through its end, not cut before it
    assert clipped(f"{setup}\n{NODE_GET}", limit=12) == setup  # it ends after line 24
    assert clipped(NODE_GET) == NODE_GET  # one statement of 24 lines is shown whole
    assert clipped(NODE_GET, limit=11).count("\n") == 7  # over twice the limit: cut at
    # the last blank line within it, as before


FFI_MAIN = "static int counter;\n\nint main()\n{\n" + "".join(
    f"  step{i}();\n" for i in range(24)) + "  return 0;\n}"


def test_a_long_step_wins_over_running_on_into_the_next_example():
    """httpx's multipart quote: a step of 12 lines, then a second example crossing line 20."""
    first = "\n".join(f"step{i} = {i}" for i in range(12))
    code = first + "\n\ncall(\n" + "".join(f"  arg{i},\n" for i in range(10)) + ")"
    assert clipped(code) == first


def test_a_short_setup_step_does_not_stop_the_example_before_its_body():
    """A blank line after ``require`` is a step of one line: the call after it is shown."""
    setup = "const http = require('node:http');\n"
    assert clipped(f"{setup}\n{NODE_GET}") == f"{setup}\n{NODE_GET}"


NETTLE = ("#include <stdio.h>\n#include <nettle/sha1.h>\nstatic void\n"
          "display_hex(unsigned length, uint8_t *data)\n{\nunsigned i;\n"
          "for (i = 0; i<length; i++)\nprintf(\"%02x \", data[i]);\nprintf(\"\\n\");\n}\n"
          "int\nmain(int argc, char **argv)\n{\nstruct sha1_ctx ctx;\n"
          + "".join(f"step{i}(&ctx);\n" for i in range(14)) + "return EXIT_SUCCESS;\n}")


def test_code_that_lost_its_indentation_is_cut_where_its_brackets_close():
    """nettle's PDF manual: no line is indented, so brackets say where a function ends."""
    assert statement_lines(NETTLE)[-2:] == [(11, 11), (12, 30)]
    assert clipped(NETTLE) == NETTLE  # main() crosses line 20 and ends by 40: shown whole
    stray = "x = 1)\n" + NETTLE  # a closer with nothing open does not hide later openers
    assert statement_lines(stray)[-2:] == [(12, 12), (13, 31)]


def test_a_c_function_is_one_statement_with_its_braced_body():
    """GNU and Allman styles open the body on a line of its own: a cut before ``{`` showed
    libffi's includes and ``int main()`` with no body."""
    assert clipped(FFI_MAIN) == FFI_MAIN
    assert statement_lines(FFI_MAIN) == [(1, 1), (3, 30)]


def test_a_sentence_ending_on_a_colon_leads_into_its_example():
    text, passages = _answer("how do I install socks support with pip?", SOCKS)
    assert text.endswith("You can install SOCKS support using pip [S1]:\n```\n"
                         "$ pip install httpx[socks]\n```")
    kept = enforce(text, passages)
    assert kept.answered and kept.removed == ()
    assert "$ pip install httpx[socks]" in kept.text


def test_a_sentence_naming_the_following_invocation_brings_it() -> None:
    """libtasn1's "…the following invocation will decode the DER data." ends on a full stop;
    a new user's answer quoted it without "$ asn1Decoding pkix.asn assign.out …"."""
    der = ("For example, after generating the assign.out file, the following invocation will "
           "decode the DER data.\n\n$ asn1Decoding pkix.asn assign.out PKIX1.Dss-Sig-Value")
    text, passages = _answer("how do I decode DER data on the command line?", der)
    assert text.endswith("\n```\n$ asn1Decoding pkix.asn assign.out PKIX1.Dss-Sig-Value\n```")
    assert enforce(text, passages).removed == ()
    vgdb = ("--vgdb=<no|yes|full> [default: yes]\n\nEnables the gdbserver; the following "
            "section explains the vgdb modes.\n\n--vgdb-prefix=<prefix>")
    text, _ = _answer("what does --vgdb do?", vgdb)
    assert "--vgdb-prefix" not in text, text


def test_a_sentence_stopping_on_then_run_is_finished_by_its_command() -> None:
    """git's user manual: "…just as if you were going to create a new commit, then run"
    above ``$ git commit --amend``; a new user was quoted "…then run [2]." without it. A
    sentence that ends on its own word keeps its next option's synopsis out."""
    amend = ("If you just want to fix the message of the commit you made, you may edit the "
             "commit message just as if you were going to create a new commit, then run\n\n"
             "$ git commit --amend")
    text, passages = _answer("how do i fix the message of the commit i just made", amend)
    assert text.endswith("then run [S1]:\n```\n$ git commit --amend\n```"), text
    assert enforce(text, passages).removed == ()
    quiet = ("-q, --quiet\n\nBe quiet and only report errors with the commit\n\n"
             "-v, --verbose")
    text, _ = _answer("how do I make commit quiet?", quiet)
    assert "--verbose" not in text, text
    editor = "-e, --editor\n\nThe editor to use\n\n-f, --force"  # the review's
    text, _ = _answer("Which editor does frob use?", editor)
    assert "--force" not in text, text


def test_a_sentence_opening_or_ending_on_the_following_brings_its_command() -> None:
    """The Debian Reference: "The following reconfigure the timezone used by the Debian
    system." above ``# dpkg-reconfigure tzdata`` was quoted alone; "the following section
    explains" points at no example."""
    tz = ("The following reconfigure the timezone used by the Debian system.\n\n"
          "# dpkg-reconfigure tzdata")
    text, passages = _answer("how do I set the timezone", tz)
    assert text.endswith("```\n# dpkg-reconfigure tzdata\n```"), text
    assert enforce(text, passages).removed == ()
    iso = ("You can mount an ISO image by the following.\n\n# mount -o loop image.iso /mnt")
    assert "mount -o loop" in _answer("how do I mount an iso image", iso)[0]
    vgdb = ("--vgdb=<no|yes|full> [default: yes]\n\nThe following section explains the vgdb "
            "modes.\n\n--vgdb-prefix=<prefix>")
    assert "--vgdb-prefix" not in _answer("what does --vgdb do?", vgdb)[0]


def test_a_sentence_ending_on_a_colon_brings_the_short_list_it_leads_into():
    """The Rustonomicon's "Which obey the following rules:" was quoted without its list,
    removed as an incomplete sentence, and "what are the rules for aliasing?" declined."""
    rules = ("There are two kinds of references:\n\n- Shared reference: &\n- Mutable "
             "reference: &mut\n\nWhich obey the following rules:\n\n- A reference cannot "
             "outlive its referent\n- A mutable reference cannot be aliased\n\nThat's it.")
    text, passages = _answer("what are the rules for aliasing?", rules,
                             heading=("References",))
    assert text.startswith("Which obey the following rules: [S1].\n- A reference cannot "
                           "outlive its referent [S1].\n- A mutable reference cannot be "
                           "aliased [S1].")
    kept = enforce(text, passages)
    assert kept.answered and kept.removed == (), kept.removed


def test_only_a_quoted_lead_in_is_completed_by_the_list_after_it():
    """A review: "These files are safe to delete [S2]:" before a list its source says never
    to delete passed the word checks once any list followed; a lead-in whose one item did
    not hold, or whose list cites another passage, stood as the answer."""
    ps = [passage("S1", "Which obey the following rules:\n\n- A reference cannot outlive "
                  "its referent\n- A mutable reference cannot be aliased", heading=("Refs",)),
          passage("S2", "Never delete these files:\n\n- /etc/passwd\n- /etc/shadow\n\n"
                  "Temporary files in /tmp are safe to delete.", heading=("Maintenance",),
                  doc_id="doc-2", chunk_id="c2")]

    def statuses(answer: str) -> list[str]:
        return [v.status for v in judge(answer, ps)]

    assert statuses("Which obey the following rules [S1]:\n- A mutable reference cannot be "
                    "aliased [S1].") == ["supported", "supported"]
    assert statuses("These files are safe to delete [S2]:\n- /etc/passwd [S2]")[0] == \
        "incomplete"
    assert statuses("Which obey the following rules [S1]:\n- Shared references must be "
                    "zeroed on drop by the allocator [S1].")[0] == "incomplete"
    assert statuses("Which obey the following rules [S1]:\n\n1. Temporary files in /tmp are "
                    "safe to delete [S2].")[0] == "incomplete"
    # the second review: a part of a sentence is not its passage's sentence
    assert statuses("delete these files [S2]:\n- /etc/passwd [S2]")[0] == "incomplete"
    values = [passage("S3", "Valid values are:\n\n- on\n- off", heading=("Bell",))]
    assert [v.status for v in judge("Valid values are [S3]:\n- on [S3]\n- off [S3]",
                                    values)][0] == "supported"  # short values: connectives


def test_a_lead_in_brings_a_tight_or_loose_list_but_not_an_unasked_one():
    """A review: a list right under its lead-in, or with blank lines between items, came
    with one item or none; a list sharing no word with the question is not quoted."""
    tight = ("Which obey the following rules:\n- A reference cannot outlive its referent\n"
             "- A mutable reference cannot be aliased\n\nThat's it.")
    loose = tight.replace(":\n-", ":\n\n-").replace("referent\n", "referent\n\n")
    for rules in (tight, loose):
        text, _ = _answer("what are the rules for aliasing?", rules, heading=("References",))
        assert text.startswith("Which obey the following rules: [S1].\n- A reference cannot "
                               "outlive its referent [S1].\n- A mutable reference cannot be "
                               "aliased [S1]."), text
    text, _ = _answer("what rules do references obey?", "References obey the following "
                      "rules:\n\n- A borrow ends at its last use\n\n- Moves invalidate it")
    assert "- A borrow" not in text, text
    text, _ = _answer("which values does the compression option take?", "The compression "
                      "option takes one of:\n\n- gzip\n- zstd\n- none")
    assert text.endswith("- gzip [S1].\n- zstd [S1].\n- none [S1]."), text  # values


def test_the_example_follows_the_paragraph_it_illustrates():
    text, passages = _answer("is digest authentication supported?", DIGEST,
                             heading=("Digest authentication",))
    lines = text.split("\n")
    assert lines[0].startswith("HTTP digest authentication is a challenge-response")
    assert lines[1:] == ["```", '>>> auth = httpx.DigestAuth(username="olivia", password='
                         '"secret")', ">>> client = httpx.Client(auth=auth)", "```"]
    assert enforce(text, passages).removed == ()


def test_the_next_options_synopsis_is_not_taken_for_an_example():
    """In an option reference a one-line block after a full stop names the next option."""
    text, _ = _answer("how do I send valgrind's messages to a file descriptor?", OPTIONS)
    assert "--log-file=<filename>" not in text


def test_code_nothing_leads_into_is_introduced_by_where_it_is_from():
    code = "limits = httpx.Limits(max_keepalive_connections=5, max_connections=10)\n" \
           "client = httpx.Client(limits=limits)"
    text, passages = _answer("how do I set max_connections limits?", code,
                             heading=("Resource Limits",))
    assert text == f"From \u201cResource Limits\u201d [S1]:\n```\n{code}\n```"
    assert source_line(passages[0]) == "From \u201cResource Limits\u201d [S1]:"
    kept = enforce(text, passages)
    assert kept.answered and kept.removed == ()


def test_a_source_line_holds_only_for_code_its_passage_has():
    passages = [passage("S1", "limits = httpx.Limits(max_connections=10)", heading=("Limits",)),
                passage("S2", "client = httpx.Client(http2=True)", heading=("HTTP/2",))]
    right = "From \u201cLimits\u201d [S1]:\n```\nlimits = httpx.Limits(max_connections=10)\n```"
    wrong = "From \u201cLimits\u201d [S1]:\n```\nclient = httpx.Client(http2=True)\n```"
    assert [v.status for v in judge(right, passages)] == ["supported", "supported"]
    assert judge(wrong, passages)[0].status != "supported"
    assert not enforce(wrong, passages).answered


def test_a_lead_in_is_complete_only_when_quoted_code_follows():
    passages = [passage("S1", SOCKS)]
    quoted = "You can install SOCKS support using pip [S1]:\n```\n$ pip install httpx[socks]\n```"
    invented = "You can install SOCKS support using pip [S1]:\n```\n$ pip install socks5\n```"
    assert [v.status for v in judge(quoted, passages)] == ["supported", "supported"]
    assert [v.status for v in judge(invented, passages)] == ["incomplete", "not_quoted"]
    cited_after = "You can install SOCKS support using pip: [S1].\n```\n$ pip install " \
        "httpx[socks]\n```"  # as the 1.5B writes it
    assert [v.status for v in judge(cited_after, passages)] == ["supported", "supported"]


def test_blocks_of_one_example_split_by_blank_lines_are_one_quote():
    text, passages = _answer(
        "how do I use httpx from asyncio?",
        "AsyncIO\n\nAsyncIO is Python's built-in library for asyncio code with async/await.\n\n"
        "import asyncio\nimport httpx\n\nasync def main():\n    async with httpx.AsyncClient() "
        "as client:\n        await client.get('https://www.example.com/')\n\n"
        "asyncio.run(main())", heading=("AsyncIO",))
    assert text.count("```") == 2 and "asyncio.run(main())\n```" in text
    assert enforce(text, passages).removed == ()


def test_an_example_shown_twice_in_two_module_systems_is_quoted_once():
    """Node.js shows each example as ES modules, then as CommonJS, in one ``<pre>``: quoted as
    one block, the answer declared ``nextTick`` twice or, cut at 20 lines, ended on a lone
    ``const { nextTick } = require('node:process');``. Import groups stay one example."""
    esm = ("import { nextTick } from 'node:process';\n\nconsole.log('start');\nnextTick(() => {"
           "\n  console.log('nextTick callback');\n});")
    cjs = esm.replace("import { nextTick } from 'node:process';",
                      "const { nextTick } = require('node:process');")
    text, passages = _answer("how do I schedule a callback with nextTick?",
                             "process.nextTick() adds callback to the next tick queue:\n\n"
                             f"{esm}\n\n{cjs}", heading=("process.nextTick",))
    assert text.count("nextTick } from") == 1 and "require(" not in text, text
    assert enforce(text, passages).removed == ()
    grouped, _ = _answer("how do I read a page with fetchPage?", "Read a page:\n\n"
                         "import { get } from 'node:https';\nimport { env } from 'node:process';"
                         "\n\nimport { fetchPage } from './fetch.js';\n\n"
                         "const page = await fetchPage(get, env.URL);")
    assert "'node:process';\n\nimport { fetchPage } from './fetch.js';\n\nconst page" in \
        grouped, grouped
    java, _ = _answer("How do I read all lines with Files.readAllLines?",  # a review
                      "Read a file with Files.readAllLines:\n\nimport java.nio.file.Files;\n"
                      "import java.nio.file.Path;\n\nimport org.acme.Config;\n\nList<String> "
                      "lines = Files.readAllLines(Path.of(Config.FILE));")
    assert java.count("```") == 2 and "import org.acme.Config;\n\nList<String>" in java, java
    from citewise.generate.examples import blocks

    gpu = ("Swap NumPy for CuPy:\n\nimport numpy as np\nx = np.arange(10)\n\n"
           "import cupy as np\nx = np.arange(10)")  # the same body, other imports: two
    assert sum(code for _, code in blocks(passage("S1", gpu))) == 2


def test_code_the_length_cut_opened_midway_is_not_quoted():
    """Asked how to make an HTTP request with fetch, Node.js's docs got a quote opening on
    ``    path: 'www.google.com:80',\\n  };``: the second window of a split example."""
    from citewise.generate.examples import starts_midway

    fragment = ("    path: 'www.google.com:80',\n  };\n\n  const req = http.request(options);\n"
                "  req.end();")
    assert starts_midway(fragment)
    assert starts_midway("        return x\n    def g():\n        pass")
    for whole in ("const req = http.request(options);\nreq.end();",
                  "    client = httpx.Client()\n    client.get(url)",  # indented as a whole
                  "def f():\n    return {'a': [1, 2]}", "$ pip install httpx[socks]"):
        assert not starts_midway(whole), whole
    text, _ = _answer("how do I make an HTTP request with the http module?",
                      "Making a request:\n\n" + fragment, heading=("Event: 'connect'",))
    assert "www.google.com" not in text


def test_the_source_line_keeps_a_heading_whose_quotes_are_its_own():
    code = "req.on('connect', (res, socket, head) => {});"
    passages = [passage("S1", code, heading=("Event: 'connect'",)),
                passage("S2", code, heading=('"target"',))]
    assert source_line(passages[0]) == "From \u201cEvent: 'connect'\u201d [S1]:"
    assert source_line(passages[1]) == "From \u201ctarget\u201d [S2]:"


def test_a_chapters_number_is_not_in_the_source_line():
    """xtrans's manual titles "Chapter 8. Configuration": the splitter cut 'From "Chapter
    8.' off the label, the check removed it, and the answer read 'Configuration" [3]:'."""
    code = "limits = httpx.Limits(max_keepalive_connections=5, max_connections=10)\n" \
           "client = httpx.Client(limits=limits)"
    text, passages = _answer("how do I set max_connections limits?", code,
                             heading=("X Transport Interface", "Chapter 8. Configuration"))
    assert source_line(passages[0]) == "From \u201cConfiguration\u201d [S1]:"
    assert text.startswith("From \u201cConfiguration\u201d [S1]:")
    kept = enforce(text, passages)
    assert kept.answered and kept.removed == ()
    assert kept.text.startswith("From \u201cConfiguration\u201d [S1]:")
    # words that only look like numbering stay (a review: "Part a new approach" lost "Part a")
    for title in ("Part a new approach", "Part 3 of 4 steps", "Part vi editor",
                  "Section about things"):
        assert source_line(passage("S1", code, heading=(title,))) == \
            f"From \u201c{title}\u201d [S1]:"
    assert source_line(passage("S1", code, heading=("Part II Usage",))) == \
        "From \u201cUsage\u201d [S1]:"


def test_in_a_code_chunk_its_heading_and_lead_in_are_not_code():
    """The chunker keeps a lead-in with its code and calls the chunk code; ``borg init`` is
    code only because the chunk says so, its heading and "For example:" are not."""
    from dataclasses import replace

    from citewise.generate.examples import blocks

    base = passage("S1", "Pictures\n\nFor example:\n\nborg init backup@backup01.srv.local:pictures",
                   heading=("Pictures",))
    code = replace(base, hit=replace(base.hit, chunk=replace(base.hit.chunk, kind="code")))
    assert blocks(code) == [("Pictures", False), ("For example:", False),
                            ("borg init backup@backup01.srv.local:pictures", True)]


def test_a_lead_in_said_by_every_example_cites_its_own_example_only() -> None:
    """The AWS CLI's SQS examples each say "Command:" over their command: the lead-in over the
    one quoted was cited "[S1, S2, S3, S4, S5, S6, S7]"."""
    from citewise.answer.prompt import build_prompt
    from citewise.generate.extractive import ExtractiveGenerator

    from .conftest import passage

    texts = {"S1": "This example deletes the specified message.\n\nCommand:\n\n"
                   "    aws sqs delete-message --queue-url URL --receipt-handle H",
             "S2": "This example lists queues.\n\nCommand:\n\n    aws sqs list-queues",
             "S3": "This example tags a queue.\n\nCommand:\n\n    aws sqs tag-queue --tags a=b"}
    passages = [passage(sid, text, doc_id=f"sqs/{sid}", title=sid) for sid, text in
                texts.items()]
    text = ExtractiveGenerator().generate(build_prompt(
        "how do I delete a message with delete-message?", passages)).text
    assert "Command [S1]:" in text and "S2" not in text and "S3" not in text, text


def test_a_lead_in_whose_colon_rest_took_is_no_code() -> None:
    """reST's ``mfa code ::`` drops the colon: the AWS CLI's "The following command enables
    versioning, and uses an mfa code" was quoted inside the example's fence."""
    from dataclasses import replace

    from citewise.generate.examples import blocks

    from .conftest import passage

    text = ("aws s3api put-bucket-versioning --bucket b --versioning-configuration "
            "Status=Enabled\n\nThe following command enables versioning, and uses an mfa code"
            "\n\naws s3api put-bucket-versioning --bucket b --mfa \"SERIAL 123456\"")
    p = passage("S1", text)
    p = replace(p, hit=replace(p.hit, chunk=replace(p.hit.chunk, kind="code")))  # as loaded
    assert [code for _, code in blocks(p)] == [True, False, True]


def test_code_after_a_pointer_elsewhere_comes_with_its_paragraphs_opening() -> None:
    """The AWS CLI's examples end the paragraph over their command on "For more information,
    see …", which the answer check removes: "how do I call a lambda function and pass it
    some json?" was declined with the command chosen and nothing else to introduce it."""
    from citewise.answer.prompt import build_prompt
    from citewise.generate.extractive import ExtractiveGenerator

    from .conftest import passage

    text = ("The following invoke example invokes the my-function function synchronously. "
            "For more information, see AWS CLI supported global command line options in the "
            "AWS Command Line Interface User Guide.\n\n"
            "    aws lambda invoke \\\n        --function-name my-function \\\n"
            "        --payload '{ \"name\": \"Bob\" }' \\\n        response.json")
    out = ExtractiveGenerator().generate(build_prompt(
        "how do I pass a payload?", [passage("S1", text)])).text
    assert out.startswith("The following invoke example invokes the my-function function "
                          "synchronously [S1]."), out
    assert "--payload" in out
