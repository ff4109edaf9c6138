"""End to end (issue 29, "One event ends the run" and "Unbounded"): ``specscope bench`` against a truth server scripted
to send well-formed JSON of the wrong shape, and one stream that never stops. Before: "internal error ...
AttributeError", exit 3 (or a run that streams until the 3,600 s timeout). Now: those streams are degraded or failed
with their reasons, the cell is degraded (it enters no average), the run finishes and exits 0 (README: degraded cells
keep their figures; exit 1 only for a config with no cell with figures)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sent_rows import assert_rows_sent
from specscope.truth import ResponsePlan, TruthScript, TruthServer

pytestmark = pytest.mark.integration

SRC = str(Path(__file__).resolve().parents[2] / "src")
GOOD = ResponsePlan(output_tokens=8, finish_reason="length")


def _inject(event: str) -> ResponsePlan:
    return ResponsePlan(output_tokens=8, finish_reason="length", inject_events=[(3, f"data: {event}\n\n")])


PLANS = {
    "choices a string": _inject('{"choices":"x"}'),
    "content a number": _inject('{"choices":[{"index":0,"delta":{"content":5}}]}'),
    "delta a list": _inject('{"choices":[{"index":0,"delta":["x"]}]}'),
    "finish a list": _inject('{"choices":[{"index":0,"delta":{},"finish_reason":["stop"]}]}'),
    "never stops": ResponsePlan(output_tokens=100_000, finish_reason="length"),
    "fine": GOOD,
}
WHAT = {
    "choices a string": "Expected `array | null`, got `str` - at `$.choices`",
    "content a number": "Expected `str | null`, got `int` - at `$.choices[0].delta.content`",
    "delta a list": "Expected `object | null`, got `array` - at `$.choices[0].delta`",
    "finish a list": "Expected `str | null`, got `array` - at `$.choices[0].finish_reason`",
}


def test_bench_finishes_with_bad_events_and_a_runaway_named_per_stream(tmp_path):
    prompts = tmp_path / "prompts.txt"
    prompts.write_text("".join(f"{p}\n" for p in PLANS))
    out = tmp_path / "runs"
    env = {**os.environ, "PYTHONPATH": SRC}
    env.pop("SPECSCOPE_DEBUG", None)
    with TruthServer(TruthScript(default=GOOD, by_prompt=PLANS)) as truth:
        cmd = [sys.executable, "-m", "specscope", "bench", "--server", f"base={truth.base_url}"]
        cmd += ["--workload", f"mine={prompts}", "--levels", str(len(PLANS)), "--repeats", "1", "--max-tokens", "8"]
        cmd += ["--no-aa", "-f", "json", "--out", str(out)]
        res = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
        log = truth.served()
    assert res.returncode == 0, res.stderr
    assert "Traceback" not in res.stderr and "internal error" not in res.stderr
    (cell,) = json.loads(res.stdout)["cells"]
    assert cell["status"] == "degraded"
    (run_dir,) = out.iterdir()
    texts = {f"line {no}": name for no, name in enumerate(PLANS, start=1)}  # a bad answer is still a row sent
    assert assert_rows_sent(run_dir, log, texts) == {f"base/mine/c{len(PLANS)}/r0": len(PLANS)}
    from specscope.store import open_run

    with open_run(run_dir) as run:
        (key,) = run.done_keys()
        streams = {s.prompt_id: s for s in run.streams(key)}
    # a prompt file's ids are "<workload>-<line number>"
    by_prompt = {name: streams[f"mine-{no:04d}"] for no, name in enumerate(PLANS, start=1)}
    assert len(streams) == len(PLANS)
    for name, what in WHAT.items():
        s = by_prompt[name]
        assert s.status == "degraded" and s.reason.startswith(f"BAD_EVENT(1 events; first: {what})"), (name, s.reason)
        assert s.content_chunks == 8  # the token events around the bad one are all read
    runaway = by_prompt["never stops"]
    assert (runaway.status, runaway.reason) == ("failed", "RUNAWAY(more than 72 tokens for max_tokens 8)")
    assert by_prompt["fine"].status == "ok"
    (stream_reasons,) = [r for r in cell["reasons"] if r.startswith("STREAM_DEGRADED(")]
    assert "failed:RUNAWAY(more than 72 tokens" in stream_reasons and "degraded:BAD_EVENT(1 events" in stream_reasons
