"""Citations: parse the ids an answer cites, and validate them against its passages."""

from citewise.cite.parse import parse_citations, split_sentences, strip_citations
from citewise.cite.support import SUPPORT_THRESHOLD, support_score
from citewise.cite.validate import validate

__all__ = ["SUPPORT_THRESHOLD", "parse_citations", "split_sentences", "strip_citations",
           "support_score", "validate"]
