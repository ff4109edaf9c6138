"""NVFP4 codec: FP4 E2M1 codes in blocks of 16 with FP8 E4M3 block scales and a float32 per-tensor scale.

Format (NVIDIA ModelOpt, ``modelopt/torch/quantization/qtensor/nvfp4_tensor.py``, read for the rules, not copied):

* per-tensor scale ``scale2 = amax / (6 * 448)`` in float32 (ModelOpt ``weight_scale_2``; the dequantizer
  multiplies by it). compressed-tensors stores the reciprocal ``global_scale = (6 * 448) / amax``
  (``weight_global_scale``; its dequantizer divides by it; case C08).
* per-block scale ``fp8_e4m3(block_amax / (6 * scale2))``; a block whose amax is 0 gets scale 1.0.
  The cast to E4M3 is round-to-nearest-even (``ml_dtypes.float8_e4m3fn``, the same as torch's cast).
* codes: ``y = x / (float32(block_scale) * scale2)`` rounded to the nearest value of the E2M1 grid
  ``0, 0.5, 1, 1.5, 2, 3, 4, 6`` with ties to the value whose mantissa bit is even (0.25->0, 0.75->1,
  1.25->1, 1.75->2, 2.5->2, 3.5->4, 5->4), magnitudes above 6 saturate to 6. Bit 3 is the sign, set when
  ``x < 0`` (so -0.0 encodes as +0, a small negative that rounds to zero as code 8 = -0; ModelOpt's rule).
* packing: two codes per byte, element ``2i`` in the low nibble, ``2i+1`` in the high nibble.
* dequantize: ``E2M1[code] * (float32(block_scale) * scale2)`` in float32.

Two deliberate differences from ModelOpt, both only where ModelOpt produces non-finite numbers:
an all-zero tensor gets ``scale2 = 1.0`` (ModelOpt divides 0 by 0 and stores NaN block scales), and a
block whose E4M3 scale rounds to 0 gets codes 0 (ModelOpt divides by zero there; the dequantized value is
0 either way). NaN or infinite weights are rejected with :class:`~specscope.errors.SurgeryError`.

Everything is numpy and streams over row chunks, so peak memory is the input tensor plus a few chunk-sized
float32 temporaries.
"""

from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np

from specscope.errors import SurgeryError

__all__ = [
    "BLOCK_SIZE",
    "FP4_MAX",
    "FP8_E4M3_MAX",
    "E2M1_VALUES",
    "NVFP4Weight",
    "tensor_amax",
    "scale2_from_amax",
    "global_scale_from_scale2",
    "encode_e2m1",
    "pack_nibbles",
    "unpack_nibbles",
    "quantize_nvfp4",
    "dequantize_nvfp4",
    "fp8_e4m3_round",
    "share_global_scale",
]

BLOCK_SIZE = 16
FP4_MAX = 6.0
FP8_E4M3_MAX = 448.0
#: code (0..15) -> value; codes 8..15 are the negatives of 0..7 (code 8 is -0.0).
E2M1_VALUES = np.array(
    [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0], dtype=np.float32
)
#: midpoints between neighbouring E2M1 magnitudes; a magnitude above k of them rounds to grid index k.
_E2M1_MIDPOINTS = np.array([0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0], dtype=np.float32)
#: midpoints whose upper neighbour has the even mantissa: a tie there rounds up.
_TIES_UP = np.array([0.75, 1.75, 3.5], dtype=np.float32)
_ROWS_PER_CHUNK = 1024


@dataclass(frozen=True)
class NVFP4Weight:
    """One quantized Linear weight.

    Attributes:
        packed: uint8 ``[out, in/2]``, two E2M1 codes per byte, low nibble first.
        block_scale: ``ml_dtypes.float8_e4m3fn`` ``[out, in/16]``.
        scale2: float32 scalar, ModelOpt convention (multiply to dequantize) = amax / 2688.
        amax: float32 abs-max of the input the scale came from.
    """

    packed: np.ndarray
    block_scale: np.ndarray
    scale2: np.float32
    amax: np.float32

    @property
    def global_scale(self) -> np.float32:
        """The compressed-tensors ``weight_global_scale`` (reciprocal convention, divide to dequantize)."""
        return global_scale_from_scale2(self.scale2)


