"""The workload axis: labels, temperatures / contexts / thinking as cell dimensions, CLI overrides."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from dataset_files import write_speed_bench_parquet
from hangguard import HANG_S
from specscope.bench.plan import plan_cells
from specscope.bench.workloads import cell_request, cli_overrides, expand_workloads
from specscope.config import BenchOptions
from specscope.errors import ConfigError
from specscope.workload import Prompt
from specscope.workload.labels import Variant, parse_label


def test_labels_round_trip():
    v = Variant("speed-bench.coding", 2048, 0.6, True)
    assert v.label() == "speed-bench.coding@2k@t0.6@think"
    assert parse_label(v.label()) == v
    assert parse_label("prose") == Variant("prose")
    assert parse_label("mine@1500") == Variant("mine", 1500)


def test_temperatures_are_a_cell_dimension():
    opts = BenchOptions(configs=("base",), workloads=("prose",), levels=(1,), repeats=1, temperatures=(0, 0.6, 1.0))
    assert sorted(k.workload for k in plan_cells(opts)) == ["prose@t0", "prose@t0.6", "prose@t1"]
    body = cell_request(opts, "prose@t0.6", Prompt("p", "prose", [{"role": "user", "content": "x"}]), 16)
    assert body == {"temperature": 0.6, "thinking": False, "max_tokens": 16, "ignore_eos": False}


def test_contexts_and_thinking_both_expand():
    opts = BenchOptions(workloads=("code",), contexts=(2048, 8192), thinking="both")
    assert expand_workloads(opts) == ["code@2k", "code@2k@think", "code@8k", "code@8k@think"]


def test_prompt_max_tokens_overrides_the_run_cap():
    opts = BenchOptions()
    prompt = Prompt("mine-0001", "mine", [{"role": "user", "content": "x"}], meta={"max_tokens": 5})
    assert cell_request(opts, "mine@think", prompt, 96) == {
        "temperature": 0.0, "thinking": True, "max_tokens": 5, "ignore_eos": False
    }  # fmt: skip


def test_cli_overrides_with_files_and_datasets(tmp_path: Path):
    prompts = tmp_path / "p.txt"
    prompts.write_text("one\ntwo\n")
    parquet = write_speed_bench_parquet(tmp_path / "q.parquet")
    out = cli_overrides(None, [f"mine={prompts}"], ["speed-bench:qualitative"], str(parquet), "2k", "0,0.6,1.0")
    assert out["workloads"] == ("mine", "speed-bench.coding", "speed-bench.math", "speed-bench.writing")
    assert out["workload_files"] == {"mine": str(prompts.resolve())}
    assert out["datasets"] == ("speed-bench:qualitative",)
    assert out["contexts"] == (2048,)
    assert out["temperatures"] == (0.0, 0.6, 1.0)
    with pytest.raises(ConfigError):
        cli_overrides(None, None, None, None, None, "0,hot")


def test_malformed_line_is_one_error_line_exit_2(tmp_path: Path):
    bad = tmp_path / "prompts.jsonl"
    bad.write_text('{"prompt": "fine"}\n{"messages": oops}\n')
    res = subprocess.run(
        [sys.executable, "-m", "specscope", "bench", "--workload", f"mine={bad}", "--out", str(tmp_path / "runs")],
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert res.returncode == 2, res.stderr
    assert "Traceback" not in res.stderr
    errors = [line for line in res.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and f"{bad}:2: invalid JSON" in errors[0], res.stderr
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


def test_a_file_smaller_than_the_highest_level_runs_every_row(tmp_path: Path):
    """Issue 35: a file's rows are all sent once per repeat, at most `level` at a time (or at the open-loop rate), so
    a file of 2 rows runs at level 4 (its cells send 2) and under 4 rates alike."""
    from specscope.bench.workload_rows import cell_prompts
    from specscope.bench.workloads import check_sources
    from specscope.workload.userfile import load_prompt_file

    prompts = tmp_path / "p.txt"
    prompts.write_text("one\ntwo\n")
    for opts in (
        BenchOptions(workloads=("mine",), workload_files={"mine": str(prompts)}, levels=(1, 4)),
        BenchOptions(workloads=("mine",), workload_files={"mine": str(prompts)}, rates=(1.0, 2.0, 3.0, 4.0)),
    ):
        check_sources(opts)
        rows = load_prompt_file("mine", prompts)
        for level in (1, 4):
            sent = cell_prompts(opts, "mine", 0, level, rows, 40 if opts.rates else None)
            assert sorted(p.first_user_text for p in sent) == ["one", "two"]
