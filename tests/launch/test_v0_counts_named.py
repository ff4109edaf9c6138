"""`serve --parse-log` on vLLM V0 cumulative lines: the V0 accepted count (every matching position) and the
V1-comparable one (emitted - verify steps, the accepted prefix) differ, so the table names which one each row shows
(a reader dividing the row's own 240 by 600 drafted would get V0's 0.400 beside a headline of 0.333)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from hangguard import HANG_S

_V0 = (
    "INFO 08-01 10:00:00 metrics.py:477] Speculative metrics: Draft acceptance rate: 0.500, System efficiency: 0.600, "
    "Number of speculative tokens: 3, Number of accepted tokens: 150, Number of draft tokens: 300, "
    "Number of emitted tokens: 240.\n"
    "INFO 08-01 10:00:05 metrics.py:477] Speculative metrics: Draft acceptance rate: 0.400, System efficiency: 0.500, "
    "Number of speculative tokens: 3, Number of accepted tokens: 240, Number of draft tokens: 600, "
    "Number of emitted tokens: 400.\n"
)


def test_v0_row_names_its_accepted_count(tmp_path: Path) -> None:
    log = tmp_path / "v0.log"
    log.write_text(_V0)
    cmd = [sys.executable, "-m", "specscope", "serve", "--parse-log", str(log)]
    env = {**os.environ, "COLUMNS": "200"}  # one table row per line
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=HANG_S, check=False)
    assert r.returncode == 0, r.stderr
    # 600 drafted over 600 / 3 = 200 verify steps; V0 counted 240 accepted, the prefix is 400 emitted - 200 = 200
    assert "600 drafted, 200 accepted over 200 steps" in r.stdout  # the pooled rows: V1's count
    assert "200 accepted, 33.3% (V1-comparable: the rows above); 240 accepted, 40.0% (V0's own count)" in r.stdout
