"""Series that are copies of one count (several ranks of one replica) are read once; replicas are summed.

The scrapes (tests/data/engines/counters/sglang_{tp2_all_schedulers,dp2,dp2_tp2_all_schedulers}_*.prom, SOURCES.md)
carry SGLang 0.5.23's names and labels: its scheduler gauges are labelled ``tp_rank``, ``pp_rank``, ``moe_ep_rank``
and, under data parallelism, ``dp_rank``; with ``--enable-metrics-for-all-schedulers`` every TP rank writes them.
Its speculative and token counters are the tokenizer's: one series, no rank label. The adapter declares the labels
that mark copies (``COPY_LABELS``); the reader keeps the lowest rank's series of each copy group and names copies
that disagree."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from paths import DATA
from specscope.adapters.names import prometheus_tables
from specscope.client.gauges import GaugeSampler, parse_gauges
from specscope.client.metrics import parse_metrics

COUNTERS = DATA / "engines" / "counters"


def _scrape(name: str) -> str:
    return (COUNTERS / f"{name}.prom").read_text()


def test_the_adapters_declare_which_labels_mark_copies():
    tables = prometheus_tables()
    assert tables["sglang:"].copy_labels == ("tp_rank", "pp_rank", "moe_ep_rank")
    assert tables["vllm:"].copy_labels == ()  # vLLM's ``engine`` label is a data-parallel engine: a replica


def test_tp2_all_schedulers_copies_are_read_once():
    # TP=2 with --enable-metrics-for-all-schedulers: both ranks write running 4, waiting 2 (one batch); before, 8 and 4
    c = parse_metrics(_scrape("sglang_tp2_all_schedulers_after"))
    assert (c.drafts, c.generation_tokens, c.prompt_tokens) == (500.0, 2200.0, 12800.0)
    assert (c.running, c.waiting) == (4.0, 2.0)
    assert c.caveats == ()
    # the dropped copy makes no series set of its own
    assert not any('tp_rank="1"' in name for name in c.engines)


def test_dp2_replicas_are_summed():
    # DP=2 (dp attention): each DP group's attention-TP rank 0 writes its own batch: running 3 + 5, waiting 1 + 2
    c = parse_metrics(_scrape("sglang_dp2_after"))
    assert (c.drafts, c.running, c.waiting) == (500.0, 8.0, 3.0)
    assert c.caveats == ()


def test_dp2_tp2_all_schedulers_copies_once_replicas_summed():
    # DP=2 x TP=2 with the flag: ranks 0, 1 copy DP group 0 (running 3), ranks 2, 3 copy DP group 1 (running 5);
    # before: 16 running, 6 waiting
    c = parse_metrics(_scrape("sglang_dp2_tp2_all_schedulers_after"))
    assert (c.drafts, c.running, c.waiting) == (500.0, 8.0, 3.0)
    kept = sorted(name for name in c.engines if "tp_rank" in name)
    assert len(kept) == 2 and 'tp_rank="0"' in kept[0] and 'tp_rank="2"' in kept[1]
    # the same DP groups as the scrape without the flag, whose exporters are ranks 0 and 2
    assert c.caveats == ()


def test_copies_that_disagree_are_named_and_the_lowest_rank_read():
    text = _scrape("sglang_tp2_all_schedulers_after").replace(
        'sglang:num_running_reqs{engine_type="unified",model_name="Qwen/Qwen3-8B",moe_ep_rank="0",pp_rank="0",'
        'tp_rank="1"} 4.0',
        'sglang:num_running_reqs{engine_type="unified",model_name="Qwen/Qwen3-8B",moe_ep_rank="0",pp_rank="0",'
        'tp_rank="1"} 3.0',
    )
    c = parse_metrics(text)
    assert c.running == 4.0
    assert c.caveats == (
        'RANK_COPIES_DIFFER(sglang:num_running_reqs: tp_rank="0" 4, tp_rank="1" 3; the lowest rank\'s is read)',
    )


def test_a_copy_label_beside_a_replica_label_groups_by_the_replica():
    # PP=2 without the flag: each PP stage's attention-TP rank 0 writes the same requests (copies), dp_rank apart
    lines = [
        f'sglang:num_running_reqs{{dp_rank="{dp}",engine_type="unified",model_name="m",moe_ep_rank="0",'
        f'pp_rank="{pp}",tp_rank="0"}} {n}'
        for dp, pp, n in ((0, 0, 6), (0, 1, 6), (1, 0, 2), (1, 1, 2))
    ]
    c = parse_metrics("\n".join([*lines, 'sglang:spec_verify_calls_total{engine_type="unified",model_name="m"} 7', ""]))
    assert (c.running, c.drafts) == (8.0, 7.0)


def test_the_gauge_parser_reads_each_copy_group_once():
    # the bench gauge sampler's parser: TP=2 with the flag read 8 running, 4 waiting; DP=2 x TP=2 16 / 6
    assert parse_gauges(_scrape("sglang_tp2_all_schedulers_after")) == (4.0, 2.0)
    assert parse_gauges(_scrape("sglang_dp2_after")) == (8.0, 3.0)
    assert parse_gauges(_scrape("sglang_dp2_tp2_all_schedulers_after")) == (8.0, 3.0)


def test_the_gauge_child_is_handed_the_copy_labels():
    # the sampler's child process (its own command line) against a real server on 127.0.0.1
    body = _scrape("sglang_dp2_tp2_all_schedulers_after").encode()

    class Metrics(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Metrics)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        with GaugeSampler(f"http://127.0.0.1:{server.server_address[1]}", interval_s=0.05) as sampler:
            pass
        samples = sampler.stop()
    finally:
        server.shutdown()
        server.server_close()
    assert samples and {(g.running, g.waiting) for g in samples} == {(8.0, 3.0)}


def test_the_gauge_parser_reads_labels_with_escapes_and_timestamps():
    # an escaped quote and a comma inside a value stay inside it; a sample's timestamp is not its value
    text = (
        'sglang:num_running_reqs{model_name="a\\"b,c",pp_rank="0",tp_rank="1"} 2 1767225600000\n'
        'sglang:num_running_reqs{model_name="a\\"b,c",pp_rank="0",tp_rank="0"} 3 1767225600000\n'
        'sglang:num_running_reqs{model_name="d",pp_rank="0",tp_rank="0"} 5\n'
        'sglang:num_queue_reqs{model_name="d"} 1\n'
    )
    assert parse_gauges(text) == (8.0, 1.0)
