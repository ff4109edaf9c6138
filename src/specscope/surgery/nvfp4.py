"""NVFP4 codec: FP4 E2M1 codes in blocks of 16 with FP8 E4M3 block scales and a float32 per-tensor scale.

Two exporters write NVFP4, and they agree on the format but not on the float32 arithmetic that produces it. A
re-quantized draft must come out byte for byte as the target's own exporter would write it, so every scale and
every ``x / scale`` below is computed in that exporter's operation order and precision (``rules``):

``compressed-tensors`` (read at compressed-tensors 0.20.1: ``quantization/utils/helpers.py`` ``generate_gparam``,
``calculate_qparams``; ``quantization/lifecycle/forward_helpers.py`` ``_quantize``; ``quantization/utils/fp4_utils.py``
``cast_to_fp4``; ``compressors/nvfp4/helpers.py`` ``pack_fp4_to_uint8``; checked byte for byte in
tests/surgery/test_ct_bitexact.py and benchmarks/quantize_draft.py):

* per-tensor ``global_scale = float32(1 / max(amax, float32 tiny)) * 2688`` (torch's ``2688.0 / tensor``),
  replaced by 1.0 when not finite (``weight_global_scale``; the dequantizer divides by it);
* block scale ``e4m3(min(global_scale * (block_amax / 6.0), 448))``, a block scale of 0 replaced by 0.125
  (``_get_dtype_eps`` of E4M3);
* codes from ``x / (float32(block_scale) / global_scale)``.

``modelopt`` (read at NVIDIA/Model-Optimizer commit 211c6b3, ``modelopt/torch/quantization/qtensor/nvfp4_tensor.py``
``get_weights_scaling_factor_2``, ``get_weights_scaling_factor``, ``quantize``, ``_cast_fp4``; checked byte for byte
against nvidia-modelopt 0.47.0's CPU path, scripts/modelopt_quantize_nvfp4.py. On a GPU, torch evaluates
``amax / 2688.0`` (a tensor over a Python number) as ``amax * (1 / 2688)``, so a GPU export's ``weight_scale_2`` can
sit an ulp from this one; the codes and block scales of a draft quantized here are consistent with its own scale):

* per-tensor ``scale2 = float32(amax) / float32(2688)`` (``weight_scale_2``; the dequantizer multiplies by it);
* block scale ``e4m3(max(block_amax / (6.0 * scale2), 2**-9))``, a block scale of 0 (an all-zero block) replaced
  by 1.0 before the clamp;
* codes from ``x / (float32(block_scale) * scale2)``.

Both: E4M3 casts round to nearest, ties to even (``ml_dtypes.float8_e4m3fn``, the same as torch's cast); codes
round ``y = x / scale`` to the nearest value of the E2M1 grid ``0, 0.5, 1, 1.5, 2, 3, 4, 6``, ties to the even
mantissa (0.25->0, 0.75->1, 1.25->1, 1.75->2, 2.5->2, 3.5->4, 5->4), magnitudes above 6 saturate to 6; bit 3 is
the sign, set when ``y < 0`` (-0.0 encodes as +0; a small negative that rounds to zero as code 8 = -0); two codes
per byte, element ``2i`` in the low nibble. The two rules differ only in float32 rounding of the scales, so the
same weights can differ in a code where ``|y|`` lands 1 ulp either side of a tie (0.028 % of bytes on a random
head), and in zero blocks' scale.

One deliberate difference from ModelOpt, only where it produces non-finite numbers: an all-zero tensor gets
``scale2 = 1.0`` (ModelOpt divides 0 by 0). NaN or infinite weights are rejected with
:class:`~specscope.errors.SurgeryError`.

This module is the plain, element-wise path (any float dtype). :mod:`specscope.surgery.nvfp4_stream` computes the
same bytes for 16-bit inputs by table lookup, chunk by chunk, on several threads.
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
    "RULES",
    "TensorScale",
    "NVFP4Weight",
    "tensor_amax",
    "tensor_scale",
    "scale2_from_amax",
    "global_scale_from_scale2",
    "ct_global_scale",
    "block_scales",
    "effective_scales",
    "encode_e2m1",
    "pack_nibbles",
    "unpack_nibbles",
    "quantize_nvfp4",
    "dequantize_nvfp4",
    "fp8_e4m3_round",
    "share_global_scale",
    "check_weight_shape",
    "non_finite_error",
]

BLOCK_SIZE = 16
FP4_MAX = 6.0
FP8_E4M3_MAX = 448.0
#: the per-tensor constant 6 x 448 both exporters divide by (or into).
_FP4_X_FP8 = np.float32(FP4_MAX * FP8_E4M3_MAX)
#: the smallest positive E4M3 value (subnormal); ModelOpt clamps block scales to it.
_E4M3_MIN = np.float32(2.0**-9)
#: compressed-tensors' replacement for a zero E4M3 block scale (``_get_dtype_eps(float8_e4m3fn)``).
_CT_ZERO_SCALE = np.float32(0.125)
#: which exporter's arithmetic a quantization follows (see the module docstring).
RULES = ("compressed-tensors", "modelopt")
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
class TensorScale:
    """The per-tensor scale of one tensor (or fused group) in both conventions, computed by ``rules``.

    Attributes:
        amax: float32 abs-max the scale came from.
        rules: ``compressed-tensors`` or ``modelopt``.
        scale2: ModelOpt ``weight_scale_2`` / ``input_scale`` (multiply to dequantize).
        global_scale: compressed-tensors ``weight_global_scale`` / ``input_global_scale`` (divide to dequantize).
            The rules' own value is the one computed; the other is its float32 reciprocal.
    """

    amax: np.float32
    rules: str
    scale2: np.float32
    global_scale: np.float32


@dataclass(frozen=True)
class NVFP4Weight:
    """One quantized Linear weight.

    Attributes:
        packed: uint8 ``[out, in/2]``, two E2M1 codes per byte, low nibble first.
        block_scale: ``ml_dtypes.float8_e4m3fn`` ``[out, in/16]``.
        scale: the per-tensor scale (:class:`TensorScale`).
    """

    packed: np.ndarray
    block_scale: np.ndarray
    scale: TensorScale

    @property
    def scale2(self) -> np.float32:
        """ModelOpt ``weight_scale_2`` (multiply to dequantize)."""
        return self.scale.scale2

    @property
    def global_scale(self) -> np.float32:
        """compressed-tensors ``weight_global_scale`` (divide to dequantize)."""
        return self.scale.global_scale

    @property
    def amax(self) -> np.float32:
        return self.scale.amax


def _check_rules(rules: str) -> None:
    if rules not in RULES:
        raise SurgeryError("unknown NVFP4 rules", found=rules, expected=list(RULES), fix="internal error")


def check_weight_shape(name: str, shape: tuple[int, ...]) -> None:
    """Raise :class:`SurgeryError` unless ``shape`` is ``[out, in]`` with ``in % 16 == 0``."""
    if len(shape) != 2:
        raise SurgeryError(
            f"{name}: NVFP4 quantizes 2-D Linear weights only",
            found=f"shape {tuple(shape)}",
            expected="[out_features, in_features]",
            fix="leave this tensor unquantized (norms stay BF16)",
        )
    if shape[1] % BLOCK_SIZE:
        raise SurgeryError(
            f"{name}: in_features is not a multiple of the NVFP4 block size",
            found=f"shape {tuple(shape)}",
            expected=f"in_features % {BLOCK_SIZE} == 0",
            fix="exclude this module from quantization",
        )


def non_finite_error(name: str, row: int) -> SurgeryError:
    """The error for a NaN / inf weight in ``row``."""
    return SurgeryError(
        f"{name}: non-finite weight values",
        found=f"NaN or inf in row {row}",
        expected="finite weights",
        fix="the source tensor is corrupt; re-download or re-export it",
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
            raise non_finite_error(name, r0 + int(np.nonzero(~np.isfinite(chunk).all(axis=1))[0][0]))
        amax = max(amax, np.float32(np.abs(chunk).max(initial=0.0)))
    return np.float32(amax)


def scale2_from_amax(amax: float | np.floating) -> np.float32:
    """ModelOpt ``weight_scale_2`` / ``input_scale``: ``float32(amax) / float32(6 * 448)``; 1.0 for amax 0."""
    a = np.float32(amax)
    if a == 0:
        return np.float32(1.0)
    return np.float32(a / _FP4_X_FP8)


def ct_global_scale(amax: float | np.floating) -> np.float32:
    """compressed-tensors ``weight_global_scale`` / ``input_global_scale`` (``generate_gparam``): ``2688.0 / a`` with
    ``a = max(amax, float32 tiny)``, 1.0 where that is not finite.

    torch evaluates ``python_float / tensor`` as ``tensor.reciprocal() * python_float`` (``Tensor.__rtruediv__``),
    so this is ``float32(1 / a) * 2688`` in float32, which differs from a correctly rounded ``2688 / a`` by an ulp
    for some amax (2.078125: 1293.4738, not 1293.4736).
    """
    a = max(np.float32(amax), np.finfo(np.float32).tiny)
    with np.errstate(over="ignore"):
        g = np.float32(np.float32(np.float32(1.0) / np.float32(a)) * _FP4_X_FP8)
    return g if np.isfinite(g) else np.float32(1.0)


def global_scale_from_scale2(scale2: float | np.floating) -> np.float32:
    """The reciprocal convention of a ModelOpt scale: ``1 / scale2`` in float32 (case C08)."""
    return np.float32(np.float32(1.0) / np.float32(scale2))


def tensor_scale(amax: float | np.floating, rules: str) -> TensorScale:
    """The per-tensor scale of a tensor (or fused group) whose abs-max is ``amax``, by ``rules``."""
    _check_rules(rules)
    a = np.float32(amax)
    if rules == "compressed-tensors":
        g = ct_global_scale(a)
        return TensorScale(a, rules, global_scale_from_scale2(g), g)
    s2 = scale2_from_amax(a)
    return TensorScale(a, rules, s2, global_scale_from_scale2(s2))


def fp8_e4m3_round(x: np.ndarray) -> np.ndarray:
    """Round float32 values to FP8 E4M3 (round-to-nearest-even, ``ml_dtypes.float8_e4m3fn``); returns that dtype."""
    return np.asarray(x, dtype=np.float32).astype(ml_dtypes.float8_e4m3fn)


def block_scales(block_amax: np.ndarray, scale: TensorScale) -> np.ndarray:
    """E4M3 block scales ``[...]`` from float32 block abs-maxes ``[...]`` (module docstring, per ``scale.rules``)."""
    b = np.asarray(block_amax, dtype=np.float32)
    if scale.rules == "compressed-tensors":
        with np.errstate(over="ignore"):  # beyond 448 is clamped
            s = scale.global_scale * (b / np.float32(FP4_MAX))  # f32
        s8 = fp8_e4m3_round(np.minimum(s, np.float32(FP8_E4M3_MAX)))
        s8[s8.astype(np.float32) == 0] = _CT_ZERO_SCALE
        return s8
    with np.errstate(over="ignore"):
        s = b / np.float32(np.float32(FP4_MAX) * scale.scale2)  # f32
    s[s == 0] = 1.0
    return fp8_e4m3_round(np.minimum(np.maximum(s, _E4M3_MIN), np.float32(FP8_E4M3_MAX)))


def effective_scales(block_scale: np.ndarray, scale: TensorScale) -> np.ndarray:
    """The float32 divisor of each block: ``block_scale / global_scale`` (CT) or ``block_scale * scale2`` (ModelOpt)."""
    s = np.asarray(block_scale).astype(np.float32)
    if scale.rules == "compressed-tensors":
        return s / scale.global_scale
    return s * scale.scale2


def encode_e2m1(y: np.ndarray) -> np.ndarray:
    """Scaled float32 values -> E2M1 codes (uint8 0..15), round-to-nearest-even, saturating at +-6.

    ``y`` must be finite (or +-inf, which saturates). Shape is preserved.
    """
    mag = np.abs(y)  # [...] f32
    idx = np.zeros(mag.shape, dtype=np.uint8)  # number of midpoints strictly below mag (7 compares beat searchsorted)
    for mid in _E2M1_MIDPOINTS:
        idx += mag > mid
    tie_up = (mag == _TIES_UP[0]) | (mag == _TIES_UP[1]) | (mag == _TIES_UP[2])  # ties to the even neighbour above
    idx += tie_up.astype(np.uint8)
    codes: np.ndarray = idx | ((y < 0).astype(np.uint8) << 3)
    return codes


def pack_nibbles(codes: np.ndarray) -> np.ndarray:
    """uint8 codes ``[..., n]`` (n even) -> uint8 ``[..., n/2]``, element 2i in the low nibble."""
    packed: np.ndarray = (codes[..., 0::2] | (codes[..., 1::2] << 4)).astype(np.uint8)
    return packed


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


def encode_rows(rows: np.ndarray, scale: TensorScale) -> tuple[np.ndarray, np.ndarray]:
    """Element-wise encoding of finite rows ``[r, in]`` -> (packed uint8 ``[r, in/2]``, E4M3 ``[r, in/16]``)."""
    n, in_f = rows.shape
    x = rows.astype(np.float32).reshape(n, in_f // BLOCK_SIZE, BLOCK_SIZE)  # [r, B, 16] f32
    s8 = block_scales(_block_amax(np.abs(x)), scale)  # [r, B] e4m3
    with np.errstate(over="ignore"):
        y = x / effective_scales(s8, scale)[..., None]  # [r, B, 16] f32 (exactly the exporter's division)
    return pack_nibbles(encode_e2m1(y).reshape(n, in_f)), s8


def quantize_nvfp4(
    w: np.ndarray, *, amax: float | np.floating | None = None, rules: str = "compressed-tensors", name: str = "weight"
) -> NVFP4Weight:
    """Quantize a Linear weight to NVFP4 element by element (see the module docstring for the exact rules).

    Args:
        w: ``[out, in]`` float array (bfloat16, float16 or float32), ``in % 16 == 0``.
        amax: the per-tensor amax to derive the scale from; None = ``abs(w).max()``. Fused layers (q/k/v,
            gate/up) pass the max over the group so they share one per-tensor scale, as engines require.
        rules: ``compressed-tensors`` or ``modelopt`` (whose float32 arithmetic to reproduce).
        name: tensor name for error messages.

    Returns:
        :class:`NVFP4Weight` (packed uint8 ``[out, in/2]``, E4M3 ``[out, in/16]``, the per-tensor scale).

    Raises:
        SurgeryError: wrong rank, ``in`` not a multiple of 16, NaN/inf values, or ``amax`` below the data's amax.
    """
    check_weight_shape(name, w.shape)
    scale = tensor_scale(_checked_amax(w, amax, name), rules)
    out_f, in_f = w.shape
    packed = np.empty((out_f, in_f // 2), dtype=np.uint8)
    block_scale = np.empty((out_f, in_f // BLOCK_SIZE), dtype=ml_dtypes.float8_e4m3fn)
    for r0 in range(0, out_f, _ROWS_PER_CHUNK):
        packed[r0 : r0 + _ROWS_PER_CHUNK], block_scale[r0 : r0 + _ROWS_PER_CHUNK] = encode_rows(
            w[r0 : r0 + _ROWS_PER_CHUNK], scale
        )
    return NVFP4Weight(packed, block_scale, scale)


def _checked_amax(w: np.ndarray, amax: float | np.floating | None, name: str) -> np.float32:
    data_amax = tensor_amax(w, name=name)
    amax32 = data_amax if amax is None else np.float32(amax)
    if amax32 < data_amax:
        raise SurgeryError(
            f"{name}: given amax is below the tensor's abs-max",
            found=float(amax32),
            expected=f">= {float(data_amax)}",
            fix="pass the group max or leave amax unset",
        )
    return amax32


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
    out: np.ndarray = (vals * eff[..., None]).reshape(out_f, in_f)
    return out


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
