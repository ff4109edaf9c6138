"""Issue 37 (B1): one ``/metrics`` scrape is bounded, and parsing what is within the bounds takes time in proportion
to its size.

A server whose ``/metrics`` held 300,000 series kept a run at full CPU for more than 10 minutes before its first
cell. Every scrape of a server (``bench``'s, ``counters``' files) now has one byte limit
(``MAX_SCRAPE_BYTES``, 8 MiB) and one sample limit (``MAX_SCRAPE_SAMPLES``); a scrape above either is
``MetricsUnavailable`` naming the limit (before the first cell: a refusal; mid-run: the cell's reason). The servers
here are real HTTP servers on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from hangguard import HANG_S
from specscope.client.metrics import MAX_SCRAPE_BYTES, MAX_SCRAPE_SAMPLES, parse_metrics, scrape
from specscope.errors import MetricsUnavailable
from specscope.targets.servers import ExternalServer


def _serving(body: bytes) -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            if self.path == "/v1/models":
                models = b'{"object": "list", "data": [{"id": "m", "object": "model"}]}'
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(models)))
                self.end_headers()
                self.wfile.write(models)
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; version=0.0.4")
            self.end_headers()  # no Content-Length: the body is known only by reading it
            try:
                for i in range(0, len(body), 1 << 16):
                    self.wfile.write(body[i : i + (1 << 16)])
            except OSError:
                pass  # the client stopped reading at its limit

        def log_message(self, *args: object) -> None:
            pass

    Handler.protocol_version = "HTTP/1.0"
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def _scrape(base_url: str) -> object:
    async def go() -> object:
        async with httpx.AsyncClient(timeout=HANG_S) as client:
            return await scrape(client, base_url)

    return asyncio.run(go())


def test_a_scrape_above_the_byte_limit_is_refused_naming_the_limit() -> None:
    line = b'vllm:spec_decode_num_drafts_total{engine="0"} 1\n'
    body = line * (MAX_SCRAPE_BYTES // len(line) + 2)
    for base in _serving(body):
        with pytest.raises(MetricsUnavailable) as info:
            _scrape(base)
    assert info.value.message == "the /metrics answer is larger than one scrape may be"
    assert info.value.found == f"GET {base[:-3]}/metrics: more than {MAX_SCRAPE_BYTES:,} bytes"
    assert info.value.expected == "at most 8 MiB (8,388,608 bytes) of Prometheus text per scrape"


def test_a_scrape_of_300000_series_is_refused_naming_the_sample_limit() -> None:
    body = "".join(f"x{i} 1\n" for i in range(300_000)).encode()
    assert len(body) < MAX_SCRAPE_BYTES  # within the byte limit: the sample limit refuses it
    for base in _serving(body):
        with pytest.raises(MetricsUnavailable) as info:
            _scrape(base)
    assert info.value.message == "the /metrics answer holds more samples than one scrape may"
    assert info.value.found == f"more than {MAX_SCRAPE_SAMPLES:,} samples"


def test_a_scrape_within_the_limits_is_read_as_before() -> None:
    body = b'vllm:spec_decode_num_drafts_total{engine="0"} 7\nvllm:spec_decode_num_draft_tokens_total 21\n'
    for base in _serving(body):
        snap = _scrape(base)
    assert (snap.drafts, snap.draft_tokens) == (7, 21)  # type: ignore[attr-defined]


def test_many_series_sets_and_unread_names_parse_in_proportion_to_the_text() -> None:
    # 20,000 engine-labelled series and 20,000 unread names took minutes (a list.count and a regex over the whole
    # text per name); each is now a single pass. The figures are checked exactly, no clock is read.
    n = 20_000
    engines = "".join(f'vllm:spec_decode_num_drafts_total{{engine="{i}"}} 1\n' for i in range(n))
    snap = parse_metrics(engines)
    assert snap.drafts == n and len(snap.engines) == n and snap.engines['{engine="7"}'].drafts == 1
    unread = parse_metrics("".join(f"vllm:spec_decode_x{i} 1\n" for i in range(n)))
    assert len(unread.unread) == n and "vllm:spec_decode_x19999" in unread.unread


def test_a_live_scrape_with_bytes_that_are_not_utf8_is_read_with_them_replaced() -> None:
    # issue 37 item 4: a byte that is not UTF-8 (here in a HELP line) neither crashes the scrape nor hides the counts
    body = b"# HELP vllm:x \xff\xfe odd\nvllm:spec_decode_num_drafts_total 3\n"
    body += b"vllm:spec_decode_num_draft_tokens_total 9\n"
    for base in _serving(body):
        snap = _scrape(base)
    assert (snap.drafts, snap.draft_tokens) == (3, 9)  # type: ignore[attr-defined]


def test_the_check_before_the_first_cell_reads_at_most_the_byte_limit() -> None:
    # bench's check of an external server (targets.servers.ExternalServer) read the whole /metrics answer
    line = b'vllm:spec_decode_num_drafts_total{engine="0"} 1\n'
    body = line * (MAX_SCRAPE_BYTES // len(line) + 2)
    for base in _serving(body):
        with pytest.raises(MetricsUnavailable) as info, ExternalServer("base", base):
            pass
    assert info.value.message == "server 'base': the /metrics answer is larger than one scrape may be"
    assert info.value.found == f"GET {base[:-3]}/metrics: more than {MAX_SCRAPE_BYTES:,} bytes"
    for base in _serving(line):
        with ExternalServer("base", base) as server:
            assert server.model_name == "m"
