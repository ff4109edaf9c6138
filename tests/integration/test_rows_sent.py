"""Issue 35 item 2, "what was sent is what is reported": every row of a dataset or workload file is sent once per
repeat (``--sample-rows N`` sends N), at concurrency 1 and above, with 1 and 2 repeats; the run's rows sent (the
cells' ``rows_sent``, the manifest's counts) equal the truth server's log of what it received, row by row; every
request keeps its row id and the JSON report carries it; a dataset's categories are named against its full list."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from dataset_files import (
    qid,
    speed_row,
    write_blazedit_parquet,
    write_instructcoder_jsonl,
    write_mt_bench_jsonl,
    write_spec_bench_jsonl,
    write_speed_parquet,
    write_speed_prepared_jsonl,
    write_speed_throughput_parquet,
)
from doc_tables import documented_tables
from hangguard import HANG_S
from sent_rows import assert_rows_sent, measured, only_run
from specscope.bench import run_bench
from specscope.config import BenchOptions
from specscope.store import open_run
from specscope.truth import ResponsePlan, TruthScript, TruthServer
from specscope.workload.datasets import load_dataset

pytestmark = pytest.mark.integration


def _first_turns(log: list[dict[str, Any]]) -> Counter[str]:
    """First user turn of each conversation the server received (a later turn carries its history)."""
    return Counter(r["messages"][0]["content"] for r in measured(log) if len(r["messages"]) == 1)


def _cells_rows(run_dir: Path) -> list[str]:
    with open_run(run_dir) as run:
        return [row for cell in run.cells() for row in cell.client.rows_sent or ()]


def _speed_rows() -> list[dict[str, Any]]:
    """12 rows: 3 of SPEED-Bench's 11 qualitative categories, 4 rows each."""
    return [speed_row(cat, i) for cat in ("coding", "math", "writing") for i in range(4)]


@pytest.mark.parametrize(("level", "repeats"), [(1, 1), (2, 2), (3, 1)])
def test_every_speed_bench_row_sent_once_per_repeat(tmp_path: Path, level: int, repeats: int) -> None:
    parquet = write_speed_parquet(tmp_path / "test-00000-of-00001.parquet", _speed_rows())
    opts = BenchOptions(
        configs=("mtp",),
        workloads=("speed-bench.coding", "speed-bench.math", "speed-bench.writing"),
        datasets=("speed-bench:qualitative",),
        dataset_path=str(parquet),
        levels=(level,),
        repeats=repeats,
        max_tokens=4,
    )
    with TruthServer(TruthScript(default=ResponsePlan(output_tokens=4))) as ts:
        run_dir = run_bench(opts, servers={"mtp": ts.base_url}, run_dir=tmp_path / "run")
        log = ts.served()
    texts = {qid(f"{c}-{i}"): f"{c} question {i}: explain step {i} briefly." for c in ("coding", "math", "writing")
             for i in range(4)}  # fmt: skip
    per_cell = assert_rows_sent(run_dir, log, texts)
    assert sorted(per_cell.values()) == [4] * 3 * repeats  # 3 categories x repeats, 4 rows each
    sent = _cells_rows(run_dir)
    assert Counter(sent) == Counter({q: repeats for q in texts})  # 12 rows x repeats, by question_id
    assert _first_turns(log) == Counter({t: repeats for t in texts.values()})
    assert Counter(texts[q] for q in sent) == _first_turns(log)
    manifest = json.loads((run_dir / "manifest.json").read_text())
    for w in ("speed-bench.coding", "speed-bench.math", "speed-bench.writing"):
        counts = {k: manifest["packs"][w][k] for k in ("rows_read", "rows_refused", "rows_skipped")}
        assert counts == {"rows_read": 4, "rows_refused": 0, "rows_skipped": 0}
        assert manifest["packs"][w]["rows_sent_per_repeat"] == 4
    (entry,) = manifest["datasets"]
    assert (entry["rows_total"], entry["rows_used"], entry["rows_sent_per_repeat"]) == (12, 12, 12)
    assert entry["categories"]["present"] == ["coding", "math", "writing"]
    assert entry["categories"]["missing"] == [
        "humanities", "multilingual", "qa", "rag", "reasoning", "roleplay", "stem", "summarization"
    ]  # fmt: skip


