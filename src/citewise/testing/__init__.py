"""Test support shipped with citewise: deterministic fakes and backend conformance suites.

``StoreConformanceTests`` imports pytest, so it is loaded only when asked for.
"""

from typing import Any

from citewise.testing.fakes import (
    FakeEmbedder,
    FakeGenerator,
    FakeJudgeModel,
    FakeReaderGenerator,
    FakeReranker,
    SlowReranker,
)

__all__ = ["FakeEmbedder", "FakeGenerator", "FakeJudgeModel", "FakeReaderGenerator",
           "FakeReranker", "SlowReranker",
           "StoreConformanceTests", "assert_all_visible"]


def __getattr__(name: str) -> Any:
    if name in ("StoreConformanceTests", "assert_all_visible"):
        from citewise.testing import conformance

        return getattr(conformance, name)
    raise AttributeError(f"module 'citewise.testing' has no attribute {name!r}")
