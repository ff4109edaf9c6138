"""Schedules: N distinct prompts per cell, deterministic, different across repeats."""

from __future__ import annotations

import pytest

from specscope.errors import ConfigError
from specscope.workload import Prompt, load_pack, schedule

PACK = load_pack("prose", seed=0)


def _ids(prompts):
    return [p.prompt_id for p in prompts]


@pytest.mark.parametrize("n", [1, 2, 5, 64])
def test_schedule_is_deterministic_and_distinct(n):
    for repeat in range(3):
        a = schedule(PACK, n, repeat=repeat, seed=4)
        assert a == schedule(PACK, n, repeat=repeat, seed=4)
        assert len(a) == n
        assert len(set(_ids(a))) == n


def test_consecutive_repeats_use_disjoint_prompts_while_the_pack_lasts():
    seen: set[str] = set()
    for repeat in range(32):  # 32 repeats x 2 streams = the whole pack, each prompt once
        ids = _ids(schedule(PACK, 2, repeat=repeat, seed=1))
        assert seen.isdisjoint(ids)
        seen.update(ids)
    assert seen == set(_ids(PACK))
    # repeat 32 starts over with the first repeat's pair, sent in a (possibly) different order
    assert set(_ids(schedule(PACK, 2, repeat=32, seed=1))) == set(_ids(schedule(PACK, 2, repeat=0, seed=1)))


def test_full_pack_differs_across_repeats_by_order():
    r0 = _ids(schedule(PACK, 64, repeat=0, seed=0))
    r1 = _ids(schedule(PACK, 64, repeat=1, seed=0))
    assert sorted(r0) == sorted(r1) == sorted(_ids(PACK))
    assert r0 != r1


def test_seed_changes_the_choice():
    assert _ids(schedule(PACK, 4, repeat=0, seed=0)) != _ids(schedule(PACK, 4, repeat=0, seed=1))


def test_schedule_does_not_depend_on_anything_but_pack_n_repeat_seed():
    # the same call for two configs gives the same prompts: a paired comparison across configs
    assert schedule(list(PACK), 3, repeat=2, seed=9) == schedule(tuple(PACK), 3, repeat=2, seed=9)


@pytest.mark.parametrize("n", [0, 65, 2.0])
def test_level_outside_the_pack_is_a_config_error(n):
    with pytest.raises(ConfigError) as info:
        schedule(PACK, n, repeat=0, seed=0)
    assert info.value.expected == "1..64 streams"


def test_negative_repeat_and_duplicate_prompts_are_config_errors():
    with pytest.raises(ConfigError):
        schedule(PACK, 1, repeat=-1, seed=0)
    dup = [PACK[0], PACK[0], PACK[1]]
    with pytest.raises(ConfigError) as info:
        schedule(dup, 2, repeat=0, seed=0)
    assert info.value.found == [PACK[0].prompt_id]


def test_small_custom_pack():
    prompts = [Prompt(f"x-{i:03d}", "x", [{"role": "user", "content": f"{i} go"}]) for i in range(3)]
    assert sorted(_ids(schedule(prompts, 3, repeat=5, seed=2))) == ["x-000", "x-001", "x-002"]