@pytest.mark.parametrize(("level", "repeats"), [(1, 1), (2, 2)])
def test_spec_bench_two_turn_rows_all_sent(tmp_path: Path, level: int, repeats: int) -> None:
    records = [
        {"question_id": 81, "category": "writing", "turns": ["Write a haiku about rain.", "Now about snow."]},
        {"question_id": 82, "category": "coding", "turns": ["Write add(a, b) in Python.", "Add type hints."]},
        {"question_id": 91, "category": "writing", "turns": ["Write a limerick."]},
        {"question_id": 161, "category": "translation", "turns": ["Translate to English: bonjour"]},
        {"question_id": 162, "category": "translation", "turns": ["Translate to English: guten Morgen"]},
        {"question_id": 241, "category": "qa", "turns": ["Who wrote Hamlet?"]},
        {"question_id": 242, "category": "qa", "turns": ["Who painted the Mona Lisa?"]},
    ]
    path = write_spec_bench_jsonl(tmp_path / "question.jsonl", records)
    workloads = ("spec-bench.mt_bench", "spec-bench.translation", "spec-bench.qa")
    opts = BenchOptions(configs=("mtp",), workloads=workloads, datasets=("spec-bench",), dataset_path=str(path),
                        levels=(level,), repeats=repeats, max_tokens=4)  # fmt: skip
    with TruthServer(TruthScript(default=ResponsePlan(output_tokens=4))) as ts:
        run_dir = run_bench(opts, servers={"mtp": ts.base_url}, run_dir=tmp_path / "run")
        log = ts.served()
    texts = {str(r["question_id"]): r["turns"][0] for r in records}
    per_cell = assert_rows_sent(run_dir, log, texts)
    assert sorted(per_cell.values()) == sorted([2, 2, 3] * repeats)  # mt_bench 3 rows, translation 2, qa 2
    sent = _cells_rows(run_dir)
    assert Counter(sent) == Counter({str(r["question_id"]): repeats for r in records})
    assert _first_turns(log) == Counter({r["turns"][0]: repeats for r in records})
    second = Counter(r["messages"][2]["content"] for r in measured(log) if len(r["messages"]) == 3)
    assert second == Counter({"Now about snow.": repeats, "Add type hints.": repeats})
    assert len(measured(log)) == 9 * repeats  # 7 rows, two of them with a second turn
    manifest = json.loads((run_dir / "manifest.json").read_text())
    (entry,) = manifest["datasets"]
    assert (entry["rows_total"], entry["rows_used"], entry["rows_sent_per_repeat"]) == (7, 7, 7)


@pytest.mark.parametrize(("level", "repeats"), [(1, 2), (2, 1)])
def test_workload_file_rows_and_sample(tmp_path: Path, level: int, repeats: int) -> None:
    rows = [{"id": f"r{i}", "prompt": f"File prompt number {i}.", "max_tokens": 2 + i} for i in range(5)]
    path = tmp_path / "mine.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    base = {"configs": ("mtp",), "workloads": ("mine",), "workload_files": {"mine": str(path)}, "levels": (level,),
            "repeats": repeats, "max_tokens": 16}  # fmt: skip
    with TruthServer(TruthScript(default=ResponsePlan(output_tokens=4))) as ts:
        run_dir = run_bench(BenchOptions(**base), servers={"mtp": ts.base_url}, run_dir=tmp_path / "all")
        full_log = ts.served()
        log = measured(full_log)
        ts.clear_log()
        sampled = run_bench(BenchOptions(**base, sample_rows=2), servers={"mtp": ts.base_url}, run_dir=tmp_path / "s")
        sample_log = measured(ts.served())
    texts = {f"r{i}": f"File prompt number {i}." for i in range(5)}
    assert sorted(assert_rows_sent(run_dir, full_log, texts).values()) == [5] * repeats
    assert sorted(assert_rows_sent(sampled, sample_log, texts).values()) == [2] * repeats
    assert Counter(_cells_rows(run_dir)) == Counter({f"r{i}": repeats for i in range(5)})
    # each row's own max_tokens reaches the server, row by row
    assert Counter((r["prompt"], r["max_tokens"]) for r in log) == Counter(
        {(f"File prompt number {i}.", 2 + i): repeats for i in range(5)}
    )
    sent = _cells_rows(sampled)
    assert len(sent) == 2 * repeats == len(sample_log)
    assert Counter(f"File prompt number {s[1:]}." for s in sent) == Counter(r["prompt"] for r in sample_log)
    counts = json.loads((sampled / "manifest.json").read_text())["packs"]["mine"]
    assert set(counts) == documented_tables()[-4] - {"datasets"}  # a file's pack: docs/report-json.md
    assert {k: counts[k] for k in ("rows_read", "rows_skipped", "rows_sent_per_repeat", "sample_rows")} == {
        "rows_read": 5, "rows_skipped": 3, "rows_sent_per_repeat": 2, "sample_rows": 2
    }  # fmt: skip


