"""``bench --prometheus URL`` against a hand-written server on 127.0.0.1 that answers the Prometheus HTTP API paths
with a body that is no Prometheus answer (issue 37): each cell names ``METRICS_UNREADABLE(before)`` and
``METRICS_UNREADABLE(after)`` and the run finishes; before, ``.get`` on a list raised AttributeError, a 100,000-deep
body RecursionError and a series with no ``__name__`` KeyError, each ending the run with exit 3."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from specscope.bench import run_bench
from specscope.config import BenchOptions
from specscope.stats.cells import summarize_run
from specscope.store import open_run
from specscope.truth import ResponsePlan, TruthScript, TruthServer

pytestmark = pytest.mark.integration

PLAN = ResponsePlan(output_tokens=6, finish_reason="length", ttft_ms=5, inter_chunk_ms=1, role_ms=None)
_TARGETS = b'{"status": "success", "data": {"activeTargets": [{"scrapeInterval": "10ms"}]}}'


@contextmanager
def _prometheus(targets: bytes, query: bytes) -> Iterator[str]:
    """A server answering ``GET /api/v1/targets`` with ``targets`` and ``GET /api/v1/query`` with ``query`` (HTTP
    200); its root URL."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            body = targets if self.path.startswith("/api/v1/targets") else query
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *a: object) -> None:
            pass

    with ThreadingHTTPServer(("127.0.0.1", 0), Handler) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            yield f"http://127.0.0.1:{server.server_address[1]}"
        finally:
            server.shutdown()


@pytest.mark.parametrize(
    ("targets", "query"),
    [
        (b"[1, 2]", b"[1, 2]"),  # a list where the API answers an object
        (b"<html>bad gateway</html>", b"<html>bad gateway</html>"),  # a proxy's page
        (b"[" * 100_000, b"[" * 100_000),  # nested past any parser's depth
        (b'{"status": "success", "data": {"activeTargets": [{"scrapeInterval": 5}]}}', b"{}"),  # a number, no duration
        (b'{"status": "success", "data": []}', b"{}"),  # data of the wrong shape
        (_TARGETS, b'{"status": "success", "data": {"result": [{"metric": {}, "value": [1, "2"]}]}}'),  # no __name__
        (_TARGETS, b'{"status": "success", "data": {"resultType": "vector", "result": "x"}}'),
    ],
)
def test_a_prometheus_answer_of_the_wrong_shape_is_each_cells_reason(tmp_path, targets, query):
    opts = BenchOptions(configs=("x",), workloads=("prose",), levels=(1,), repeats=1, max_tokens=6)
    with _prometheus(targets, query) as url, TruthServer(TruthScript(default=PLAN)) as ts:
        run_dir = run_bench(opts.model_copy(update={"prometheus": url}), servers={"x": ts.base_url}, run_dir=tmp_path)
    with open_run(run_dir) as run:
        (cell,) = summarize_run(run)
    assert [r for r in cell.reasons if r.startswith("METRICS_UNREADABLE")] == [
        "METRICS_UNREADABLE(before)",
        "METRICS_UNREADABLE(after)",
    ]
    assert cell.server_generation_tokens is None and cell.output_tokens == 6
