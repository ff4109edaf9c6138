"""`specscope counters BEFORE AFTER` on each engine's metrics, as a user saves them (issue 34): every read row of the
adapters' metric declarations reaches a figure through the command. Prometheus bodies follow the names each adapter
declares from its engine's source (docs/engines.md); TensorRT-LLM's JSON bodies follow ``trtllm-serve``'s
``get_iteration_stats`` / ``get_perf_metrics`` (``tensorrt_llm/serve/openai_server.py`` @ 00057725): a list drained
on read, so BEFORE's GET emptied the endpoint and the window is AFTER's slice."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clirun import cli


def _counters(tmp_path, capsys, monkeypatch, before: str, after: str, ext: str = "prom") -> tuple[int, dict, str]:
    b, a = tmp_path / f"before.{ext}", tmp_path / f"after.{ext}"
    b.write_text(before)
    a.write_text(after)
    code, out, err = cli(["counters", b, a, "-f", "json"], capsys, monkeypatch, tmp_path)
    return code, json.loads(out) if out.strip() else {}, err


def _deltas(doc: dict) -> tuple:
    d = doc["deltas"]
    return d["drafts"], d["draft_tokens"], d["accepted_tokens"], d["generation_tokens"], d["prompt_tokens"]


VLLM = """vllm:spec_decode_num_drafts_total{{engine="0",model_name="m"}} {d}
vllm:spec_decode_num_draft_tokens_total{{engine="0",model_name="m"}} {t}
vllm:spec_decode_num_accepted_tokens_total{{engine="0",model_name="m"}} {a}
vllm:spec_decode_num_accepted_tokens_per_pos_total{{engine="0",model_name="m",position="0"}} {p0}
vllm:spec_decode_num_accepted_tokens_per_pos_total{{engine="0",model_name="m",position="1"}} {p1}
vllm:spec_decode_num_rejected_tokens_total{{engine="0",model_name="m"}} {r}
vllm:generation_tokens_total{{engine="0",model_name="m"}} {g}
vllm:prompt_tokens_total{{engine="0",model_name="m"}} {q}
vllm:num_requests_running{{engine="0",model_name="m"}} 0
vllm:num_requests_waiting{{engine="0",model_name="m"}} 0
vllm:spec_decode_acceptance_rate{{engine="0",model_name="m"}} 0.5
"""


def test_vllm_counters(tmp_path, capsys, monkeypatch):
    before = VLLM.format(d=10, t=20, a=12, p0=8, p1=4, r=8, g=100, q=50)
    after = VLLM.format(d=60, t=120, a=72, p0=45, p1=27, r=48, g=400, q=250)
    code, doc, _ = _counters(tmp_path, capsys, monkeypatch, before, after)
    assert code == 0 and doc["engine_kind"] == "vllm"
    assert _deltas(doc) == (50, 100, 60, 300, 200)
    assert doc["deltas"]["accepted_per_position"] == [37, 23]
    assert doc["acceptance_rate"] == 0.6 and doc["acceptance_length"] == 1 + 60 / 50 and doc["k"] == 2
    assert "GAUGE_NOT_WINDOW" in " ".join(doc["warnings"] + doc["reasons"])
    assert doc["inconsistencies"] == []  # rejected 40 = drafted 100 - accepted 60


LLAMACPP = """llamacpp:spec_decode_num_drafts_total {d}
llamacpp:spec_decode_num_draft_tokens_total {t}
llamacpp:spec_decode_num_accepted_tokens_total {a}
llamacpp:spec_decode_num_accepted_tokens_per_pos_total{{position="0"}} {p0}
llamacpp:spec_decode_num_accepted_tokens_per_pos_total{{position="1"}} {p1}
llamacpp:spec_decode_num_accepted_tokens_per_pos_total{{position="2"}} {p2}
llamacpp:spec_decode_num_accepted_tokens_per_pos_total{{position="3"}} 0
llamacpp:tokens_predicted_total {g}
llamacpp:prompt_tokens_total {q}
llamacpp:requests_processing 0
llamacpp:requests_deferred 0
"""


def test_llamacpp_counters(tmp_path, capsys, monkeypatch):
    before = LLAMACPP.format(d=0, t=0, a=0, p0=0, p1=0, p2=0, g=0, q=0)
    after = LLAMACPP.format(d=8, t=32, a=8, p0=5, p1=2, p2=1, g=40, q=30)
    code, doc, _ = _counters(tmp_path, capsys, monkeypatch, before, after)
    assert code == 0 and doc["engine_kind"] == "llamacpp"
    assert _deltas(doc) == (8, 32, 8, 40, 30) and doc["acceptance_rate"] == 0.25 and doc["acceptance_length"] == 2.0
    assert doc["deltas"]["accepted_per_position"] == [5, 2, 1, 0] and doc["k"] == 4


PR25327 = """llamacpp:draft_verify_steps_total {d}
llamacpp:draft_tokens_total {t}
llamacpp:draft_tokens_accepted_total {a}
llamacpp:draft_acceptance_rate 0.4
llamacpp:tokens_predicted_total {g}
"""


def test_llamacpp_pr25327_counters(tmp_path, capsys, monkeypatch):
    code, doc, _ = _counters(
        tmp_path,
        capsys,
        monkeypatch,
        PR25327.format(d=5, t=20, a=8, g=30),
        PR25327.format(d=15, t=60, a=24, g=90),
    )
    assert code == 0 and _deltas(doc) == (10, 40, 16, 60, None)
    assert doc["acceptance_rate"] == 0.4 and doc["acceptance_length"] == 2.6


SGLANG = """sglang:spec_verify_calls_total{{model_name="m"}} {d}
sglang:generation_tokens_total{{model_name="m"}} {g}
sglang:prompt_tokens_total{{model_name="m"}} {q}
sglang:num_running_reqs{{model_name="m"}} 0
sglang:num_queue_reqs{{model_name="m"}} 0
sglang:spec_accept_length{{model_name="m"}} 3.1
sglang:spec_accept_rate{{model_name="m"}} 0.7
"""


def test_sglang_counters(tmp_path, capsys, monkeypatch):
    code, doc, _ = _counters(
        tmp_path, capsys, monkeypatch, SGLANG.format(d=100, g=300, q=80), SGLANG.format(d=150, g=460, q=130)
    )
    # verify steps and tokens are read; drafted / accepted have no counter in SGLang: None, never 0
    assert code == 0 and doc["engine_kind"] == "sglang" and _deltas(doc) == (50, None, None, 160, 50)
    assert doc["acceptance_rate"] is None


ENGINE_COUNTERS = Path(__file__).resolve().parents[1] / "data" / "engines" / "counters"


def test_sglang_tp2_all_schedulers_reads_each_copy_group_once(tmp_path, capsys, monkeypatch):
    # TP=2 with --enable-metrics-for-all-schedulers (SGLang 0.5.23 labels; tests/data/engines/SOURCES.md): the two TP
    # ranks' gauges are one batch written twice; their series sets were two "engines" of the pool, now rank 0's alone
    before, after = (ENGINE_COUNTERS / f"sglang_tp2_all_schedulers_{p}.prom" for p in ("before", "after"))
    code, doc, _ = _counters(tmp_path, capsys, monkeypatch, before.read_text(), after.read_text())
    assert code == 0 and _deltas(doc) == (400, None, None, 1600, 6400)
    ranks = [e for e in doc["pooled_engines"] if "tp_rank" in e]
    assert ranks == ['{moe_ep_rank="0",pp_rank="0",tp_rank="0"}']
    # AFTER's rank 1 logged its batch at another moment: named, rank 0's read
    skewed = after.read_text().replace('pp_rank="0",tp_rank="1"} 4.0', 'pp_rank="0",tp_rank="1"} 3.0')
    code, doc, _ = _counters(tmp_path, capsys, monkeypatch, before.read_text(), skewed)
    differ = 'RANK_COPIES_DIFFER(sglang:num_running_reqs: tp_rank="0" 4, tp_rank="1" 3; the lowest rank\'s is read)'
    assert code == 0 and differ in doc["warnings"]


TRTLLM = """trtllm_spec_decode_num_draft_tokens_total{{model_name="m"}} {t}
trtllm_spec_decode_num_accepted_tokens_total{{model_name="m"}} {a}
trtllm_num_requests_running{{model_name="m"}} 0
trtllm_num_requests_waiting{{model_name="m"}} 0
trtllm_spec_decode_acceptance_length{{model_name="m"}} 2.2
"""


def test_trtllm_prometheus_counters(tmp_path, capsys, monkeypatch):
    code, doc, _ = _counters(tmp_path, capsys, monkeypatch, TRTLLM.format(t=30, a=10), TRTLLM.format(t=130, a=70))
    assert code == 0 and doc["engine_kind"] == "trtllm" and _deltas(doc)[:3] == (None, 100, 60)
    assert doc["acceptance_rate"] == 0.6 and doc["acceptance_length"] is None  # no drafts counter: no length


def _iteration(n: int, active: int, spec: tuple[int, int, int] | None, rank: int | None = None) -> dict:
    item: dict = {"iter": n, "iterLatencyMS": 12.5, "numActiveRequests": active, "numQueuedRequests": 0}
    if spec is not None:
        drafted, accepted, steps = spec
        item["specDecodingStats"] = {
            "numDraftTokens": drafted,
            "numAcceptedTokens": accepted,
            "numRequestsWithDraftTokens": steps,
            "acceptanceLength": 1 + accepted / steps,
            "draftOverhead": 0.1,
            "iterLatencyMS": 12.5,
        }
    if rank is not None:
        item["attentionDpRank"] = rank
    return item


def test_trtllm_json_counters(tmp_path, capsys, monkeypatch):
    before = [_iteration(1, 1, (6, 3, 2)), _iteration(2, 0, None)]
    # the window: 3 iterations that drafted (one repeated by attention-DP rank 1) and one idle
    after = [
        _iteration(3, 2, (12, 6, 4)),
        _iteration(3, 2, (12, 6, 4), rank=1),
        _iteration(4, 2, (9, 3, 3)),
        _iteration(5, 1, (3, 3, 1)),
        _iteration(6, 0, None),
    ]
    code, doc, _ = _counters(tmp_path, capsys, monkeypatch, json.dumps(before), json.dumps(after), "json")
    assert code == 0 and doc["engine_kind"] == "trtllm"
    assert _deltas(doc)[:3] == (8, 24, 12)  # rank 1's copy of iteration 3 not counted twice
    assert doc["acceptance_rate"] == 0.5 and doc["acceptance_length"] == 2.5 and doc["k"] == 3
    assert doc["drained"] == {"endpoint": "iteration stats", "before_items": 2, "after_items": 5}
    assert "ADP_DUPLICATE(item 1: attentionDpRank 1)" in doc["reasons"]
    assert "IDLE_ITERATIONS(2 left out: no active request)" in doc["reasons"]
    assert not [r for r in doc["reasons"] if r.startswith("ITERATIONS_LOST")]


def test_trtllm_json_lost_iterations_are_named(tmp_path, capsys, monkeypatch):
    before = [_iteration(1, 1, (6, 3, 2))]
    after = [_iteration(5, 1, (6, 3, 2)), _iteration(7, 1, (6, 3, 2))]  # 2..4 and 6 read by someone else
    b, a = tmp_path / "b.json", tmp_path / "a.json"
    b.write_text(json.dumps(before))
    a.write_text(json.dumps(after))
    code, out, _ = cli(["counters", b, a], capsys, monkeypatch, tmp_path)
    assert code == 0
    assert out.startswith("iteration stats (drained on read): the window is AFTER's 2 items; BEFORE's 1 came before")
    assert "ITERATIONS_LOST(2..4: 3 iterations read by another client or dropped)" in out
    assert "ITERATIONS_LOST(6: 1 iterations read by another client or dropped)" in out


def test_trtllm_json_iterations_that_go_back_are_a_restart_not_lost_iterations(tmp_path, capsys, monkeypatch):
    """BEFORE ends at iteration 102, AFTER starts at 0: the server restarted between the GETs (fresh-user finding,
    2026-12-05: it said reset false and ITERATIONS_LOST(4..99)). The window is AFTER's slice, named partial."""
    before = [_iteration(n, 1, (6, 3, 2)) for n in (100, 101, 102)]
    after = [_iteration(0, 1, (6, 3, 2)), _iteration(1, 2, (9, 6, 3)), _iteration(2, 0, None)]
    code, doc, _ = _counters(tmp_path, capsys, monkeypatch, json.dumps(before), json.dumps(after), "json")
    assert code == 0 and _deltas(doc)[:3] == (5, 15, 9) and doc["acceptance_rate"] == 9 / 15
    assert doc["window"] == "partial" and "COUNTER_RESET" in doc["reasons"]
    assert not [r for r in doc["reasons"] if r.startswith("ITERATIONS_LOST")]
    (reset,) = [r for r in doc["reasons"] if r.startswith("ENGINE_RESET(iteration numbers went back")]
    assert "ends at iteration 102" in reset and "starts at 0" in reset and "swapped" in reset


