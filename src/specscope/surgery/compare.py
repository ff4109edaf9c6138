"""Compare two checkpoints tensor by tensor over a prefix (seed 002: the official vs the merged MTP head).

For each name under the prefix in either checkpoint: presence, dtype, shape, whether the stored bytes are
identical (SHA-256), and for float tensors of equal shape, cosine similarity and max absolute difference
after upcasting both to float64 (computed in chunks, one tensor pair in memory at a time).

A ModelOpt NVFP4 weight (``U8 [out, in/2]`` beside its ``weight_scale`` E4M3 ``[out, in/16]`` and scalar F32
``weight_scale_2``) against a float weight of the same module's ``[out, in]`` (a head and its ``surgery
quantize-draft`` result) is compared dequantized (:func:`specscope.surgery.nvfp4.dequantize_nvfp4`), so the row gives
the quantization error; ``dequantized`` names the side (``"a"`` or ``"b"``). compressed-tensors' NVFP4 layout
(compressed-tensors 0.20.1 ``compressors/nvfp4``: ``<m>.weight_packed`` U8 ``[out, in/2]``, ``<m>.weight_scale`` E4M3
``[out, in/16]``, ``<m>.weight_global_scale`` F32 ``[1]``; ``quantization/lifecycle/forward.py`` ``_dequantize``
divides the block scale by the global scale) is compared the same way: its ``<m>.weight_packed`` is lined up with
the other side's float ``<m>.weight`` (one row, named ``<m>.weight``; ``stored_a`` / ``stored_b`` give the stored
name) and dequantized with ``weight_scale_2 = 1 / weight_global_scale``.

NaN and Inf elements are counted per side (``nonfinite_a`` / ``nonfinite_b``) and left out of cosine and max
abs diff, which cover the positions where both sides are finite (None when there is none). Python's ``max``
drops NaN silently and ``json.dumps`` writes a bare ``NaN`` token, so neither reaches a row: every figure is a
finite float or None, and the JSON output is valid JSON (RFC 8259).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from specscope.surgery.nvfp4 import dequantize_nvfp4
from specscope.surgery.shards import FLOAT_DTYPES, Checkpoint, no_tensor_under, open_checkpoint, sha256_bytes

__all__ = ["TensorComparison", "compare_checkpoints", "cosine_and_max_abs"]

_CHUNK_ELEMENTS = 1 << 22


@dataclass(frozen=True)
class TensorComparison:
    """One row of ``surgery compare``. ``cosine`` / ``max_abs_diff`` are None when not computable; ``all_zero`` is
    ``"a"``, ``"b"`` or ``"both"`` when that side holds only zeros (cosine is then undefined: a blank, never-trained
    or zero-filled head is the usual cause), else None; ``dequantized`` is the side (``"a"`` / ``"b"``) whose NVFP4
    weight was dequantized to be compared with the other's float one, else None; ``stored_a`` / ``stored_b`` is that
    side's stored name where it differs from ``name`` (compressed-tensors' ``<m>.weight_packed``), else None."""

    name: str
    in_a: bool
    in_b: bool
    dtype_a: str | None
    dtype_b: str | None
    shape_a: tuple[int, ...] | None
    shape_b: tuple[int, ...] | None
    identical: bool
    cosine: float | None
    max_abs_diff: float | None
    nonfinite_a: int = 0
    nonfinite_b: int = 0
    all_zero: str | None = None
    dequantized: str | None = None
    stored_a: str | None = None
    stored_b: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["shape_a"] = list(self.shape_a) if self.shape_a is not None else None
        d["shape_b"] = list(self.shape_b) if self.shape_b is not None else None
        return d


@dataclass(frozen=True)
class _Stats:
    cosine: float | None
    max_abs_diff: float | None
    nonfinite_a: int
    nonfinite_b: int
    all_zero: str | None = None


def _finite_stats(a: np.ndarray, b: np.ndarray) -> _Stats:
    """Cosine and max |a - b| over positions where both are finite; NaN / Inf counted per side."""
    fa, fb = a.reshape(-1), b.reshape(-1)
    dot = na = nb = 0.0
    mad: float | None = None
    bad_a = bad_b = both = 0
    for i in range(0, fa.size, _CHUNK_ELEMENTS):
        x = fa[i : i + _CHUNK_ELEMENTS].astype(np.float64)  # [chunk] f64
        y = fb[i : i + _CHUNK_ELEMENTS].astype(np.float64)
        ok_x, ok_y = np.isfinite(x), np.isfinite(y)
        bad_a += int(x.size - ok_x.sum())
        bad_b += int(y.size - ok_y.sum())
        keep = ok_x & ok_y
        x, y = x[keep], y[keep]
        both += int(x.size)
        with np.errstate(over="ignore", invalid="ignore"):
            dot += float(x @ y)
            na += float(x @ x)
            nb += float(y @ y)
            if x.size:
                m = float(np.abs(x - y).max())
                mad = m if mad is None else max(mad, m)
    if both == 0:
        return _Stats(None, None, bad_a, bad_b)
    zero = {(True, True): "both", (True, False): "a", (False, True): "b"}.get((na == 0.0, nb == 0.0))
    cos = None if zero else float(dot / (np.sqrt(na) * np.sqrt(nb)))  # a zero vector has no direction
    finite = [v if v is not None and np.isfinite(v) else None for v in (cos, mad)]  # f64 overflow of huge values
    return _Stats(finite[0], finite[1], bad_a, bad_b, zero)


def cosine_and_max_abs(a: np.ndarray, b: np.ndarray) -> tuple[float | None, float | None]:
    """Cosine similarity and max |a - b| of two equal-shape arrays, upcast to float64 chunk by chunk.

    Cosine is undefined (None) when either side is all zeros (``TensorComparison.all_zero`` says which). Positions
    where either side is NaN or Inf are left out; both figures are None when no position is finite on both sides.
    """
    st = _finite_stats(a, b)
    return st.cosine, st.max_abs_diff


#: packed-weight suffix -> (block scale, per-tensor scale, whether the per-tensor scale divides): ModelOpt's
#: ``weight_scale_2`` multiplies, compressed-tensors' ``weight_global_scale`` divides.
_NVFP4_LAYOUTS = {
    "weight": ("weight_scale", "weight_scale_2", False),
    "weight_packed": ("weight_scale", "weight_global_scale", True),
}
_CT_PACKED = ".weight_packed"


def _nvfp4_dense(ck: Checkpoint, name: str) -> np.ndarray | None:
    """NVFP4 weight ``name`` of checkpoint ``ck`` (ModelOpt ``<m>.weight`` or compressed-tensors
    ``<m>.weight_packed``, U8) dequantized to float32 ``[out, in]``, or None when ``name`` is no such weight (its
    block scale or single-element per-tensor scale absent)."""
    for suffix, (scale_sfx, tensor_sfx, divides) in _NVFP4_LAYOUTS.items():
        base = name.removesuffix(suffix)
        if base == name or not base.endswith("."):
            continue
        scale, scale2 = base + scale_sfx, base + tensor_sfx
        if ck.info(name).dtype != "U8" or scale not in ck.location or scale2 not in ck.location:
            return None
        s2 = ck.read_array(scale2)
        if s2.size != 1 or ck.info(scale).dtype not in ("F8_E4M3", "F32"):
            return None
        per_tensor = float(s2.reshape(-1)[0])
        if divides and (per_tensor == 0.0 or not np.isfinite(per_tensor)):
            return None
        return dequantize_nvfp4(ck.read_array(name), ck.read_array(scale), 1.0 / per_tensor if divides else per_tensor)
    return None


def _dense_pair(
    ca: Checkpoint, cb: Checkpoint, names: tuple[str, str], dtypes: tuple[str, str]
) -> tuple[str, np.ndarray, np.ndarray] | None:
    """``(side, a, b)``: the float side as stored and the other's NVFP4 weight dequantized to the same shape;
    None unless exactly one side is float and the other is such a weight. ``names``: the stored name on each side."""
    float_a, float_b = (d in FLOAT_DTYPES for d in dtypes)
    if float_a == float_b:
        return None
    side, quant, dense = ("b", cb, ca) if float_a else ("a", ca, cb)
    q_name, d_name = (names[1], names[0]) if float_a else names
    deq = _nvfp4_dense(quant, q_name)
    if deq is None:
        return None
    stored = dense.read_array(d_name)
    if stored.shape != deq.shape:
        return None
    return (side, stored, deq) if side == "b" else (side, deq, stored)


def _row_names(ca: Checkpoint, cb: Checkpoint, prefix: str) -> dict[str, tuple[str | None, str | None]]:
    """Row name -> (stored name in A, in B). A compressed-tensors ``<m>.weight_packed`` on one side joins the other
    side's ``<m>.weight`` row when that side has the float weight and no ``weight_packed`` of its own."""
    sides = (set(ca.names(prefix)), set(cb.names(prefix)))
    rows: dict[str, list[str | None]] = {}
    for i, (mine, other) in enumerate((sides, sides[::-1])):
        for n in sorted(mine):
            key = n
            if n.endswith(_CT_PACKED) and n not in other:
                plain = n.removesuffix(_CT_PACKED) + ".weight"
                key = plain if plain in other and plain not in mine else n
            rows.setdefault(key, [None, None])[i] = n
    return {k: (v[0], v[1]) for k, v in sorted(rows.items())}


