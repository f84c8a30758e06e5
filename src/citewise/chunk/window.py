"""Plan token windows over a sequence of units (sentences, lines, rows) from their counts.

Pure index arithmetic: the caller counts each unit once, and windows are computed from those
counts, so no text is tokenized twice. A window is a half-open range ``(i, j)`` of unit indices.
"""

from __future__ import annotations

from collections.abc import Sequence

Window = tuple[int, int]


def plan_windows(tokens: Sequence[int], budget: int, overlap: int = 0) -> list[Window]:
    """Greedy windows of at most ``budget`` tokens, consecutive ones sharing ≈ ``overlap``.

    Let ``t[k]`` be the token count of unit ``k``. A window starting at ``s`` takes units while
    ``t[s] + … + t[e-1] <= budget`` (always at least one unit, so a unit larger than the budget
    becomes a window of its own). The next window starts at the ``s'`` in ``(s, e]`` whose tail
    ``T(s') = t[s'] + … + t[e-1]`` minimises ``|T(s') - overlap|`` subject to
    ``T(s') + t[e] <= budget`` (the next window must still gain a unit). Ties go to the
    smaller overlap; ``overlap = 0`` gives disjoint windows. Every window gains at least one
    new unit, so the plan ends after at most ``len(tokens)`` windows.
    """
    n = len(tokens)
    windows: list[Window] = []
    start = 0
    while start < n:
        end, total = start + 1, tokens[start]
        while end < n and total + tokens[end] <= budget:
            total += tokens[end]
            end += 1
        windows.append((start, end))
        if end == n:
            break
        start = _next_start(tokens, start, end, budget, overlap)
    return windows


def plan_balanced(tokens: Sequence[int], budget: int, overlap: int = 0) -> list[Window]:
    """:func:`plan_windows` with the smallest budget ``b <= budget`` that still needs no more
    windows than ``budget`` does, so a section splits into windows of similar size instead of
    full windows plus a short tail (a 300-token abstract under a 256 budget becomes two
    ~170-token windows, not 256 + 76). Found by bisection over ``b``; ``b`` never drops below
    the largest unit, so no unit is split further than with ``budget``.
    """
    best = plan_windows(tokens, budget, overlap)
    if len(best) <= 1:
        return best
    lo, hi = max(max(tokens), 1), budget
    while lo < hi:
        mid = (lo + hi) // 2
        plan = plan_windows(tokens, mid, overlap)
        if len(plan) <= len(best):
            hi = mid
        else:
            lo = mid + 1
    return plan_windows(tokens, lo, overlap) if lo < budget else best


def _next_start(tokens: Sequence[int], start: int, end: int, budget: int,
                overlap: int) -> int:
    """The start of the window after ``(start, end)``; see :func:`plan_windows`."""
    best, best_gap = end, overlap
    tail = 0
    for s in range(end - 1, start, -1):
        tail += tokens[s]
        if tail + tokens[end] > budget:
            break
        if abs(tail - overlap) < best_gap:
            best, best_gap = s, abs(tail - overlap)
        if tail >= overlap:
            break
    return best


def group_greedy(tokens: Sequence[int], first_budget: int, budget: int) -> list[Window]:
    """Disjoint greedy groups: the first holds at most ``first_budget`` tokens, the others at
    most ``budget``; each holds at least one unit."""
    groups: list[Window] = []
    start, limit = 0, first_budget
    while start < len(tokens):
        end, total = start + 1, tokens[start]
        while end < len(tokens) and total + tokens[end] <= limit:
            total += tokens[end]
            end += 1
        groups.append((start, end))
        start, limit = end, budget
    return groups
