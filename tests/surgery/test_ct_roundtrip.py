"""Round trip through an independent reader: compressed-tensors' own NVFP4 unpacking and dequantization.

compressed-tensors (with torch) lives in a separate virtualenv so the project does not depend on torch:
``$SPECSCOPE_CT_PYTHON`` or ``~/.cache/specscope-test-venvs/ct/bin/python``, created with
``python -m venv ~/.cache/specscope-test-venvs/ct && ~/.cache/specscope-test-venvs/ct/bin/pip install
torch==2.13.0 compressed-tensors``. The test is skipped, with that instruction, when it is missing.
One subprocess reads both layouts (importing torch dominates the ~25 s this takes).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from conftest import CT_PYTHON, CT_SKIP_REASON, MTP_LINEARS, make_qwen36_checkpoint, mtp_tensors, read_safetensors
from specscope.surgery import apply_plan, plan_quantize_draft
from specscope.surgery.nvfp4 import dequantize_nvfp4

pytestmark = pytest.mark.skipif(CT_PYTHON is None, reason=CT_SKIP_REASON)
READER = Path(__file__).with_name("ct_reader.py")
LAYOUTS = ("modelopt", "compressed-tensors")


def test_compressed_tensors_reads_our_nvfp4(tmp_path: Path):
    mtp = mtp_tensors(seed=31)
    shards = {}
    for layout in LAYOUTS:
        src = make_qwen36_checkpoint(tmp_path / f"src-{layout}", mtp=mtp, dialect=layout)
        apply_plan(plan_quantize_draft(src, tmp_path / f"q-{layout}"), run_audit=False)
        shards[layout] = tmp_path / f"q-{layout}" / "model-mtp-nvfp4.safetensors"
    out = tmp_path / "ct.npz"
    jobs = [f"{shards[lay]}::{lay}::{m}" for lay in LAYOUTS for m in MTP_LINEARS]
    p = subprocess.run(
        [CT_PYTHON, str(READER), str(out), *jobs],
        capture_output=True,
        text=True,
        timeout=300,
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
