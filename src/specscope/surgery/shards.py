"""Safetensors I/O for surgery: a read-only view of a checkpoint folder and a streaming shard writer.

Reading goes through :mod:`specscope.checkpoint.header` (the shared header parser); tensor bytes are read with
``os.pread`` from a file descriptor opened ``O_RDONLY``, one tensor at a time, so a source checkpoint is never
opened for writing and memory stays near the largest tensor.

Writing: the safetensors library can only save a whole dict of in-memory tensors, which would hold an entire
shard in memory, so :class:`ShardWriter` writes the format itself (safetensors ``README.md`` "Format": u64 LE
header length, JSON header padded with spaces to a multiple of 8, then the tensors back to back in header
order) into a temporary file in the destination folder and renames it into place. Every written file is
re-opened with ``safetensors.safe_open`` as an independent check.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np

from specscope.checkpoint.dtypes import tensor_nbytes
from specscope.checkpoint.header import LENGTH_PREFIX_BYTES, SafetensorsHeader, TensorInfo, header_length, parse_header
from specscope.checkpoint.safefiles import open_regular, sha256_file
from specscope.checkpoint.schema import read_config_file
from specscope.errors import CheckpointError, SurgeryError
from specscope.fsio import AtomicFile
from specscope.textsafe import shell_word

__all__ = [
    "NUMPY_DTYPES",
    "INDEX_NAME",
    "Checkpoint",
    "open_checkpoint",
    "read_header",
    "ShardWriter",
    "sha256_bytes",
    "sha256_file",
    "planned_nbytes",
    "no_tensor_under",
]

INDEX_NAME = "model.safetensors.index.json"
#: safetensors dtype string -> numpy dtype (bfloat16 / float8 via ml_dtypes).
NUMPY_DTYPES: dict[str, np.dtype] = {
    "BOOL": np.dtype(np.bool_),
    "U8": np.dtype(np.uint8),
    "I8": np.dtype(np.int8),
    "I16": np.dtype(np.int16),
    "U16": np.dtype(np.uint16),
    "I32": np.dtype(np.int32),
    "U32": np.dtype(np.uint32),
    "I64": np.dtype(np.int64),
    "U64": np.dtype(np.uint64),
    "F16": np.dtype(np.float16),
    "BF16": np.dtype(ml_dtypes.bfloat16),
    "F32": np.dtype(np.float32),
    "F64": np.dtype(np.float64),
    "F8_E4M3": np.dtype(ml_dtypes.float8_e4m3fn),
    "F8_E5M2": np.dtype(ml_dtypes.float8_e5m2),
}
FLOAT_DTYPES = frozenset({"F16", "BF16", "F32", "F64"})


def sha256_bytes(data: bytes | memoryview) -> str:
    """Hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def planned_nbytes(dtype: str, shape: tuple[int, ...] | list[int]) -> int:
    """Bytes a planned tensor occupies (``numel * bits / 8``).

    Raises:
        SurgeryError: the tensor does not fill a whole number of bytes (a sub-byte dtype with an odd count).
    """
    nbytes = tensor_nbytes(dtype, tuple(shape))
    if nbytes is None:
        raise SurgeryError(
            "planned tensor is not a whole number of bytes",
            found=f"{dtype} {list(shape)}",
            expected="numel * bits divisible by 8",
            fix="internal plan error",
        )
    return nbytes


def no_tensor_under(prefix: str, *, where: str = "", found: str, fix: str) -> SurgeryError:
    """The error for a ``--prefix`` that matches no tensor (``where`` names the checkpoint(s) searched)."""
    return SurgeryError(
        f"no tensor under prefix {prefix!r}{where}", found=found, expected=f"names starting with {prefix!r}", fix=fix
    )