def _request(rid: str, spec: tuple[int, int] | None) -> dict:
    perf: dict = {"first_iter": 1, "last_iter": 9, "timing_metrics": {"arrival_time": 1.0}, "kv_cache_metrics": {}}
    if spec is not None:
        perf["speculative_decoding"] = {
            "acceptance_rate": spec[1] / spec[0],
            "total_accepted_draft_tokens": spec[1],
            "total_draft_tokens": spec[0],
        }
    return {"request_id": rid, "perf_metrics": perf}


def test_trtllm_perf_metrics_counters(tmp_path, capsys, monkeypatch):
    before = [_request("1", (10, 5))]
    after = [_request("2", (40, 30)), _request("3", (20, 6)), _request("4", None)]
    code, doc, _ = _counters(tmp_path, capsys, monkeypatch, json.dumps(before), json.dumps(after), "json")
    assert code == 0 and _deltas(doc)[:3] == (None, 60, 36) and doc["acceptance_rate"] == 0.6
    assert doc["acceptance_length"] is None  # /perf_metrics has no verify-step count
    assert doc["drained"]["endpoint"] == "per-request perf metrics"
    assert "REQUESTS_WITHOUT_SPEC(1 of 3 requests carry no speculative_decoding)" in doc["reasons"]


def test_json_refusals_are_one_line(tmp_path, capsys, monkeypatch):
    prom = tmp_path / "x.prom"
    prom.write_text(TRTLLM.format(t=1, a=1))
    js = tmp_path / "x.json"
    js.write_text(json.dumps([_iteration(1, 1, (3, 1, 1))]))
    code, _, err = cli(["counters", js, prom], capsys, monkeypatch, tmp_path)
    assert code == 2 and err.startswith("error: one file is a JSON metrics body that drains on read, the other")
    odd = tmp_path / "odd.json"
    odd.write_text('{"status": "ok"}')
    code, _, err = cli(["counters", odd, odd], capsys, monkeypatch, tmp_path)
    assert code == 2 and err.startswith(f"error: {odd} is JSON that no engine adapter reads; found: JSON dict of 1")
    assert "expected: Prometheus text, or trtllm-serve's JSON /metrics" in err
    empty = tmp_path / "empty.json"
    empty.write_text("[]")
    code, _, err = cli(["counters", js, empty], capsys, monkeypatch, tmp_path)
    assert code == 2 and err.startswith(f"error: {empty} holds no speculative counts; found: iteration stats: 0 items")
    assert len(err.strip().splitlines()) == 1


