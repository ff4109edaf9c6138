"""Safetensors header parser: bytes in, validated records out. No I/O here.

Format (safetensors spec, huggingface/safetensors ``README.md`` "Format"): an 8-byte little-endian unsigned
header length ``N``, then ``N`` bytes of UTF-8 JSON (an object mapping tensor names to
``{"dtype", "shape", "data_offsets": [begin, end]}`` plus an optional ``"__metadata__"`` object of
string -> string), then the data section. Offsets are relative to the start of the data section.

The checks follow the reference Rust parser (``safetensors/src/tensor.rs``: header bounded at 100,000,000 bytes,
``end - begin == numel * itemsize``, offsets contiguous from 0 and covering the whole data section) and are
stricter in one place: a tensor name that occurs twice in the JSON is an error (the reference keeps one silently;
case C12 ``i_duplicate_name``). Every violation raises :class:`HeaderFormatError` with a stable ``code``.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

from specscope.checkpoint.dtypes import DTYPE_BITS, tensor_nbytes
from specscope.checkpoint.safefiles import loads_bounded
from specscope.errors import HeaderError

__all__ = [
    "MAX_HEADER_BYTES",
    "LENGTH_PREFIX_BYTES",
    "HeaderFormatError",
    "TensorInfo",
    "SafetensorsHeader",
    "header_length",
    "parse_header",
]

#: upper bound on the JSON header length, as in the reference parser (``MAX_HEADER_SIZE``).
MAX_HEADER_BYTES = 100_000_000
#: the little-endian u64 length prefix.
LENGTH_PREFIX_BYTES = 8


class HeaderFormatError(HeaderError):
    """A header that violates the safetensors format. ``code`` is stable (e.g. ``HEADER_TOO_LARGE``)."""

    def __init__(self, code: str, message: str, *, tensor: str | None = None, **kw: Any) -> None:
        super().__init__(message, **kw)
        self.code = code
        self.tensor = tensor


@dataclass(frozen=True, slots=True)
class TensorInfo:
    """One tensor entry of a header.

    ``begin_bytes`` / ``end_bytes`` are offsets into the data section; ``file_offset_bytes`` is where the data
    starts in the file (``8 + header_len_bytes + begin_bytes``).
    """

    name: str
    dtype: str
    shape: tuple[int, ...]
    begin_bytes: int
    end_bytes: int
    file_offset_bytes: int

    @property
    def nbytes(self) -> int:
        """Bytes of tensor data (``end - begin``)."""
        return self.end_bytes - self.begin_bytes

    @property
    def numel(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n


@dataclass(frozen=True, slots=True)
class SafetensorsHeader:
    """A parsed, validated header. ``tensors`` keeps file order; ``by_name`` maps name -> :class:`TensorInfo`."""

    header_len_bytes: int
    file_size_bytes: int
    metadata: dict[str, str]
    tensors: tuple[TensorInfo, ...]
    by_name: dict[str, TensorInfo]

    @property
    def data_start_bytes(self) -> int:
        return LENGTH_PREFIX_BYTES + self.header_len_bytes

    @property
    def tensor_bytes(self) -> int:
        """Sum of tensor data bytes (what ``metadata.total_size`` of an index counts)."""
        return sum(t.nbytes for t in self.tensors)


def header_length(prefix: bytes, *, file_size_bytes: int | None = None) -> int:
    """Read and bound the header length from the first 8 bytes of a file.

    Raises :class:`HeaderFormatError` (``HEADER_TRUNCATED`` when fewer than 8 bytes or the file is shorter than
    the header, ``HEADER_TOO_LARGE`` above :data:`MAX_HEADER_BYTES`) *before* anything else is read.
    """
    if len(prefix) < LENGTH_PREFIX_BYTES:
        raise HeaderFormatError(
            "HEADER_TRUNCATED",
            "file too short for a safetensors length prefix",
            found=f"{len(prefix)} bytes",
            expected=">= 8 bytes",
            fix="re-download the file",
        )
    n: int = struct.unpack("<Q", prefix[:LENGTH_PREFIX_BYTES])[0]
    if n > MAX_HEADER_BYTES:
        raise HeaderFormatError(
            "HEADER_TOO_LARGE",
            "safetensors header length above the format's bound",
            found=f"{n} bytes",
            expected=f"<= {MAX_HEADER_BYTES} bytes",
            fix="the file is corrupt or not safetensors; re-download or re-export it",
        )
    if file_size_bytes is not None and LENGTH_PREFIX_BYTES + n > file_size_bytes:
        raise HeaderFormatError(
            "HEADER_TRUNCATED",
            "header runs past the end of the file",
            found=f"header {n} bytes, file {file_size_bytes} bytes",
            expected=f"file >= {LENGTH_PREFIX_BYTES + n} bytes",
            fix="re-download the file (incomplete transfer)",
        )
    return n


def _pairs_no_duplicates(pairs: list[tuple[str, object]]) -> dict[str, object]:
    seen: dict[str, object] = {}
    for key, value in pairs:
        if key in seen:
            raise HeaderFormatError(
                "HEADER_DUPLICATE_NAME",
                f"key {key!r} occurs twice in the header JSON",
                tensor=key,
                found=f"2 entries named {key!r}",
                expected="unique tensor names",
                fix="re-export the file; loaders silently keep one of the two entries",
            )
        seen[key] = value
    return seen


def _bad(code: str, message: str, tensor: str | None, found: object, expected: object) -> HeaderFormatError:
    return HeaderFormatError(
        code, message, tensor=tensor, found=found, expected=expected, fix="re-export or re-download the file"
    )


def parse_header(data: bytes, file_size_bytes: int) -> SafetensorsHeader:
    """Parse and validate a safetensors header.

    Args:
        data: the file's first bytes: at least ``8 + N`` (length prefix plus the JSON header); more is ignored.
        file_size_bytes: the whole file's size, used to check that the data section is exactly covered.

    Returns:
        :class:`SafetensorsHeader` with tensors in file order.

    Raises:
        HeaderFormatError: codes ``HEADER_TOO_LARGE``, ``HEADER_TRUNCATED``, ``HEADER_JSON``,
            ``HEADER_DUPLICATE_NAME``, ``HEADER_METADATA``, ``HEADER_ENTRY``, ``DTYPE_UNKNOWN``,
            ``OFFSETS_REVERSED``, ``SPAN_MISMATCH``, ``OFFSETS_OVERLAP``, ``OFFSETS_GAP``, ``DATA_TRUNCATED``,
            ``TRAILING_BYTES``.
    """
    n = header_length(data[:LENGTH_PREFIX_BYTES], file_size_bytes=file_size_bytes)
    raw = data[LENGTH_PREFIX_BYTES : LENGTH_PREFIX_BYTES + n]
    if len(raw) < n:
        raise _bad("HEADER_TRUNCATED", "fewer header bytes than announced", None, f"{len(raw)} bytes", f"{n} bytes")
    try:
        obj = loads_bounded(raw, object_pairs_hook=_pairs_no_duplicates)
    except HeaderFormatError:
        raise
    except (UnicodeDecodeError, ValueError) as exc:
        found = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise _bad("HEADER_JSON", "header is not valid UTF-8 JSON", None, found, "a JSON object") from None
    if not isinstance(obj, dict):
        raise _bad("HEADER_JSON", "header JSON is not an object", None, type(obj).__name__, "object")

    metadata = obj.pop("__metadata__", None)
    if metadata is None:
        metadata = {}
    if not isinstance(metadata, dict):
        raise _bad("HEADER_METADATA", "__metadata__ is not an object", None, type(metadata).__name__, "object")
    for key, value in metadata.items():
        if not isinstance(value, str):
            raise _bad(
                "HEADER_METADATA",
                f"__metadata__ value for {key!r} is not a string",
                None,
                f"{key}: {value!r} ({type(value).__name__})",
                "string values only",
            )

    data_start = LENGTH_PREFIX_BYTES + n
    data_len = file_size_bytes - data_start
    tensors: list[TensorInfo] = []
    for name, entry in obj.items():
        if not isinstance(entry, dict):
            raise _bad("HEADER_ENTRY", f"entry {name!r} is not an object", name, type(entry).__name__, "object")
        dtype = entry.get("dtype")
        shape = entry.get("shape")
        offsets = entry.get("data_offsets")
        if (
            not isinstance(dtype, str)
            or not isinstance(shape, list)
            or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape)
            or not isinstance(offsets, list)
            or len(offsets) != 2
            or not all(isinstance(o, int) and not isinstance(o, bool) and o >= 0 for o in offsets)
        ):
            raise _bad(
                "HEADER_ENTRY",
                f"entry {name!r} lacks a valid dtype / shape / data_offsets",
                name,
                entry,
                '{"dtype": str, "shape": [int>=0...], "data_offsets": [begin, end]}',
            )
        if dtype not in DTYPE_BITS:
            raise _bad("DTYPE_UNKNOWN", f"unknown dtype for {name!r}", name, dtype, sorted(DTYPE_BITS))
        begin, end = offsets
        if begin > end:
            raise _bad(
                "OFFSETS_REVERSED", f"data_offsets of {name!r} run backwards", name, [begin, end], "begin <= end"
            )
        need = tensor_nbytes(dtype, tuple(shape))
        if need != end - begin:
            raise _bad(
                "SPAN_MISMATCH",
                f"dtype x shape of {name!r} does not equal its byte span",
                name,
                f"{dtype} {shape} needs {need} bytes, offsets [{begin}, {end}] hold {end - begin}",
                "numel * itemsize == end - begin",
            )
        tensors.append(TensorInfo(name, dtype, tuple(shape), begin, end, data_start + begin))

    cursor = 0
    prev: TensorInfo | None = None
    for t in sorted(tensors, key=lambda t: (t.begin_bytes, t.end_bytes)):
        if t.begin_bytes < cursor:
            raise _bad(
                "OFFSETS_OVERLAP",
                f"{t.name!r} overlaps {prev.name if prev else '?'!r}",
                t.name,
                f"[{t.begin_bytes}, {t.end_bytes}] starts before byte {cursor}",
                "non-overlapping ranges",
            )
        if t.begin_bytes > cursor:
            raise _bad(
                "OFFSETS_GAP",
                f"unused bytes before {t.name!r}",
                t.name,
                f"bytes [{cursor}, {t.begin_bytes}] belong to no tensor",
                "contiguous data section",
            )
        cursor = t.end_bytes
        prev = t
    if cursor > data_len:
        raise _bad(
            "DATA_TRUNCATED",
            "data section shorter than the header describes",
            prev.name if prev else None,
            f"{data_len} data bytes",
            f"{cursor} data bytes",
        )
    if cursor < data_len:
        raise _bad(
            "TRAILING_BYTES",
            "bytes after the last tensor",
            None,
            f"{data_len} data bytes",
            f"{cursor} data bytes (tensors cover exactly the data section)",
        )
    return SafetensorsHeader(n, file_size_bytes, dict(metadata), tuple(tensors), {t.name: t for t in tensors})
