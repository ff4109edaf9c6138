"""Counter deltas per series, as Prometheus takes them: a scrape that mixes replicas or sources (a federation, an
aggregator, a router exposing several backends) holds series that differ by ``instance`` / ``job`` / ``pod`` /
``model_name`` / ``dp_rank`` ... with ``engine="0"`` on each; a restart of one of them is a drop in *that* series, lost
when the deltas are taken after summing. Prometheus' rule (``promql/functions.go`` ``extrapolatedRate``: a decrease of
one series is a reset, its increase is then its value after; "take rate() first, then aggregate"). Scrapes written here.
"""

from __future__ import annotations

import json

from typer.testing import CliRunner

from specscope.cli import app
from specscope.client.metrics import parse_metrics
from specscope.stats.counters import counters_delta, spec_window

M = 'model_name="m"'


def replica(
    instance: str, drafts: int, drafted: int, accepted: int, per_pos: tuple[int, ...], gen: int, extra: str = ""
) -> str:
    """One vLLM replica's spec and generation counters as a federation writes them (``instance``/``job`` added)."""
    labels = f'engine="0",instance="{instance}",job="vllm",{M}{extra}'
    lines = [
        f"vllm:spec_decode_num_drafts_total{{{labels}}} {drafts}",
        f"vllm:spec_decode_num_draft_tokens_total{{{labels}}} {drafted}",
        f"vllm:spec_decode_num_accepted_tokens_total{{{labels}}} {accepted}",
        f"vllm:generation_tokens_total{{{labels}}} {gen}",
    ]
    lines += [
        f'vllm:spec_decode_num_accepted_tokens_per_pos_total{{{labels},position="{i}"}} {v}'
        for i, v in enumerate(per_pos)
    ]
    return "\n".join(lines) + "\n"


A_BEFORE = replica("a:8000", 1000, 3000, 2000, (900, 700, 400), 4000)
A_AFTER = replica("a:8000", 3000, 9000, 5600, (2700, 1900, 1000), 12000)  # +2000 drafts, +6000 drafted, +3600 accepted
B_BEFORE = replica("b:8000", 1700, 5000, 2500, (1200, 800, 500), 6000)
B_AFTER = replica("b:8000", 70, 200, 100, (50, 30, 20), 300)  # restarted: 5000 -> 200 drafted
B_KEY = '{engine="0",instance="b:8000",job="vllm",model_name="m"}'
A_KEY = '{engine="0",instance="a:8000",job="vllm",model_name="m"}'
# on a delta a series set is named by the labels that tell the sets of both scrapes apart
A_NAME, B_NAME, C_NAME = '{instance="a:8000"}', '{instance="b:8000"}', '{instance="c:8000"}'


def test_one_replica_restarted_while_the_sum_rises_is_a_reset_of_that_series():
    before, after = parse_metrics(A_BEFORE + B_BEFORE), parse_metrics(A_AFTER + B_AFTER)
    assert after.draft_tokens - before.draft_tokens == 1200  # the summed counter still rises (what was read before)
    assert set(before.engines) == {A_KEY, B_KEY}  # a snapshot names a set by all its labels
    d = counters_delta(before, after)
    assert d.reset_engines == (B_NAME,) and d.reset is False and d.engines[B_NAME].reset is True
    # replica A alone: 2000 drafts, 6000 drafted, 3600 accepted (1800 / 1200 / 600 by position), 8000 generated
    assert (d.drafts, d.draft_tokens, d.accepted_tokens, d.generation_tokens) == (2000, 6000, 3600, 8000)
    assert d.accepted_per_position == (1800, 1200, 600)
    assert d.acceptance_rate == 0.6 and d.acceptance_length == 2.8
    assert f"ENGINE_RESET({B_NAME})" in spec_window(before, after).warnings


def test_label_order_does_not_make_a_new_series():
    before = parse_metrics(A_BEFORE + B_BEFORE)
    reordered = A_AFTER.replace(
        f'engine="0",instance="a:8000",job="vllm",{M}', f'{M},job="vllm",instance="a:8000",engine="0"'
    )
    assert reordered != A_AFTER
    d = counters_delta(before, parse_metrics(reordered + B_BEFORE.replace(" 6000", " 6100")))
    assert d.reset_engines == () and d.vanished_engines == () and d.unknown_start_engines == ()
    assert (d.drafts, d.draft_tokens, d.generation_tokens) == (2000, 6000, 8100)


def test_position_and_le_are_the_metrics_own_dimensions_not_series():
    hist = "".join(
        f'vllm:time_to_first_token_seconds_bucket{{engine="0",instance="a:8000",job="vllm",{M},le="{le}"}} {n}\n'
        for le, n in (("0.1", 3), ("+Inf", 9))
    )
    other = f'vllm:request_success_total{{engine="0",finished_reason="stop",instance="a:8000",job="vllm",{M}}} 5\n'
    snap = parse_metrics(A_BEFORE + hist + other)
    assert set(snap.engines) == {A_KEY}  # one series set: positions, buckets and unread families make no other
    assert snap.engines[A_KEY].accepted_per_position == (900, 700, 400)
    assert snap.accepted_per_position == (900, 700, 400) and snap.drafts == 1000


