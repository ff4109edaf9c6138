"""``specscope surgery ... -f json`` through typer's CliRunner: one JSON document on stdout."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from conftest import MTP_SHAPES, make_qwen36_checkpoint, mtp_tensors
from specscope.cli import app


def test_graft_short_format_flag_prints_one_json_document(tmp_path: Path) -> None:
    target = make_qwen36_checkpoint(tmp_path / "target", seed=0, ignore=["lm_head"])
    src = make_qwen36_checkpoint(tmp_path / "official", seed=3, mtp=mtp_tensors(seed=7))
    out = tmp_path / "grafted"
    res = CliRunner().invoke(
        app, ["surgery", "graft", str(target), "--from", str(src), "--out", str(out), "-f", "json"]
    )
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)  # the whole stdout is one JSON document
    assert doc["dry_run"] is False and doc["plan"]["operation"] == "graft"
    assert doc["result"]["audit_exit_code"] == 0
    assert "model-mtp.safetensors" in doc["result"]["written"]
    assert len([n for n in doc["result"]["tensor_sha256"] if n.startswith("mtp.")]) == len(MTP_SHAPES)


def test_dry_run_with_short_format_flag_writes_nothing(tmp_path: Path) -> None:
    target = make_qwen36_checkpoint(tmp_path / "target", seed=0)
    out = tmp_path / "x"
    res = CliRunner().invoke(app, ["surgery", "extract", str(target), "--out", str(out), "--dry-run", "-f", "json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["dry_run"] is True and not out.exists()
