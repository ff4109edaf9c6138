"""Issue 29: ``specscope counters`` reads regular files only, within a size limit, and prints strict JSON."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from clirun import cli
from hangguard import HANG_S
from specscope.client import metrics

DATA = Path(__file__).parent.parent / "data" / "counters"
SRC = str(Path(__file__).resolve().parents[2] / "src")
BEFORE = DATA / "llamacpp_before_no_per_pos.prom"


def _strict(text: str) -> object:
    def refuse(token: str) -> None:
        raise ValueError(f"{token} is not JSON")

    return json.loads(text, parse_constant=refuse)


def _bounded(*args: str) -> subprocess.CompletedProcess:
    """``specscope ARGS`` in a child limited to 2 GiB of address space and HANG_S (a regression must not take the
    machine's memory: /dev/zero read to its end would)."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    env = {**os.environ, "PYTHONPATH": SRC}
    return subprocess.run(
        [sys.executable, "-m", "specscope", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=HANG_S,
        preexec_fn=limit,
    )


def test_a_fifo_is_refused_at_once(tmp_path):
    fifo = tmp_path / "after.prom"
    os.mkfifo(fifo)
    res = _bounded("counters", str(BEFORE), str(fifo))  # a FIFO opened for reading would block to the hang guard
    assert res.returncode == 2
    assert res.stderr.startswith("error: cannot read the scrape file") and "a FIFO" in res.stderr


def test_a_device_is_refused_not_read_to_the_end():
    res = _bounded("counters", str(BEFORE), "/dev/zero")
    assert res.returncode == 2, res.stderr
    assert "/dev/zero" in res.stderr and "not a regular file" in res.stderr


def test_a_scrape_above_the_size_limit_is_refused_before_it_is_read(tmp_path, capsys, monkeypatch):
    big = tmp_path / "big.prom"
    with big.open("w") as fh:
        fh.write(BEFORE.read_text())
        line = 'vllm:request_latency_bucket{model="m",le="%d"} %d\n'
        fh.writelines(line % (i, i) for i in range(220_000))
    size = big.stat().st_size
    assert size > 8 * 2**20
    parsed: list[int] = []  # the length of each text parsed: what "before it is read" means, timed by nothing
    real = metrics.parse_metrics
    monkeypatch.setattr(metrics, "parse_metrics", lambda text, *a, **k: parsed.append(len(text)) or real(text, *a, **k))
    code, _out, err = cli(["counters", BEFORE, big], capsys, monkeypatch, tmp_path)
    assert code == 2 and parsed == [len(BEFORE.read_text())]  # BEFORE only: the big file never reached the parser
    assert f"{size:,} bytes" in err and "--max-bytes" in err
    monkeypatch.setattr(metrics, "parse_metrics", real)
    code, _out, err = cli(["counters", BEFORE, big, "--max-bytes", "1"], capsys, monkeypatch, tmp_path)
    assert code == 2 and str(BEFORE) in err  # the limit applies to both files
    argv = ["counters", BEFORE, big, "--max-bytes", "64MiB", "--timeout", "0.05"]
    code, _out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 2 and "took longer than the limit" in err and f"{big}: not parsed within 0.05 s" in err
    code, _out, _err = cli(["counters", "--help"], capsys, monkeypatch, tmp_path)
    assert code == 0 and "--max-bytes" in _out and "--timeout" in _out


@pytest.mark.timing
def test_the_parse_deadline_ends_the_parse_at_once(tmp_path, capsys, monkeypatch):
    """``--timeout 0.05`` on a 64 MiB-allowed 8 MiB scrape: the deadline (SIGALRM) stops the parse where it is. The
    whole command took 0.74 s at nice 19 beside three ``make test`` runs (load 10, 2026-12-07); the bound is 10 s."""
    big = tmp_path / "big.prom"
    with big.open("w") as fh:
        fh.write(BEFORE.read_text())
        line = 'vllm:request_latency_bucket{model="m",le="%d"} %d\n'
        fh.writelines(line % (i, i) for i in range(220_000))
    t0 = time.monotonic()
    argv = ["counters", BEFORE, big, "--max-bytes", "64MiB", "--timeout", "0.05"]
    code, _out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 2 and "took longer than the limit" in err and time.monotonic() - t0 < 10


def test_nan_and_infinity_in_a_scrape_give_strict_json(tmp_path, capsys, monkeypatch):
    before = tmp_path / "b.prom"
    after = tmp_path / "a.prom"
    before.write_text(
        "vllm:spec_decode_num_drafts_total 5\nvllm:spec_decode_num_draft_tokens_total 10\n"
        "vllm:spec_decode_num_accepted_tokens_total 3\n"
    )
    after.write_text(
        "vllm:spec_decode_num_drafts_total NaN\nvllm:spec_decode_num_draft_tokens_total +Inf\n"
        "vllm:spec_decode_num_accepted_tokens_total 4\n"
    )
    code, out, err = cli(["counters", before, after, "-f", "json"], capsys, monkeypatch, tmp_path)
    assert code in (0, 2), err
    if code == 0:
        doc = _strict(out)
        assert isinstance(doc, dict) and doc["non_finite"], doc
        paths = {item["path"] for item in doc["non_finite"]}
        assert "deltas.drafts" in paths and all(item["reason"] for item in doc["non_finite"])
