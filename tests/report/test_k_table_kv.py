"""The speedup-by-k table carries the KV pool and maximum concurrency by k where the server log gave them (issue 16).

The logs are tests/data/fixtures/vllm_kv_by_k_seed003/ (see tests/data/SOURCES.md): vLLM start-up lines written
like vLLM's, with seed 003's figures (the seed documents, 003_86f0b3193fa9dc3e.txt: "At a fixed 14 GiB this config
held 447,637 tokens with no draft, 414,553 at k=1, 386,698 at k=5 and 380,252 at k=6"), the maximum concurrency
being vLLM's figure for seed 003's 262,144-token context. Each config's facts are stored in the run as a launched
vLLM stores them (``log_facts``); mtp-k2 has no log, so its row says so.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from factmaker import cell_facts
from hangguard import HANG_S
from paths import FIXTURES
from specscope.launch.serverlog import server_log_facts
from specscope.report.k_tables import k_table
from specscope.stats.cells import summarize_run
from specscope.stats.judgement import judge
from specscope.store import create_run, open_run


def _k_table(cells):
    """The k table of a run as report builds it: from the run's one judgement."""
    return k_table(cells, "base", None, judge(cells, "base"))


LOGS = FIXTURES / "vllm_kv_by_k_seed003"
TOK_S = {"base": 12.14, "mtp-k1": 20.00, "mtp-k2": 26.48, "mtp-k5": 31.75, "mtp-k6": 35.58}  # seed 003's k table
KV_COLUMNS = [  # (k, KV pool text, max concurrency text): pool / 262,144 tokens, two decimals as vLLM logs it
    ("1", "414,553 (-7%)", "1.58x"),
    ("2", "—", "—"),
    ("5", "386,698 (-14%)", "1.48x"),
    ("6", "380,252 (-15%)", "1.45x"),
]
NOTE = (
    "KV pool and max concurrency: from each config's vLLM start-up log (GPU/CPU KV cache size, Maximum concurrency "
    "for L tokens per request) at L = 262,144 tokens per request; base (no draft): 447,637 tokens, 1.71x; "
    "the pool's change against it in brackets; — where the log gave none."
)


def _run(tmp_path: Path) -> Path:
    run = create_run(tmp_path / "run", {"kind": "bench", "engine": "external"})
    for cfg, tok_s in TOK_S.items():
        for rep in range(2):
            run.save_cell(cell_facts(cfg, "code", 1, rep, tok_s))
        if (LOGS / f"{cfg}.log").is_file():
            run.save_server_facts(cfg, server_log_facts(LOGS / f"{cfg}.log"))
    run.close()
    return tmp_path / "run"


def test_the_log_figures_reach_the_stored_facts(tmp_path):
    with open_run(_run(tmp_path)) as run:
        facts = run.server_facts
    got = {
        c: (f.log_facts.kv_cache_size_tokens, f.log_facts.max_concurrency_requests)
        for c, f in facts.items()
        if f.log_facts is not None
    }
    assert got == {
        "base": (447_637, 1.71),
        "mtp-k1": (414_553, 1.58),
        "mtp-k5": (386_698, 1.48),
        "mtp-k6": (380_252, 1.45),
    }


def test_kv_pool_and_max_concurrency_by_k(tmp_path):
    with open_run(_run(tmp_path)) as run:
        cells, facts = summarize_run(run), run.server_facts
    (table,) = k_table(cells, "base", facts, judge(cells, "base"))
    assert table.headers[-2:] == ["KV pool (tokens)", "max concurrency (x)"]
    assert [(row[3], row[-2], row[-1]) for row in table.rows] == KV_COLUMNS
    assert [row[-2].value for row in table.cells] == [414_553, None, 386_698, 380_252]
    assert [row[-1].value for row in table.cells] == [1.58, None, 1.48, 1.45]
    assert table.note.endswith(NOTE)
    assert [row[6] for row in table.rows] == ["", "", "", "best"]  # 35.58 / 12.14 is the highest


def test_without_log_facts_the_table_keeps_its_columns(tmp_path):
    with open_run(_run(tmp_path)) as run:
        (table,) = _k_table(summarize_run(run))
    assert table.headers[-1] == "best k"
    assert "KV pool" not in table.note


def _report(run: Path, fmt: str) -> str:
    r = subprocess.run(
        [sys.executable, "-m", "specscope", "report", str(run), "-f", fmt],
        capture_output=True,
        text=True,
        timeout=HANG_S,
        env={**os.environ, "COLUMNS": "250"},
    )
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_text_markdown_and_json_show_the_same_figures(tmp_path):
    run = _run(tmp_path)
    doc = json.loads(_report(run, "json"))
    (table,) = [t for s in doc["sections"] for t in s["tables"] if t["key"] == "speedup-by-k"]
    assert [(row[3], row[-2], row[-1]) for row in table["rows"]] == KV_COLUMNS
    assert table["note"].endswith(NOTE)
    markdown = _report(run, "markdown")
    for k, pool, most in KV_COLUMNS:
        assert f"| code | 1 | mtp | {k} | " in markdown
        assert f"| {pool} | {most} |" in markdown
    assert NOTE in markdown
    text = _report(run, "text")
    for _, pool, most in KV_COLUMNS[::2]:
        assert pool in text and most in text
    assert "447,637 tokens, 1.71x" in " ".join(text.split())