def test_cli_names_rows_sample_and_missing_categories(tmp_path: Path) -> None:
    parquet = write_speed_parquet(tmp_path / "test-00000-of-00001.parquet", _speed_rows())
    with TruthServer(TruthScript(default=ResponsePlan(output_tokens=4))) as ts:
        cmd = [sys.executable, "-m", "specscope", "bench", "--server", f"mtp={ts.base_url}", "--out",
               str(tmp_path / "runs"), "--dataset", "speed-bench:qualitative", "--dataset-path", str(parquet),
               "--max-concurrency", "2", "--repeats", "1", "--max-tokens", "4", "--sample-rows", "3",
               "--format", "json", "--output", str(tmp_path / "report.json")]  # fmt: skip
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=HANG_S)
        full_log = ts.served()
        log = measured(full_log)
    assert res.returncode == 0, res.stderr[-2000:]
    assert "rows: speed-bench.coding: a sample of 3 of 4 rows (--sample-rows 3) per cell, once per repeat" in res.stderr
    assert (
        "categories: speed-bench:qualitative holds 3 of its 11 categories (coding, math, writing); missing: "
        "humanities, multilingual, qa, rag, reasoning, roleplay, stem, summarization" in res.stderr
    )
    doc = json.loads((tmp_path / "report.json").read_text())
    by_id = {qid(f"{c}-{i}"): f"{c} question {i}: explain step {i} briefly." for c in ("coding", "math", "writing")
             for i in range(4)}  # fmt: skip
    sent = [row for cell in doc["cells"] for row in cell["client"].get("rows_sent", [])]
    assert len(sent) == 9 == len(log)
    per_cell = assert_rows_sent(only_run(tmp_path / "runs"), full_log, by_id)
    assert sorted(per_cell.values()) == [3, 3, 3]
    # docs/report-json.md names every key of these objects (its last four tables)
    pack, dataset, categories, client = documented_tables()[-4:]
    assert all(set(p) == pack - {"sha256"} for p in doc["manifest"]["packs"].values())  # a file's alone
    (entry,) = doc["manifest"]["datasets"]
    assert set(entry) == dataset and set(entry["categories"]) == categories
    assert all(client & set(c["client"]) == {"rows_sent"} for c in doc["cells"])  # no conversation rows here
    assert Counter(by_id[q] for q in sent) == Counter(r["prompt"] for r in log)


def test_open_loop_rate_sends_every_file_row_once_per_repeat(tmp_path: Path) -> None:
    rows = [{"id": f"q{i}", "prompt": f"Open loop prompt {i}."} for i in range(5)]
    path = tmp_path / "mine.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    opts = BenchOptions(configs=("mtp",), workloads=("mine",), workload_files={"mine": str(path)}, rates=(50.0,),
                        repeats=2, max_tokens=4)  # fmt: skip
    with TruthServer(TruthScript(default=ResponsePlan(output_tokens=4))) as ts:
        run_dir = run_bench(opts, servers={"mtp": ts.base_url}, run_dir=tmp_path / "run")
        log = measured(ts.served())
    texts = {f"q{i}": f"Open loop prompt {i}." for i in range(5)}
    assert sorted(assert_rows_sent(run_dir, log, texts).values()) == [5, 5]
    assert Counter(_cells_rows(run_dir)) == Counter({f"q{i}": 2 for i in range(5)})
    assert Counter(r["prompt"] for r in log) == Counter({f"Open loop prompt {i}.": 2 for i in range(5)})


def _throughput(tmp_path: Path) -> tuple[str, Path, dict[str, str]]:
    write_speed_throughput_parquet(tmp_path / "throughput_1k" / "test-00000-of-00001.parquet")
    texts = {qid(f"{t}-{i}"): f"{t} document {i}: " for t in ("low_entropy", "mixed", "high_entropy") for i in (0, 1)}
    return "speed-bench:throughput_1k", tmp_path, texts