def test_the_declared_prefixes_are_read_and_nothing_else(tmp_path, capsys, monkeypatch):
    """A scrape of an engine no adapter declares gives the refusal for no counters, naming what to save."""
    odd = "othereng:spec_decode_num_drafts_total 4\n"
    code, _, err = cli(
        ["counters", _w(tmp_path, "a.prom", odd), _w(tmp_path, "b.prom", odd)], capsys, monkeypatch, tmp_path
    )
    assert code == 2 and "holds no speculative or generation counters" in err


def _w(tmp_path: Path, name: str, text: str) -> Path:
    (tmp_path / name).write_text(text)
    return tmp_path / name


# two vLLM servers read through one Prometheus /federate answer (untyped families, `instance` / `job` labels and
# millisecond timestamps, as federation writes them)
_SERVERS = (("a", "qwen-8b", "a"), ("b", "llama-70b", "b"))  # (instance host, model_name, format-key suffix)
FEDERATE = "".join(
    f"# TYPE vllm:spec_decode_num_{name}_total untyped\n"
    + "".join(
        f'vllm:spec_decode_num_{name}_total{{{{engine="0",instance="{host}:8000",job="vllm",model_name="{model}"}}}} '
        f"{{{key}{sfx}}} 1767225600000\n"
        for host, model, sfx in _SERVERS
    )
    for name, key in (("drafts", "d"), ("draft_tokens", "t"), ("accepted_tokens", "a"))
)


