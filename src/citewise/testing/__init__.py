"""Test support shipped with citewise: deterministic fakes and backend conformance suites."""

from citewise.testing.fakes import FakeEmbedder

__all__ = ["FakeEmbedder"]
