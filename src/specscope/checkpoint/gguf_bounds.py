"""Every count in a GGUF header checked against the bytes left in the file, before gguf-py reads it.

Format: ggml-org/llama.cpp ``docs/gguf.md`` (v2/v3): ``magic "GGUF"``, ``uint32 version``, ``uint64
tensor_count``, ``uint64 kv_count``; each key/value: ``string key``, ``uint32 value_type``, the value; a string is
``uint64 length`` + bytes; an array is ``uint32 item_type``, ``uint64 count``, the items; each tensor info:
``string name``, ``uint32 n_dims``, ``uint64 dims[n_dims]``, ``uint32 type``, ``uint64 offset``. A file written
for the other byte order has its version's low 16 bits zero (gguf-py's rule) and every number swapped.

gguf-py's ``GGUFReader`` loops over a declared count with no bound (an array count of 10**12 in a 24 KB file reads
empty views for minutes and grows lists by gigabytes), so :func:`check_counts` walks the same header with each
count bounded first: a count whose smallest possible encoding needs more bytes than remain is refused, so the walk
and gguf-py's parse after it take time and memory in proportion to the file's size.
"""

from __future__ import annotations

import mmap
import struct
from pathlib import Path

__all__ = ["GgufBoundsError", "check_counts", "tensor_types"]

# GGUF value types (docs/gguf.md, ``gguf_type``) -> encoded size in bytes; 8 (string) and 9 (array) vary.
_FIXED_BYTES = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
_STRING, _ARRAY = 8, 9
_MIN_BYTES = {**_FIXED_BYTES, _STRING: 8, _ARRAY: 12}  # smallest encoding of one value of each type
_MIN_KV_BYTES = 8 + 4 + 1  # empty key, type, a 1-byte value
_MIN_TENSOR_BYTES = 8 + 4 + 4 + 8  # empty name, n_dims 0, type, offset


class GgufBoundsError(ValueError):
    """A count in the header that the bytes left in the file cannot hold (message: what, where, how many)."""


class _Walker:
    def __init__(self, data: mmap.mmap, order: str) -> None:
        self.data = data
        self.order = order
        self.offs = 0

    def left(self) -> int:
        return len(self.data) - self.offs

    def number(self, fmt: str, what: str) -> int:
        size = struct.calcsize(fmt)
        if self.left() < size:
            raise GgufBoundsError(f"{what} at byte {self.offs:,}: needs {size} bytes, {self.left():,} left")
        (value,) = struct.unpack_from(self.order + fmt, self.data, self.offs)
        self.offs += size
        return int(value)

    def count(self, fmt: str, what: str, min_each_bytes: int) -> int:
        """A count, refused when ``count * min_each_bytes`` exceeds the bytes left after it."""
        at = self.offs
        n = self.number(fmt, what)
        if n * min_each_bytes > self.left():
            raise GgufBoundsError(
                f"{what} at byte {at:,} says {n:,}, but the {self.left():,} bytes left in the file hold at most "
                f"{self.left() // min_each_bytes:,}"
            )
        return n

    def skip(self, n_bytes: int, what: str) -> None:
        if n_bytes > self.left():
            raise GgufBoundsError(f"{what} at byte {self.offs:,}: {n_bytes:,} bytes, {self.left():,} left")
        self.offs += n_bytes

    def string(self, what: str) -> str:
        """Skip a string; returns its first 80 characters (for naming a key in an error)."""
        n = self.count("Q", f"{what} length", 1)
        start = self.offs
        self.skip(n, what)
        return bytes(self.data[start : start + min(n, 80)]).decode("utf-8", "replace")

    def value(self, vtype: int, what: str, depth: int = 0) -> None:
        if vtype in _FIXED_BYTES:
            self.skip(_FIXED_BYTES[vtype], what)
        elif vtype == _STRING:
            self.string(what)
        elif vtype == _ARRAY and depth < 8:
            itype = self.number("I", f"{what} item type")
            if itype not in _MIN_BYTES:
                raise GgufBoundsError(f"{what} item type {itype} is not a GGUF value type (0..12)")
            n = self.count("Q", f"{what} array count", _MIN_BYTES[itype])
            if itype in _FIXED_BYTES:
                self.skip(n * _FIXED_BYTES[itype], what)
            else:
                for _ in range(n):
                    self.value(itype, what, depth + 1)
        else:
            raise GgufBoundsError(f"{what} value type {vtype} is not a GGUF value type (0..12, arrays 8 deep)")


def tensor_types(path: Path) -> list[tuple[str, int]]:
    """Each tensor info's name (its first 80 characters) and ggml type id, in header order: the walk of
    :func:`check_counts`, for naming a tensor whose type gguf-py does not know.

    Raises:
        GgufBoundsError, OSError: as :func:`check_counts`.
    """
    with open(path, "rb") as fh:
        if fh.seek(0, 2) < 8:
            return []
        with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
            return _walk(data)


def check_counts(path: Path) -> None:
    """Walk the header of the GGUF file ``path`` with every count bounded by the bytes left.

    The file is memory-mapped and only its header pages are touched (tensor data is never read).

    Raises:
        GgufBoundsError: a count the file cannot hold, or a value type that is not GGUF's.
        OSError: the file cannot be read.
    """
    with open(path, "rb") as fh:
        if fh.seek(0, 2) < 8:
            return  # gguf-py refuses a file shorter than its magic and version by itself
        with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
            _walk(data)


def _walk(data: mmap.mmap) -> list[tuple[str, int]]:
    (version,) = struct.unpack_from("<I", data, 4)
    order = ">" if version & 0xFFFF == 0 and version else "<"
    if data[:4] != b"GGUF" or struct.unpack_from(order + "I", data, 4)[0] not in (2, 3):
        return []  # not GGUF v2/v3: gguf-py refuses it by name
    w = _Walker(data, order)
    w.offs = 8
    tensor_count = w.count("Q", "tensor_count", _MIN_TENSOR_BYTES)
    kv_count = w.count("Q", "kv_count", _MIN_KV_BYTES)
    for i in range(kv_count):
        key = f"key {w.string(f'key {i}')!r}"
        w.value(w.number("I", f"{key} value type"), key)
    types = []
    for i in range(tensor_count):
        raw = w.string(f"tensor {i} name")
        name = f"tensor {raw!r}"
        n_dims = w.count("I", f"{name} n_dims", 8)
        w.skip(8 * n_dims, f"{name} info")
        types.append((raw, w.number("I", f"{name} info")))
        w.skip(8, f"{name} info")
    return types