def test_several_models_give_figures_per_model(tmp_path, capsys, monkeypatch):
    before = FEDERATE.format(da=0, db=0, ta=0, tb=0, aa=0, ab=0)
    # qwen-8b: 100 drafts of 3, 180 accepted (0.6); llama-70b: 200 drafts of 3, 6 accepted (0.01): an alarm of its own
    after = FEDERATE.format(da=100, db=200, ta=300, tb=600, aa=180, ab=6)
    code, doc, _ = _counters(tmp_path, capsys, monkeypatch, before, after)
    assert code == 1  # llama-70b's low acceptance
    assert doc["acceptance_rate"] is None and doc["acceptance_length"] is None  # no pooled headline
    assert "SEVERAL_MODELS(llama-70b, qwen-8b: figures per model, no pooled headline)" in doc["reasons"]
    qwen, llama = doc["models"]["qwen-8b"], doc["models"]["llama-70b"]
    assert (qwen["drafts"], qwen["draft_tokens"], qwen["accepted_tokens"]) == (100, 300, 180)
    assert qwen["acceptance_rate"] == 0.6 and qwen["acceptance_length"] == 2.8 and qwen["alarms"] == []
    assert llama["acceptance_rate"] == 0.01 and llama["acceptance_length"] == 1.03
    assert doc["alarms"] == llama["alarms"] and llama["alarms"][0].startswith("LOW_ACCEPTANCE(unknown method")
    assert doc["inside"] is None  # no LoRA gauge in the scrapes: nothing said about adapters
    b, a = tmp_path / "before.prom", tmp_path / "after.prom"
    code, out, _ = cli(["counters", b, a], capsys, monkeypatch, tmp_path)
    assert "model qwen-8b: rate 60.0%  length 2.80  drafts 100  draft tokens 300  accepted 180" in out
    assert "model llama-70b: rate 1.0%  length 1.03" in out and "acceptance (series " in out


