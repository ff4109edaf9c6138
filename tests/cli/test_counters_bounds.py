"""Issue 29: ``specscope counters`` reads regular files only, within a size limit, and prints strict JSON."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from clirun import cli

DATA = Path(__file__).parent.parent / "data" / "counters"
SRC = str(Path(__file__).resolve().parents[2] / "src")
BEFORE = DATA / "llamacpp_before_no_per_pos.prom"


def _strict(text: str) -> object:
    def refuse(token: str) -> None:
        raise ValueError(f"{token} is not JSON")

    return json.loads(text, parse_constant=refuse)


def _bounded(*args: str) -> subprocess.CompletedProcess:
    """``specscope ARGS`` in a child limited to 2 GiB of address space and 60 s (a regression must not take the
    machine's memory: /dev/zero read to its end would)."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    env = {**os.environ, "PYTHONPATH": SRC}
    return subprocess.run(
        [sys.executable, "-m", "specscope", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        preexec_fn=limit,
    )


def test_a_fifo_is_refused_at_once(tmp_path):
    fifo = tmp_path / "after.prom"
    os.mkfifo(fifo)
    t0 = time.monotonic()
    res = _bounded("counters", str(BEFORE), str(fifo))
    assert res.returncode == 2 and time.monotonic() - t0 < 30
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
    t0 = time.monotonic()
    code, _out, err = cli(["counters", BEFORE, big], capsys, monkeypatch, tmp_path)
    assert code == 2 and time.monotonic() - t0 < 10
    assert f"{size:,} bytes" in err and "--max-bytes" in err
    code, _out, err = cli(["counters", BEFORE, big, "--max-bytes", "1"], capsys, monkeypatch, tmp_path)
    assert code == 2 and str(BEFORE) in err  # the limit applies to both files
    t0 = time.monotonic()
    argv = ["counters", BEFORE, big, "--max-bytes", "64MiB", "--timeout", "0.05"]
    code, _out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 2 and "took longer than the limit" in err and time.monotonic() - t0 < 10
    code, _out, _err = cli(["counters", "--help"], capsys, monkeypatch, tmp_path)
    assert code == 0 and "--max-bytes" in _out and "--timeout" in _out


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
