"""vLLM's data-parallel stats line, ``N Engines Aggregated: ...`` (AggregatedLoggingStatLogger in
vllm/v1/metrics/loggers.py: running / waiting summed over the engines, KV cache usage their mean): its KV usage is
the mean of N engines, not a peak any engine reached. ``serve --parse-log`` showed it as ``peak_kv_cache_usage``
without a word."""

from __future__ import annotations

from clirun import cli
from specscope.launch import parse_vllm_log

AGGREGATED = (
    "INFO 12-06 10:00:00 [loggers.py:123] 2 Engines Aggregated: Avg prompt throughput: 100.0 tokens/s, Avg generation "
    "throughput: 50.0 tokens/s, Running: 8 reqs, Waiting: 2 reqs, GPU KV cache usage: 45.5%, Prefix cache hit rate: "
    "0.0%\n"
    "INFO 12-06 10:00:10 [loggers.py:123] 2 Engines Aggregated: Avg prompt throughput: 100.0 tokens/s, Avg generation "
    "throughput: 50.0 tokens/s, Running: 9 reqs, Waiting: 0 reqs, GPU KV cache usage: 61.0%, Prefix cache hit rate: "
    "0.0%\n"
)
ONE_ENGINE = (
    "INFO 12-06 10:00:20 [loggers.py:123] Engine 000: Avg prompt throughput: 10.0 tokens/s, Avg generation "
    "throughput: 5.0 tokens/s, Running: 3 reqs, Waiting: 0 reqs, GPU KV cache usage: 20.0%, Prefix cache hit rate: "
    "0.0%\n"
)


def test_an_aggregated_line_is_read_as_the_mean_of_its_engines():
    facts = parse_vllm_log(AGGREGATED + ONE_ENGINE)
    assert [(s.kv_cache_usage_percent, s.engines_pooled) for s in facts.stats] == [(45.5, 2), (61.0, 2), (20.0, None)]


def test_serve_parse_log_says_the_peak_is_a_mean_over_engines(capsys, monkeypatch, tmp_path):
    log = tmp_path / "dp.log"
    log.write_text(AGGREGATED)
    monkeypatch.setenv("COLUMNS", "250")
    code, out, err = cli(["serve", "--parse-log", log], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    row = next(ln for ln in out.splitlines() if "peak_kv_cache_usage" in ln)
    assert (
        "61.0% (running 9, waiting 0, line 2; the mean over 2 engines (requests summed): one engine's may be higher)"
        in row
    )


def test_one_engines_own_lines_give_the_peak_when_the_log_has_them(capsys, monkeypatch, tmp_path):
    log = tmp_path / "dp.log"
    log.write_text(AGGREGATED + ONE_ENGINE)
    monkeypatch.setenv("COLUMNS", "250")
    code, out, err = cli(["serve", "--parse-log", log], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    row = next(ln for ln in out.splitlines() if "peak_kv_cache_usage" in ln)
    assert "20.0% (running 3, waiting 0, line 3)" in row
