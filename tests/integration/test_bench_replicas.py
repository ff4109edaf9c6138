"""Two ground-truth replicas behind the round-robin router: ``bench --server base=ROUTER --metrics base=R1
--metrics base=R2`` counts exactly what the two replicas' own counters say they served."""

from __future__ import annotations

import httpx
import pytest
from typer.testing import CliRunner

from hangguard import HANG_S
from specscope.cli import app
from specscope.client.metrics import parse_metrics
from specscope.stats.cells import summarize_run
from specscope.store import open_run
from specscope.truth import ResponsePlan, TruthScript, TruthServer
from specscope.truth.router import Router

pytestmark = pytest.mark.integration

# Every response: 12 tokens in chunks of 4, 4 verify steps with 3 draft tokens each, accepted 3 / 2 / 1.
PLAN = ResponsePlan(
    output_tokens=12,
    tokens_per_chunk=4,
    finish_reason="length",
    drafts=4,
    draft_tokens=12,
    accepted_per_position=[3, 2, 1],
)


def own_counters(ts: TruthServer):
    return parse_metrics(httpx.get(ts.metrics_url, timeout=HANG_S).text)


def test_router_with_two_replicas_counts_what_the_replicas_served(tmp_path):
    with TruthServer(TruthScript(default=PLAN)) as r1, TruthServer(TruthScript(default=PLAN)) as r2:
        with Router([r1.base_url, r2.base_url]) as router:
            args = ["bench", "--server", f"base={router.base_url}", "--metrics", f"base={r1.base_url}"]
            args += [
                "--metrics",
                f"base={r2.base_url}",
                "--workloads",
                "prose",
                "--max-concurrency",
                "1,2",
                "--repeats",
                "1",
            ]
            args += ["--max-tokens", "12", "--out", str(tmp_path), "-f", "json"]
            res = CliRunner().invoke(app, args)
            assert res.exit_code == 0, res.output
            own1, own2 = own_counters(r1), own_counters(r2)
            n1, n2 = len(r1.served()), len(r2.served())
    (run_dir,) = list(tmp_path.iterdir())
    with open_run(run_dir) as run:
        cells = sorted(summarize_run(run), key=lambda c: c.concurrency)
        assert run.manifest["options"]["metrics"] == {"base": [r1.base_url, r2.base_url]}
    # 2 cells (N=1, N=2) and one warm-up each: 5 requests, sent in turn: 3 to the first replica, 2 to the second
    assert (n1, n2) == (3, 2)
    for c in cells:
        n = c.concurrency
        assert c.server_generation_tokens == 12 * n and c.output_tokens == 12 * n
        assert c.counters.drafts == 4 * n and c.counters.accepted_tokens == 6 * n
        assert c.acceptance_rate == 0.5 and c.acceptance_per_position == (0.75, 0.5, 0.25)
        assert c.acceptance_source == "counter_delta"
        assert (c.client.client_decision or "").startswith("1 client process(es)")  # the run says how it chose
        assert c.client.counter_source == {"kind": "scrape", "urls": [r1.base_url, r2.base_url]}
    # the cells' deltas plus the two warm-ups (12 tokens, 4 drafts, 6 accepted each) = the replicas' own totals
    assert sum(c.server_generation_tokens for c in cells) + 2 * 12 == own1.generation_tokens + own2.generation_tokens
    assert sum(c.counters.accepted_tokens for c in cells) + 2 * 6 == own1.accepted_tokens + own2.accepted_tokens
    assert (own1.generation_tokens, own2.generation_tokens) == (36, 24)
