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