def test_one_model_keeps_its_headline(tmp_path, capsys, monkeypatch):
    one = "\n".join(line for line in FEDERATE.splitlines() if "llama-70b" not in line) + "\n"
    code, doc, _ = _counters(
        tmp_path, capsys, monkeypatch, one.format(da=0, ta=0, aa=0), one.format(da=100, ta=300, aa=180)
    )
    assert code == 0 and doc["models"] == {} and doc["acceptance_rate"] == 0.6


def test_trtllm_json_null_spec_stats_and_a_last_iteration_with_no_active_request(tmp_path, capsys, monkeypatch):
    """trtllm-serve writes ``"specDecodingStats": null`` in an iteration that did not draft; an iteration whose
    requests all ended reports 0 active and still carries what it drafted: counted, not idle."""
    before = [_iteration(1, 0, None)]
    prefill = {**_iteration(2, 1, None), "specDecodingStats": None}
    after = [prefill, _iteration(3, 1, (6, 4, 2)), _iteration(4, 0, (3, 1, 1)), _iteration(5, 0, None)]
    code, doc, _ = _counters(tmp_path, capsys, monkeypatch, json.dumps(before), json.dumps(after), "json")
    assert code == 0 and _deltas(doc)[:3] == (3, 9, 5)
    assert "IDLE_ITERATIONS(2 left out: no active request)" in doc["reasons"]


def test_hostile_json_bodies_are_one_line_refusals(tmp_path, capsys, monkeypatch):
    """Deep nesting (RecursionError in the JSON parser), non-finite and out-of-range counts: no traceback."""
    deep = _w(tmp_path, "deep.json", "[" * 100_000 + "]" * 100_000)
    code, _, err = cli(["counters", deep, deep], capsys, monkeypatch, tmp_path)
    assert code == 2 and "found: JSON of 200,000 characters" in err and "a list of flat objects" in err
    assert len(err.strip().splitlines()) == 1
    odd = [
        {
            "iter": 1,
            "numActiveRequests": 1,
            "specDecodingStats": {"numDraftTokens": 1e999, "numAcceptedTokens": 1, "numRequestsWithDraftTokens": 1},
        }
    ]
    text = json.dumps(odd).replace("Infinity", "1" + "0" * 400)
    big = _w(tmp_path, "big.json", text)
    code, _, err = cli(["counters", big, big], capsys, monkeypatch, tmp_path)
    assert code == 2 and "holds no speculative counts" in err  # the malformed count is WRONG_TYPE, never a figure


