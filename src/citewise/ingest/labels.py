"""Bold lines that title what follows them: headings a writer made with emphasis.

The AWS CLI's examples (``awscli/examples/<service>/<command>.rst``) have no section
headings; each example opens with a paragraph that is one bold line, "**Example 1: Sync all
local objects to the specified bucket**". Read as text, a chunk ran across two examples with
the next one's title stuck to its end, citations named no example, and the extractive answer
quoted titles as sentences ("Example 4: Copying an S3 object to a local file", the wrong
direction, for "how do I copy a whole local folder up to an s3 bucket?") and showed two
examples' numbers as "The sources disagree". A paragraph of the page's body that is nothing
but one bold span, short (:data:`MAX_CHARS`, its line breaks as spaces), and not a sentence
or a lead-in (it does not end in ``.``, ``:``, ``;``, ``,`` or ``!``: "**Note:**", "**Do not
run this as root.**" stay text), is such a label:
:meth:`citewise.ingest.builder.DocumentBuilder.label` makes it a heading one level below its
section, with that section's anchor, never the title.
"""

from __future__ import annotations

MAX_CHARS = 100
_ENDS = (".", ":", ";", ",", "!")


def is_label(text: str) -> bool:
    """Whether ``text``, a paragraph's only (bold) content, reads as a label (module
    docstring)."""
    text = " ".join(text.split())
    return 3 <= len(text) <= MAX_CHARS and not text.endswith(_ENDS)
