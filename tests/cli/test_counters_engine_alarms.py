"""`specscope counters` on a scrape of several engines or servers (vLLM data-parallel engines, two servers of one
model read through one Prometheus ``/federate`` answer): each engine's own counts get the low-acceptance rule, so a
pooled rate cannot hide one engine whose drafter accepts nothing. ``serve --parse-log`` already said so for a log
(``Engine 001: LOW_ACCEPTANCE(...)``, tests/launch/test_log_engines_unseen.py); before this, `counters` on the same
window printed engine 1's 0 accepted of 4,000 drafted and exited 0 with "reasons: none"."""

from __future__ import annotations

import json

from clirun import cli
from paths import DATA

COUNTERS = DATA / "counters"
LOW = "LOW_ACCEPTANCE(unknown method accepts 0.0% of drafted tokens over 1,000 drafts, < 5%)"


def test_a_data_parallel_engine_accepting_nothing_is_alarmed_though_the_pool_is_not(tmp_path, capsys, monkeypatch):
    before, after = COUNTERS / "vllm_dp2_before.prom", COUNTERS / "vllm_dp2_after_engine1_accepts_nothing.prom"
    code, out, _ = cli(["counters", before, after, "-f", "json"], capsys, monkeypatch, tmp_path)
    doc = json.loads(out)
    # pool: (2,000 + 0) / (4,000 + 4,000) = 25 % over 2,000 drafts: above the 5 % rule on its own
    d = doc["deltas"]
    assert (d["drafts"], d["draft_tokens"], d["accepted_tokens"]) == (2000, 8000, 2000)
    assert doc["acceptance_rate"] == 0.25
    assert doc["alarms"] == [f"engine 1: {LOW}"]
    assert code == 1
    code, out, _ = cli(["counters", before, after], capsys, monkeypatch, tmp_path)
    assert code == 1 and f"ALARM engine 1: {LOW}" in out and "ALARM engine 0" not in out


def test_two_servers_of_one_model_each_get_the_rule(tmp_path, capsys, monkeypatch):
    """Two instances of one model through ``/federate`` (series sets named by their labels, one model: no per-model
    split): the second server accepts nothing over 1,000 drafts."""
    labels = '{{engine="0",instance="{i}",job="vllm",model_name="m"}}'
    series = (
        f"vllm:spec_decode_num_drafts_total{labels} {{d}}\n"
        f"vllm:spec_decode_num_draft_tokens_total{labels} {{t}}\n"
        f"vllm:spec_decode_num_accepted_tokens_total{labels} {{a}}\n"
    )
    b, a = tmp_path / "b.prom", tmp_path / "a.prom"
    b.write_text(series.format(i="10.0.0.1:8000", d=0, t=0, a=0) + series.format(i="10.0.0.2:8000", d=0, t=0, a=0))
    a.write_text(
        series.format(i="10.0.0.1:8000", d=1000, t=3000, a=2000) + series.format(i="10.0.0.2:8000", d=1000, t=3000, a=0)
    )
    code, out, _ = cli(["counters", b, a, "-f", "json"], capsys, monkeypatch, tmp_path)
    doc = json.loads(out)
    assert round(doc["acceptance_rate"], 4) == 0.3333 and code == 1
    low = "LOW_ACCEPTANCE(unknown method accepts 0.0% of drafted tokens over 1,000 drafts, < 5%)"
    assert doc["alarms"] == [f'series {{instance="10.0.0.2:8000"}}: {low}']


def test_one_engine_keeps_the_pooled_alarm_alone(tmp_path, capsys, monkeypatch):
    """Engine 1 alone (engine 0's series left out of both files): its alarm is the pool's, said once, with no
    ``engine 1:`` copy."""

    def engine1(name: str) -> str:
        return "".join(s + "\n" for s in (COUNTERS / name).read_text().splitlines() if 'engine="0"' not in s)

    b, a = tmp_path / "b.prom", tmp_path / "a.prom"
    b.write_text(engine1("vllm_dp2_before.prom"))
    a.write_text(engine1("vllm_dp2_after_engine1_accepts_nothing.prom"))
    code, out, _ = cli(["counters", b, a, "-f", "json"], capsys, monkeypatch, tmp_path)
    doc = json.loads(out)
    assert code == 1 and doc["alarms"] == ["ACCEPTING_NOTHING(1,000 drafts and none accepted)"]


def test_inside_one_model_of_several_each_engine_gets_the_rule(tmp_path, capsys, monkeypatch):
    """The two-model federated scrape (``vllm_two_models_dp2_*``) with llama-8b's engine 1 accepting nothing (its
    accepted and per-position counters held still): llama-8b pools to 1,800 / 6,000 = 30 %, so its model figure
    alone raises nothing; its engine 1 does."""
    sel = 'engine="1",model_name="llama-8b"'

    def frozen(name: str) -> str:
        lines = (COUNTERS / name).read_text().splitlines()
        held = [s.rsplit(" ", 1)[0] + " 0" if sel in s and "accepted_tokens" in s else s for s in lines]
        return "\n".join(held) + "\n"

    b, a = tmp_path / "b.prom", tmp_path / "a.prom"
    b.write_text(frozen("vllm_two_models_dp2_before.prom"))
    a.write_text(frozen("vllm_two_models_dp2_after.prom"))
    code, out, _ = cli(["counters", b, a, "-f", "json"], capsys, monkeypatch, tmp_path)
    doc = json.loads(out)
    llama = doc["models"]["llama-8b"]
    assert (llama["draft_tokens"], llama["accepted_tokens"], llama["acceptance_rate"]) == (6000, 1800, 0.3)
    assert llama["alarms"] == [f"series {{{sel}}}: {LOW}"] and doc["alarms"] == llama["alarms"] and code == 1
    assert doc["models"]["qwen-32b"]["alarms"] == []
