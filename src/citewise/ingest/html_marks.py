"""Nodes of a parsed HTML tree marked for removal, and whether a node lies inside one.

:mod:`~citewise.ingest.html_chrome` and :mod:`~citewise.ingest.html_hidden` decide node by
node, in document order (ancestors first), then remove only the outermost marked nodes.
Asking "is this node inside a marked one?" by walking its ancestors each time cost time
quadratic in the nesting: a security review's 24,000 nested ``<span class="toc">`` (1.6 KB
gzipped) took 81 s, as inline elements are not bounded by the nesting guard
(:func:`~citewise.ingest.html_guard.check_nesting`). Each node's answer is worked out once.
"""

from __future__ import annotations

from selectolax.lexbor import LexborNode


class Marks:
    """Marked nodes of one tree; mark them in document order (ancestors first)."""

    def __init__(self) -> None:
        self.nodes: dict[int, LexborNode] = {}
        self._within: dict[int, bool] = {}  # node -> has a marked ancestor

    def mark(self, node: LexborNode) -> None:
        self.nodes[node.mem_id] = node

    def inside(self, node: LexborNode) -> bool:
        """Whether a proper ancestor of ``node`` is marked (each ancestor looked at once)."""
        path: list[int] = []
        parent = node.parent
        found = False
        while parent is not None:
            key = parent.mem_id
            if key in self.nodes:
                found = True
                break
            if key in self._within:
                found = self._within[key]
                break
            path.append(key)
            parent = parent.parent
        for key in path:
            self._within[key] = found
        return found

    def remove(self) -> int:
        """Remove the outermost marked nodes (all decided first); returns how many."""
        tops = [node for node in self.nodes.values() if not self.inside(node)]
        for node in tops:
            node.decompose()
        return len(tops)
