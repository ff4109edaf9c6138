import pytest

from specscope.bench.plan import plan_cells
from specscope.config import BenchOptions, profile_options
from specscope.errors import ConfigError
from specscope.records import CellKey


def test_plan_groups_by_config_and_shuffles_each_repeat():
    opts = BenchOptions(
        configs=("base", "ngram"), workloads=("prose", "code", "edit"), levels=(1, 2), repeats=3, seed=7
    )
    plan = plan_cells(opts)
    assert len(plan) == 2 * 3 * 2 * 3
    assert len(set(plan)) == len(plan)
    assert [k.config for k in plan] == ["base"] * 18 + ["ngram"] * 18
    # every repeat of a config visits all 6 (workload, N) cells once
    for cfg in ("base", "ngram"):
        for r in range(3):
            cells = [(k.workload, k.concurrency) for k in plan if k.config == cfg and k.repeat == r]
            assert sorted(cells) == sorted((w, n) for w in ("prose", "code", "edit") for n in (1, 2))
    orders = {
        tuple((k.workload, k.concurrency) for k in plan if k.config == "base" and k.repeat == r) for r in range(3)
    }
    assert len(orders) > 1  # shuffled afresh per repeat
    assert plan == plan_cells(opts)  # deterministic
    assert plan != plan_cells(opts.model_copy(update={"seed": 8}))


def test_profile_and_bad_options():
    q = profile_options("quick")
    assert (q.configs, q.workloads, q.levels, q.repeats) == (
        ("base", "ngram", "draft"),
        ("prose", "code", "edit"),
        (1, 2),
        2,
    )
    assert profile_options("card").levels == (1, 2, 4, 6, 8, 12, 16, 24, 32, 64)
    with pytest.raises(ConfigError) as e:
        profile_options("quick", levels=(0,))
    assert "levels" in e.value.one_line()
    with pytest.raises(ConfigError):
        profile_options("nope")
    assert CellKey("a", "b", 1, 0).label() == "a/b/c1/r0"


def test_cache_salt_meets_vllms_rule_and_is_unique_per_request():
    # vLLM 0.32 answers 400 to a cache_salt over 128 characters or containing '@', '/', '\\' or NUL
    from specscope.bench.runner import cache_salt

    salts = {
        cache_salt("run-20261129-120000", CellKey("mtp", "edit", n, r), f"edit-{i:03d}")
        for n in (1, 2)
        for r in (0, 1)
        for i in range(4)
    }
    assert len(salts) == 16
    assert all(len(s) <= 128 and not set(s) & {"@", "/", "\\", "\0"} for s in salts)
