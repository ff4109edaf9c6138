"""Round trip through an independent reader: compressed-tensors' own NVFP4 unpacking and dequantization.

compressed-tensors (with torch) lives in a separate virtualenv so the project does not depend on torch:
``$SPECSCOPE_CT_PYTHON`` or ``~/.cache/specscope-test-venvs/ct/bin/python``, created with
``python -m venv ~/.cache/specscope-test-venvs/ct && ~/.cache/specscope-test-venvs/ct/bin/pip install
torch==2.13.0 compressed-tensors``. The test is skipped, with that instruction, when it is missing.
One subprocess reads both layouts (importing torch dominates the ~25 s this takes).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from conftest import CT_PYTHON, CT_SKIP_REASON, MTP_LINEARS, make_qwen36_checkpoint, mtp_tensors, read_safetensors
from hangguard import HANG_S
from specscope.surgery import apply_plan, plan_quantize_draft
from specscope.surgery.nvfp4 import dequantize_nvfp4

pytestmark = pytest.mark.skipif(CT_PYTHON is None, reason=CT_SKIP_REASON)
READER = Path(__file__).with_name("ct_reader.py")
LAYOUTS = ("modelopt", "compressed-tensors")


def test_compressed_tensors_reads_our_nvfp4(tmp_path: Path):
    """W4A4 drafts (``--scheme nvfp4`` on the W4A4 targets of conftest, fc and q/k/v from an amax file): weights
    dequantized by compressed-tensors, activations quantized by it against the scales we wrote."""
    mtp = mtp_tensors(seed=31)
    shards = {}
    amax = tmp_path / "amax.json"
    amax.write_text(json.dumps({"mtp.fc": 13.44, "mtp.layers.0.self_attn.q_proj": 5.376}))
    for layout in LAYOUTS:
        src = make_qwen36_checkpoint(tmp_path / f"src-{layout}", mtp=mtp, dialect=layout)
        plan = plan_quantize_draft(src, tmp_path / f"q-{layout}", scheme="nvfp4", input_amax=amax)
        assert plan.args["w4a4"] and len(plan.args["activation_scales"]) == 7  # o_proj has no source
        apply_plan(plan, run_audit=False)
        shards[layout] = tmp_path / f"q-{layout}" / "model-mtp-nvfp4.safetensors"
    out = tmp_path / "ct.npz"
    jobs = [f"{shards[lay]}::{lay}::{m}" for lay in LAYOUTS for m in MTP_LINEARS]
    p = subprocess.run(
        [CT_PYTHON, str(READER), str(out), *jobs],
        capture_output=True,
        text=True,
        timeout=HANG_S,
        env={**os.environ, "TORCHDYNAMO_DISABLE": "1"},
    )
    assert p.returncode == 0, p.stderr[-2000:]
    with np.load(out) as z:
        theirs = {k: z[k] for k in z.files}
    for layout in LAYOUTS:
        new = read_safetensors(shards[layout])
        for m in MTP_LINEARS:
            packed = new[f"{m}.weight" if layout == "modelopt" else f"{m}.weight_packed"]
            scale2 = (
                float(new[f"{m}.weight_scale_2"])
                if layout == "modelopt"
                else 1.0 / float(new[f"{m}.weight_global_scale"][0])
            )
            ours = dequantize_nvfp4(packed, new[f"{m}.weight_scale"], scale2)
            # float32 path: code * scale / global vs our code * (scale * scale2): equal to float32 rounding
            np.testing.assert_allclose(theirs[f"{layout}|{m}|f32"], ours, rtol=2e-6, atol=0)
            # CT's own decompressor computes in bfloat16: equal to bfloat16 rounding
            np.testing.assert_allclose(theirs[f"{layout}|{m}|compressor"], ours, rtol=2**-7, atol=0)
            # and close to the BF16 original within the NVFP4 error bound (see test_nvfp4)
            x = mtp[f"{m}.weight"].astype(np.float32)
            eff = (new[f"{m}.weight_scale"].astype(np.float32) * np.float32(scale2)).repeat(16, axis=1)
            assert (np.abs(theirs[f"{layout}|{m}|f32"] - x) <= eff * (1 + 1e-5)).all()
            if m == "mtp.layers.0.self_attn.o_proj":
                assert f"{layout}|{m}|act_q" not in theirs  # W4A16: no activation scale
                continue
            # activations: CT's per-block quantization against our global scale stays within the E2M1 error bound
            # (half the widest gap, 1 x the block scale, which E4M3 rounds by at most 2^-4): nothing is clipped
            ax, aq = theirs[f"{layout}|{m}|act_x"], theirs[f"{layout}|{m}|act_q"]
            blk = np.abs(ax).reshape(ax.shape[0], -1, 16).max(axis=-1).repeat(16, axis=1)
            assert (np.abs(aq - ax) <= blk / 6 * (1 + 2**-4) * (1 + 1e-5)).all(), (layout, m)
            assert np.abs(aq).max() == pytest.approx(np.abs(ax).max(), rel=2**-4)
