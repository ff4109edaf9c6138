"""NVFP4 at memory speed: 16-bit weights encoded by table lookup, chunk by chunk, streamed and on several threads.

Why a table: a code is a function of two small integers, the weight's 16-bit pattern (bfloat16 or float16: 65,536
values) and its block's E4M3 scale byte (at most 127 positive values). For one tensor's per-tensor scale, row
``s`` of the table holds :func:`specscope.surgery.nvfp4.encode_e2m1` of ``float32(x) / effective_scale(s)`` for
all 65,536 ``x``: the very division the exporter performs (:mod:`specscope.surgery.nvfp4`, ``rules``), so a
lookup gives the same byte as the element-wise path by construction, ties included. Rows are built on first use
(a tensor uses ~20-40 scale values). Block maxima come from the bit patterns (``bits & 0x7fff`` orders finite
magnitudes), so float32 copies of the weights are never made.

Per element the hot path is: magnitude mask, block max (15 strided ``np.maximum``), one ``intp`` index add, one
``np.take``, one pack: about 2.5 ns on one core of the 2-core development machine (benchmarks/quantize_draft.py
has the measured rates against the element-wise path and compressed-tensors). Float32 weights take the
element-wise path.

Streaming: :func:`quantize_stream` asks a ``read_rows(start, stop)`` callable for ~128K-element row chunks (a
safetensors tensor is read with ``os.preadv``, :meth:`specscope.surgery.shards.Checkpoint.read_rows`), so memory is
the outputs (a quarter of the input) plus a few chunk buffers per thread. numpy releases the GIL in every step of
the hot path, so threads run chunks in parallel.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Literal

import ml_dtypes
import numpy as np

from specscope.errors import SurgeryError
from specscope.surgery.nvfp4 import (
    BLOCK_SIZE,
    NVFP4Weight,
    TensorScale,
    block_scales,
    check_weight_shape,
    effective_scales,
    encode_rows,
    non_finite_error,
    tensor_scale,
)
from specscope.surgery.nvfp4_kernel import kernel, max_magnitude

__all__ = [
    "TABLE_DTYPES",
    "ENGINES",
    "CHUNK_ELEMENTS",
    "default_workers",
    "RowReader",
    "TableEncoder",
    "stream_amax",
    "quantize_stream",
]

#: 16-bit dtypes the table path takes -> the smallest magnitude bit pattern that is not finite.
TABLE_DTYPES: dict[np.dtype, int] = {np.dtype(ml_dtypes.bfloat16): 0x7F80, np.dtype(np.float16): 0x7C00}
#: how a 16-bit chunk is encoded (:class:`TableEncoder`).
ENGINES = ("auto", "numba", "numpy")
#: elements per chunk: ~0.25 MB of 16-bit input, 1 MB of index, small enough for L2.
CHUNK_ELEMENTS = 1 << 19
_MAG_MASK = np.uint16(0x7FFF)
#: E2M1 decision boundaries on |y| in order, and the searchsorted side that puts a tie on the even code.
_BOUNDARIES: tuple[tuple[float, Literal["left", "right"]], ...] = (
    (0.25, "right"),
    (0.75, "left"),
    (1.25, "right"),
    (1.75, "left"),
    (2.5, "right"),
    (3.5, "left"),
    (5.0, "right"),
)
#: ``read_rows(start, stop)`` -> rows ``[stop - start, in]`` of the tensor, in its dtype.
RowReader = Callable[[int, int], np.ndarray]


def default_workers() -> int:
    """Threads for one tensor: the CPUs this process may run on (``os.sched_getaffinity``), at most 8."""
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        n = os.cpu_count() or 1
    return max(1, min(8, n))


def _rows_per_chunk(in_f: int) -> int:
    return max(1, CHUNK_ELEMENTS // max(1, in_f))


def _block_max_bits(mag: np.ndarray) -> np.ndarray:
    """Max over each block of 16 of uint16 magnitudes ``[r, in]`` -> ``[r, in/16]`` (strided maxima: 2x faster
    than ``max(axis=-1)`` on a 16-long axis here)."""
    a = mag.reshape(-1, BLOCK_SIZE)
    out = a[:, 0].copy()
    for i in range(1, BLOCK_SIZE):
        np.maximum(out, a[:, i], out=out)
    return out.reshape(mag.shape[0], -1)


def _bits_to_f32(bits: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """uint16 patterns -> their float32 values (exact)."""
    return np.ascontiguousarray(bits, dtype=np.uint16).view(dtype).astype(np.float32)


class TableEncoder:
    """Encode row chunks of one tensor with a fixed per-tensor scale (see the module docstring).

    Args:
        dtype: the weights' dtype (bfloat16 / float16 use the table; float32 the element-wise path).
        scale: the per-tensor scale (:func:`specscope.surgery.nvfp4.tensor_scale`).
        name: tensor name for error messages.
        engine: ``auto`` (the compiled loop of :mod:`specscope.surgery.nvfp4_kernel` when numba is installed, else
            numpy), ``numba`` or ``numpy``; all give the same bytes.
    """

    def __init__(self, dtype: np.dtype, scale: TensorScale, name: str = "weight", engine: str = "auto"):
        if engine not in ENGINES:
            raise ValueError(f"engine must be one of {ENGINES}: {engine!r}")
        self.kernel = kernel() if engine in ("auto", "numba") else None
        if engine == "numba" and self.kernel is None:
            raise SurgeryError(
                "the numba encoder is not installed", found="no numba", expected="numba", fix="pip install numba"
            )
        self.engine = "numba" if self.kernel is not None else "numpy"
        self.dtype = np.dtype(dtype)
        self.scale = scale
        self.name = name
        self.inf_bits = TABLE_DTYPES.get(self.dtype)
        self._lock = threading.Lock()
        self._scratch = threading.local()
        self._built = np.zeros(128, dtype=bool)
        if self.inf_bits is None:
            return
        self._table = np.zeros((128, 1 << 16), dtype=np.uint8)  # [E4M3 byte, 16-bit pattern] -> code
        self._flat = self._table.reshape(-1)
        self._finite = _bits_to_f32(np.arange(self.inf_bits, dtype=np.uint16), self.dtype)  # [inf_bits] f32
        # a block's scale byte is a function of its max magnitude pattern: one lookup per block
        mags = np.arange(self.inf_bits, dtype=np.uint16)
        self._scale_byte = block_scales(_bits_to_f32(mags, self.dtype), scale).view(np.uint8)  # [inf_bits] u8
        self._row_base = self._scale_byte.astype(np.intp) << 16  # [inf_bits] intp: table row offset

    def _build(self, rows: np.ndarray) -> None:
        """Fill table rows for E4M3 scale bytes ``rows`` (positive scales: bytes 0..126).

        Finite magnitudes in bit order are increasing values, and a correctly rounded division by a positive scale
        keeps that order, so a row is a step function of the magnitude: each E2M1 boundary is one
        ``np.searchsorted`` on ``y = value / scale`` (a tie at 0.75, 1.75, 3.5 belongs to the code above, at 0.25,
        1.25, 2.5, 5 to the code below: :func:`specscope.surgery.nvfp4.encode_e2m1`'s rule). Negative patterns get
        the sign bit, except -0.0 (code 0).
        """
        with self._lock:
            todo = rows[~self._built[rows]]
            if not todo.size:
                return
            eff = effective_scales(todo.astype(np.uint8).view(ml_dtypes.float8_e4m3fn), self.scale)  # [n] f32
            n_finite = self._finite.size
            for r, e in zip(todo, eff, strict=True):
                with np.errstate(over="ignore"):
                    y = self._finite / e  # [n_finite] f32, non-decreasing: the exporter's division
                bounds = [int(np.searchsorted(y, mid, side=side)) for mid, side in _BOUNDARIES]
                mag_codes = np.repeat(np.arange(8, dtype=np.uint8), np.diff([0, *bounds, n_finite]))
                row = self._table[r]
                row[:n_finite] = mag_codes
                row[n_finite:0x8000] = 7  # inf / NaN patterns: never looked up (rejected before)
                row[0x8000:] = row[:0x8000] | 8
                row[0x8000] = 0  # -0.0
            self._built[todo] = True

    def _buffers(self, n: int, in_f: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """This thread's scratch arrays for a chunk of ``n`` rows (re-used: fresh pages cost more than the work)."""
        held = getattr(self._scratch, "bufs", None)
        if held is None or held[0].size < n * in_f:
            size = max(n * in_f, CHUNK_ELEMENTS)
            held = (np.empty(size, np.uint16), np.empty(size, np.intp), np.empty(size, np.uint8))
            self._scratch.bufs = held
        mag, index, codes = held
        return mag[: n * in_f].reshape(n, in_f), index[: n * in_f].reshape(n, in_f), codes[: n * in_f].reshape(n, in_f)

    def encode(
        self, rows: np.ndarray, row0: int = 0, out: tuple[np.ndarray, np.ndarray] | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Rows ``[r, in]`` -> (packed uint8 ``[r, in/2]``, E4M3 block scales ``[r, in/16]``), written into ``out``
        (C-contiguous arrays of those shapes: the tensor's own outputs, no copy) when given.

        Raises:
            SurgeryError: a NaN / inf weight (``row0`` is the chunk's first row in the tensor, for the message).
        """
        packed, scales = self._encode(rows, row0, out)
        if out is not None and packed is not out[0]:
            out[0][...], out[1][...] = packed, scales
            return out
        return packed, scales

    def _encode(
        self, rows: np.ndarray, row0: int, out: tuple[np.ndarray, np.ndarray] | None
    ) -> tuple[np.ndarray, np.ndarray]:
        if self.inf_bits is None:
            x = rows.astype(np.float32)
            bad = ~np.isfinite(x).all(axis=1)
            if bad.any():
                raise non_finite_error(self.name, row0 + int(np.nonzero(bad)[0][0]))
            return encode_rows(x, self.scale)
        if self.kernel is not None:
            return self._encode_numba(rows, row0, out)
        return self._encode_numpy(rows, row0)

    def _encode_numba(
        self, rows: np.ndarray, row0: int, out: tuple[np.ndarray, np.ndarray] | None
    ) -> tuple[np.ndarray, np.ndarray]:
        """The compiled loop (:mod:`specscope.surgery.nvfp4_kernel`); when the chunk's scales need table rows not
        built yet, the loop stops after its scale phase, the rows are built and it runs its code phase only."""
        assert self.kernel is not None and self.inf_bits is not None
        n, in_f = rows.shape
        bits = np.ascontiguousarray(rows).view(np.uint16)  # [r, in] u16
        if out is not None and out[0].flags.c_contiguous and out[1].flags.c_contiguous:
            packed, s8 = out[0], out[1].view(np.uint8)
        else:
            packed = np.empty((n, in_f // 2), dtype=np.uint8)
            s8 = np.empty((n, in_f // BLOCK_SIZE), dtype=np.uint8)
        scales_done = False
        while True:
            status = self.kernel(
                bits, self.inf_bits, self._scale_byte, self._built, self._flat, packed, s8, scales_done
            )
            if status < 0:
                raise non_finite_error(self.name, row0 - status - 1)
            if status == 0:
                return packed, s8.view(ml_dtypes.float8_e4m3fn)
            self._build(np.flatnonzero(np.bincount(s8.reshape(-1), minlength=128)[:128]))
            scales_done = True

    def _encode_numpy(self, rows: np.ndarray, row0: int) -> tuple[np.ndarray, np.ndarray]:
        """Seven numpy passes (mask, block max, scale lookup, index, take, pack); the fallback without numba."""
        assert self.inf_bits is not None
        n, in_f = rows.shape
        bits = np.ascontiguousarray(rows).view(np.uint16)  # [r, in] u16
        mag, index, codes = self._buffers(n, in_f)
        np.bitwise_and(bits, _MAG_MASK, out=mag)
        bmax = _block_max_bits(mag)  # [r, B] u16
        if int(bmax.max(initial=0)) >= self.inf_bits:
            raise non_finite_error(self.name, row0 + int(np.nonzero((bmax >= self.inf_bits).any(axis=1))[0][0]))
        s8_bytes = self._scale_byte.take(bmax)  # [r, B] u8
        self._build(np.flatnonzero(np.bincount(s8_bytes.reshape(-1), minlength=128)[:128]))
        np.add(
            self._row_base.take(bmax)[..., None],
            bits.reshape(n, -1, BLOCK_SIZE),
            out=index.reshape(n, -1, BLOCK_SIZE),
        )
        self._flat.take(index, out=codes, mode="clip")  # [r, in] u8 (indices are in range by construction)
        pairs = codes.view(np.uint16)  # [r, in/2] little-endian: element 2i in the low byte
        packed = (pairs | (pairs >> 4)).astype(np.uint8)  # low nibble <- 2i, high nibble <- 2i+1
        return packed, s8_bytes.view(ml_dtypes.float8_e4m3fn)


def stream_amax(read_rows: RowReader, shape: tuple[int, int], dtype: np.dtype, *, name: str = "weight") -> np.float32:
    """Abs-max of a tensor read chunk by chunk (float32).

    Raises:
        SurgeryError: a NaN / inf value (names its row).
    """
    out_f, in_f = shape
    step = _rows_per_chunk(in_f)
    inf_bits = TABLE_DTYPES.get(np.dtype(dtype))
    max_mag = max_magnitude()
    best = 0
    amax = np.float32(0.0)
    for r0 in range(0, out_f, step):
        rows = read_rows(r0, min(out_f, r0 + step))
        if inf_bits is None:
            x = np.abs(rows.astype(np.float32))
            bad = ~np.isfinite(x).all(axis=1)
            if bad.any():
                raise non_finite_error(name, r0 + int(np.nonzero(bad)[0][0]))
            amax = max(amax, np.float32(x.max(initial=0.0)))
            continue
        bits = np.ascontiguousarray(rows).view(np.uint16)
        m = int(max_mag(bits.reshape(-1))) if max_mag is not None else int((bits & _MAG_MASK).max(initial=0))
        if m >= inf_bits:
            mag = bits & _MAG_MASK
            raise non_finite_error(name, r0 + int(np.nonzero((mag >= inf_bits).any(axis=1))[0][0]))
        best = max(best, m)
    if inf_bits is None:
        return amax
    return np.float32(_bits_to_f32(np.array([best], np.uint16), np.dtype(dtype))[0])


def quantize_stream(
    read_rows: RowReader,
    shape: tuple[int, int],
    dtype: np.dtype,
    *,
    amax: float | np.floating,
    rules: str = "compressed-tensors",
    name: str = "weight",
    workers: int | None = None,
    engine: str = "auto",
) -> NVFP4Weight:
    """Quantize a tensor read chunk by chunk; same bytes as :func:`specscope.surgery.nvfp4.quantize_nvfp4`.

    Args:
        read_rows: ``read_rows(start, stop)`` -> rows of the tensor (thread-safe: chunks are read in parallel).
        shape: ``[out, in]``; dtype: the stored dtype.
        amax: the per-tensor (or fused group's) abs-max, at least the data's (:func:`stream_amax`).
        rules: ``compressed-tensors`` | ``modelopt``.
        workers: threads (None: :func:`default_workers`; 1: this thread only).
        engine: ``auto`` | ``numba`` | ``numpy`` (:class:`TableEncoder`).

    Raises:
        SurgeryError: bad shape, NaN / inf values.
    """
    check_weight_shape(name, shape)
    out_f, in_f = shape
    scale = tensor_scale(amax, rules)
    enc = TableEncoder(np.dtype(dtype), scale, name, engine)
    packed = np.empty((out_f, in_f // 2), dtype=np.uint8)
    bscale = np.empty((out_f, in_f // BLOCK_SIZE), dtype=ml_dtypes.float8_e4m3fn)
    step = _rows_per_chunk(in_f)

    def one(r0: int) -> None:
        r1 = min(out_f, r0 + step)
        enc.encode(read_rows(r0, r1), r0, out=(packed[r0:r1], bscale[r0:r1]))

    starts = range(0, out_f, step)
    n = workers or default_workers()
    if n <= 1 or len(starts) == 1:
        for r0 in starts:
            one(r0)
    else:
        with ThreadPoolExecutor(max_workers=n) as pool:
            futures = [pool.submit(one, r0) for r0 in starts]
            try:
                for f in futures:
                    f.result()  # the first error in row order is raised
            except BaseException:
                pool.shutdown(cancel_futures=True)
                raise
    return NVFP4Weight(packed, bscale, scale)
