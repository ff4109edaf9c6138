"""Issue 37, round 53: nothing in a server log is dropped without a name.

A recognised line whose number is not printed the engine's way gives no figure and is named
``LOG_LINE_UNREADABLE(line N: ...)`` (:func:`specscope.adapters.logs.line_unreadable`), through ``serve --parse-log``.
"""

from __future__ import annotations

import json
from pathlib import Path

from clirun import cli

STAMP = "INFO 05-01 12:00:00 [gpu_model_runner.py:1] "


def _parse(tmp_path: Path, text: str, capsys, monkeypatch, *, fmt: str = "json") -> tuple[int, str]:
    path = tmp_path / "hl.log"
    path.write_text(text)
    argv = ["serve", "--parse-log", path] + (["--format", "json"] if fmt == "json" else [])
    code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code in (0, 1), err
    return code, out


def test_vllm_start_up_figures_not_printed_its_way_are_named(tmp_path, capsys, monkeypatch):
    """vLLM prints ``Model loading took %.2f GiB memory and %.6f seconds``, ``Available KV cache memory: %.2f GiB``,
    ``Maximum concurrency for {:,} tokens per request: %.2fx``: ``1e3 GiB`` was dropped without a word."""
    text = (
        f"{STAMP}Model loading took 1e3 GiB memory and 10.177328 seconds\n"
        f"{STAMP}Available KV cache memory: 4.8e0 GiB\n"
        f"{STAMP}GPU KV cache size: 36,432 tokens\n"
        f"{STAMP}Maximum concurrency for 65,536 tokens per request: 1.8e1x\n"
        f"{STAMP}Loading weights took 1.2.3 seconds\n"
        f"{STAMP}Available KV cache memory: -0.30 GiB\n"
    )
    _, out = _parse(tmp_path, text, capsys, monkeypatch)
    facts = json.loads(out)
    assert facts["unreadable_lines"] == [
        "LOG_LINE_UNREADABLE(line 1: weights_loaded_gib '1e3' is not a number as the engine prints it (fixed-point "
        "digits); the line gives no statistic)",
        "LOG_LINE_UNREADABLE(line 2: available_kv_cache_memory_gib '4.8e0' is not a number as the engine prints it "
        "(fixed-point digits); the line gives no statistic)",
        "LOG_LINE_UNREADABLE(line 4: max_concurrency_requests '1.8e1' is not a number as the engine prints it "
        "(fixed-point digits); the line gives no statistic)",
        "LOG_LINE_UNREADABLE(line 5: weights_load_s '1.2.3' is not a number as the engine prints it (fixed-point "
        "digits); the line gives no statistic)",
    ]
    assert (facts["weights_loaded_gib"], facts["model_loading_s"], facts["max_concurrency_requests"]) == (
        None,
        None,
        None,
    )
    assert facts["kv_cache_size_tokens"] == 36432
    assert facts["available_kv_cache_memory_gib"] == -0.3  # a negative figure is printed so (%.2f), and read
    assert facts["weights_load_s"] == []
    _, text_out = _parse(tmp_path, text, capsys, monkeypatch, fmt="text")
    assert "LOG_LINE_UNREADABLE(line 1: weights_loaded_gib '1e3' is not a number" in text_out


def test_a_log_of_one_unreadable_start_up_line_is_recognised(tmp_path, capsys, monkeypatch):
    """A log whose one vLLM line is unreadable was refused as holding nothing recognised."""
    _, out = _parse(tmp_path, f"{STAMP}Model loading took 1e3 GiB and 558.868858 seconds\n", capsys, monkeypatch)
    assert json.loads(out)["unreadable_lines"] == [
        "LOG_LINE_UNREADABLE(line 1: weights_loaded_gib '1e3' is not a number as the engine prints it (fixed-point "
        "digits); the line gives no statistic)"
    ]


CAPACITY = (
    "[2026-03-02 08:01:{s:02d} TP0] Decode batch. #running-req: 2, #token: 4096, token usage: {usage}, cuda graph: "
    "True, gen throughput (token/s): {gen}, #queue-req: 0\n"
)