def _prepared(tmp_path: Path) -> tuple[str, Path, dict[str, str]]:
    rows = [speed_row("coding", 0, ["Write a loop.", "Now unroll it."]), speed_row("math", 1)]
    path = write_speed_prepared_jsonl(tmp_path / "qualitative.jsonl", rows)
    return "speed-bench", path, {qid("coding-0"): "Write a loop.", qid("math-1"): "math question 1: explain step 1"}


DATASET_FILES = {  # reader -> (dataset spec, its file, {row id: the text its first request carries})
    "mt-bench": lambda d: (
        "mt-bench", write_mt_bench_jsonl(d / "question.jsonl"),
        {"81": "Compose a travel blog post.", "111": "What is 3 + 4?"},
    ),
    "blazedit": lambda d: (
        "blazedit:5k", write_blazedit_parquet(d / "train-00000-of-00001.parquet"),
        {"0": "Rename f to g.", "1": "Rewrite as a class.", "2": "Add type hints."},
    ),
    "instructcoder": lambda d: (
        "instructcoder", write_instructcoder_jsonl(d / "ic.jsonl"),
        {"0": "Add a docstring.", "1": "Use a list comprehension."},
    ),
    "speed-bench-throughput": _throughput,
    "speed-bench-prepared": _prepared,
}  # fmt: skip


@pytest.mark.parametrize(("level", "repeats"), [(1, 1), (2, 2)])
@pytest.mark.parametrize("reader", list(DATASET_FILES))
def test_each_dataset_reader_sends_every_row_once_per_repeat(
    tmp_path: Path, reader: str, level: int, repeats: int
) -> None:
    spec, path, texts = DATASET_FILES[reader](tmp_path)
    workloads = tuple(load_dataset(spec, path).workloads)
    opts = BenchOptions(configs=("mtp",), workloads=workloads, datasets=(spec,), dataset_path=str(path),
                        levels=(level,), repeats=repeats, max_tokens=2,
                        contexts=(1024,) if reader == "speed-bench-throughput" else ())  # fmt: skip
    with TruthServer(TruthScript(default=ResponsePlan(output_tokens=2))) as ts:
        run_dir = run_bench(opts, servers={"mtp": ts.base_url}, run_dir=tmp_path / "run")
        log = ts.served()
    per_cell = assert_rows_sent(run_dir, log, texts)
    assert sum(per_cell.values()) == len(texts) * repeats  # every row once per repeat
    assert len(per_cell) == len(workloads) * repeats
    (entry,) = json.loads((run_dir / "manifest.json").read_text())["datasets"]
    assert entry["rows_sent_per_repeat"] == len(texts)


FILE_LAYOUTS = {  # layout -> (file name, its text, {row id: the text its first request ends with})
    "sharegpt-array": (
        "sg.json",
        json.dumps([
            {"id": "sg1", "conversations": [{"from": "human", "value": "Say a fruit"}, {"from": "gpt", "value": "A"}]},
            {"conversations": [{"from": "human", "value": "Name a colour."}]},
        ]),
        {"sg1": "Say a fruit", "item 2": "Name a colour."},
    ),
    "csv": ("rows.csv", "prompt,max_tokens\nFirst csv row.,2\nSecond csv row.,3\n",
            {"line 2": "First csv row.", "line 3": "Second csv row."}),
    "text-lines": ("lines.txt", "One line.\n\nAnother line.\n", {"line 1": "One line.", "line 3": "Another line."}),
}  # fmt: skip


@pytest.mark.parametrize("layout", list(FILE_LAYOUTS))
def test_file_layouts_at_concurrency_2_with_2_repeats(tmp_path: Path, layout: str) -> None:
    name, text, texts = FILE_LAYOUTS[layout]
    path = tmp_path / name
    path.write_text(text, "utf-8")
    opts = BenchOptions(configs=("mtp",), workloads=("mine",), workload_files={"mine": str(path)}, levels=(2,),
                        repeats=2, max_tokens=2)  # fmt: skip
    with TruthServer(TruthScript(default=ResponsePlan(output_tokens=2))) as ts:
        run_dir = run_bench(opts, servers={"mtp": ts.base_url}, run_dir=tmp_path / "run")
        log = ts.served()
    assert assert_rows_sent(run_dir, log, texts) == {"mtp/mine/c2/r0": 2, "mtp/mine/c2/r1": 2}