def test_a_series_that_vanished_is_left_out_and_named():
    before, after = parse_metrics(A_BEFORE + B_BEFORE), parse_metrics(A_AFTER)
    d = counters_delta(before, after)
    assert d.vanished_engines == (B_NAME,) and d.reset_engines == () and d.reset is False
    assert (d.drafts, d.draft_tokens, d.accepted_tokens) == (2000, 6000, 3600)
    assert f"ENGINE_VANISHED({B_NAME})" in spec_window(before, after).warnings


def created(text: str, t: float) -> str:
    """``*_created`` beside each counter of ``text`` (what prometheus_client writes by default), all at ``t``."""
    out = []
    for line in text.splitlines():
        out.append(line)
        name, rest = line.split("{", 1)
        out.append(f"{name[: -len('_total')]}_created{{{rest.rsplit('}', 1)[0]}}} {t}")
    return "\n".join(out) + "\n"


def test_a_new_series_created_after_the_before_scrape_counts_from_zero():
    before = parse_metrics(created(A_BEFORE, 1000.0))
    after = parse_metrics(created(A_AFTER, 1000.0) + created(B_AFTER, 5000.0))  # B created after every before series
    d = counters_delta(before, after)
    assert d.unknown_start_engines == () and d.reset_engines == () and d.vanished_engines == ()
    assert (d.drafts, d.draft_tokens, d.accepted_tokens) == (2000 + 70, 6000 + 200, 3600 + 100)


def test_a_new_series_created_before_the_before_scrape_has_an_unknown_start():
    before = parse_metrics(created(A_BEFORE, 1000.0))
    after = parse_metrics(created(A_AFTER, 1000.0) + created(B_AFTER, 900.0))  # B existed when `before` was taken
    d = counters_delta(before, after)
    assert d.unknown_start_engines == (B_NAME,) and d.reset is False
    assert (d.drafts, d.draft_tokens, d.accepted_tokens) == (2000, 6000, 3600)  # A alone: B's count may predate it
    w = spec_window(before, after)
    assert f"ENGINE_UNKNOWN_START({B_NAME})" in w.warnings and w.state == "drafting"


def test_a_new_series_without_created_has_an_unknown_start():
    before, after = parse_metrics(A_BEFORE), parse_metrics(A_AFTER + B_AFTER)
    d = counters_delta(before, after)
    assert d.unknown_start_engines == (B_NAME,)
    assert d.draft_tokens == 6000


def test_every_series_of_unknown_start_gives_no_window():
    before = parse_metrics(A_BEFORE)
    after = parse_metrics(B_AFTER)
    w = spec_window(before, after)
    assert w.delta.vanished_engines == (A_NAME,) and w.delta.unknown_start_engines == (B_NAME,)
    assert w.state == "no_window" and w.withheld and w.delta.drafts is None


def test_replicas_told_apart_by_model_name_alone():
    """A router exposing two backends, both ``engine="0"``, told apart by ``model_name`` only."""

    def one(model: str, drafted: int) -> str:
        return f'vllm:spec_decode_num_draft_tokens_total{{engine="0",model_name="{model}"}} {drafted}\n' + (
            f'vllm:spec_decode_num_drafts_total{{engine="0",model_name="{model}"}} {drafted // 2}\n'
        )

    before, after = parse_metrics(one("x", 100) + one("y", 5000)), parse_metrics(one("x", 700) + one("y", 200))
    assert set(before.engines) == {'{engine="0",model_name="x"}', '{engine="0",model_name="y"}'}
    d = counters_delta(before, after)
    assert d.reset_engines == ('{model_name="y"}',) and d.draft_tokens == 600 and d.drafts == 300


def test_one_target_of_eight_engines_is_named_by_engine_on_the_delta():
    """Prometheus' scrape of one vLLM (``instance``, ``job`` alike on every engine): ``engine`` tells them apart."""
    eight = [f'engine="{e}",instance="h:8000",job="vllm",{M}' for e in range(8)]
    before = parse_metrics("".join(f"vllm:spec_decode_num_drafts_total{{{ls}}} 10\n" for ls in eight))
    after = parse_metrics(
        "".join(f"vllm:spec_decode_num_drafts_total{{{ls}}} {3 if i == 5 else 20}\n" for i, ls in enumerate(eight))
    )
    d = counters_delta(before, after)
    assert d.reset_engines == ("5",) and set(d.engines) == {str(e) for e in range(8)} and d.drafts == 70


def test_one_vllm_server_keeps_its_engine_names():
    """vLLM's own labels (``model_name``, ``engine``: ``vllm/v1/metrics/loggers.py``) name a series by its engine."""
    text = "".join(f'vllm:spec_decode_num_drafts_total{{engine="{e}",model_name="m"}} 5\n' for e in "01")
    snap = parse_metrics(text)  # keyed by selector: one series, one key in every scrape
    assert set(snap.engines) == {'{engine="0",model_name="m"}', '{engine="1",model_name="m"}'}
    assert set(counters_delta(snap, snap).engines) == {"0", "1"}
    one = parse_metrics('vllm:spec_decode_num_drafts_total{engine="0",model_name="m"} 5\n')
    assert set(counters_delta(one, one).engines) == {"0"}


