"""``bench --endpoint`` on the real embedded engine (llama.cpp via xllamacpp, SmolLM2-135M), whose server answers
``/v1/completions`` and ``/v1/responses`` too: every stream read from that API's own events, its tokens from that
API's usage and equal to the server's generated-token counter delta, exactly."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("xllamacpp")

from specscope.records import CellKey  # noqa: E402
from specscope.stats.cells import summarize_run  # noqa: E402
from specscope.store import open_run  # noqa: E402

pytestmark = pytest.mark.integration

SRC = str(Path(__file__).resolve().parents[2] / "src")


@pytest.mark.parametrize("endpoint", ["/v1/completions", "/v1/responses"])
def test_the_embedded_engine_on_each_endpoint(tmp_path, endpoint):
    env = {**os.environ, "PYTHONPATH": SRC}
    env.pop("SPECSCOPE_DEBUG", None)
    cmd = [sys.executable, "-m", "specscope", "bench", "--configs", "base", "--workloads", "prose"]
    cmd += ["--max-concurrency", "1", "--repeats", "1", "--max-tokens", "16", "--no-aa", "--endpoint", endpoint]
    res = subprocess.run(
        [*cmd, "-f", "json", "--out", str(tmp_path)], capture_output=True, text=True, env=env, timeout=600
    )
    assert res.returncode == 0, res.stderr
    (run_dir,) = tmp_path.iterdir()
    with open_run(run_dir) as run:
        cells = summarize_run(run)
        streams = {c.config: run.streams(CellKey(c.config, "prose", 1, 0)) for c in cells}
        assert run.manifest["client"]["endpoint"] == endpoint
    assert [c.config for c in cells] == ["base"]
    for c in cells:
        assert c.status == "ok" or all(r.startswith("CLIENT_LIMITED") for r in c.reasons), c.reasons
        assert c.token_source == "usage"
        assert 0 < c.output_tokens == c.server_generation_tokens <= 16  # the API's usage = the server's counter
        (s,) = streams[c.config]
        assert (s.status, s.http_status, s.token_source) == ("ok", 200, "usage")
        assert s.finish_reason in ("stop", "length") and s.content_chunks >= 1
        assert s.send_ns < s.first_token_ns <= s.last_token_ns <= s.end_ns
