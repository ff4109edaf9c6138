"""A run refused after its folder was made (issue 37, probed 2026-12-07): every ``/tokenize`` answering
``{"count": "7"}`` with ``bench --context-tokens 64`` passes the start-up checks (which do not count tokens), makes
the run folder, then is refused while its prompts are built: the folder kept no cell and said nothing of why, and
``advise`` answered "baseline config 'x' is not in the run ... pass --baseline". The refusal is stored in the
manifest (``stopped``), the report's headline and ``advise`` quote it, and ``--resume`` tries again."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hangguard import HANG_S
from specscope.store import open_run
from specscope.truth import ResponsePlan, TruthScript, TruthServer
from specscope.workload.context import ANSWER_TRIES

pytestmark = pytest.mark.integration

PLAN = ResponsePlan(output_tokens=6, finish_reason="length", ttft_ms=5, inter_chunk_ms=1, role_ms=None)
COUNT_TEXT = '{"count": "7"}'


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "specscope", *args], capture_output=True, text=True, timeout=HANG_S)


def test_a_refusal_after_the_folder_is_made_is_stored_and_said_by_report_advise_and_resume(tmp_path: Path) -> None:
    bad = TruthScript(
        default=PLAN,
        serve_models=True,
        serve_tokenizer=True,
        garbage={"/tokenize": list(range(ANSWER_TRIES))},  # every try of the first count: then the server is fixed
        garbage_body={"/tokenize": COUNT_TEXT},
    )
    with TruthServer(bad) as ts:
        args = ["bench", "--server", f"x={ts.base_url}", "--workloads", "prose", "--max-concurrency", "1"]
        args += ["--repeats", "1", "--max-tokens", "6", "--context-tokens", "64", "--out", str(tmp_path)]
        res = _cli(*args)
        assert res.returncode == 2, res.stderr[-1500:]
        (run_dir,) = [p for p in tmp_path.iterdir() if p.is_dir()]
        stopped = json.loads((run_dir / "manifest.json").read_text())["stopped"]
        rep = _cli("report", str(run_dir))
        adv = _cli("advise", str(run_dir))
        # the server fixed (its later /tokenize answers are right): --resume measures the cell, the refusal is gone
        again = _cli("bench", "--resume", str(run_dir), "-f", "json")
    assert stopped.startswith("the server's answer to /tokenize is not what it should be (count: ")
    assert 'found: \'{"count": "7"}\'' in stopped
    # the bench command says what the folder keeps and how to go on
    assert f"the run folder {run_dir} keeps no cell; `specscope bench --resume {run_dir}`" in res.stderr
    assert rep.returncode == 0, rep.stderr[-1500:]
    assert "unfinished run: 0 of 1 planned cells measured; stopped by: the server's answer to /tokenize" in " ".join(
        rep.stdout.split()
    )
    assert adv.returncode == 2
    assert f"error: {run_dir} has no measured cell to advise on" in adv.stderr
    assert "stopped by: the server's answer to /tokenize" in adv.stderr
    assert f"fix: `specscope bench --resume {run_dir}`" in adv.stderr
    assert again.returncode == 0, again.stderr[-1500:]
    assert [c["streams"] for c in json.loads(again.stdout)["cells"]] == [1]
    with open_run(run_dir) as run:
        assert run.manifest.get("stopped") is None
