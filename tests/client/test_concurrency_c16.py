"""Case C16: achieved concurrency from the wire (send..end), not from the client's bookkeeping."""

from __future__ import annotations

import csv

import pytest

from paths import CASES
from specscope.records import StreamRecord
from specscope.stats.concurrency import achieved_concurrency, client_view_concurrency

CASE = CASES / "C16"
MS = 1_000_000


def _records() -> list[StreamRecord]:
    out = []
    with open(CASE / "requests.csv") as f:
        for row in csv.DictReader(f):
            out.append(
                StreamRecord(
                    prompt_id=row["request_id"],
                    intended_ns=int(float(row["scheduled_ms"]) * MS),
                    send_ns=int(float(row["sent_ms"]) * MS),
                    first_token_ns=int(float(row["first_token_ms"]) * MS),
                    first_content_ns=int(float(row["first_token_ms"]) * MS),
                    last_token_ns=int(float(row["done_ms"]) * MS),
                    end_ns=int(float(row["done_ms"]) * MS),
                    content_chunks=64,
                    reasoning_chunks=0,
                    output_tokens=int(row["output_tokens"]),
                    prompt_tokens=None,
                    token_source="usage",
                    finish_reason="length",
                    status="ok",
                    reason=None,
                    http_status=int(row["http_status"]),
                )
            )
    return out


def test_c16_achieved_vs_client_view():
    recs = _records()
    assert achieved_concurrency(recs) == pytest.approx(3.00)
    assert client_view_concurrency(recs) == pytest.approx(3.75)
    assert achieved_concurrency(recs) / 4 == pytest.approx(0.75)
    # server-facing TTFT from send: 200 ms for all 12
    assert {r.ttft_ns for r in recs} == {200 * MS}
    # client-side queueing: 3 of 12 queued, mean 250 ms, max 1000 ms
    q = [r.send_ns - r.intended_ns for r in recs]
    assert sum(1 for x in q if x > 0) == 3
    assert sum(q) / len(q) == 250 * MS and max(q) == 1000 * MS
    # Little's law: 3 req/s x 1 s = 3
    span_s = (max(r.end_ns for r in recs) - min(r.send_ns for r in recs)) / 1e9
    assert len(recs) / span_s * 1.0 == pytest.approx(achieved_concurrency(recs))
    assert sum(r.output_tokens for r in recs) / span_s == pytest.approx(192.0)


def test_empty_and_single():
    assert achieved_concurrency([]) == 0.0
    one = _records()[:1]
    assert achieved_concurrency(one) == pytest.approx(1.0)
