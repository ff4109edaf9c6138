"""Counters of several replicas combined into one snapshot, with each replica's restart seen by itself."""

from __future__ import annotations

import pytest

from specscope.bench.counters_source import combine_replicas, parse_metrics_specs, replica_label
from specscope.errors import ConfigError
from specscope.records import SpecCounters
from specscope.stats.counters import counters_delta


def snap(drafts: float, accepted: float, gen: float, per_pos: tuple[float, ...], running: float = 0.0) -> SpecCounters:
    present = frozenset({"spec", "per_pos", "generation", "running"})
    return SpecCounters(
        drafts=drafts,
        draft_tokens=3 * drafts,
        accepted_tokens=accepted,
        accepted_per_position=per_pos,
        generation_tokens=gen,
        running=running,
        present=present,
    )


def test_two_replicas_sum_and_keep_their_own_series():
    a, b = snap(4, 6, 12, (3, 2, 1), running=1), snap(8, 10, 30, (5, 5))
    both = combine_replicas([("h:1", a), ("h:2", b)])
    assert (both.drafts, both.draft_tokens, both.accepted_tokens) == (12, 36, 16)
    assert both.accepted_per_position == (8, 7, 1)
    assert both.generation_tokens == 42 and both.running == 1
    assert both.engines == {"h:1": a, "h:2": b}


def test_one_replica_is_its_snapshot_unchanged():
    a = snap(4, 6, 12, (3, 2, 1))
    assert combine_replicas([("h:1", a)]) is a


def test_engine_labels_inside_a_replica_are_kept_per_replica():
    e0, e1 = snap(1, 1, 4, (1,)), snap(2, 2, 8, (2,))
    dp = SpecCounters(drafts=3, accepted_tokens=3, generation_tokens=12, engines={"0": e0, "1": e1})
    both = combine_replicas([("h:1", dp), ("h:2", snap(5, 5, 20, (5,)))])
    assert sorted(both.engines) == ["h:1/0", "h:1/1", "h:2"]
    assert both.generation_tokens == 32


def test_a_restarted_replica_is_left_out_and_named():
    before = combine_replicas([("h:1", snap(4, 6, 12, (3, 2, 1))), ("h:2", snap(8, 10, 30, (5, 5)))])
    # replica 1 restarted (its counters fell back), replica 2 served 4 more drafts, 5 accepted, 20 tokens
    after = combine_replicas([("h:1", snap(1, 1, 3, (1,))), ("h:2", snap(12, 15, 50, (8, 7)))])
    d = counters_delta(before, after)
    assert d.reset_engines == ("h:1",) and d.reset is False
    assert (d.drafts, d.accepted_tokens, d.generation_tokens) == (4, 5, 20)
    assert d.accepted_per_position == (3, 2)


def test_parse_metrics_specs():
    specs = ["base=http://127.0.0.1:8001", "base=http://127.0.0.1:8002/metrics", "ngram=http://h:9/"]
    assert parse_metrics_specs(specs, ("base", "ngram")) == {
        "base": ("http://127.0.0.1:8001", "http://127.0.0.1:8002"),
        "ngram": ("http://h:9",),
    }
    assert replica_label("http://127.0.0.1:8001") == "127.0.0.1:8001"


@pytest.mark.parametrize(
    "spec, needle",
    [
        ("http://h:1", "--metrics takes NAME=URL"),
        ("base=h:1", "--metrics takes NAME=URL"),
        ("other=http://h:1", "invalid value for --metrics; found: other=http://h:1; "),
    ],
)
def test_bad_metrics_specs(spec, needle):
    with pytest.raises(ConfigError, match=needle):
        parse_metrics_specs([spec], ("base",))


def test_a_repeated_replica_is_refused():
    with pytest.raises(ConfigError, match="repeats"):
        parse_metrics_specs(["base=http://h:1", "base=http://h:1/"], ("base",))


def test_replica_series_are_named_as_one_servers_are():
    # issue 50: a scrape keys its series sets by selector ({engine="0",model_name="m"}); one server's delta names
    # such a set by its engine ("0"), but behind --metrics on several endpoints the set read
    # 'h:1/{engine="0",model_name="m"}' where the bare-engine form reads 'h:1/0'. Now: h:1/0, h:1/1, h:2/0.
    def dp(*engines: SpecCounters) -> SpecCounters:
        keyed = {f'{{engine="{i}",model_name="m"}}': e for i, e in enumerate(engines)}
        total = snap(0, 0, 0, ())
        return SpecCounters(drafts=0, accepted_tokens=0, generation_tokens=0, engines=keyed, present=total.present)

    before = combine_replicas(
        [("h:1", dp(snap(1, 1, 4, (1,)), snap(2, 2, 8, (2,)))), ("h:2", dp(snap(5, 5, 20, (5,))))]
    )
    after = combine_replicas(
        [("h:1", dp(snap(2, 2, 8, (2,)), snap(3, 3, 12, (3,)))), ("h:2", dp(snap(6, 6, 24, (6,))))]
    )
    d = counters_delta(before, after)
    assert sorted(d.engines) == ["h:1/0", "h:1/1", "h:2/0"]
    assert d.engines["h:2/0"].drafts == 1
