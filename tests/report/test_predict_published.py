"""``specscope predict`` without a run (issue 16): published per-position rates, bytes and bandwidth -> k table.

Inputs are seed 003's published figures (the seed documents, 003_86f0b3193fa9dc3e.txt): "every decoded token
re-reads essentially all of it: 17.61 GB", "GB10's 273 GB/s", "measured no-draft rate of 12.14 tok/s", the MTP
head "reads only 0.85 GB per draft step", "at k=5 it runs about 0.936 / 0.815 / 0.681 / 0.581 / 0.484".
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from hangguard import HANG_S
from specscope.errors import ConfigError
from specscope.stats.predict_published import parse_rates, predict_published

SEED3_U = (0.936, 0.815, 0.681, 0.581, 0.484)
SEED3_ARGS = ["--bytes-per-step", "17.61GB", "--draft-bytes", "0.85GB", "--bandwidth", "273GB/s"]


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "specscope", *args], capture_output=True, text=True, timeout=HANG_S)


def test_seed_003_roofline_and_k_table_from_its_published_inputs():
    per_position = ",".join(map(str, SEED3_U))
    r = _cli("predict", "--per-position", per_position, *SEED3_ARGS, "--measured", "12.14", "--max-k", "5")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[:8] == [
        "roofline 15.50 tok/s (17.61 GB per token at 273 GB/s); measured 12.14 tok/s is 78% of it",
        "draft bytes per drafted token 0.850 GB; effective bandwidth 213.79 GB/s",
        " k  tokens/step    tok/s  speedup",
        " 1        1.936    22.42    1.85x",
        " 2        2.751    30.46    2.51x",
        " 3        3.432    36.39    3.00x",
        " 4        4.013    40.83    3.36x",
        " 5        4.497    43.98    3.62x",
    ]
    assert (
        "validity: valid for one stream, decode only, bandwidth bound; u_i assumed independent of k; "
        "per-position rates published for k=1..5; no draft overhead (pure bandwidth: an upper bound)"
    ) in r.stdout.splitlines()


def test_step_time_is_target_plus_k_draft_reads_at_the_effective_bandwidth():
    p = predict_published(SEED3_U, target_bytes=17.61e9, draft_bytes_per_token=0.85e9, bandwidth_bytes_s=273e9, max_k=5)
    # no --measured: the nominal bandwidth; k=5 reads 17.61 + 5 x 0.85 = 21.86 GB per step of 4.497 tokens
    assert p.rows[4].tokens_per_step == pytest.approx(1 + sum(SEED3_U), rel=1e-12)
    assert p.rows[4].tok_s == pytest.approx(4.497 * 273e9 / 21.86e9, rel=1e-12)
    assert p.roofline_tok_s == pytest.approx(273 / 17.61, rel=1e-12)


def test_the_shared_lm_head_is_read_per_drafted_token():
    """Seed 004 (the seed documents, 004_8fbf06fcc4ad3c8a.txt): the MTP draft is 0.791 GiB and "read five times
    per accepted step"; it "ships no lm_head ... vLLM shares the target's". With an lm_head of 0.5 GiB the
    draft reads 5 x (0.791 + 0.5) GiB per step at k=5."""
    gib = 2**30
    p = predict_published(
        SEED3_U,
        target_bytes=17.61e9,
        draft_bytes_per_token=0.791 * gib,
        bandwidth_bytes_s=273e9,
        lm_head_bytes=0.5 * gib,
        max_k=5,
    )
    assert p.draft_bytes_per_token == pytest.approx(1.291 * gib, rel=1e-12)
    step_bytes = 17.61e9 + 5 * 1.291 * gib
    assert p.rows[4].tok_s == pytest.approx((1 + sum(SEED3_U)) * 273e9 / step_bytes, rel=1e-12)


@pytest.mark.parametrize("bad", ["0.4,0.6", "1.2", "x"])
def test_bad_rates_are_one_config_error(bad):
    with pytest.raises(ConfigError):
        parse_rates(bad)


def test_missing_draft_bytes_is_exit_2_in_one_line():
    r = _cli("predict", "--per-position", "0.8,0.6,0.4", "--bytes-per-step", "17.61GB", "--bandwidth", "273GB/s")
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert "error: --per-position needs --draft-bytes too; found: no --draft-bytes;" in r.stderr
