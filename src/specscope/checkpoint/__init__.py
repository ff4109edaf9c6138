"""Checkpoint reader: safetensors header parser (bytes in, records out), local and hub byte sources, index model.

Public API::

    parse_header(data: bytes, file_size_bytes: int) -> SafetensorsHeader     # pure, raises HeaderFormatError
    read_header(source, name, size_bytes) -> SafetensorsHeader               # fetches 8 + N bytes
    load_checkpoint(target) -> Checkpoint                    # folder | file.safetensors | org/name[@rev]
    open_source(target) -> LocalSource | HubSource
    tensor_nbytes(dtype, shape) -> int | None;  DTYPE_BITS
"""

from specscope.checkpoint.dtypes import DTYPE_BITS, tensor_nbytes
from specscope.checkpoint.header import (
    MAX_HEADER_BYTES,
    HeaderFormatError,
    SafetensorsHeader,
    TensorInfo,
    header_length,
    parse_header,
)
from specscope.checkpoint.index import (
    INDEX_NAME,
    Checkpoint,
    ShardRead,
    TensorLocation,
    load_checkpoint,
    read_header,
    shard_name_is_safe,
)
from specscope.checkpoint.source import ByteSource, HubSource, LocalSource, open_source, parse_target

__all__ = [
    "DTYPE_BITS",
    "tensor_nbytes",
    "MAX_HEADER_BYTES",
    "HeaderFormatError",
    "SafetensorsHeader",
    "TensorInfo",
    "header_length",
    "parse_header",
    "INDEX_NAME",
    "Checkpoint",
    "ShardRead",
    "TensorLocation",
    "load_checkpoint",
    "read_header",
    "shard_name_is_safe",
    "ByteSource",
    "HubSource",
    "LocalSource",
    "open_source",
    "parse_target",
]
