import pytest

from specscope.bench.order import segments, server_config
from specscope.bench.plan import design_of, plan_cells
from specscope.config import BenchOptions, profile_options
from specscope.errors import ConfigError
from specscope.records import CellKey


def test_interleaved_plan_alternates_configs_and_shuffles_each_repeat():
    opts = BenchOptions(
        configs=("base", "ngram"), workloads=("prose", "code", "edit"), levels=(1, 2), repeats=3, seed=7
    )
    plan = plan_cells(opts)
    assert len(plan) == 2 * 3 * 2 * 3
    assert len(set(plan)) == len(plan)
    # the two configs of one (workload, N, repeat) run back to back, so configs alternate in time
    for i in range(0, len(plan), 2):
        a, b = plan[i], plan[i + 1]
        assert {a.config, b.config} == {"base", "ngram"}
        assert (a.workload, a.concurrency, a.repeat) == (b.workload, b.concurrency, b.repeat)
    assert [k.repeat for k in plan] == [0] * 12 + [1] * 12 + [2] * 12
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
    assert [s.servers for s in segments(plan, "interleaved")] == [("ngram", "base")] or [
        s.servers for s in segments(plan, "interleaved")
    ] == [("base", "ngram")]


def test_aa_adds_base_again_served_like_base():
    opts = BenchOptions(configs=("base", "ngram"), workloads=("prose",), levels=(1,), repeats=2, aa=True)
    assert opts.run_configs() == ("base", "ngram", "base-again")
    plan = plan_cells(opts)
    assert sorted(k.config for k in plan) == ["base", "base", "base-again", "base-again", "ngram", "ngram"]
    assert server_config("base-again") == "base"
    assert server_config("base~sentinel") == "base"
    assert server_config("ngram") == "ngram"
    assert profile_options("quick").aa is True
    assert profile_options("card").aa is False


def test_blocks_plan_counterbalances_and_puts_sentinels_at_block_boundaries():
    opts = BenchOptions(configs=("base", "b", "c"), workloads=("prose", "code"), levels=(1, 2), repeats=2, seed=3)
    plan = plan_cells(opts, "blocks")
    blocks = [(s.servers[0], len(s.cells)) for s in segments(plan, "blocks")]
    # ABC then CBA: base's two blocks meet at the end of the run, so they are two server starts
    assert blocks == [("base", 6), ("b", 4), ("c", 8), ("b", 4), ("base", 6)]
    sentinels = [(i, k) for i, k in enumerate(plan) if k.config == "base~sentinel"]
    assert [i for i, _ in sentinels] == [0, 5, 22, 27]
    assert {(k.workload, k.concurrency) for _, k in sentinels} == {("prose", 1)}
    assert [k.repeat for _, k in sentinels] == [0, 1, 2, 3]
    assert len(set(plan)) == len(plan) == 4 * 3 * 2 + 4
    assert design_of(None, "vllm") == "blocks"
    assert design_of(None, "embedded") == "interleaved"
    assert design_of({"base": "http://127.0.0.1:1"}, "vllm") == "interleaved"


def test_profile_and_bad_options():
    q = profile_options("quick")
    assert (q.configs, q.workloads, q.levels, q.repeats, q.max_tokens, q.aa) == (
        ("base", "ngram-k8", "draft"),
        ("prose", "code", "repeat"),
        (1,),
        4,
        48,
        True,
    )
    card = profile_options("card")
    assert (card.workloads, card.repeats) == (("prose", "code", "edit"), 6)
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


def test_a_single_config_in_blocks_gets_no_sentinels():
    """One config has nothing to compare: its blocks are its own cells, no baseline sentinels."""
    opts = BenchOptions(configs=("ngram",), workloads=("edit",), levels=(1,), repeats=2)
    plan = plan_cells(opts, "blocks")
    assert [(k.config, k.repeat) for k in plan] == [("ngram", 0), ("ngram", 1)]
