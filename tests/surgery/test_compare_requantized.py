"""``surgery compare BF16 NVFP4``: a head against its own re-quantization gives each linear's quantization error
(user62). The rows of the quantized linears had an empty cosine and max abs diff (dtype and shape differ: BF16
[out, in] against packed U8 [out, in/2]), the one figure a user re-quantizing a head compares for."""

from __future__ import annotations

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
