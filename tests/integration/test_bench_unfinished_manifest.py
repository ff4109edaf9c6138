"""A bench run says it is unfinished from its first cell (issue 38 item 4): its manifest's ``finished`` and
``cells_total`` were written only when bench returned, so a run still going, or one killed (SIGKILL, power loss),
had neither, and ``report RUN`` gave its verdicts without saying that planned cells were missing."""

from __future__ import annotations

import json

import pytest

from specscope.bench import run_bench
from specscope.config import BenchOptions
from specscope.truth import ResponsePlan, TruthScript, TruthServer

pytestmark = pytest.mark.integration


def test_the_manifest_says_unfinished_with_the_plan_while_bench_runs(tmp_path):
    opts = BenchOptions(configs=("x", "y"), workloads=("prose",), levels=(1,), repeats=2, max_tokens=4, baseline="x")
    seen = []

    def during(progress):  # what a report reading the run now, or after a kill here, would read
        seen.append(json.loads((tmp_path / "run" / "manifest.json").read_text()))

    plan = ResponsePlan(output_tokens=4, ttft_ms=5, inter_chunk_ms=1, finish_reason="length")
    with TruthServer(TruthScript(default=plan)) as ts:
        run_bench(opts, servers={"x": ts.base_url, "y": ts.base_url}, run_dir=tmp_path / "run", on_cell=during)
    assert [(m.get("finished"), m.get("cells_total")) for m in seen] == [(False, 4)] * 4
    done = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert (done["finished"], done["cells_done"], done["cells_total"]) == (True, 4, 4)