def test_gzipped_scrapes_are_read_like_plain_ones(tmp_path, capsys, monkeypatch):
    """A scrape saved gzipped (curl --compressed -o, or gzip afterwards) reads like the plain text (it said 'not UTF-8
    text (byte 1)')."""
    import gzip

    before = VLLM.format(d=10, t=20, a=12, p0=8, p1=4, r=8, g=100, q=50)
    after = VLLM.format(d=60, t=120, a=72, p0=45, p1=27, r=48, g=400, q=250)
    _, plain, _ = _counters(tmp_path, capsys, monkeypatch, before, after)
    b, a = tmp_path / "b.prom.gz", tmp_path / "a.prom.gz"
    b.write_bytes(gzip.compress(before.encode()))
    a.write_bytes(gzip.compress(after.encode()))
    code, out, _ = cli(["counters", b, a, "-f", "json"], capsys, monkeypatch, tmp_path)
    assert code == 0 and json.loads(out) == plain and plain["acceptance_rate"] == 0.6


def test_scrapes_of_two_different_engines_are_refused_by_name(tmp_path, capsys, monkeypatch):
    """BEFORE saved from one server (SGLang's names), AFTER from another (vLLM's): no series set is in both, so
    nothing can be differenced. It was exit 0, state no_window, "model unloaded or engine stopped"; now exit 2
    naming both engines."""
    before = SGLANG.format(d=100, g=300, q=80)
    after = VLLM.format(d=60, t=120, a=72, p0=45, p1=27, r=48, g=400, q=250)
    code, doc, err = _counters(tmp_path, capsys, monkeypatch, before, after)
    assert code == 2 and doc == {}
    assert "BEFORE and AFTER are scrapes of two different engines" in err
    assert "before.prom: SGLang's names" in err and "after.prom: vLLM's names" in err
    assert "Traceback" not in err
    # the same engine twice, or the same names behind another label set, is still a window
    code, doc, _ = _counters(tmp_path, capsys, monkeypatch, after, after)
    assert code == 0 and doc["engine_kind"] == "vllm"


def _dp8(tmp_path, lora: bool) -> tuple:
    from paths import DATA

    src = DATA / "engines" / "counters"
    out = []
    for name in ("vllm_dp8_before.prom", "vllm_dp8_before_with_gen.prom"):
        text = (src / name).read_text()
        if lora:  # the gauge PrometheusStatLogger adds with a LoRA config (v1/metrics/loggers.py, vLLM 0.32.0)
            text += (
                "# HELP vllm:lora_requests_info Running stats on lora requests.\n# TYPE vllm:lora_requests_info gauge\n"
                'vllm:lora_requests_info{max_lora="2",running_lora_adapters="alpaca",waiting_lora_adapters=""} '
                "1.7e+09\n"
            )
        (tmp_path / name).write_text(text)
        out.append(tmp_path / name)
    return tuple(out)


@pytest.mark.parametrize("lora", [False, True])
def test_the_lora_caveat_rests_on_the_scrape(lora, tmp_path, capsys, monkeypatch):
    """Every vLLM ``counters`` run said "inside each figure: requests to LoRA adapters ...", with no adapter in
    sight: the caveat is said when the scrape shows LoRA served (``vllm:lora_requests_info``), and only then."""
    before, after = _dp8(tmp_path, lora)
    code, out, _err = cli(["counters", before, after], capsys, monkeypatch, tmp_path)
    assert code in (0, 1) and ("LoRA" in out) is lora
    code, doc_text, _err = cli(["counters", before, after, "-f", "json"], capsys, monkeypatch, tmp_path)
    doc = json.loads(doc_text)
    assert (doc["inside"] or "").startswith("requests to LoRA adapters served on the model") is lora


def test_trtllm_json_counters_say_what_is_inside_in_their_own_terms(tmp_path, capsys, monkeypatch):
    # issue 50: the pair of JSON bodies said "one model_name label per server" (the Prometheus collector's terms),
    # though a JSON body has no labels at all
    before, after = [_iteration(1, 1, (6, 3, 2))], [_iteration(2, 1, (6, 3, 2))]
    code, doc, _ = _counters(tmp_path, capsys, monkeypatch, json.dumps(before), json.dumps(after), "json")
    assert code == 0 and doc["inside"] == "every request of the server: trtllm-serve's JSON bodies carry no labels"
    code, doc, _ = _counters(tmp_path, capsys, monkeypatch, TRTLLM.format(t=10, a=6), TRTLLM.format(t=20, a=12))
    assert doc["inside"] == "every request of the server: one model_name label per server"
