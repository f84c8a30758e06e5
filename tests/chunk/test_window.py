"""Window planning from unit counts (pure index arithmetic)."""

from __future__ import annotations

from citewise.chunk.window import group_greedy, plan_windows


def test_disjoint_greedy_windows_without_overlap():
    assert plan_windows([4, 4, 4, 4, 4], budget=8) == [(0, 2), (2, 4), (4, 5)]


def test_a_unit_over_budget_is_a_window_of_its_own():
    assert plan_windows([3, 20, 3], budget=8) == [(0, 1), (1, 2), (2, 3)]


def test_overlap_takes_the_tail_closest_to_the_target():
    # window (0, 4) = 12 tokens; tails: 3 (gap 2), 6 (gap 1), 9 (gap 4) -> start at unit 2
    assert plan_windows([3] * 8, budget=12, overlap=5)[:2] == [(0, 4), (2, 6)]


def test_ties_prefer_the_smaller_overlap():
    # window (0, 3) = 10; tails 2 (unit 2, gap 2) and 6 (units 1-2, gap 2): keep the smaller
    assert plan_windows([4, 4, 2, 4], budget=10, overlap=4)[:2] == [(0, 3), (2, 4)]


def test_overlap_never_blocks_progress_and_respects_the_budget():
    # the tail (8) plus the next unit (8) exceeds the budget: no overlap rather than stalling
    assert plan_windows([8, 8, 8], budget=10, overlap=8) == [(0, 1), (1, 2), (2, 3)]


def test_group_greedy_uses_a_separate_first_budget():
    assert group_greedy([3] * 7, first_budget=6, budget=9) == [(0, 2), (2, 5), (5, 7)]
    assert group_greedy([], 5, 5) == []
    assert group_greedy([9, 1], first_budget=0, budget=5) == [(0, 1), (1, 2)]


def test_plan_balanced_avoids_a_short_tail():
    from citewise.chunk.window import plan_balanced, plan_windows

    counts = [30] * 10  # a 300-token section under a 256 budget
    assert plan_windows(counts, 256) == [(0, 8), (8, 10)]  # 240 + 60
    assert plan_balanced(counts, 256) == [(0, 5), (5, 10)]  # 150 + 150


def test_plan_balanced_keeps_single_window_and_never_adds_windows():
    from citewise.chunk.window import plan_balanced, plan_windows

    assert plan_balanced([10, 20], 256) == [(0, 2)]
    counts = [7, 40, 3, 22, 9, 31, 5, 18]
    for budget in (40, 50, 64, 90):
        for overlap in (0, 10):
            assert len(plan_balanced(counts, budget, overlap)) == len(
                plan_windows(counts, budget, overlap))