def read_header(path: Path) -> SafetensorsHeader:
    """Parse the header of one local safetensors file (read-only). Raises HeaderError / CheckpointError."""
    fd = open_regular(path)  # refuses FIFOs / devices, reports missing and unreadable files
    try:
        size = os.fstat(fd).st_size
        prefix = os.pread(fd, LENGTH_PREFIX_BYTES, 0)
        n = header_length(prefix, file_size_bytes=size)
        return parse_header(prefix + os.pread(fd, n, LENGTH_PREFIX_BYTES), size)
    finally:
        os.close(fd)


@dataclass
class Checkpoint:
    """A local checkpoint folder, read-only.

    Attributes:
        root: the folder.
        headers: shard file name -> parsed header, for every ``*.safetensors`` file on disk (indexed or not).
        index: the parsed ``model.safetensors.index.json`` or None.
        location: tensor name -> shard file name (from the headers: what is physically there).
        index_problem: why the index on disk was set aside (not JSON, no usable ``weight_map``), when it was opened
            with ``broken_index_ok``; None otherwise.
    """

    root: Path
    headers: dict[str, SafetensorsHeader]
    index: dict[str, Any] | None
    location: dict[str, str]
    index_problem: str | None = None

    def info(self, name: str) -> TensorInfo:
        """Header entry of tensor ``name``. Raises SurgeryError when absent."""
        shard = self.location.get(name)
        if shard is None:
            raise SurgeryError(
                f"tensor {name} is not in the checkpoint",
                found=str(self.root),
                expected=f"a shard holding {name}",
                fix="check the name / prefix",
            )
        return self.headers[shard].by_name[name]

    def names(self, prefix: str = "") -> list[str]:
        """Sorted tensor names starting with ``prefix``."""
        return sorted(n for n in self.location if n.startswith(prefix))

    def read_bytes(self, name: str) -> bytes:
        """The raw bytes of one tensor (``os.pread`` on an ``O_RDONLY`` descriptor)."""
        info = self.info(name)
        fd = os.open(self.root / self.location[name], os.O_RDONLY)
        try:
            data = os.pread(fd, info.nbytes, info.file_offset_bytes)
        finally:
            os.close(fd)
        if len(data) != info.nbytes:
            raise CheckpointError(
                f"{name}: short read",
                found=f"{len(data)} bytes",
                expected=f"{info.nbytes} bytes",
                fix="the shard is truncated; re-download it",
            )
        return data

    def read_array(self, name: str) -> np.ndarray:
        """Tensor ``name`` as a numpy array of its stored dtype (bfloat16 / float8 via ml_dtypes).

        Raises:
            SurgeryError: a dtype numpy cannot hold (F4, F6, F8_E8M0, C64).
        """
        info = self.info(name)
        dt = NUMPY_DTYPES.get(info.dtype)
        if dt is None:
            raise SurgeryError(
                f"{name}: dtype {info.dtype} has no numpy equivalent",
                found=info.dtype,
                expected=f"one of {', '.join(sorted(NUMPY_DTYPES))}",
                fix="leave this tensor out of the operation",
            )
        return np.frombuffer(self.read_bytes(name), dtype=dt).reshape(info.shape)

    def read_rows(self, name: str, start: int, stop: int) -> np.ndarray:
        """Rows ``start:stop`` of tensor ``name`` (first axis), read with ``os.preadv`` into a new array of its dtype.

        Thread-safe (each call opens its own ``O_RDONLY`` descriptor), so chunks of one tensor can be read in
        parallel; memory is the rows asked for.

        Raises:
            SurgeryError: a dtype numpy cannot hold, or rows outside the tensor.
            CheckpointError: a short read (truncated shard).
        """
        info = self.info(name)
        dt = NUMPY_DTYPES.get(info.dtype)
        n_rows = info.shape[0] if info.shape else 0
        if dt is None or not 0 <= start <= stop <= n_rows:
            raise SurgeryError(
                f"{name}: cannot read rows {start}:{stop}",
                found=f"{info.dtype} {list(info.shape)}",
                expected=f"a numpy dtype and 0 <= start <= stop <= {n_rows}",
                fix="internal error",
            )
        row_bytes = info.nbytes // n_rows if n_rows else 0
        out = np.empty((stop - start, *info.shape[1:]), dtype=dt)
        fd = os.open(self.root / self.location[name], os.O_RDONLY)
        try:
            got = os.preadv(fd, [out.reshape(-1).view(np.uint8).data], info.file_offset_bytes + start * row_bytes)
        finally:
            os.close(fd)
        if got != out.nbytes:
            raise CheckpointError(
                f"{name}: short read",
                found=f"{got} bytes",
                expected=f"{out.nbytes} bytes",
                fix="the shard is truncated; re-download it",
            )
        return out

    def config(self, name: str) -> dict[str, Any] | None:
        """A JSON file of the folder (config.json, hf_quant_config.json) as a dict, or None when absent."""
        return read_config_file(self.root / name)