def _check_finite_2d(name: str, w: np.ndarray) -> None:
    if w.ndim != 2:
        raise SurgeryError(
            f"{name}: NVFP4 quantizes 2-D Linear weights only",
            found=f"shape {tuple(w.shape)}",
            expected="[out_features, in_features]",
            fix="leave this tensor unquantized (norms stay BF16)",
        )
    if w.shape[1] % BLOCK_SIZE:
        raise SurgeryError(
            f"{name}: in_features is not a multiple of the NVFP4 block size",
            found=f"shape {tuple(w.shape)}",
            expected=f"in_features % {BLOCK_SIZE} == 0",
            fix="exclude this module from quantization",
        )


def tensor_amax(w: np.ndarray, *, name: str = "tensor") -> np.float32:
    """Abs-max of ``w`` (any float dtype, any shape) as float32, streaming over row chunks.

    Raises:
        SurgeryError: ``w`` holds NaN or +-inf (names the first offending row).
    """
    flat = w.reshape(w.shape[0], -1) if w.ndim > 1 else w.reshape(1, -1)
    amax = np.float32(0.0)
    for r0 in range(0, flat.shape[0], _ROWS_PER_CHUNK):
        chunk = flat[r0 : r0 + _ROWS_PER_CHUNK].astype(np.float32)  # [rows, in] f32
        if not np.isfinite(chunk).all():
            bad_row = r0 + int(np.nonzero(~np.isfinite(chunk).all(axis=1))[0][0])
            raise SurgeryError(
                f"{name}: non-finite weight values",
                found=f"NaN or inf in row {bad_row}",
                expected="finite weights",
                fix="the source tensor is corrupt; re-download or re-export it",
            )
        amax = max(amax, np.float32(np.abs(chunk).max(initial=0.0)))
    return np.float32(amax)


def scale2_from_amax(amax: float | np.floating) -> np.float32:
    """ModelOpt ``weight_scale_2`` / ``input_scale``: ``float32(amax) / float32(6 * 448)``; 1.0 for amax 0."""
    a = np.float32(amax)
    if a == 0:
        return np.float32(1.0)
    return np.float32(a / np.float32(FP4_MAX * FP8_E4M3_MAX))


def global_scale_from_scale2(scale2: float | np.floating) -> np.float32:
    """compressed-tensors ``weight_global_scale`` / ``input_global_scale`` = ``1 / scale2`` in float32 (case C08)."""
    return np.float32(np.float32(1.0) / np.float32(scale2))


def fp8_e4m3_round(x: np.ndarray) -> np.ndarray:
    """Round float32 values to FP8 E4M3 (round-to-nearest-even, ``ml_dtypes.float8_e4m3fn``); returns that dtype."""
    return np.asarray(x, dtype=np.float32).astype(ml_dtypes.float8_e4m3fn)


def encode_e2m1(y: np.ndarray) -> np.ndarray:
    """Scaled float32 values -> E2M1 codes (uint8 0..15), round-to-nearest-even, saturating at +-6.

    ``y`` must be finite. Shape is preserved.
    """
    mag = np.abs(y)  # [...] f32
    idx = np.zeros(mag.shape, dtype=np.uint8)  # number of midpoints strictly below mag (7 compares beat searchsorted)
    for mid in _E2M1_MIDPOINTS:
        idx += mag > mid
    tie_up = (mag == _TIES_UP[0]) | (mag == _TIES_UP[1]) | (mag == _TIES_UP[2])  # ties to the even neighbour above
    idx += tie_up.astype(np.uint8)
    return idx | ((y < 0).astype(np.uint8) << 3)


def pack_nibbles(codes: np.ndarray) -> np.ndarray:
    """uint8 codes ``[..., n]`` (n even) -> uint8 ``[..., n/2]``, element 2i in the low nibble."""
    return (codes[..., 0::2] | (codes[..., 1::2] << 4)).astype(np.uint8)


def unpack_nibbles(packed: np.ndarray) -> np.ndarray:
    """uint8 ``[..., n/2]`` -> uint8 codes ``[..., n]`` (inverse of :func:`pack_nibbles`)."""
    out = np.empty(packed.shape[:-1] + (packed.shape[-1] * 2,), dtype=np.uint8)
    out[..., 0::2] = packed & 0x0F
    out[..., 1::2] = packed >> 4
    return out


def _block_amax(a: np.ndarray) -> np.ndarray:
    """Max over the last axis of 16 by pairwise halving (faster than ``max(axis=-1)`` on a short axis)."""
    while a.shape[-1] > 1:
        h = a.shape[-1] // 2
        a = np.maximum(a[..., :h], a[..., h:])
    return a[..., 0]


