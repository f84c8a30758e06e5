"""Numbers that name a version rather than give a value (:func:`citewise.cite.terms.labels`)."""

from __future__ import annotations

import subprocess
import sys

from citewise.cite.terms import labels


def test_a_number_after_a_dotted_product_name_is_a_label():
    """"What is new in Node.js 26?": the word before 26 was read as "js", lower case."""
    assert labels("What is new in the fs module in Node.js 26?") == {"26"}
    assert labels("Can I get a refund 45 days after purchase?") == set()


def test_labels_look_back_a_bounded_way() -> None:
    """A security review's 2,000-character question ("leave" + a 994-letter word + 500
    " 1"s) took 10 s in labels() alone, a planted heading over 100 s per ask: each number
    searched all the text before it, quadratically inside a long word."""
    child = ("from citewise.cite.terms import labels\n"
             "print(labels('Rust ' + 'a' * 3000 + ' 1' * 1500 + ' Node.js 26'))")
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0 and done.stdout.strip() == "{'26'}", done.stderr[-300:]


def test_a_version_after_its_v_is_a_number_a_code_glued_to_letters_is_not():
    """Git titles its notes "Git v2.39.1 Release Notes": "what is in the git 2.39.1
    release?" found no passage naming 2.39.1 and was declined (a new user)."""
    from citewise.cite.terms import numbers

    assert numbers("Git v2.39.1 Release Notes") == {"2.39.1"}
    assert labels("Git v2.39.1 Release Notes", written=True) == {"2.39.1"}
    for name in ("h264", "E42", "V8 engine", "dev2.3", "rev2.1", "vim v9"):
        assert numbers(name) == set(), name