def saved(tmp_path, before: str, after: str) -> list[str]:
    paths = [tmp_path / "before.prom", tmp_path / "after.prom"]
    for p, text in zip(paths, (before, after), strict=True):
        p.write_text(text, encoding="utf-8")
    return [str(p) for p in paths]


def test_counters_command_text_names_the_restarted_series(tmp_path):
    res = CliRunner().invoke(app, ["counters", *saved(tmp_path, A_BEFORE + B_BEFORE, A_AFTER + B_AFTER)])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[0].startswith(f"series {A_NAME}: reset: false  drafts 2000  draft tokens 6000  accepted 3600")
    assert lines[1].startswith(f"series {B_NAME}: reset: true")
    assert lines[1].endswith(
        "(partial window: restarted between the scrapes, counts since the restart; left out of the pool)"
    )
    assert lines[2] == f"acceptance (series {A_NAME}): rate 60.0%  length 2.80  k 3"
    assert lines[3] == "per position: 90.0% 60.0% 30.0%"
    assert lines[4] == f"reasons: ENGINE_RESET({B_NAME})"


def test_counters_command_json_names_the_restarted_and_unknown_start_series(tmp_path):
    before, after = created(A_BEFORE + B_BEFORE, 1000.0), created(A_AFTER, 1000.0) + created(B_AFTER, 500.0)
    c_after = created(replica("c:8000", 10, 30, 20, (10, 6, 4), 40), 990.0)  # new, but created before `before`
    res = CliRunner().invoke(app, ["counters", *saved(tmp_path, before, after + c_after), "-f", "json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert {e: (v["reset"], v["vanished"], v["unknown_start"]) for e, v in doc["engines"].items()} == {
        A_NAME: (False, False, False),
        B_NAME: (True, False, False),
        C_NAME: (False, False, True),
    }
    assert doc["deltas"]["draft_tokens"] == 6000 and doc["acceptance_rate"] == 0.6
    assert doc["reasons"] == [f"ENGINE_RESET({B_NAME})", f"ENGINE_UNKNOWN_START({C_NAME})"]


def test_one_scrape_from_prometheus_and_one_from_the_server_are_the_same_series():
    """``instance`` / ``job`` are what Prometheus attaches at scrape: the server's own /metrics lacks them."""
    direct = A_AFTER.replace('instance="a:8000",job="vllm",', "")
    d = counters_delta(parse_metrics(A_BEFORE), parse_metrics(direct))
    assert d.vanished_engines == () and d.unknown_start_engines == () and d.draft_tokens == 6000
    # two targets before, one unlabelled server after: which one it is is unknown, so nothing is paired
    d2 = counters_delta(parse_metrics(A_BEFORE + B_BEFORE), parse_metrics(direct))
    assert len(d2.vanished_engines) == 2 and d2.unknown_start_engines == ("0",) and d2.draft_tokens is None


def test_a_second_model_after_leaves_the_first_its_full_window(tmp_path):
    """One model before (vLLM names its set by engine), the same model and a second after (named by selector): the
    first model's series span both scrapes and get their full window; the second is new, its start unknown (fresh
    clone's trial: m was "vanished" and "new, start unknown" at once, so the window was ``no_window``)."""

    def one(model: str, drafts: int, drafted: int, accepted: int) -> str:
        labels = f'engine="0",model_name="{model}"'
        return (
            f"vllm:spec_decode_num_drafts_total{{{labels}}} {drafts}\n"
            f"vllm:spec_decode_num_draft_tokens_total{{{labels}}} {drafted}\n"
            f"vllm:spec_decode_num_accepted_tokens_total{{{labels}}} {accepted}\n"
        )

    before, after = one("m", 100, 300, 150), one("m", 300, 900, 450) + one("m2", 50, 150, 30)
    w = spec_window(parse_metrics(before), parse_metrics(after))
    d = w.delta
    assert w.state == "drafting"
    assert d.vanished_engines == () and d.unknown_start_engines == ('{model_name="m2"}',)
    assert (d.drafts, d.draft_tokens, d.accepted_tokens) == (200, 600, 300)
    res = CliRunner().invoke(app, ["counters", *saved(tmp_path, before, after), "-f", "json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert doc["reasons"] == ['ENGINE_UNKNOWN_START({model_name="m2"})']
    assert doc["acceptance_rate"] == 0.5 and doc["deltas"]["draft_tokens"] == 600


def test_a_new_engine_of_the_same_model_after_is_new():
    """The engine-named case kept: a second engine of one model after the window is a new series set."""
    e0 = 'vllm:spec_decode_num_drafts_total{engine="0",model_name="m"}'
    e1 = 'vllm:spec_decode_num_drafts_total{engine="1",model_name="m"}'
    d = counters_delta(parse_metrics(f"{e0} 10\n"), parse_metrics(f"{e0} 30\n{e1} 5\n"))
    assert d.unknown_start_engines == ("1",) and d.vanished_engines == () and d.drafts == 20
    assert set(d.engines) == {"0", "1"}