def require_folder(root: Path, expected: str) -> None:
    """Refuse a checkpoint path that is not a folder: a file is named as one, with its folder as the fix (a file
    was called "not found"); else not found.

    Raises:
        CheckpointError: ``root`` is not a folder.
    """
    if root.is_dir():
        return
    if root.exists():
        raise CheckpointError(
            "the checkpoint is a file, not a folder",
            found=f"{root} (a file)",
            expected=expected,
            fix=f"pass the folder that holds it: {root.parent}",
        )
    raise CheckpointError("checkpoint folder not found", found=str(root), expected=expected, fix="check the path")


def open_checkpoint(root: str | os.PathLike[str], *, broken_index_ok: bool = False) -> Checkpoint:
    """Read every safetensors header and the index of a local folder (no tensor data is read).

    ``broken_index_ok`` (``reindex``, which rebuilds the index from the headers and needs nothing from the old one):
    an index that is not JSON or has no usable ``weight_map`` is set aside (``index`` None, ``index_problem`` says
    why) instead of refused.

    Raises:
        CheckpointError: not a folder, no ``*.safetensors`` file, or an unreadable / ill-typed index or config.
        SurgeryError: one tensor name stored in two shards (ambiguous; surgery refuses).
    """
    root = Path(root)
    require_folder(root, "a folder of safetensors")
    shards = sorted(p.name for p in root.glob("*.safetensors") if p.is_file())
    if not shards:
        raise CheckpointError(
            "no safetensors files", found=str(root), expected="*.safetensors", fix="point at a checkpoint folder"
        )
    headers = {s: read_header(root / s) for s in shards}
    location: dict[str, str] = {}
    for s, h in headers.items():
        for t in h.tensors:
            if t.name in location:
                # a leftover shard set beside the one the index names (unslothai/unsloth-zoo PR #808)
                prune = f"specscope surgery prune-unindexed {shell_word(root)} --out NEW_FOLDER"
                raise SurgeryError(
                    f"tensor {t.name} is stored twice",
                    found=f"{location[t.name]} and {s}",
                    expected="each tensor in one shard",
                    fix=f"keep the copies the index names: {prune}"
                    if (root / INDEX_NAME).is_file()
                    else "remove the stale copy first (the shard an older save left)",
                )
            location[t.name] = s
    problem = None
    try:
        index = read_config_file(
            root / INDEX_NAME, fix=f"rebuild it: `specscope surgery reindex {shell_word(root)} --out NEW_FOLDER`"
        )
        wm = None if index is None else index.get("weight_map")
        if index is not None and not (
            isinstance(wm, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in wm.items())
        ):
            raise CheckpointError(
                f"{INDEX_NAME} has no usable weight_map",
                found=f"weight_map is {type(wm).__name__}" if not isinstance(wm, dict) else "non-string entries",
                expected='{"weight_map": {"tensor name": "shard file", ...}}',
                fix=f"rebuild it: `specscope surgery reindex {shell_word(root)} --out NEW_FOLDER`",
            )
    except CheckpointError as exc:
        if not broken_index_ok:
            raise
        index, problem = None, f"{exc.message} ({exc.found})" if exc.found else exc.message
    for name in ("config.json", "hf_quant_config.json"):  # checked up front, even when only linked
        read_config_file(root / name)
    return Checkpoint(root, headers, index, location, problem)


