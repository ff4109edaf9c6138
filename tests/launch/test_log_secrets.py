"""A vLLM log's ``non-default args`` holding API keys (issue 37, S-forms): ``serve --parse-log -f json`` prints
valid JSON with every key masked, and a credential list that indented JSON spreads over lines is masked whole."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hangguard import HANG_S
from specscope.redact import MASK, redact_text

# vLLM's api_server logs its non-default CLI arguments as a Python dict repr (vllm/entrypoints/utils.py
# log_non_default_args); --api-key takes several keys, so the value is a list.
LINE = (
    "(APIServer pid=1) INFO 12-05 10:00:00 [utils.py:253] non-default args: {'model_tag': 'Qwen/Qwen3-8B', "
    "'api_key': ['sk-first-0123456789', 'sk-second-0123456789'], 'max_num_seqs': 8}\n"
)


def test_parse_log_json_masks_every_key_and_stays_json(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    log.write_text(LINE)
    res = subprocess.run(
        [sys.executable, "-m", "specscope", "serve", "--parse-log", str(log), "-f", "json"],
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert res.returncode == 0, res.stderr
    assert "sk-first" not in res.stdout and "sk-second" not in res.stdout
    doc = json.loads(res.stdout)
    assert doc["non_default_args"] == {"model_tag": "Qwen/Qwen3-8B", "api_key": MASK, "max_num_seqs": 8}


def test_a_credential_list_over_several_lines_is_masked_whole() -> None:
    text = json.dumps({"args": {"api_key": ["sk-a-0123456789", "sk-b-0123456789"], "port": 8000}}, indent=2)
    masked = redact_text(text)
    assert json.loads(masked) == {"args": {"api_key": [MASK], "port": 8000}}
