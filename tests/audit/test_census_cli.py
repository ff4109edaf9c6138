"""Byte census (seed 003 numbers), bandwidth parsing, and the ``specscope audit`` command's exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from paths import CASES
from specscope.audit import audit_checkpoint, parse_bandwidth, roofline_tokens_per_s
from specscope.cli import app
from specscope.errors import ConfigError

from .qwen36 import INTER, H, V, build


def test_seed003_roofline_and_share() -> None:
    # seed 003: 17.61 GB per token at 273 GB/s -> ~15.5 tok/s; MTP 0.85 GB = 4.8 % of a target pass.
    assert roofline_tokens_per_s(17.61e9, parse_bandwidth("273GB/s")) == pytest.approx(15.502, abs=1e-3)
    assert 0.85e9 / 17.61e9 == pytest.approx(0.048, abs=5e-4)


@pytest.mark.parametrize(
    "text,bytes_per_s",
    [
        ("273GB/s", 273e9),
        ("4.8TB/s", 4.8e12),
        ("273 GB/s", 273e9),
        ("800GiB/s", 800 * 1024**3),
        ("dgx-spark", 273e9),
        ("H200", 4.8e12),
    ],
)
def test_parse_bandwidth(text: str, bytes_per_s: float) -> None:
    assert parse_bandwidth(text) == pytest.approx(bytes_per_s)


@pytest.mark.parametrize("text", ["fast", "273", "-1GB/s", "12 apples/s"])
def test_parse_bandwidth_rejects(text: str) -> None:
    with pytest.raises(ConfigError):
        parse_bandwidth(text)


def test_census_bytes_qwen36_bf16(tmp_path: Path) -> None:
    r = audit_checkpoint(build(tmp_path / "ck"), bandwidth="273GB/s")
    c = r.census
    bf16 = 2
    mtp = bf16 * (H * 2 * H + 3 * H + 2 * H + (2 * H * H + 16 * H * 2 + H * H) + 2 * 16 + 3 * INTER * H)
    assert c.bytes_by_group["mtp_draft"] == mtp
    assert c.draft_bytes_per_step == mtp
    assert c.bytes_by_group["embeddings"] == V * H * bf16
    assert c.bytes_by_group["lm_head"] == V * H * bf16
    vision = bf16 * (32 * 3 * 2 * 2 + 96 * 32 + H * 32)
    assert c.bytes_by_group["vision"] == vision
    # one target step: everything but vision and MTP, and one embedding row instead of the table
    assert c.target_bytes_per_token == c.total_bytes - vision - mtp - (V - 1) * H * bf16
    assert c.draft_share == pytest.approx(mtp / c.target_bytes_per_token)
    assert c.roofline_tokens_per_s == pytest.approx(273e9 / c.target_bytes_per_token)
    assert sum(c.bytes_by_group.values()) == c.total_bytes == sum(c.bytes_by_dtype.values())


def test_cli_exit_codes_and_json(tmp_path: Path) -> None:
    runner = CliRunner()
    clean = runner.invoke(app, ["audit", str(build(tmp_path / "ok")), "--format", "json"])
    assert clean.exit_code == 0
    assert json.loads(clean.stdout)["findings"] == []
    err = runner.invoke(app, ["audit", str(CASES / "C01" / "checkpoint"), "--format", "json"])
    assert err.exit_code == 1
    assert [f["code"] for f in json.loads(err.stdout)["findings"]] == ["MTP_WEIGHTS_MISSING"]
    warn = runner.invoke(app, ["audit", str(CASES / "C10" / "A_mixed")])
    assert warn.exit_code == 0 and "FP8_KV_V_ONLY" in warn.stdout
    strict = runner.invoke(app, ["audit", str(CASES / "C10" / "A_mixed"), "--strict", "--format", "json"])
    assert strict.exit_code == 1 and json.loads(strict.stdout)["exit_code"] == 1


def test_cli_unreadable_target_exits_2(tmp_path: Path) -> None:
    from specscope.cli import main

    with pytest.raises(SystemExit) as info:
        main(["audit", str(tmp_path / "nothing-here")])
    assert info.value.code == 2
    with pytest.raises(SystemExit) as info:
        main(["audit", str(build(tmp_path / "ok")), "--bandwidth", "fast"])
    assert info.value.code == 2


def test_cli_draft_against_target(tmp_path: Path) -> None:
    target = build(tmp_path / "target")
    draft = tmp_path / "draft"
    draft.mkdir()
    cfg = json.loads((CASES / "C09" / "draft_config.json").read_text())
    cfg["vocab_size"] = V + 1
    (draft / "config.json").write_text(json.dumps(cfg))
    r = audit_checkpoint(target, draft=draft)
    codes = sorted((f.severity.value, f.code, f.file) for f in r.findings)
    # neither side ships a tokenizer: a size difference cannot be told from padding (a warning, not an error)
    assert ("warning", "DRAFT_VOCAB_UNVERIFIED", "draft:config.json") in codes
    assert ("error", "DRAFT_TARGET_LAYER_OUT_OF_RANGE", "draft:config.json") in codes  # ids up to 61, target has 4
    assert ("error", "DRAFT_HIDDEN_MISMATCH", "draft:config.json") in codes  # DFlash hidden 5120 vs 64