def quantize_nvfp4(w: np.ndarray, *, amax: float | np.floating | None = None, name: str = "weight") -> NVFP4Weight:
    """Quantize a Linear weight to NVFP4 (see the module docstring for the exact rules).

    Args:
        w: ``[out, in]`` float array (bfloat16, float16 or float32), ``in % 16 == 0``.
        amax: the per-tensor amax to derive ``scale2`` from; None = ``abs(w).max()``. Fused layers (q/k/v,
            gate/up) pass the max over the group so they share one per-tensor scale, as engines require.
        name: tensor name for error messages.

    Returns:
        :class:`NVFP4Weight` (packed uint8 ``[out, in/2]``, E4M3 ``[out, in/16]``, float32 scalars).

    Raises:
        SurgeryError: wrong rank, ``in`` not a multiple of 16, NaN/inf values, or ``amax`` below the data's amax.
    """
    _check_finite_2d(name, w)
    data_amax = tensor_amax(w, name=name)
    amax32 = data_amax if amax is None else np.float32(amax)
    if amax32 < data_amax:
        raise SurgeryError(
            f"{name}: given amax is below the tensor's abs-max",
            found=float(amax32),
            expected=f">= {float(data_amax)}",
            fix="pass the group max or leave amax unset",
        )
    scale2 = scale2_from_amax(amax32)
    out_f, in_f = w.shape
    n_blocks = in_f // BLOCK_SIZE
    packed = np.empty((out_f, in_f // 2), dtype=np.uint8)
    block_scale = np.empty((out_f, n_blocks), dtype=ml_dtypes.float8_e4m3fn)
    denom = np.float32(np.float32(FP4_MAX) * scale2)
    for r0 in range(0, out_f, _ROWS_PER_CHUNK):
        x = w[r0 : r0 + _ROWS_PER_CHUNK].astype(np.float32).reshape(-1, n_blocks, BLOCK_SIZE)  # [r, B, 16]
        bamax = _block_amax(np.abs(x))  # [r, B] f32
        s = bamax / denom  # [r, B] f32
        s[bamax == 0] = 1.0
        s8 = fp8_e4m3_round(np.minimum(s, np.float32(FP8_E4M3_MAX)))  # [r, B] e4m3
        eff = s8.astype(np.float32) * scale2  # [r, B] f32 effective block scale
        zero = eff == 0
        y = x / np.where(zero, np.float32(1.0), eff)[..., None]  # [r, B, 16] f32
        codes = encode_e2m1(y)  # [r, B, 16] u8
        codes[zero] = 0
        packed[r0 : r0 + x.shape[0]] = pack_nibbles(codes.reshape(x.shape[0], in_f))
        block_scale[r0 : r0 + x.shape[0]] = s8
    return NVFP4Weight(packed, block_scale, scale2, amax32)


def dequantize_nvfp4(packed: np.ndarray, block_scale: np.ndarray, scale2: float) -> np.ndarray:
    """NVFP4 -> float32 ``[out, in]``: ``E2M1[code] * (float32(block_scale) * scale2)``.

    Args:
        packed: uint8 ``[out, in/2]``; block_scale: E4M3 (or float32) ``[out, in/16]``; scale2: ModelOpt
            convention (for compressed-tensors pass ``1 / weight_global_scale``).
    """
    codes = unpack_nibbles(packed)  # [out, in] u8
    out_f, in_f = codes.shape
    eff = np.asarray(block_scale).astype(np.float32) * np.float32(scale2)  # [out, B] f32
    vals = E2M1_VALUES[codes].reshape(out_f, -1, BLOCK_SIZE)  # [out, B, 16] f32
    return (vals * eff[..., None]).reshape(out_f, in_f)


def share_global_scale(block_scales: list[np.ndarray], scale2s: list[float]) -> tuple[np.float32, list[np.ndarray]]:
    """Give fused halves (gate/up, q/k/v) one per-tensor scale without touching their FP4 payloads.

    The shared ModelOpt ``scale2`` is the max of the halves' (the min of compressed-tensors' reciprocal
    globals); every other half's E4M3 block scales are multiplied by ``own / shared`` and re-rounded to
    E4M3 (case C08 B2; vLLM issue #54974 for why using one half's scale for both is wrong).

    Returns:
        ``(shared_scale2, new_block_scales)``; block scales come back as ``float8_e4m3fn`` arrays.
    """
    shared = np.float32(max(np.float32(s) for s in scale2s))
    out = []
    for bs, s in zip(block_scales, scale2s, strict=True):
        s32 = np.float32(s)
        if s32 == shared:
            out.append(np.asarray(bs).astype(ml_dtypes.float8_e4m3fn))
        else:
            ratio = np.float32(s32 / shared)
            out.append(fp8_e4m3_round(np.asarray(bs).astype(np.float32) * ratio))
    return shared, out
