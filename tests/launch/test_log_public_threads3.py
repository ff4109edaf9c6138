"""`serve --parse-log` on the shapes of server logs pasted in public speculative-decoding threads (hunt of
2026-12-06, third round; tests/data/engines/logs, SOURCES.md there): each right figure and the failure the thread
was about, by name."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from specscope.cli import app

LOGS = Path(__file__).parent.parent / "data" / "engines" / "logs"


def parse_log(name: str, *args: str) -> Any:
    return CliRunner().invoke(app, ["serve", "--parse-log", str(LOGS / name), *args], env={"COLUMNS": "200"})


def _json(name: str, code: int) -> dict[str, Any]:
    r = parse_log(name, "--format", "json")
    assert r.exit_code == code, r.output
    out: dict[str, Any] = json.loads(r.output)
    return out


def test_mtp_weights_missing_from_the_checkpoint_is_a_named_failure() -> None:
    # vllm PR #35548: a checkpoint quantized without its MTP layers; the workers refuse it at load. Before, the
    # log printed its config and exited 0 with nothing said (the ValueError matched no signature).
    out = _json("vllm_pr35548_mtp_weights_missing.log", 1)
    (f,) = out["failures"]
    assert (f["code"], f["line_number"], f["count"], f["severity"]) == ("mtp_weights_missing", 3, 2, "error")
    assert "specscope audit MODEL" in f["fix"]
    text = parse_log("vllm_pr35548_mtp_weights_missing.log")
    assert text.exit_code == 1 and "mtp_weights_missing (line 3, 2x)" in text.output


def test_draft_decode_failing_is_a_named_failure_not_an_unrecognised_log() -> None:
    # llama.cpp PR #28243 (a comment: "it seems MTP wasn't activated"): every draft step's llama_decode fails.
    # Before, the log was refused as holding no server-log line (exit 2).
    out = _json("llamacpp_pr28243_draft_decode_fails.log", 1)
    (f,) = out["failures"]
    assert (f["code"], f["line_number"], f["count"], f["severity"]) == ("draft_decode_failed", 4, 2, "error")
