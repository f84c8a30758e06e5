"""Rank fusion: one algorithm per file (ranx layout)."""

from citewise.fuse.rrf import rrf

__all__ = ["rrf"]
