"""``specscope predict`` without a run, with a draft overhead (issue 16): ``--overhead`` or ``--fit-k``.

Seed 003's published inputs (the seed documents, 003_86f0b3193fa9dc3e.txt): 17.61 GB read per token, 273 GB/s,
no-draft 12.14 tok/s, MTP head 0.85 GB per draft step, per-position acceptance at k=5 "0.936 / 0.815 / 0.681 /
0.581 / 0.484", and its k table "no draft 12.14 ±0.01, k=1 20.00 ±0.14, k=2 26.48 ±0.30, k=3 29.61 ±0.50, k=4
33.10 ±1.13, k=5 31.75 ±1.17, k=6 35.58 ±1.48". The pure bandwidth model says 43.98 tok/s at k=5; fitted on k=1,2
the overhead brings k=3..5 within a few percent of the seed's figures.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from factmaker import cell_facts
from hangguard import HANG_S
from specscope.store import create_run

SEED3_U = (0.936, 0.815, 0.681, 0.581, 0.484)
SEED3_TOK_S = {1: 20.00, 2: 26.48, 3: 29.61, 4: 33.10, 5: 31.75}
INPUTS = [
    "--per-position", ",".join(map(str, SEED3_U)),
    "--bytes-per-step", "17.61GB", "--draft-bytes", "0.85GB", "--bandwidth", "273GB/s", "--measured", "12.14",
    "--max-k", "5",
]  # fmt: skip
BW = 17.61e9 * 12.14  # effective bandwidth, bytes/s


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "specscope", *args], capture_output=True, text=True, timeout=HANG_S)


def _tps(k: int) -> float:
    return 1 + sum(SEED3_U[:k])


def _by_hand(overhead_s: float, k: int) -> float:
    """tok/s = tokens per step / ((17.61 GB + k x 0.85 GB) / effective bandwidth + k x overhead)."""
    return _tps(k) / ((17.61e9 + k * 0.85e9) / BW + k * overhead_s)


def _fit_by_hand(ks: tuple[int, ...]) -> float:
    """One-parameter least squares: c = sum k r_k / sum k^2, r_k the step time the bytes leave unexplained."""
    resid = {k: _tps(k) / SEED3_TOK_S[k] - (17.61e9 + k * 0.85e9) / BW for k in ks}
    return sum(k * r for k, r in resid.items()) / sum(k * k for k in ks)


def test_fit_on_k1_k2_predicts_k3_to_k5_within_a_few_percent_of_the_seed():
    c = _fit_by_hand((1, 2))
    assert round(c * 1e3, 3) == 7.517  # ms per drafted token
    assert [round(_by_hand(c, k), 2) for k in (3, 4, 5)] == [29.37, 31.27, 32.16]
    r = _cli("predict", *INPUTS, "--fit-k", "1=20.00,2=26.48", "--compare", "3=29.61,4=33.10,5=31.75")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[2:8] == [
        " k  tokens/step    tok/s  speedup  measured   error  row",
        " 1        1.936    20.63    1.70x     20.00   +3.1%  fitted",
        " 2        2.751    26.11    2.15x     26.48   -1.4%  fitted",
        " 3        3.432    29.37    2.42x     29.61   -0.8%  predicted",
        " 4        4.013    31.27    2.58x     33.10   -5.5%  predicted",
        " 5        4.497    32.16    2.65x     31.75   +1.3%  predicted",
    ]
    for k in (1, 2, 3, 4, 5):  # the printed figures are the hand-computed ones
        pred = _by_hand(c, k)
        assert f" {pred:>7.2f}  {pred / 12.14:>6.2f}x  " in lines[2 + k]
        assert f"{100 * (pred / SEED3_TOK_S[k] - 1):+.1f}%" in lines[2 + k]
    assert (
        "validity: valid for one stream, decode only, bandwidth bound; u_i assumed independent of k; "
        "per-position rates published for k=1..5; overhead fitted on k=1,2"
    ) in lines
    assert (
        "note: draft overhead 7.517 ms per drafted token, least squares on the measured rates at k=1,2 "
        "(rows 'fitted', errors in-sample); k=3,4,5 predicted out of sample"
    ) in lines


def test_json_states_fitted_rows_errors_and_the_validity_range():
    r = _cli("predict", *INPUTS, "--fit-k", "1=20.00,2=26.48", "--compare", "3=29.61,4=33.10,5=31.75", "-f", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    c = _fit_by_hand((1, 2))
    assert doc["draft_overhead_s"] == pytest.approx(c, rel=1e-9)
    assert doc["fitted_k"] == [1, 2]
    assert doc["validity"].endswith("per-position rates published for k=1..5; overhead fitted on k=1,2")
    assert [row["role"] for row in doc["rows"]] == ["fitted", "fitted", "predicted", "predicted", "predicted"]
    for row in doc["rows"]:
        k = row["k"]
        assert row["tok_s"] == pytest.approx(_by_hand(c, k), rel=1e-9)
        assert row["measured_tok_s"] == SEED3_TOK_S[k]
        assert row["error"] == pytest.approx(_by_hand(c, k) / SEED3_TOK_S[k] - 1, rel=1e-9)


def test_a_given_overhead_predicts_every_row_and_compares_nothing_unasked():
    r = _cli("predict", *INPUTS, "--overhead", "7.5ms")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[2] == " k  tokens/step    tok/s  speedup  measured   error  row"
    assert [line.split()[2] for line in lines[3:8]] == [f"{_by_hand(7.5e-3, k):.2f}" for k in range(1, 6)]
    assert [line.split()[2] for line in lines[3:8]] == ["20.63", "26.12", "29.38", "31.28", "32.18"]
    assert all(line.endswith("—       —  predicted") for line in lines[3:8])
    assert "note: draft overhead 7.500 ms per drafted token, given (--overhead)" in lines


def test_the_overhead_predict_run_prints_is_the_run_less_input(tmp_path):
    """A run with seed 003's k=1 cell: ``predict RUN`` prints its fitted overhead; fed back with --overhead it
    reproduces the measured 20.00 tok/s at k=1."""
    run = create_run(tmp_path / "run", {"kind": "bench", "engine": "external"})
    counters = {"drafts": 1000.0, "draft_tokens": 1000.0, "accepted_tokens": 936.0, "accepted_per_position": [936.0]}
    for rep in range(2):
        run.save_cell(cell_facts("base", "code", 1, rep, 12.0, tokens_per_stream=256, ttft_s=0.2, decode_tok_s=12.14))
        run.save_cell(cell_facts("mtp-k1", "code", 1, rep, 19.0, tokens_per_stream=256, ttft_s=0.2,
                                 decode_tok_s=20.00, counters=counters))  # fmt: skip
    run.close()
    r = _cli("predict", str(tmp_path / "run"), "--bytes-per-step", "17.61GB", "--draft-bytes", "0.85GB")
    assert r.returncode == 0, r.stderr
    c_ms = 1e3 * (1.936 / 20.00 - (17.61e9 + 0.85e9) / BW)  # one point: the residual itself
    assert round(c_ms, 3) == 10.452
    assert f"mtp-k1: draft overhead {c_ms:.3f} ms per drafted token (predict --overhead {c_ms:.3f}ms)" in r.stdout
    back = _cli("predict", *INPUTS, "--overhead", f"{c_ms:.3f}ms")
    assert back.returncode == 0, back.stderr
    assert back.stdout.splitlines()[3].split()[2] == "20.00"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--fit-k", "1=20", "--overhead", "7ms"], "--overhead and --fit-k both set the draft overhead"),
        (["--fit-k", "1:20"], "--fit-k takes measured tok/s by draft length k"),
        (["--compare", "0=20"], "--compare takes measured tok/s by draft length k"),
        (["--fit-k", "1=20,1=21"], "--fit-k takes measured tok/s by draft length k"),
        (["--fit-k", "1=1e308,2=1e308"], "each rate at least 0.001 and at most 10,000,000 (outside that it is a typo)"),
    ],
)
def test_bad_calibration_is_exit_2_in_one_message(extra, message):
    r = _cli("predict", *INPUTS, *extra)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert message in r.stderr


def test_calibration_options_with_a_run_are_refused(tmp_path):
    r = _cli("predict", str(tmp_path), "--bytes-per-step", "17.61GB", "--fit-k", "1=20.00")
    assert r.returncode == 2
    assert "--fit-k applies only to the run-less prediction" in r.stderr
    assert "Traceback" not in r.stderr


def test_rates_above_the_free_draft_ceiling_are_said_and_no_rate_is_negative():
    """1e308 was taken: a fitted overhead of -5.3 ms per drafted token predicted -980 tok/s (-9.80x) at larger k.
    Rates above what the bytes allow with a free draft now hold the overhead at 0, and a note says why."""
    r = _cli("predict", *INPUTS, "--fit-k", "1=1000,2=1500", "-f", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert any("the draft overhead is held at 0" in n for n in doc["notes"]), doc["notes"]
    assert all(row["tok_s"] > 0 for row in doc["rows"]), doc["rows"]
