"""``specscope predict``: seed 003's roofline from its inputs, and per-cell errors on a stored run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from factmaker import cell_facts
from hangguard import HANG_S
from specscope.store import create_run

SEED3_U = (0.936, 0.815, 0.681, 0.581, 0.484)


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "specscope", *args], capture_output=True, text=True, timeout=HANG_S)


def _cell(cfg, wl, rep, tok_s, counters=None):
    """One stream of 256 tokens decoding at ``tok_s`` after a 0.2 s TTFT; output rate 0.95 x ``tok_s``."""
    return cell_facts(
        cfg, wl, 1, rep, tok_s * 0.95, tokens_per_stream=256, ttft_s=0.2, decode_tok_s=tok_s, counters=counters
    )


def _run(tmp_path: Path, base: str = "base") -> Path:
    run = create_run(tmp_path / "run", {"kind": "bench", "engine": "external", "baseline": base})
    cells = [_cell(base, "code", r, 12.14) for r in range(2)]
    cells += [
        _cell(
            "mtp",
            "code",
            r,
            31.75,
            {
                "drafts": 1000.0,
                "draft_tokens": 5000.0,
                "accepted_tokens": 3497.0,
                "accepted_per_position": [1000 * u for u in SEED3_U],
            },
        )
        for r in range(2)
    ]
    for c in cells:
        run.save_cell(c)
    run.save_server_facts("mtp", {"num_speculative_tokens": 5})
    run.close()
    return tmp_path / "run"


def test_roofline_of_seed_003():
    r = _cli("predict", "--bytes-per-step", "17.61GB", "--bandwidth", "273GB/s", "--measured", "12.14")
    assert r.returncode == 0, r.stderr
    assert (
        r.stdout.strip() == "roofline 15.50 tok/s (17.61 GB per token at 273 GB/s); measured 12.14 tok/s is 78% of it"
    )


def test_run_prediction_json_reports_error_per_cell(tmp_path):
    r = _cli(
        "predict",
        str(_run(tmp_path)),
        "--bytes-per-step",
        "17.61GB",
        "--draft-bytes",
        "0.85GB",
        "--bandwidth",
        "273GB/s",
        "--format",
        "json",
    )
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["roofline_tok_s"] == pytest.approx(15.5026, abs=1e-4)
    assert doc["efficiency"] == pytest.approx(12.14 / 15.5026, abs=1e-4)
    cells = {c["config"]: c for c in doc["cells"]}
    assert cells["mtp"]["k"] == 5 and cells["mtp"]["rate_source"] == "decode"
    assert cells["mtp"]["measured_tok_s"] == pytest.approx(31.75)
    assert cells["mtp"]["error"] == pytest.approx(0.0, abs=1e-9)  # one cell, one overhead: fitted exactly
    assert [p["k"] for p in doc["curves"]["mtp"]["code"]] == list(range(1, 9))
    # k=1 from the model: tokens 1.936 over (17.61 + 0.85) GB at the effective bandwidth + 1 x overhead
    c = doc["models"]["mtp"]["draft_overhead_s"]
    bw = 17.61e9 * 12.14
    assert doc["curves"]["mtp"]["code"][0]["tok_s"] == pytest.approx(1.936 / ((17.61e9 + 0.85e9) / bw + c))


def test_predict_reads_the_runs_baseline_and_shows_the_judged_speedup(tmp_path):
    """A baseline not named ``base`` comes from the manifest; the measured speedup beside the prediction is the
    report's comparison (2 identical rounds: 31.75 / 12.14, faster)."""
    r = _cli("predict", str(_run(tmp_path, base="vanilla")), "--bytes-per-step", "17.61GB", "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    (m,) = doc["measured"]
    assert (m["config"], m["baseline"], m["workload"], m["rounds"], m["verdict"]) == (
        "mtp",
        "vanilla",
        "code",
        2,
        "faster",
    )
    assert m["speedup"] == pytest.approx(31.75 / 12.14, rel=1e-6)
    text = _cli("predict", str(_run(tmp_path / "t", base="vanilla")), "--bytes-per-step", "17.61GB").stdout
    assert "measured at one stream, as the report judges it" in text and "faster" in text


def test_errors_are_one_line_and_exit_2(tmp_path):
    r = _cli("predict", str(tmp_path / "missing"), "--bytes-per-step", "1GB")
    assert r.returncode == 2 and r.stderr.startswith("error: ") and "Traceback" not in r.stderr
    r = _cli("predict", str(_run(tmp_path)))  # no byte count anywhere
    assert r.returncode == 2 and "--bytes-per-step" in r.stderr
    r = _cli("predict", "--bytes-per-step", "17.61GB")
    assert r.returncode == 2 and "--bandwidth" in r.stderr
