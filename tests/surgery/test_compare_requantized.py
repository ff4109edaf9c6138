"""``surgery compare BF16 NVFP4``: a head against its own re-quantization gives each linear's quantization error
(user62). The rows of the quantized linears had an empty cosine and max abs diff (dtype and shape differ: BF16
[out, in] against packed U8 [out, in/2]), the one figure a user re-quantizing a head compares for."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from clirun import cli
from conftest import MTP_LINEARS, make_qwen36_checkpoint, mtp_tensors, read_safetensors
from specscope.surgery import apply_plan, compare_checkpoints, plan_quantize_draft
from specscope.surgery.nvfp4 import dequantize_nvfp4


def test_a_head_against_its_nvfp4_requantization(tmp_path: Path):
    head = mtp_tensors(seed=5)
    src = make_qwen36_checkpoint(tmp_path / "bf16", seed=1, mtp=head)
    out = tmp_path / "nvfp4"
    apply_plan(plan_quantize_draft(src, out))
    q = {}
    for p in out.glob("*.safetensors"):
        q.update(read_safetensors(p))
    rows = {r.name: r for r in compare_checkpoints(src, out)}
    for module in MTP_LINEARS:
        name = module + ".weight"
        r = rows[name]
        assert (r.dtype_a, r.dtype_b, r.identical) == ("BF16", "U8", False)
        assert r.dequantized == "b"
        a = head[name].astype(np.float64)
        b = dequantize_nvfp4(q[name], q[module + ".weight_scale"], float(q[module + ".weight_scale_2"])).astype(
            np.float64
        )
        want_cos = float(a.reshape(-1) @ b.reshape(-1) / (np.linalg.norm(a) * np.linalg.norm(b)))
        assert r.cosine == want_cos and 0.95 < r.cosine < 1.0
        assert r.max_abs_diff == float(np.abs(a - b).max())
    # the side tensors stay rows of their own; the norms are copied unchanged
    assert rows["mtp.fc.weight_scale"].in_a is False and rows["mtp.fc.weight_scale"].cosine is None
    assert rows["mtp.norm.weight"].identical and rows["mtp.norm.weight"].dequantized is None


def test_the_text_table_says_which_side_was_dequantized(tmp_path: Path, capsys, monkeypatch):
    src = make_qwen36_checkpoint(tmp_path / "bf16", seed=1, mtp=mtp_tensors(seed=5))
    apply_plan(plan_quantize_draft(src, tmp_path / "nvfp4"))
    code, out, err = cli(["surgery", "compare", tmp_path / "nvfp4", src], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert "8 NVFP4 weight(s) dequantized (E2M1 code x block scale x weight_scale_2, side A)" in " ".join(out.split())


def test_a_head_against_its_compressed_tensors_requantization(tmp_path: Path, capsys, monkeypatch):
    """user63: compressed-tensors stores the packed codes as ``<m>.weight_packed`` (scales ``weight_scale`` E4M3
    and ``weight_global_scale`` F32 [1], dequantize = code x block scale / global; compressed-tensors 0.20.1
    ``quantization/lifecycle/forward.py`` ``_dequantize``). Its rows said "only in A" / "only in B": the packed
    weight now lines up with the float ``<m>.weight`` and is compared dequantized."""
    head = mtp_tensors(seed=7)
    src = make_qwen36_checkpoint(tmp_path / "bf16", seed=2, mtp=head, dialect="compressed-tensors")
    out = tmp_path / "ct"
    apply_plan(plan_quantize_draft(src, out))
    q = read_safetensors(out / "model-mtp-nvfp4.safetensors")
    code, text, err = cli(["surgery", "compare", src, out, "--format", "json"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    rows = {r["name"]: r for r in json.loads(text)}
    for module in MTP_LINEARS:
        r = rows[module + ".weight"]
        assert (r["in_a"], r["in_b"], r["dtype_a"], r["dtype_b"]) == (True, True, "BF16", "U8")
        assert (r["dequantized"], r["stored_b"]) == ("b", module + ".weight_packed")
        assert module + ".weight_packed" not in rows
        a = head[module + ".weight"].astype(np.float64)
        b = dequantize_nvfp4(
            q[module + ".weight_packed"],
            q[module + ".weight_scale"],
            1.0 / float(q[module + ".weight_global_scale"][0]),
        ).astype(np.float64)
        want_cos = float(a.reshape(-1) @ b.reshape(-1) / (np.linalg.norm(a) * np.linalg.norm(b)))
        assert r["cosine"] == want_cos and 0.95 < r["cosine"] < 1.0
        assert r["max_abs_diff"] == float(np.abs(a - b).max())
    assert rows["mtp.fc.weight_global_scale"]["in_a"] is False
    code, text, err = cli(["surgery", "compare", out, src], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    flat = " ".join(text.split())
    assert "8 NVFP4 weight(s) dequantized (E2M1 code x block scale / weight_global_scale, side A)" in flat
    assert "(stored as <module>.weight_packed, lined up with the other side's <module>.weight)" in flat