def test_sglang_capacity_line_with_an_unreadable_figure_is_named(tmp_path, capsys, monkeypatch):
    """SGLang prints ``token usage: {:.2f}`` and ``gen throughput (token/s): {:.2f}``: a line holding ``1e-1`` gave
    no capacity sample and no word."""
    text = "".join(
        CAPACITY.format(s=s, usage=usage, gen=gen)
        for s, usage, gen in ((0, "1e-1", "180.00"), (10, "0.50", "1.8e2"), (20, "0.29", "180.00"))
    )
    _, out = _parse(tmp_path, text, capsys, monkeypatch)
    reading = json.loads(out)["engine_logs"][0]
    assert reading["warnings"] == [
        "LOG_LINE_UNREADABLE(line 1: token usage '1e-1' is not a number as the engine prints it (fixed-point "
        "digits); the line gives no statistic)",
        "LOG_LINE_UNREADABLE(line 2: gen throughput '1.8e2' is not a number as the engine prints it (fixed-point "
        "digits); the line gives no statistic)",
    ]
    assert [(c["line_number"], c["kv_cache_usage_percent"]) for c in reading["capacity"]] == [(3, 29.0)]


def test_a_log_of_one_unreadable_sglang_capacity_line_is_recognised(tmp_path, capsys, monkeypatch):
    _, out = _parse(tmp_path, CAPACITY.format(s=0, usage="1e-1", gen="180.00"), capsys, monkeypatch)
    assert json.loads(out)["engine_logs"][0]["warnings"] == [
        "LOG_LINE_UNREADABLE(line 1: token usage '1e-1' is not a number as the engine prints it (fixed-point "
        "digits); the line gives no statistic)"
    ]


def test_llamacpp_per_position_list_with_an_exponent_is_named(tmp_path, capsys, monkeypatch):
    """llama.cpp prints each per-position rate with ``%.3f`` (tools/server/server-context.cpp): a list holding
    ``1e-1`` was left absent (no positions) without a word, in the request line (PR #24536) and the trace line."""
    text = (
        "slot print_timing: id  1 | task 0 | draft acceptance = 0.64479 (  167 accepted /   259 generated), mean "
        "acceptance length =  2.92, acceptance rate per position = (0.805, 1e-1, 0.483)\n"
        "slot print_timing: id  0 | task 12 | draft acceptance = 0.50000 (  150 accepted /   300 generated), "
        "mean len =  3.00\n"
        "slot print_timing: id  0 | task 12 |      acc per pos = (0.800, 6e-1, 0.400)\n"
    )
    _, out = _parse(tmp_path, text, capsys, monkeypatch)
    reading = json.loads(out)["engine_logs"][0]
    assert reading["warnings"] == [
        "LOG_LINE_UNREADABLE(line 1: acceptance rate per position '0.805, 1e-1, 0.483' is not a number as the "
        "engine prints it (fixed-point digits); only the per-position rates are absent, the line's other figures are "
        "read)",
        "LOG_LINE_UNREADABLE(line 3: acc per pos '0.800, 6e-1, 0.400' is not a number as the engine prints it "
        "(fixed-point digits); the line gives no statistic)",
    ]
    # both requests, their counts kept and their per-position rates absent (line 1's own list unreadable; line 2's
    # trace line, line 3, unreadable)
    got = [(s["line_number"], s["accepted_tokens"], s["per_position"]) for s in reading["stats"]]
    assert got == [(1, 167, []), (2, 150, [])]


def test_vllm_stats_line_not_printed_its_way_is_named(tmp_path, capsys, monkeypatch):
    """vLLM's stats line prints ``Avg prompt throughput: %.1f tokens/s`` and ``GPU KV cache usage: %.1f%%``
    (vllm/v1/metrics/loggers.py): ``9.7e1%`` gave no sample and no word."""
    line = (
        "INFO 05-01 12:00:{s:02d} [loggers.py:1] Engine 000: Avg prompt throughput: {p} tokens/s, Avg generation "
        "throughput: 35.2 tokens/s, Running: 21 reqs, Waiting: 0 reqs, GPU KV cache usage: {u}%, Prefix cache hit "
        "rate: 0.0%\n"
    )
    text = (
        line.format(s=0, p="0.0", u="9.7e1")
        + line.format(s=10, p="1e2", u="50.0")
        + line.format(s=20, p="0.0", u="97.2")
    )
    _, out = _parse(tmp_path, text, capsys, monkeypatch)
    facts = json.loads(out)
    assert facts["unreadable_lines"] == [
        "LOG_LINE_UNREADABLE(line 1: kv_cache_usage_percent '9.7e1' is not a number as the engine prints it "
        "(fixed-point digits); the line gives no statistic)",
        "LOG_LINE_UNREADABLE(line 2: prompt_throughput_tokens_per_s '1e2' is not a number as the engine prints it "
        "(fixed-point digits); the line gives no statistic)",
    ]
    assert [(s["line_number"], s["kv_cache_usage_percent"]) for s in facts["stats"]] == [(3, 97.2)]
