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
import re
import struct
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from specscope.checkpoint.gguf_bounds import GgufBoundsError, check_counts, tensor_types
from specscope.checkpoint.tokenizer import TokenizerView, from_gguf_fields
from specscope.errors import CheckpointError

__all__ = ["GgufTensor", "GgufFile", "read_gguf", "read_gguf_file", "is_gguf_path", "GGUF_MAGIC"]

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


#: ggml type ids ggml has removed (ggml/include/ggml.h: "support has been removed"; the embedded engine's ggml.c
#: names 31-33 and 36-38 "TYPE_... REMOVED, use ... with runtime repacking"): block size 0, which gguf.cpp refuses
_REMOVED_TYPES = {
    4: "Q4_2, removed",
    5: "Q4_3, removed",
    31: "Q4_0_4_4, removed: use Q4_0, repacked at runtime",
    32: "Q4_0_4_8, removed: use Q4_0, repacked at runtime",
    33: "Q4_0_8_8, removed: use Q4_0, repacked at runtime",
    36: "IQ4_NL_4_4, removed: use IQ4_NL, repacked at runtime",
    37: "IQ4_NL_4_8, removed: use IQ4_NL, repacked at runtime",
    38: "IQ4_NL_8_8, removed: use IQ4_NL, repacked at runtime",
}


def _type_failure(p: Path, known: dict[int, str]) -> CheckpointError | None:
    """The refusal of a GGUF whose tensor has a ggml type id outside ``known`` (gguf-py's GGMLQuantizationType:
    id -> name), naming the first such tensor; None when every type is known. llama.cpp's ggml/src/gguf.cpp refuses the
    same file: "tensor '%s' has invalid ggml type %d" past GGML_TYPE_COUNT, "not a multiple of block size (0)" for
    a removed type."""
    try:
        bad = next(((n, t) for n, t in tensor_types(p) if t not in known), None)
    except (GgufBoundsError, OSError):
        return None
    if bad is None:
        return None
    name, tid = bad
    return CheckpointError(
        "llama.cpp cannot load a tensor type of this GGUF",
        found=f"{p}: tensor '{name}': ggml type {tid} ({_REMOVED_TYPES.get(tid, 'a type id gguf-py does not know')})",
        expected="a ggml type gguf-py knows (a newer llama.cpp may add ids): "
        + ", ".join(f"{t} ({i})" for i, t in sorted(known.items())),
        fix="re-quantize the model from its original weights with a current llama-quantize (or download a file "
        "quantized with one)",
    )


#: the GGUF loader's ``llama_split_path``: ``PREFIX-%05d-of-%05d.gguf``, the shard number counted from 1
_SPLIT_NAME = re.compile(r"^(?P<prefix>.+)-(?P<no>\d{5})-of-(?P<count>\d{5})\.gguf$")


def read_gguf(path: str | os.PathLike[str]) -> GgufFile:
    """The model in the GGUF file ``path`` as the GGUF loader sees it: a split GGUF (``split.count`` > 1) is
    loaded from its first shard, and the tensors of ``PREFIX-00002-of-0000N.gguf`` ... are added (ggml-org's
    ``src/llama-model-loader.cpp``, the ``llama_model_loader`` constructor; ``size_bytes`` is then every shard's).

    Raises:
        CheckpointError: what :func:`read_gguf_file` raises; a shard other than the first ("model must be loaded
            with the first split"); a first shard not named ``PREFIX-00001-of-0000N.gguf``; a missing or unreadable
            shard, one whose ``split.no`` is not its place, or tensors other than ``split.tensors.count``.
    """
    first = read_gguf_file(path)
    count, no = first.metadata.get("split.count"), first.metadata.get("split.no", 0)
    if not isinstance(count, int) or count <= 1:
        return first
    p = first.path
    m = _SPLIT_NAME.match(p.name)
    if no != 0:
        hint = f"{m['prefix']}-00001-of-{count:05d}.gguf" if m else "the shard whose split.no is 0"
        raise CheckpointError(
            "a split GGUF is loaded from its first shard only",
            found=f'{p}: split.no {no} of split.count {count} (the loader: "illegal split file idx: {no} (file: '
            f'{p.name}), model must be loaded with the first split")',
            expected="the first shard, split.no 0",
            fix=f"pass {p.with_name(hint)}",
        )
    if m is None or int(m["no"]) != 1 or int(m["count"]) != count:
        raise CheckpointError(
            "the other shards of a split GGUF are found by the first shard's name",
            found=f"{p}: split.count {count}, but the name does not end in -00001-of-{count:05d}.gguf",
            expected=f"PREFIX-00001-of-{count:05d}.gguf next to PREFIX-00002-of-{count:05d}.gguf ...",
            fix=f"rename the shards back to PREFIX-NNNNN-of-{count:05d}.gguf (as gguf-split wrote them)",
        )
    tensors, size = list(first.tensors), first.size_bytes
    for idx in range(1, count):
        shard = p.with_name(f"{m['prefix']}-{idx + 1:05d}-of-{count:05d}.gguf")
        if not shard.is_file():
            raise CheckpointError(
                "a shard of this split GGUF is missing",
                found=f"{p}: split.count {count}; {shard} does not exist",
                expected=f"all {count} shards in {p.parent}",
                fix="download the missing shard next to the others",
            )
        part = read_gguf_file(shard)
        if part.metadata.get("split.no") != idx:
            raise CheckpointError(
                "a shard of this split GGUF is out of place",
                found=f"{shard}: split.no {part.metadata.get('split.no')!r}",
                expected=f"split.no {idx}",
                fix="re-download the shards of one model (all from the same gguf-split run)",
            )
        tensors += part.tensors
        size += part.size_bytes
    declared = first.metadata.get("split.tensors.count")
    if isinstance(declared, int) and declared != len(tensors):
        raise CheckpointError(
            "the shards of this split GGUF do not hold the tensors the first one declares",
            found=f"{p}: split.tensors.count {declared}, {len(tensors)} tensors in the {count} shards",
            expected=f'{declared} tensors (the loader: "corrupted model: {declared} tensors expected but '
            f'{len(tensors)} found")',
            fix="re-download the shards of one model (all from the same gguf-split run)",
        )
    return replace(first, tensors=tuple(tensors), size_bytes=size)


def read_gguf_file(path: str | os.PathLike[str]) -> GgufFile:
    """The header of the one GGUF file ``path`` (a shard of a split GGUF alone: see :func:`read_gguf`).

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
        bad_type = (
            _type_failure(p, {t.value: t.name for t in gguf.GGMLQuantizationType}) if "GGMLQuant" in str(exc) else None
        )
        if bad_type is not None:
            raise bad_type from None
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
    # a tokenizer key holding a scalar where an array belongs is kept as stored (fuzz, 100,000 cases: TypeError)
    metadata = {
        k: (f"<array of {len(v)}>" if k in _TOKENIZER_ARRAYS and isinstance(v, list | tuple) else v)
        for k, v in fields.items()
    }
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
