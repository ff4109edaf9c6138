"""``predict RUN --holdout 3,4,6`` (issue 16): fit on some k, predict the held-out k, print the error.

The run carries seed 003's published k sweep (the seed documents, 003_86f0b3193fa9dc3e.txt: "no draft 12.14,
k=1 20.00, k=2 26.48, k=3 29.61, k=4 33.10, k=5 31.75, k=6 35.58" tok/s; per-position acceptance at k=5
"0.936 / 0.815 / 0.681 / 0.581 / 0.484"; target 17.61 GB per token, MTP head 0.85 GB per draft step).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from factmaker import cell_facts
from hangguard import HANG_S
from specscope.bench.predict import holdout_on_run, predict_inputs
from specscope.errors import ConfigError
from specscope.stats.predict import draft_fraction_at, match_share
from specscope.store import create_run

SEED3_U = (0.936, 0.815, 0.681, 0.581, 0.484)
SEED3_TOK_S = {1: 20.00, 2: 26.48, 3: 29.61, 4: 33.10, 5: 31.75, 6: 35.58}
BYTES = ["--bytes-per-step", "17.61GB", "--draft-bytes", "0.85GB"]


def _cell(cfg: str, rep: int, tok_s: float, counters=None):
    return cell_facts(cfg, "code", 1, rep, tok_s * 0.95, tokens_per_stream=256, ttft_s=0.2, decode_tok_s=tok_s,
                      counters=counters)  # fmt: skip


def _run(tmp_path: Path) -> Path:
    run = create_run(tmp_path / "run", {"kind": "bench", "engine": "external"})
    for rep in range(2):
        run.save_cell(_cell("base", rep, 12.14))
        for k, tok_s in SEED3_TOK_S.items():
            u = SEED3_U[:k] if k <= 5 else (*SEED3_U, 0.484 * 0.484 / 0.581)
            counters = {"drafts": 1000.0, "draft_tokens": 1000.0 * k, "accepted_tokens": 1000 * sum(u)}
            counters["accepted_per_position"] = [1000 * x for x in u]
            run.save_cell(_cell(f"mtp-k{k}", rep, tok_s, counters))
    run.close()
    return tmp_path / "run"


def _expected(k_fit: tuple[int, ...], k: int) -> float:
    """The model by hand: step = (17.61 GB + k x 0.85 GB) / (17.61 GB x 12.14 tok/s) + k x c, c fitted on k_fit."""
    bw = 17.61e9 * 12.14

    def tps(kk: int) -> float:
        return 1 + sum((*SEED3_U, 0.484 * 0.484 / 0.581)[:kk])

    resid = [tps(kk) / SEED3_TOK_S[kk] - (17.61e9 + kk * 0.85e9) / bw for kk in k_fit]
    c = float(np.dot(k_fit, resid) / np.dot(k_fit, k_fit))
    return tps(k) / ((17.61e9 + k * 0.85e9) / bw + k * c)


def test_held_out_k_are_predicted_from_the_others(tmp_path):
    _, rows = holdout_on_run(_run(tmp_path), predict_inputs(bytes_per_step="17.61GB", draft_bytes="0.85GB"), "3,4,6")
    assert [(r.config, r.k, r.fitted_on) for r in rows] == [
        ("mtp-k3", 3, (1, 2, 5)),
        ("mtp-k4", 4, (1, 2, 5)),
        ("mtp-k6", 6, (1, 2, 5)),
    ]
    for r in rows:
        assert r.measured_tok_s == pytest.approx(SEED3_TOK_S[r.k], rel=1e-6)
        assert r.predicted_tok_s == pytest.approx(_expected((1, 2, 5), r.k), rel=1e-6)
        assert r.error == pytest.approx(r.predicted_tok_s / SEED3_TOK_S[r.k] - 1, rel=1e-6)


def test_cli_prints_out_of_sample_errors(tmp_path):
    run = _run(tmp_path)
    r = subprocess.run(
        [sys.executable, "-m", "specscope", "predict", str(run), *BYTES, "--holdout", "3,4,6"],
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("out-of-sample: each k predicted from a fit on the other k")
    err3 = 100 * (_expected((1, 2, 5), 3) / 29.61 - 1)
    assert f"mtp-k3       code      3 1,2,5         29.61 {_expected((1, 2, 5), 3):>9.2f} {err3:+.1f}%" in lines


def test_holding_out_every_k_is_refused(tmp_path):
    with pytest.raises(ConfigError) as err:
        holdout_on_run(_run(tmp_path), predict_inputs(bytes_per_step="17.61GB", draft_bytes="0.85GB"), "1,2,3,4,5,6")
    assert "nothing to fit on" in str(err.value)


def test_a_drafter_that_drafts_on_some_steps_only(tmp_path):
    """n-gram drafters draft where the context matches: with drafts on half the verify steps at the fitted k (drafts =
    0.5 x (generated - accepted - requests)) the overhead is fitted with f = 0.5, and a held-out k is predicted
    with the fraction its match share gives there (m = f (1 + S_2) / (1 + f S_2), f_k = m / ((1 - m)(1 + S_k) +
    m): a larger k drafts on fewer steps): tokens per step 1 + f_k S_k, draft terms x f_k."""
    run = create_run(tmp_path / "run", {"kind": "bench", "engine": "external"})
    u = (0.9, 0.8, 0.7, 0.6)
    rates = {1: 16.0, 2: 17.5, 3: 18.0, 4: 18.2}
    for rep in range(2):
        run.save_cell(_cell("base", rep, 12.0))
        for k, tok_s in rates.items():
            # 256 tokens generated (the client's count, or the cell is degraded) = 1 prefill token (the one
            # request's first) + steps + accepted, and drafts = steps / 2: accepted = drafts x sum(u) solves to
            # 127.5 sum(u) / (1 + sum(u) / 2) (before 2026-12-07 the prefill token was counted as a step: 128)
            accepted = 127.5 * sum(u[:k]) / (1 + sum(u[:k]) / 2)
            drafts = (256 - 1 - accepted) / 2
            counters = {"drafts": drafts, "draft_tokens": drafts * k, "accepted_tokens": accepted}
            counters["accepted_per_position"] = [drafts * x for x in u[:k]]
            counters["generation_tokens"] = 256.0
            run.save_cell(_cell(f"ngram-k{k}", rep, tok_s, counters))
    run.close()
    inputs = predict_inputs(bytes_per_step="1GB")  # n-gram drafting reads no weights
    _, rows = holdout_on_run(tmp_path / "run", inputs, "3,4")
    bw = 1e9 * 12.0
    tps = {k: 1 + 0.5 * sum(u[:k]) for k in (1, 2)}
    resid = [tps[k] / rates[k] - 1e9 / bw for k in (1, 2)]
    c = float(np.dot([0.5, 1.0], resid) / np.dot([0.5, 1.0], [0.5, 1.0]))  # regressed on f x k
    a2 = u[1] / u[0]  # the last conditional rate at the largest fitted k (2) continues the positions
    ext = (u[0], u[1], u[1] * a2, u[1] * a2 * a2)
    m = 0.5 * (1 + sum(u[:2])) / (1 + 0.5 * sum(u[:2]))  # 0.6296...: the match share at k = 2
    assert len(rows) == 2
    for r in rows:
        s_k = sum(ext[: r.k])
        f_k = m / ((1 - m) * (1 + s_k) + m)  # k=3: 0.4517..., k=4: 0.4302...
        assert r.draft_fraction == pytest.approx(f_k, rel=1e-12) and f_k < 0.5
        want = (1 + f_k * s_k) / (1e9 / bw + f_k * r.k * c)
        assert r.predicted_tok_s == pytest.approx(want, rel=1e-9)
        assert r.tokens_per_step == pytest.approx(1 + f_k * s_k, rel=1e-12)


U_GEOM = tuple(0.9**i for i in range(1, 5))  # u_i = 0.9^i: the k = 2 positions extend exactly


def _llamacpp_rate(k: int) -> float:
    """tokens per step / ((100 MB + (k + 1) x 80 MB) / 4 GB/s + k x 8 ms): a draft model run k + 1 times per step."""
    return (1 + sum(U_GEOM[:k])) / ((100e6 + (k + 1) * 80e6) / 4e9 + k * 0.008)


def _llamacpp_run(tmp_path: Path) -> Path:
    """draft-k1..k4 as the embedded engine stores them (a draft model of 80 MB, spec type draft-simple), rates from
    :func:`_llamacpp_rate`, and base at 40 tok/s (100 MB per step: 4 GB/s)."""
    run = create_run(tmp_path / "run", {"kind": "bench", "engine": "embedded"})
    for rep in range(2):
        run.save_cell(_cell("base", rep, 40.0))
        for k in (1, 2, 3, 4):
            counters = {"drafts": 1000.0, "draft_tokens": 1000.0 * k, "accepted_tokens": 1000 * sum(U_GEOM[:k])}
            counters["accepted_per_position"] = [1000 * x for x in U_GEOM[:k]]
            run.save_cell(_cell(f"draft-k{k}", rep, _llamacpp_rate(k), counters))
    for k in (1, 2, 3, 4):
        config = {"spec_types": ["draft-simple"], "draft_n_max_tokens": k}
        run.save_server_facts(f"draft-k{k}", {"draft": {"quant": "Q4_0", "size_bytes": 80e6}, "config": config})
    run.close()
    return tmp_path / "run"


def test_a_llamacpp_draft_model_is_predicted_with_its_draft_pass_per_step(tmp_path):
    """llama.cpp's draft-simple runs its draft k + 1 times per verify step (one pass mirrors the verify batch): rates
    made by that model are predicted exactly at the held-out k = 3, 4 from k = 1, 2 (8 ms per drafted token comes
    back); fitted without the pass, the overhead absorbed it and every held-out k came out too slow."""
    _, rows = holdout_on_run(_llamacpp_run(tmp_path), predict_inputs(bytes_per_step="100MB"), "3,4")
    assert [(r.config, r.fitted_on, r.draft_passes_per_step) for r in rows] == [
        ("draft-k3", (1, 2), 1.0),
        ("draft-k4", (1, 2), 1.0),
    ]
    for r in rows:
        assert r.draft_overhead_s == pytest.approx(0.008, rel=1e-6)
        assert r.predicted_tok_s == pytest.approx(_llamacpp_rate(r.k), rel=1e-6)
        assert r.error == pytest.approx(0.0, abs=1e-6)


def test_cli_says_the_draft_runs_once_more_per_step(tmp_path):
    run = _llamacpp_run(tmp_path)
    r = subprocess.run(
        [sys.executable, "-m", "specscope", "predict", str(run), "--bytes-per-step", "100MB"],
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert r.returncode == 0, r.stderr
    assert (
        "draft-k3: draft overhead 8.000 ms per drafted token (predict --overhead 8.000ms); the draft runs k + 1 "
        "times per verify step" in " ".join(r.stdout.split())
    )


def test_the_match_share_carries_the_drafting_fraction_across_k():
    """The k sweep in benchmarks/RESULTS.md (n-gram on edit, the embedded engine): 12 % of verify steps drafted at
    k = 2 (S_2 = 1.9 accepted per drafting step); at k = 3, 4, 6 (S_k = 2.83, 3.67, 5.33) the counters measured 9 %,
    8 %, 6 % and 1.26, 1.31 tokens per step at k = 3, 6. The match share gives those; f = 1 (MTP) stays 1."""
    m = match_share(0.12, 1.9)
    assert m == pytest.approx(0.12 * 2.9 / 1.228, rel=1e-12)
    got = {k: draft_fraction_at(m, s) for k, s in ((3, 2.83), (4, 3.67), (6, 5.33))}
    assert [round(100 * f, 1) for f in got.values()] == [9.4, 7.8, 5.9]
    assert round(1 + got[3] * 2.83, 2) == 1.26 and round(1 + got[6] * 5.33, 2) == 1.31
    assert draft_fraction_at(match_share(1.0, 1.9), 5.33) == 1.0
    assert match_share(0.0, 1.9) == 0.0 and draft_fraction_at(0.0, 5.0) == 0.0
