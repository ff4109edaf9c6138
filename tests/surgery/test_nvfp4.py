"""NVFP4 codec against a slow, obvious reference; edge inputs; case C08 (scale conventions, gate/up sharing)."""

from __future__ import annotations

import json
import math

import ml_dtypes
import numpy as np
import pytest

from conftest import read_safetensors
from paths import CASES
from specscope.errors import SurgeryError
from specscope.surgery import nvfp4
from specscope.surgery.nvfp4_kernel import kernel
from specscope.surgery.nvfp4_stream import quantize_stream, stream_amax

#: the table path's engines (the compiled loop only where numba is installed) x one and two threads
ENGINE_RUNS = [(e, w) for e in ("numpy", "numba") if e == "numpy" or kernel() is not None for w in (1, 2)]

GRID = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]


def _all_e4m3_values() -> list[tuple[float, int]]:
    """(value, bits) of every finite non-negative E4M3 (fn) number, decoded from the bit layout by hand."""
    out = []
    for bits in range(0x7F):  # 0x7F is NaN
        e, m = bits >> 3, bits & 7
        v = (m / 8) * 2.0**-6 if e == 0 else (1 + m / 8) * 2.0 ** (e - 7)
        out.append((v, bits))
    return out


E4M3 = _all_e4m3_values()


def ref_e4m3(x: float) -> float:
    """Nearest E4M3 value, ties to the even bit pattern (x >= 0, x <= 448)."""
    best = min(E4M3, key=lambda vb: (abs(vb[0] - x), vb[1] & 1))
    return best[0]


def ref_e2m1_code(y: float, negative: bool) -> int:
    """Nearest grid value, ties to the even index (even mantissa), saturating; sign bit when x < 0."""
    a = abs(y)
    idx = min(range(8), key=lambda i: (abs(GRID[i] - a), i & 1))
    return idx | (8 if negative else 0)


def ref_tensor_scale(a: np.float32, rules: str) -> tuple[np.float32, np.float32]:
    """(scale2, global_scale) of abs-max ``a``: ModelOpt amax / 2688; compressed-tensors 2688 / amax the way torch
    evaluates ``2688.0 / tensor`` (reciprocal, then multiply), 1.0 when that overflows."""
    if rules == "modelopt":
        s2 = np.float32(1.0) if a == 0 else np.float32(a / np.float32(2688.0))
        return s2, np.float32(np.float32(1.0) / s2)
    t = max(a, np.finfo(np.float32).tiny)
    with np.errstate(over="ignore"):
        g = np.float32(np.float32(np.float32(1.0) / t) * np.float32(2688.0))
    g = g if math.isfinite(g) else np.float32(1.0)
    return np.float32(np.float32(1.0) / g), g


def ref_block(bamax: np.float32, s2: np.float32, g: np.float32, rules: str) -> tuple[np.float32, np.float32]:
    """(E4M3 block scale, float32 divisor) of a block with abs-max ``bamax``."""
    if rules == "modelopt":
        s = np.float32(1.0) if bamax == 0 else np.float32(bamax / np.float32(np.float32(6.0) * s2))
        s8 = np.float32(ref_e4m3(float(min(max(s, np.float32(2.0**-9)), np.float32(448.0)))))
        return s8, np.float32(s8 * s2)
    with np.errstate(over="ignore"):
        s = np.float32(g * np.float32(bamax / np.float32(6.0)))
    s8 = np.float32(ref_e4m3(float(min(s, np.float32(448.0)))))
    s8 = np.float32(0.125) if s8 == 0 else s8
    return s8, np.float32(s8 / g)


