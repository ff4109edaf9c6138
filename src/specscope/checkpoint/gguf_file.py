"""GGUF headers (metadata key/values and tensor infos) read with llama.cpp's ``gguf`` package; never tensor data.

Format: ggml-org/llama.cpp ``gguf-py`` (``gguf.GGUFReader``: the file is memory-mapped and only the header is
parsed; a tensor's data is a view that is never touched here). Fields read:

- ``general.architecture`` (``llama``, ``qwen2`` ...), ``general.name``, ``general.file_type`` (``LlamaFileType``:
  the dominant quantization), ``{arch}.block_count``, ``{arch}.embedding_length``, ``{arch}.vocab_size``;
- tensor infos: name, ``GGMLQuantizationType``, shape (GGUF order: ``ne[0]`` is the innermost dimension, so
  ``token_embd.weight`` is ``[hidden, vocab]``), ``n_bytes`` (the quantized size);
- the tokenizer keys read by :func:`specscope.checkpoint.tokenizer.from_gguf_fields`.

Every other key is kept in ``metadata`` as read (``tokenizer.ggml.merges`` and other long arrays only by length),
never interpreted.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from specscope.checkpoint.gguf_bounds import GgufBoundsError, check_counts
from specscope.checkpoint.tokenizer import TokenizerView, from_gguf_fields
from specscope.errors import CheckpointError

__all__ = ["GgufTensor", "GgufFile", "read_gguf", "is_gguf_path", "GGUF_MAGIC"]

GGUF_MAGIC = b"GGUF"
#: arrays longer than this are kept in ``metadata`` as their length only (the vocabulary is read separately).
_MAX_ARRAY_KEPT = 64
_TOKENIZER_ARRAYS = ("tokenizer.ggml.tokens", "tokenizer.ggml.token_type")


@dataclass(frozen=True)
class GgufTensor:
    """One tensor info: ``shape`` in GGUF order (innermost first), ``type`` the ggml type name, ``nbytes`` stored."""

    name: str
    type: str
    shape: tuple[int, ...]
    nbytes: int


@dataclass(frozen=True)
class GgufFile:
    """What a GGUF header says.

    Attributes:
        path: the file.
        architecture: ``general.architecture``.
        name: ``general.name`` (None when absent).
        file_type: ``general.file_type`` as a ``LlamaFileType`` name (``MOSTLY_Q4_1``), None when absent.
        tensors: every tensor info, file order.
        metadata: key -> value (long arrays as ``"<array of N>"``).
        tokenizer: the vocabulary (None when the file carries none).
        size_bytes: the file's size.
    """

    path: Path
    architecture: str
    name: str | None
    file_type: str | None
    tensors: tuple[GgufTensor, ...]
    metadata: dict[str, Any] = field(default_factory=dict)
    tokenizer: TokenizerView | None = None
    size_bytes: int = 0

    def arch_int(self, key: str) -> int | None:
        """``{architecture}.{key}`` as an int (``block_count``, ``embedding_length``, ``vocab_size``)."""
        v = self.metadata.get(f"{self.architecture}.{key}")
        return v if isinstance(v, int) and not isinstance(v, bool) else None


def is_gguf_path(target: str | os.PathLike[str]) -> bool:
    """True for an existing regular file that starts with the GGUF magic (the name need not end in ``.gguf``)."""
    p = Path(target).expanduser()
    if not p.is_file():
        return False
    try:
        with open(p, "rb") as fh:
            return fh.read(4) == GGUF_MAGIC
    except OSError:
        return False


def _value(f: Any) -> Any:
    """A field's value: scalars and strings as Python values, arrays as lists (long ones as their length)."""
    import gguf

    if f.types and f.types[0] == gguf.GGUFValueType.ARRAY:
        if f.name in _TOKENIZER_ARRAYS or f.name == "tokenizer.chat_template":
            return f.contents()
        n = len(f.data)
        return f.contents() if n <= _MAX_ARRAY_KEPT else f"<array of {n}>"
    return f.contents()


def _read_failure(p: Path, exc: BaseException) -> str:
    """What a failed ``GGUFReader`` parse means, in words: gguf-py reads the header through numpy views of the
    memory-mapped file, so a header that declares more than the file holds surfaces as an ``IndexError`` (an empty
    view), a numpy ``cannot reshape`` ``ValueError``, ``EOFError`` or ``struct.error``."""
    text = str(exc).splitlines()[0] if str(exc) else ""
    try:
        size = f"{p.stat().st_size:,} bytes"
    except OSError:
        size = "unknown size"
    if isinstance(exc, GgufBoundsError):
        return f"truncated: the header declares more than the file's {size} hold ({text})"
    if isinstance(exc, IndexError | EOFError | struct.error) or "cannot reshape" in text:
        return f"truncated: the header declares more than the file's {size} hold"
    if "version" in text:
        return f"unsupported GGUF version ({text})"
    return f"{type(exc).__name__}: {text} ({size})"


def read_gguf(path: str | os.PathLike[str]) -> GgufFile:
    """The header of the GGUF file ``path``.

    Every count in the header is checked against the bytes left in the file first
    (:func:`specscope.checkpoint.gguf_bounds.check_counts`): gguf-py alone loops over any count it is given.

    Raises:
        CheckpointError: the ``gguf`` package is missing, or the file is not a readable GGUF (bad magic, truncated,
            an unknown value type, a count larger than the file can hold).
    """
    p = Path(path).expanduser()
    try:
        import gguf
    except ImportError:
        raise CheckpointError(
            "reading a GGUF file needs the gguf package",
            found=f"{p}: gguf not installed",
            expected="the gguf package (llama.cpp's gguf-py)",
            fix="pip install 'specscope[engine]' (or pip install gguf)",
        ) from None
    try:
        check_counts(p)
        reader = gguf.GGUFReader(p, "r")
        fields = {k: _value(f) for k, f in reader.fields.items() if not k.startswith("GGUF.")}
        tensors = tuple(
            GgufTensor(t.name, t.tensor_type.name, tuple(int(d) for d in t.shape), int(t.n_bytes))
            for t in reader.tensors
        )
    except (ValueError, KeyError, IndexError, OSError, TypeError, EOFError, OverflowError, struct.error) as exc:
        raise CheckpointError(
            "not a readable GGUF file",
            found=f"{p}: {_read_failure(p, exc)}",
            expected="a GGUF v2/v3 file (magic GGUF, header, tensor infos)",
            fix="re-download or re-convert the file",
        ) from None
    arch = fields.get("general.architecture")
    ft = fields.get("general.file_type")
    file_type = None
    if isinstance(ft, int):
        try:
            file_type = gguf.LlamaFileType(ft).name
        except ValueError:
            file_type = f"unknown ({ft})"
    name = fields.get("general.name")
    tokenizer = from_gguf_fields(fields)
    metadata = {k: (f"<array of {len(v)}>" if k in _TOKENIZER_ARRAYS else v) for k, v in fields.items()}
    return GgufFile(
        p,
        str(arch) if arch is not None else "unknown",
        str(name) if name is not None else None,
        file_type,
        tensors,
        metadata,
        tokenizer,
        p.stat().st_size,
    )
