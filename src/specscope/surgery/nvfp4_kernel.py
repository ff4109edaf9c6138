"""The NVFP4 table encoder compiled with numba: two phases over a cache-resident row chunk, not numpy's seven passes.

Same inputs, same table, same bytes as :meth:`specscope.surgery.nvfp4_stream.TableEncoder._encode_numpy` (the tests
run both): for each block of 16 16-bit patterns, the largest magnitude (``bits & 0x7fff``), its E4M3 scale byte from
the encoder's lookup, and each pair of codes from the encoder's table, packed low nibble first. It exists because
the benchmark says so (benchmarks/quantize_draft.py; at load 10 on the 2-core development machine: numpy 0.53 GB/s
of BF16 per CPU-second, this loop 1.6 GB/s): numpy's passes each stream the chunk through memory again (an 8-byte
index per weight for ``np.take``). numba is the optional ``fast`` extra; without it :func:`kernel` returns None
and the numpy path runs. Compiled once per machine (``cache=True``: numba's cache beside this file, or its user
cache dir when that is read-only), released GIL (``nogil``) so chunks run on threads.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np

__all__ = ["kernel", "max_magnitude"]


@cache
def kernel() -> Callable[..., int] | None:
    """The compiled encoder loop, or None when numba is not installed (``pip install specscope[fast]``).

    The loop: ``encode(bits, inf_bits, scale_byte, built, table, packed, s8out, scales_done) -> int`` over
    C-contiguous ``bits`` uint16 ``[r, in]``, ``scale_byte`` uint8 ``[inf_bits]``, ``built`` bool ``[128]``,
    ``table`` uint8 ``[128 * 65536]``, writing ``s8out`` uint8 ``[r, in/16]`` and ``packed`` uint8 ``[r, in/2]``.
    Two phases over the chunk (it stays in cache): the block scales first (skipped when ``scales_done``: the caller
    already holds them in ``s8out``), then the codes. Returns 0 when every block was encoded; k > 0 when k blocks
    have a scale byte whose table row is not built yet (the scale bytes are written, no code is: build the rows and
    call again with ``scales_done=True``); -(i + 1) when row i holds NaN or inf.
    """
    try:
        from numba import njit
    except ImportError:
        return None

    @njit(nogil=True, cache=True, boundscheck=False)
    def encode(
        bits: Any, inf_bits: int, scale_byte: Any, built: Any, table: Any, packed: Any, s8out: Any, scales_done: bool
    ) -> int:
        n, in_f = bits.shape
        if not scales_done:
            missing = 0
            for r in range(n):
                for b in range(in_f // 16):
                    base = b * 16
                    m = 0
                    for j in range(16):
                        v = bits[r, base + j] & 0x7FFF
                        if v > m:
                            m = v
                    if m >= inf_bits:
                        return -(r + 1)
                    sb = scale_byte[m]
                    s8out[r, b] = sb
                    if not built[sb]:
                        missing += 1
            if missing:
                return missing
        for r in range(n):
            for b in range(in_f // 16):
                base = b * 16
                row = np.int64(s8out[r, b]) << 16
                for j in range(8):
                    lo = table[row + bits[r, base + 2 * j]]
                    hi = table[row + bits[r, base + 2 * j + 1]]
                    packed[r, b * 8 + j] = lo | (hi << 4)
        return 0

    return encode


@cache
def max_magnitude() -> Callable[..., int] | None:
    """The compiled abs-max of 16-bit float patterns, or None without numba: ``max_mag(bits) -> int``, the largest
    ``bits & 0x7fff`` of a C-contiguous uint16 array ``[n]`` (0 for an empty one): one pass, no temporary (numpy's
    ``(bits & 0x7fff).max()`` writes the masked copy first)."""
    try:
        from numba import njit
    except ImportError:
        return None

    @njit(nogil=True, cache=True, boundscheck=False)
    def max_mag(bits: Any) -> int:
        m = 0
        for i in range(bits.size):
            v = bits[i] & 0x7FFF
            if v > m:
                m = v
        return m

    return max_mag