def ref_quantize(w: np.ndarray, amax: float | None = None, rules: str = "compressed-tensors"):
    """Element by element: each exporter's rules written out plainly, float32 arithmetic in its order."""
    x = w.astype(np.float32)
    a = np.float32(np.abs(x).max()) if amax is None else np.float32(amax)
    s2, g = ref_tensor_scale(a, rules)
    out_f, in_f = x.shape
    codes = np.zeros((out_f, in_f), np.uint8)
    scales = np.zeros((out_f, in_f // 16), np.float32)
    for r in range(out_f):
        for b in range(in_f // 16):
            blk = x[r, b * 16 : (b + 1) * 16]
            scales[r, b], eff = ref_block(np.float32(np.abs(blk).max()), s2, g, rules)
            for j in range(16):
                with np.errstate(over="ignore"):
                    y = np.float32(blk[j] / eff)
                codes[r, b * 16 + j] = ref_e2m1_code(float(y), bool(blk[j] < 0))
    packed = np.zeros((out_f, in_f // 2), np.uint8)
    for r in range(out_f):
        for k in range(in_f // 2):
            packed[r, k] = codes[r, 2 * k] + 16 * codes[r, 2 * k + 1]
    return packed, scales, (s2 if rules == "modelopt" else g)


def assert_matches_reference(
    w: np.ndarray, amax: float | None = None, rules: str = "compressed-tensors"
) -> nvfp4.NVFP4Weight:
    """The element-wise codec and the table path (one and two threads) against :func:`ref_quantize`, bit for bit."""
    q = nvfp4.quantize_nvfp4(w, amax=amax, rules=rules)
    packed, scales, per_tensor = ref_quantize(w, amax, rules)
    own = q.scale2 if rules == "modelopt" else q.global_scale
    assert np.float32(own).tobytes() == per_tensor.tobytes()
    np.testing.assert_array_equal(q.block_scale.astype(np.float32), scales)
    np.testing.assert_array_equal(q.packed, packed)
    a = q.amax if amax is None else amax
    for engine, workers in ENGINE_RUNS:
        f = quantize_stream(
            lambda r0, r1: w[r0:r1], w.shape, w.dtype, amax=a, rules=rules, workers=workers, engine=engine
        )
        assert f.packed.tobytes() == q.packed.tobytes() and f.block_scale.tobytes() == q.block_scale.tobytes()
        assert f.scale == q.scale
    return q


RULES = pytest.mark.parametrize("rules", nvfp4.RULES)
DTYPES = [ml_dtypes.bfloat16, np.float16, np.float32]


@RULES
@pytest.mark.parametrize(
    "seed,scale,dtype",
    [(0, 0.02, ml_dtypes.bfloat16), (1, 1.0, np.float32), (2, 300.0, np.float16), (3, 1e-3, ml_dtypes.bfloat16)],
)
def test_random_inputs_match_reference_bit_for_bit(seed, scale, dtype, rules):
    rng = np.random.default_rng(seed)
    w = (rng.standard_normal((8, 64)) * scale).astype(dtype)
    w[0, :16] *= 40  # one outlier block so the others use small E4M3 scales
    assert_matches_reference(w, rules=rules)


@RULES
def test_all_sixteen_codes_and_packing_low_nibble_first(rules):
    # block amax 6 with amax 2688 -> per-tensor scale 1, block scale 1: values land on the grid exactly
    vals = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.01, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0]
    w = np.array([vals], np.float32)
    q = assert_matches_reference(w, amax=2688.0, rules=rules)
    assert q.scale2 == np.float32(1.0) == q.global_scale
    codes = nvfp4.unpack_nibbles(q.packed)[0].tolist()
    assert codes == list(range(16))
    assert q.packed[0, 0] == 0x10 and q.packed[0, 1] == 0x32  # element 0 low nibble, element 1 high nibble
    assert nvfp4.pack_nibbles(np.array([[1, 2]], np.uint8))[0, 0] == 0x21


def test_ties_round_to_even_and_saturate():
    y = np.array([0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0, 7.0, 100.0, -0.25, -5.0, np.inf], np.float32)
    assert nvfp4.encode_e2m1(y).tolist() == [0, 2, 2, 4, 4, 6, 6, 7, 7, 8, 14, 7]


def edge_block_rows(dtype) -> np.ndarray:
    """``[6, 32]``: exact ties and their 1-ulp neighbours, signed zeros, an all-zero block, the dtype's smallest
    subnormals and normals, a block at the dtype's largest finite value; tensor amax 2688 (scale 1 on 6-blocks)."""
    info = ml_dtypes.finfo(dtype)
    ties = np.array([0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0], np.float32).astype(dtype)
    up = np.array([np.nextafter(t, np.inf, dtype=dtype) if dtype != ml_dtypes.bfloat16 else t for t in ties])
    w = np.zeros((6, 32), dtype)
    w[0, :7], w[0, 7], w[0, 8:15], w[0, 15] = ties, 6.0, -ties, -6.0
    w[0, 16:23], w[0, 23] = up, 6.0
    w[1, 0], w[1, 1:16] = 2688.0 if dtype != np.float16 else 2688.0, np.linspace(-100, 100, 15).astype(dtype)
    w[2, :16] = np.array([-0.0, 0.0] * 8, np.float32).astype(dtype)  # signed zeros: an all-zero block
    w[3, :16] = np.arange(-8, 8).astype(np.float32) * np.float32(info.smallest_subnormal)
    w[3, 16:] = np.arange(1, 17).astype(np.float32) * np.float32(info.smallest_normal)
    w[4, :16] = np.array([0.3, -0.3] * 8, np.float32).astype(dtype)
    w[5, 16:] = np.linspace(-7, 7, 16).astype(dtype)  # |y| > 6 after the block scale's E4M3 rounding: saturates
    return w


@RULES
@pytest.mark.parametrize("dtype", DTYPES)
def test_edge_values_match_reference(dtype, rules):
    w = edge_block_rows(dtype)
    q = assert_matches_reference(w, rules=rules)
    codes = nvfp4.unpack_nibbles(q.packed)
    # with scale 1 the ties round to the even mantissa: 0.25->0 0.75->1 1.25->1 1.75->2 2.5->2 3.5->4 5->4
    assert codes[0, :8].tolist() == [0, 2, 2, 4, 4, 6, 6, 7]
    assert codes[0, 8:16].tolist() == [8, 10, 10, 12, 12, 14, 14, 15]
    assert codes[2, :16].tolist() == [0] * 16  # -0.0 encodes as +0
    zero_block = float(q.block_scale.astype(np.float32)[2, 0])
    assert zero_block == (0.125 if rules == "compressed-tensors" else 1.0)


@RULES
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_nan_and_inf_rejected(bad, dtype, rules):
    w = np.ones((40, 16), np.float32)
    w[33, 5] = bad
    w = w.astype(dtype)
    with pytest.raises(SurgeryError) as ei:
        nvfp4.quantize_nvfp4(w, rules=rules, name="mtp.fc.weight")
    assert "mtp.fc.weight" in ei.value.message and "row 33" in str(ei.value.found)
    with pytest.raises(SurgeryError, match="row 33"):
        stream_amax(lambda r0, r1: w[r0:r1], w.shape, w.dtype, name="mtp.fc.weight")
    for engine, workers in ENGINE_RUNS:
        with pytest.raises(SurgeryError, match="row 33"):
            quantize_stream(
                lambda r0, r1: w[r0:r1], w.shape, w.dtype, amax=1.0, rules=rules, workers=workers, engine=engine
            )


def test_all_zero_tensor():
    for rules in nvfp4.RULES:
        q = assert_matches_reference(np.zeros((1, 16), np.float32), rules=rules)
        assert q.scale2 == np.float32(1.0) and q.packed.tolist() == [[0] * 8]


@pytest.mark.parametrize("amax", [3.0e38, 1.0e-30])
def test_huge_and_tiny_amax(amax):
    rng = np.random.default_rng(5)
    w = (rng.uniform(-1, 1, (4, 32)) * amax).astype(np.float32)
    w[0, 0] = amax
    for rules in nvfp4.RULES:
        q = assert_matches_reference(w, rules=rules)
        d = nvfp4.dequantize_nvfp4(q.packed, q.block_scale, q.scale2)
        assert np.isfinite(d).all()
        assert d[0, 0] == pytest.approx(amax, rel=1e-6)  # the amax element maps to code 6 x 448 x scale2
    q = nvfp4.quantize_nvfp4(w, rules="modelopt")
    assert q.scale2 == np.float32(np.float32(amax) / np.float32(2688))


def test_tiny_block_scale_underflow():
    w = np.zeros((1, 32), np.float32)
    w[0, 0] = 1.0
    w[0, 16] = 1e-9  # block scale 1e-9/(6 * 1/2688) underflows E4M3
    mo = assert_matches_reference(w, rules="modelopt")
    assert float(mo.block_scale.astype(np.float32)[0, 1]) == 2.0**-9  # ModelOpt clamps to the smallest E4M3
    ct = assert_matches_reference(w, rules="compressed-tensors")
    assert float(ct.block_scale.astype(np.float32)[0, 1]) == 0.125  # compressed-tensors' eps
    for q in (mo, ct):
        assert nvfp4.unpack_nibbles(q.packed)[0, 16:].tolist() == [0] * 16


def test_stream_amax_equals_plain_amax():
    rng = np.random.default_rng(9)
    for dtype in DTYPES:
        w = (rng.standard_normal((300, 64)) * 3).astype(dtype)
        assert stream_amax(lambda r0, r1, w=w: w[r0:r1], w.shape, w.dtype) == nvfp4.tensor_amax(w)


def test_shape_errors():
    with pytest.raises(SurgeryError):
        nvfp4.quantize_nvfp4(np.ones((4, 24), np.float32))
    with pytest.raises(SurgeryError):
        nvfp4.quantize_nvfp4(np.ones((16,), np.float32))
    with pytest.raises(SurgeryError):
        quantize_stream(lambda r0, r1: np.ones((1, 24)), (4, 24), np.dtype(np.float32), amax=1.0)


def test_dequantized_within_format_error_bound():
    rng = np.random.default_rng(11)
    w = (rng.standard_normal((64, 256)) * 0.05).astype(ml_dtypes.bfloat16)
    q = nvfp4.quantize_nvfp4(w, rules="modelopt")
    d = nvfp4.dequantize_nvfp4(q.packed, q.block_scale, q.scale2)
    x = w.astype(np.float32)
    eff = (q.block_scale.astype(np.float32) * q.scale2).repeat(16, axis=1)  # [out, in]
    y = np.abs(x) / eff
    half_gap = np.where(y <= 2, 0.25, np.where(y <= 4, 0.5, 1.0))
    bound = eff * half_gap + np.maximum(np.abs(x) - 6 * eff, 0)
    assert (np.abs(d - x) <= bound * (1 + 1e-6)).all()
    assert (y <= 6 * (1 + 2**-4) + 1e-6).all()  # E4M3 rounding of the block scale costs at most 2^-4


def test_c08_a1_scale_conventions():
    amax = json.loads((CASES / "C08/A_convention/amax.json").read_text())
    expected = {
        "mtp.fc": (0.001, 0.005, 1000.0, 200.0, 224.0),
        "mtp.layers.0.self_attn.q_proj": (1 / 3000, 0.002, 3000.0, 500.0, 224.0),
    }
    for module, (ws2, ins, wgs, igs, blk0) in expected.items():
        a = amax[module]
        s2 = nvfp4.scale2_from_amax(a["weight_amax"])
        in_s = nvfp4.scale2_from_amax(a["input_amax"])
        assert float(s2) == pytest.approx(ws2, rel=1e-6)
        assert float(in_s) == pytest.approx(ins, rel=1e-6)
        assert float(nvfp4.global_scale_from_scale2(s2)) == pytest.approx(wgs, rel=1e-6)
        assert float(nvfp4.global_scale_from_scale2(in_s)) == pytest.approx(igs, rel=1e-6)
        # a weight whose amax and block-0 amax are the calibrated ones
        w = np.full((1, 32), 0.01, np.float32)
        w[0, 0] = a["block0_amax"]
        w[0, 16] = a["weight_amax"]
        q = nvfp4.quantize_nvfp4(w, rules="modelopt")
        assert float(q.block_scale.astype(np.float32)[0, 0]) == blk0
        d = nvfp4.dequantize_nvfp4(q.packed, q.block_scale, q.scale2)
        assert float(d[0, 0]) == pytest.approx(a["block0_amax"], rel=1e-6)  # 6 x 224 x scale2
        # the same value through the CT convention: code x scale / global
        assert 6.0 * 224.0 / float(q.global_scale) == pytest.approx(a["block0_amax"], rel=1e-6)
    assert 0.005 * 0.001 == pytest.approx(1 / (200 * 1000))  # GEMM alpha agrees across conventions


def test_c08_b2_shared_gate_up_scale():
    mo = read_safetensors(CASES / "C08/B_gate_up/experts_scale2.modelopt.safetensors")
    ct = read_safetensors(CASES / "C08/B_gate_up/experts_global_scale.compressed_tensors.safetensors")
    blocks = json.loads((CASES / "C08/B_gate_up/block_scales.json").read_text())
    want_shared = {0: 4.83e-5, 1: 2.0e-5, 2: 1.0e-4}
    want_blocks = {0: (176.0, 224.0), 1: (224.0, 224.0), 2: (224.0, 22.0)}
    for e in range(3):
        pre = f"model.layers.0.mlp.experts.{e}"
        s_gate = float(mo[f"{pre}.gate_proj.weight_scale_2"])
        s_up = float(mo[f"{pre}.up_proj.weight_scale_2"])
        bs = [
            np.array([blocks[f"expert{e}"]["gate_proj"]], np.float32),
            np.array([blocks[f"expert{e}"]["up_proj"]], np.float32),
        ]
        shared, new = nvfp4.share_global_scale(bs, [s_gate, s_up])
        assert float(shared) == pytest.approx(want_shared[e], rel=1e-4)
        assert (float(new[0].astype(np.float32)[0]), float(new[1].astype(np.float32)[0])) == want_blocks[e]
        ct_min = min(
            float(ct[f"{pre}.gate_proj.weight_global_scale"][0]), float(ct[f"{pre}.up_proj.weight_global_scale"][0])
        )
        assert 1.0 / float(shared) == pytest.approx(ct_min, rel=1e-4)  # CT: the min of the reciprocal globals
    # residual error after E4M3 rounding (C08 B2): e0 gate -1.43 %, e2 up -1.79 %
    assert math.isclose(176 * 4.83e-5 / (224 * 3.85e-5) - 1, -0.0143, abs_tol=1e-4)
    assert math.isclose(22 * 1e-4 / (224 * 1e-5) - 1, -0.0179, abs_tol=1e-4)
