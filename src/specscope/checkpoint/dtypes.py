"""Safetensors dtype table: bits per element for every dtype the format names.

Source: the safetensors format spec and its Rust ``Dtype`` enum (huggingface/safetensors,
``safetensors/src/tensor.rs``), which since 0.6 includes the 8-bit float variants ``F8_E4M3``, ``F8_E5M2``,
``F8_E8M0`` and the sub-byte ``F4`` (E2M1) and ``F6_E2M3`` / ``F6_E3M2``. Sub-byte tensors are packed; their byte span
is ``numel * bits / 8`` and must be a whole number of bytes.
"""

from __future__ import annotations

__all__ = ["DTYPE_BITS", "tensor_nbytes", "FLOAT8_DTYPES", "PACKED_INT_DTYPES"]

#: bits per element, keyed by the dtype string written in the header.
DTYPE_BITS: dict[str, int] = {
    "BOOL": 8,
    "U8": 8,
    "I8": 8,
    "F8_E4M3": 8,
    "F8_E5M2": 8,
    "F8_E8M0": 8,
    "F4": 4,
    "F6_E2M3": 6,
    "F6_E3M2": 6,
    "I16": 16,
    "U16": 16,
    "F16": 16,
    "BF16": 16,
    "I32": 32,
    "U32": 32,
    "F32": 32,
    "I64": 64,
    "U64": 64,
    "F64": 64,
    "C64": 64,
}

FLOAT8_DTYPES = frozenset({"F8_E4M3", "F8_E5M2", "F8_E8M0"})
#: integer dtypes that quantizers use to pack 4-bit codes (NVFP4 / MXFP4 payloads, GPTQ/AWQ int32 packs).
PACKED_INT_DTYPES = frozenset({"U8", "I8", "I32", "U32", "F4"})


def tensor_nbytes(dtype: str, shape: tuple[int, ...]) -> int | None:
    """Bytes a tensor of ``dtype`` and ``shape`` occupies, or None when ``numel * bits`` is not a whole byte count.

    Raises:
        KeyError: ``dtype`` is not in :data:`DTYPE_BITS`.
    """
    numel = 1
    for dim in shape:
        numel *= dim
    total_bits = numel * DTYPE_BITS[dtype]
    if total_bits % 8:
        return None
    return total_bits // 8
