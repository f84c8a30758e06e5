"""Numbers that name a version rather than give a value (:func:`citewise.cite.terms.labels`)."""

from __future__ import annotations

from citewise.cite.terms import labels


def test_a_number_after_a_dotted_product_name_is_a_label():
    """"What is new in Node.js 26?": the word before 26 was read as "js", lower case."""
    assert labels("What is new in the fs module in Node.js 26?") == {"26"}
    assert labels("Can I get a refund 45 days after purchase?") == set()
