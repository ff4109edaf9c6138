"""Bit for bit against the exporters' own quantizers, run in the reference venv (``make ct-venv``).

Every packed byte, every E4M3 block scale and every per-tensor scale of specscope's ``compressed-tensors`` rules (the
element-wise path and the table path) must equal what compressed-tensors 0.20.1 writes
(scripts/ct_quantize_nvfp4.py), and of its ``modelopt`` rules what NVIDIA ModelOpt 0.47.0's CPU path writes
(scripts/modelopt_quantize_nvfp4.py), on an edge tensor (E2M1 ties, signed zeros, all-zero blocks, subnormal and
underflowing blocks, a saturating block) and on random tensors large enough to hold exact rounding ties
(|x / scale| = 0.75, 1.75, 3.5 landing 1 ulp apart under the other exporter's operation order: the test also
asserts that the two rules differ there, so it can fail). Skipped without the venv; ~10-20 s (importing torch).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from conftest import CT_PYTHON, CT_SKIP_REASON, read_safetensors, write_safetensors
from hangguard import HANG_S
from paths import ROOT
from specscope.surgery import nvfp4
from specscope.surgery.nvfp4_kernel import kernel
from specscope.surgery.nvfp4_stream import quantize_stream

pytestmark = pytest.mark.skipif(CT_PYTHON is None, reason=CT_SKIP_REASON)
SCRIPT = ROOT / "scripts" / "ct_quantize_nvfp4.py"
MO_SCRIPT = ROOT / "scripts" / "modelopt_quantize_nvfp4.py"
ENGINES = ["numpy", *(["numba"] if kernel() is not None else [])]
TIES = [0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 5.0, 6.0, -6.0]


def edge_tensor() -> np.ndarray:
    """``[4, 64]`` BF16. The tensor amax is 2688, so the global scale is 1 and a block whose amax is 6 gets scale 1:
    its values are their own ``x / scale``."""
    w = np.zeros((4, 64), np.float32)
    w[0, 0:16] = TIES  # every grid value and every tie, positive
    w[0, 16:32] = [-v for v in TIES[:-1]] + [6.0]  # the same negative (-0.0 first), amax 6
    w[0, 32:48] = 0.0  # an all-zero block
    w[0, 48:64] = [-0.0, 0.0] * 8  # signed zeros only
    w[1, 0] = 2688.0  # the tensor amax
    w[1, 1:16] = np.linspace(-2600, 2600, 15)
    w[1, 16:32] = 1e-39 * np.arange(-8, 8)  # subnormal BF16: the block scale underflows E4M3
    w[1, 32:48] = 1e-20 * np.arange(1, 17)  # tiny normals, also below the smallest E4M3 scale
    w[1, 48:64] = [0.3, -0.3] * 8  # one magnitude
    w[2] = np.linspace(-7.0, 7.0, 64)  # |x| > 6 within blocks of amax 7: scale 7/6 rounds in E4M3
    w[3] = [(-1) ** i * 0.0625 * (i % 16 + 1) for i in range(64)]
    return w.astype(ml_dtypes.bfloat16)


def random_tensors() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(1234)
    return {
        "edge": edge_tensor(),
        "normal": (rng.standard_normal((192, 1024)) * 0.02).astype(ml_dtypes.bfloat16),
        "wide": (rng.standard_normal((128, 512)) * np.exp(rng.uniform(-8, 8, (128, 1)))).astype(ml_dtypes.bfloat16),
        "gate": (rng.standard_normal((96, 1024)) * 0.03).astype(ml_dtypes.bfloat16),
        "up": (rng.standard_normal((96, 1024)) * 0.05).astype(ml_dtypes.bfloat16),
        "small": (rng.standard_normal((64, 256)) * 0.5).astype(ml_dtypes.bfloat16),
    }


def run_ct(
    tmp_path: Path, tensors: dict[str, np.ndarray], groups: list[list[str]], script: Path = SCRIPT
) -> dict[str, np.ndarray]:
    write_safetensors(tmp_path / "in.safetensors", tensors)
    (tmp_path / "groups.json").write_text(json.dumps(groups))
    p = subprocess.run(
        [
            CT_PYTHON,
            str(script),
            str(tmp_path / "in.safetensors"),
            str(tmp_path / f"{script.stem}.safetensors"),
            str(tmp_path / "groups.json"),
        ],
        capture_output=True,
        text=True,
        timeout=HANG_S,
        env={**os.environ, "TORCHDYNAMO_DISABLE": "1"},
    )
    assert p.returncode == 0, p.stderr[-3000:]
    return read_safetensors(tmp_path / f"{script.stem}.safetensors")


def group_amax(tensors: dict[str, np.ndarray], groups: list[list[str]]) -> dict[str, np.float32]:
    amax = {n: nvfp4.tensor_amax(w) for n, w in tensors.items()}
    for g in groups:
        shared = max(amax[n] for n in g)
        amax.update({n: shared for n in g})
    return amax


def differing_bytes(a: np.ndarray, b: np.ndarray) -> int:
    assert a.shape == b.shape
    return int((np.ascontiguousarray(a).view(np.uint8) != np.ascontiguousarray(b).view(np.uint8)).sum())


def test_every_byte_equals_compressed_tensors(tmp_path: Path):
    tensors = random_tensors()
    groups = [["gate", "up"]]
    ct = run_ct(tmp_path, tensors, groups)
    amax = group_amax(tensors, groups)
    modelopt_diffs = 0
    for name, w in tensors.items():
        plain = nvfp4.quantize_nvfp4(w, amax=amax[name], rules="compressed-tensors", name=name)
        fast = [
            quantize_stream(lambda a, b, w=w: w[a:b], w.shape, w.dtype, amax=amax[name], workers=2, engine=e, name=name)
            for e in ENGINES
        ]
        for q in (plain, *fast):
            assert differing_bytes(q.packed, ct[f"{name}_packed"]) == 0, name
            assert differing_bytes(q.block_scale, ct[f"{name}_scale"]) == 0, name
            assert ct[f"{name}_global_scale"].tobytes() == np.float32(q.global_scale).tobytes(), name
        mo = nvfp4.quantize_nvfp4(w, amax=amax[name], rules="modelopt", name=name)
        modelopt_diffs += differing_bytes(mo.packed, ct[f"{name}_packed"])
    # ModelOpt's operation order (x / (s8 * amax/2688)) lands some exact ties 1 ulp apart: the comparison can fail
    assert modelopt_diffs > 0
    # the edge tensor's first block: every grid value and tie, exactly as the rules say
    codes = nvfp4.unpack_nibbles(ct["edge_packed"])
    assert codes[0, :16].tolist() == [0, 0, 1, 2, 2, 2, 3, 4, 4, 4, 5, 6, 6, 6, 7, 15]
    assert codes[0, 16:32].tolist() == [0, 8, 9, 10, 10, 10, 11, 12, 12, 12, 13, 14, 14, 14, 15, 7]
    assert codes[0, 32:64].tolist() == [0] * 32  # zero blocks and signed zeros: +0
    assert ct["edge_scale"].astype(np.float32)[0, 2] == 0.125  # compressed-tensors' zero-block scale


def _has_modelopt() -> bool:
    probe = "import importlib.util as u, sys; sys.exit(0 if u.find_spec('modelopt') else 1)"
    return CT_PYTHON is not None and subprocess.run([CT_PYTHON, "-c", probe], timeout=HANG_S).returncode == 0


@pytest.mark.skipif(not _has_modelopt(), reason="NVIDIA ModelOpt not in the reference venv: make ct-venv")
def test_every_byte_equals_modelopt(tmp_path: Path):
    tensors = random_tensors()
    groups = [["gate", "up"]]
    mo = run_ct(tmp_path, tensors, groups, MO_SCRIPT)
    amax = group_amax(tensors, groups)
    ct_diffs = 0
    for name, w in tensors.items():
        plain = nvfp4.quantize_nvfp4(w, amax=amax[name], rules="modelopt", name=name)
        fast = [
            quantize_stream(
                lambda a, b, w=w: w[a:b], w.shape, w.dtype, amax=amax[name], rules="modelopt", workers=2, engine=e
            )
            for e in ENGINES
        ]
        for q in (plain, *fast):
            assert differing_bytes(q.packed, mo[f"{name}_packed"]) == 0, name
            assert differing_bytes(q.block_scale, mo[f"{name}_scale"]) == 0, name
            assert mo[f"{name}_scale_2"].tobytes() == np.float32(q.scale2).tobytes(), name
        ct = nvfp4.quantize_nvfp4(w, amax=amax[name], rules="compressed-tensors", name=name)
        ct_diffs += differing_bytes(ct.packed, mo[f"{name}_packed"]) + differing_bytes(
            ct.block_scale, mo[f"{name}_scale"]
        )
    assert ct_diffs > 0  # the two exporters' arithmetic differs on these tensors
    assert mo["edge_scale"].astype(np.float32)[0, 2] == 1.0  # ModelOpt's zero-block scale
    assert mo["edge_scale"].astype(np.float32)[1, 1] == 2.0**-9  # and its clamp of an underflowing block


def test_e4m3_cast_equals_torch(tmp_path: Path):
    """ml_dtypes' float32 -> E4M3 cast against torch's on every midpoint between E4M3 values and its neighbours."""
    pos = np.arange(0x7F, dtype=np.uint8).view(ml_dtypes.float8_e4m3fn).astype(np.float32)  # 0 .. 448
    mids = (pos[:-1].astype(np.float64) + pos[1:]) / 2
    vals = np.concatenate(
        [
            pos,
            mids.astype(np.float32),
            np.nextafter(mids.astype(np.float32), 0),
            np.nextafter(mids.astype(np.float32), 1e9),
        ]
    ).astype(np.float32)
    np.save(tmp_path / "v.npy", vals)
    code = (
        "import numpy as np, torch, sys; v = torch.from_numpy(np.load(sys.argv[1]));"
        "np.save(sys.argv[2], v.to(torch.float8_e4m3fn).view(torch.uint8).numpy())"
    )
    p = subprocess.run(
        [CT_PYTHON, "-c", code, str(tmp_path / "v.npy"), str(tmp_path / "t.npy")],
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert p.returncode == 0, p.stderr[-2000:]
    theirs = np.load(tmp_path / "t.npy")
    ours = nvfp4.fp8_e4m3_round(vals).view(np.uint8)
    assert vals.size > 500 and (ours == theirs).all()
