"""Compare two checkpoints tensor by tensor over a prefix (seed 002: the official vs the merged MTP head).

For each name under the prefix in either checkpoint: presence, dtype, shape, whether the stored bytes are
identical (SHA-256), and for float tensors of equal shape, cosine similarity and max absolute difference
after upcasting both to float64 (computed in chunks, one tensor pair in memory at a time).

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

from specscope.surgery.shards import FLOAT_DTYPES, no_tensor_under, open_checkpoint, sha256_bytes

__all__ = ["TensorComparison", "compare_checkpoints", "cosine_and_max_abs"]

_CHUNK_ELEMENTS = 1 << 22


@dataclass(frozen=True)
class TensorComparison:
    """One row of ``surgery compare``. ``cosine`` / ``max_abs_diff`` are None when not computable; ``all_zero`` is
    ``"a"``, ``"b"`` or ``"both"`` when that side holds only zeros (cosine is then undefined: a blank, never-trained
    or zero-filled head is the usual cause), else None."""

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


def compare_checkpoints(a: str | Path, b: str | Path, prefix: str = "mtp.") -> list[TensorComparison]:
    """Rows for every tensor under ``prefix`` in ``a`` or ``b``, sorted by name.

    Raises:
        SurgeryError: neither checkpoint has a tensor under ``prefix``.
    """
    ca, cb = open_checkpoint(a), open_checkpoint(b)
    names = sorted(set(ca.names(prefix)) | set(cb.names(prefix)))
    if not names:
        raise no_tensor_under(prefix, where=" in either checkpoint", found=f"{a}, {b}", fix="check --prefix")
    rows = []
    for n in names:
        ia = ca.info(n) if n in ca.location else None
        ib = cb.info(n) if n in cb.location else None
        identical, stats = False, _Stats(None, None, 0, 0)
        if ia is not None and ib is not None:
            ra, rb = ca.read_bytes(n), cb.read_bytes(n)
            identical = ia.dtype == ib.dtype and ia.shape == ib.shape and sha256_bytes(ra) == sha256_bytes(rb)
            if ia.shape == ib.shape and ia.dtype in FLOAT_DTYPES and ib.dtype in FLOAT_DTYPES:
                stats = _finite_stats(ca.read_array(n), cb.read_array(n))
            del ra, rb
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
            )
        )
    return rows
