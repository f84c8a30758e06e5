"""Retrieval: sparse and dense signals inside the ACL filter, fused by RRF."""

from citewise.retrieve.hybrid import Ranked, rank, search

__all__ = ["Ranked", "rank", "search"]