def compare_checkpoints(a: str | Path, b: str | Path, prefix: str = "mtp.") -> list[TensorComparison]:
    """Rows for every tensor under ``prefix`` in ``a`` or ``b``, sorted by name.

    Raises:
        SurgeryError: neither checkpoint has a tensor under ``prefix``.
    """
    ca, cb = open_checkpoint(a), open_checkpoint(b)
    names = _row_names(ca, cb, prefix)
    if not names:
        raise no_tensor_under(prefix, where=" in either checkpoint", found=f"{a}, {b}", fix="check --prefix")
    rows = []
    for n, (na, nb) in names.items():
        ia = ca.info(na) if na is not None else None
        ib = cb.info(nb) if nb is not None else None
        identical, stats, deq = False, _Stats(None, None, 0, 0), None
        if ia is not None and ib is not None and na is not None and nb is not None:
            ra, rb = ca.read_bytes(na), cb.read_bytes(nb)
            identical = ia.dtype == ib.dtype and ia.shape == ib.shape and sha256_bytes(ra) == sha256_bytes(rb)
            del ra, rb
            if ia.shape == ib.shape and ia.dtype in FLOAT_DTYPES and ib.dtype in FLOAT_DTYPES:
                stats = _finite_stats(ca.read_array(na), cb.read_array(nb))
            elif (pair := _dense_pair(ca, cb, (na, nb), (ia.dtype, ib.dtype))) is not None:
                deq, xa, xb = pair
                stats = _finite_stats(xa, xb)
        rows.append(
            TensorComparison(
                n,
                ia is not None,
                ib is not None,
                ia.dtype if ia else None,
                ib.dtype if ib else None,
                ia.shape if ia else None,
                ib.shape if ib else None,
                identical,
                stats.cosine,
                stats.max_abs_diff,
                stats.nonfinite_a,
                stats.nonfinite_b,
                stats.all_zero,
                deq,
                na if na != n else None,
                nb if nb != n else None,
            )
        )
    return rows
