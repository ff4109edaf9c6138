"""`specscope bench --server` against a server whose /metrics is TensorRT-LLM's JSON iteration stats, drained on read
(issue 34; ``trtllm-serve`` ``get_iteration_stats``, ``tensorrt_llm/serve/openai_server.py`` @ 00057725): the truth
server records one iteration per finished response with the plan's exact counts, so each cell's drafted, accepted and
verify-step counts are exact; the gauge sampler is off for such a server (its GETs would take the cell's
iterations), and the cell says what was drained."""

from __future__ import annotations

import pytest

from clirun import cli
from specscope.stats.cells import summarize_run
from specscope.store import open_run
from specscope.truth import MetricsPlan, ResponsePlan, TruthScript, TruthServer

pytestmark = pytest.mark.integration

# 12 tokens in 4 verify steps of 3 drafts; 3 / 2 / 1 steps accepted at least 1 / 2 / 3 drafts (6 accepted)
PLAN = ResponsePlan(
    output_tokens=12,
    tokens_per_chunk=3,
    finish_reason="length",
    drafts=4,
    draft_tokens=12,
    accepted_per_position=[3, 2, 1],
    per_request_spec="trtllm",
)


def test_bench_reads_the_drained_iteration_stats_exactly(tmp_path, capsys, monkeypatch) -> None:
    script = TruthScript(default=PLAN, metrics=MetricsPlan(style="trtllm_json"))
    with TruthServer(script) as ts:
        argv = ["bench", "--server", f"trt={ts.base_url}", "--workloads", "edit", "--levels", "1,2"]
        argv += ["--repeats", "1", "--max-tokens", "12", "--no-aa", "--out", tmp_path / "runs"]
        code, _out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code in (0, 1), err  # 1: a timing finding of a loaded machine, never a refusal (2)
    (run_dir,) = (tmp_path / "runs").iterdir()
    with open_run(run_dir) as run:
        cells = sorted(summarize_run(run), key=lambda c: c.concurrency)
        stored = {c.key.concurrency: c for c in run.cells()}
    assert [c.concurrency for c in cells] == [1, 2]
    for c in cells:
        n = c.concurrency
        assert (c.counters.drafts, c.counters.draft_tokens, c.counters.accepted_tokens) == (
            4 * n,
            12 * n,
            6 * n,
        )
        assert c.acceptance_rate == 0.5 and c.acceptance_length == 1 + 6 / 4
        source = stored[n].client.counter_source
        (drained,) = source["drained"].values()
        assert drained["endpoint"] == "iteration stats" and drained["slices"] == 2
        # the cell's n responses and the idle poll after them; before: the warm-up's and an idle poll
        assert drained["iterations"] == 2 + n + 1 and drained["idle_iterations"] == 2
        assert stored[n].gauges == ()  # no sampler read the draining endpoint
        assert not [r for r in c.reasons if r.startswith("ITERATIONS_LOST")], c.reasons


def test_a_json_metrics_body_no_adapter_reads_is_refused_before_the_run(tmp_path, capsys, monkeypatch) -> None:
    """A server whose /metrics is JSON of no engine's shape (a health-style object) is refused with one line before
    any request, and no run folder is left behind."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Odd(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the http.server hook's name
            body = b'{"data": [{"id": "m"}]}' if self.path == "/v1/models" else b'{"status": "ok", "uptime_s": 12}'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Odd)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        argv = ["bench", "--server", f"odd={url}", "--workloads", "edit", "--levels", "1", "--repeats", "1"]
        argv += ["--max-tokens", "4", "--no-aa", "--out", tmp_path / "runs"]
        code, _out, err = cli(argv, capsys, monkeypatch, tmp_path)
    finally:
        server.shutdown()
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert code == 2 and len(errors) == 1, err
    assert "serves /metrics as JSON that no engine adapter reads" in errors[0] and '{"status": "ok"' in errors[0]
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())
