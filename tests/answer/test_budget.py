"""Threads default to physical cores; the generation timeout is sized to the model and threads."""

from __future__ import annotations

from pathlib import Path

from citewise.answer import budget
from citewise.answer.budget import expected_seconds, generation_timeout, physical_cores


def fake_sysfs(root: Path, layout: dict[int, tuple[int, int]]) -> Path:
    for cpu, (package, core) in layout.items():
        topo = root / f"cpu{cpu}" / "topology"
        topo.mkdir(parents=True)
        (topo / "physical_package_id").write_text(f"{package}\n")
        (topo / "core_id").write_text(f"{core}\n")
    return root


def test_hyperthreads_count_once(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(budget, "_allowed_cpus", lambda: {0, 1, 2, 3})
    smt = fake_sysfs(tmp_path / "a", {0: (0, 0), 1: (0, 1), 2: (0, 0), 3: (0, 1)})
    assert physical_cores(smt) == 2
    two_sockets = fake_sysfs(tmp_path / "b", {0: (0, 0), 1: (1, 0), 2: (0, 1), 3: (1, 1)})
    assert physical_cores(two_sockets) == 4
    monkeypatch.setattr(budget, "_allowed_cpus", lambda: {0})  # a restricted affinity mask
    assert physical_cores(smt) == 1
    assert physical_cores(tmp_path / "missing") == 1  # no topology: the usable CPUs


def test_timeout_scales_with_model_size_threads_and_tokens() -> None:
    big = generation_timeout(1_117_320_768, 2, 1500, 384)
    small = generation_timeout(491_400_064, 2, 1500, 384)
    assert budget.MIN_TIMEOUT_S <= small < big <= budget.MAX_TIMEOUT_S
    assert generation_timeout(1_117_320_768, 4, 1500, 384) < big
    assert generation_timeout(98_362_432, 2, 300, 64) == budget.MIN_TIMEOUT_S
    assert generation_timeout(None, 2, 1500, 384) == budget.DEFAULT_TIMEOUT_S
    # reproduces the measured 8.0 s (1.5B) / 3.6 s (0.5B) per answer within a factor of two
    for size, measured in ((1_117_320_768, 8.0), (491_400_064, 3.6)):
        assert measured / 2 <= expected_seconds(size, 2, 700, 40) <= measured * 2


def test_context_budget_fits_the_first_token_target() -> None:
    from citewise.answer.budget import (
        MIN_CONTEXT_TOKENS,
        PROMPT_OVERHEAD_TOKENS,
        context_budget,
        prefill_rate,
    )

    size = 1_117_320_768
    two = context_budget(2500, size, 2, 5.0)
    eight = context_budget(2500, size, 8, 5.0)
    assert MIN_CONTEXT_TOKENS <= two < eight <= 2500
    assert two == max(MIN_CONTEXT_TOKENS,
                      int(prefill_rate(size, 2) * 5.0) - PROMPT_OVERHEAD_TOKENS)
    assert context_budget(2500, size, 64, 5.0) == 2500  # a big machine keeps the setting
    assert context_budget(2500, None, 2, 5.0) == 2500  # an endpoint: size unknown
    assert context_budget(2500, size, 2, None) == 2500  # no target set
    assert context_budget(200, size, 1, 0.1) == 200  # never above what is configured
    assert context_budget(2500, 491_400_064, 2, 5.0) > two  # a smaller model reads more