class ShardWriter:
    """Write one safetensors file tensor by tensor, with the whole header declared up front.

    Usage::

        w = ShardWriter(path, [(name, dtype, shape), ...], metadata={"format": "pt"})
        for name, data in ...: w.write(name, data)     # in declaration order
        hashes = w.close()                             # renames the temp file into place

    Args:
        path: the final file name; data goes to a hidden temporary file beside it first
            (:class:`specscope.fsio.AtomicFile`).
        entries: ``(name, safetensors dtype, shape)`` in file order.
        metadata: the header's ``__metadata__`` (string -> string).

    Raises:
        SurgeryError: a tensor written out of order or with the wrong byte count.
    """

    def __init__(
        self, path: Path, entries: Iterable[tuple[str, str, tuple[int, ...]]], metadata: dict[str, str] | None = None
    ):
        self.path = Path(path)
        self.entries = [(n, d, tuple(s)) for n, d, s in entries]
        header: dict[str, object] = {}
        if metadata:
            header["__metadata__"] = dict(metadata)
        offset = 0
        self._sizes: list[int] = []
        for name, dtype, shape in self.entries:
            nbytes = planned_nbytes(dtype, shape)
            header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [offset, offset + nbytes]}
            self._sizes.append(nbytes)
            offset += nbytes
        raw = json.dumps(header, separators=(",", ":")).encode("utf-8")
        raw += b" " * (-len(raw) % 8)  # pad to 8-byte alignment (the reference writer does the same)
        self.tensor_bytes = offset
        self.file_bytes = LENGTH_PREFIX_BYTES + len(raw) + offset
        self._file = AtomicFile(self.path)
        self._fh = self._file.fh
        try:
            self._fh.write(struct.pack("<Q", len(raw)) + raw)
        except BaseException:
            self._file.discard()
            raise
        self._next = 0
        self.hashes: dict[str, str] = {}

    def write(self, name: str, data: bytes | memoryview | np.ndarray) -> int:
        """Append tensor ``name``'s bytes; returns the byte count. Records its SHA-256 in ``hashes``."""
        if self._next >= len(self.entries) or self.entries[self._next][0] != name:
            want = self.entries[self._next][0] if self._next < len(self.entries) else "(none)"
            raise SurgeryError("tensor written out of order", found=name, expected=want, fix="internal plan error")
        # an array is hashed and written through a byte view of its memory (no copy of a tensor-sized buffer)
        buf = (
            np.ascontiguousarray(data).reshape(-1).view(np.uint8).data
            if isinstance(data, np.ndarray)
            else memoryview(data).cast("B")
        )
        if len(buf) != self._sizes[self._next]:
            raise SurgeryError(
                f"{name}: wrong byte count", found=len(buf), expected=self._sizes[self._next], fix="internal plan error"
            )
        self._fh.write(buf)
        self.hashes[name] = sha256_bytes(buf)
        self._next += 1
        return len(buf)

    def close(self) -> dict[str, str]:
        """Flush, fsync, rename into place and check the file with ``safetensors.safe_open``."""
        if self._next != len(self.entries):
            self.abort()
            raise SurgeryError(
                "shard closed before all tensors were written",
                found=self._next,
                expected=len(self.entries),
                fix="internal plan error",
            )
        self._file.commit()
        from safetensors import safe_open

        with safe_open(self.path, "numpy") as f:  # independent parser: the header must be valid to it
            if sorted(f.keys()) != sorted(n for n, _, _ in self.entries):
                raise SurgeryError(
                    "written shard does not list the planned tensors",
                    found=str(self.path),
                    expected=len(self.entries),
                    fix="report this bug",
                )
        return self.hashes

    def abort(self) -> None:
        """Close and delete the temporary file."""
        self._file.discard()
