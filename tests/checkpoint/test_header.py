"""Header parser and local reader: case C12 files and files written by the reference safetensors library."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import save_file

from paths import CASES
from specscope.checkpoint import (
    HeaderFormatError,
    LocalSource,
    load_checkpoint,
    parse_header,
    read_header,
    shard_name_is_safe,
    tensor_nbytes,
)

C12 = CASES / "C12" / "files"

# file -> expected error code (None = valid), from cases/C12/EXPECTED.md
C12_VERDICTS = {
    "a_zero_size_ok.safetensors": None,
    "b_zero_offsets_nonzero_shape.safetensors": "SPAN_MISMATCH",
    "c_empty_metadata.safetensors": None,
    "d_header_too_large.safetensors": "HEADER_TOO_LARGE",
    "e_offsets_reversed.safetensors": "OFFSETS_REVERSED",
    "f_truncated_data.safetensors": "DATA_TRUNCATED",
    "g_metadata_only.safetensors": None,
    "h_gap_between_tensors.safetensors": "OFFSETS_GAP",
    "i_duplicate_name.safetensors": "HEADER_DUPLICATE_NAME",
    "j_overlapping_tensors.safetensors": "OFFSETS_OVERLAP",
    "k_metadata_non_string_value.safetensors": "HEADER_METADATA",
    "l_trailing_bytes.safetensors": "TRAILING_BYTES",
}


@pytest.mark.parametrize("fname,code", sorted(C12_VERDICTS.items()))
def test_c12_verdicts(fname: str, code: str | None) -> None:
    path = C12 / fname
    src = LocalSource(path.parent, only=fname)
    size = path.stat().st_size
    if code is None:
        header = read_header(src, fname, size)
        assert header.file_size_bytes == size
    else:
        with pytest.raises(HeaderFormatError) as info:
            read_header(src, fname, size)
        assert info.value.code == code
        assert info.value.found is not None and info.value.expected is not None and info.value.fix


def test_c12_zero_size_tensor_records() -> None:
    path = C12 / "a_zero_size_ok.safetensors"
    header = parse_header(path.read_bytes(), path.stat().st_size)
    assert [(t.name, t.dtype, t.shape, t.nbytes) for t in header.tensors] == [
        ("weight", "BF16", (2, 2), 8),
        ("scaled_fp8", "F8_E4M3", (0,), 0),
    ]
    assert header.tensor_bytes == 8


def test_huge_header_rejected_before_reading(tmp_path: Path) -> None:
    """The 200 MB length is refused from the 8-byte prefix alone: the source is asked for 8 bytes only."""

    class CountingSource(LocalSource):
        requested: list[int] = []

        def read_range(self, name: str, start_bytes: int, length_bytes: int) -> bytes:
            self.requested.append(length_bytes)
            return super().read_range(name, start_bytes, length_bytes)

    src = CountingSource(C12, only="d_header_too_large.safetensors")
    with pytest.raises(HeaderFormatError):
        read_header(src, "d_header_too_large.safetensors", 80)
    assert src.requested == [8]


def test_reference_written_file_round_trips(tmp_path: Path) -> None:
    tensors = {
        "a": np.zeros((3, 5), dtype=np.float32),  # 60 bytes
        "b": np.zeros((7,), dtype=np.float16),  # 14 bytes
        "c": np.zeros((2, 2, 2), dtype=np.uint8),  # 8 bytes
    }
    save_file(tensors, str(tmp_path / "x.safetensors"), metadata={"format": "pt"})
    ck = load_checkpoint(tmp_path / "x.safetensors")
    header = ck.shards["x.safetensors"].header
    assert header is not None
    assert {t.name: (t.dtype, t.shape, t.nbytes) for t in header.tensors} == {
        "a": ("F32", (3, 5), 60),
        "b": ("F16", (7,), 14),
        "c": ("U8", (2, 2, 2), 8),
    }
    assert header.metadata == {"format": "pt"}
    assert header.tensor_bytes == 82


def test_span_mismatch_names_tensor() -> None:
    body = json.dumps({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 4]}}).encode()
    blob = struct.pack("<Q", len(body)) + body + b"\0" * 4
    with pytest.raises(HeaderFormatError) as info:
        parse_header(blob, len(blob))
    assert info.value.code == "SPAN_MISMATCH" and info.value.tensor == "w"


def test_unknown_dtype_and_bad_json() -> None:
    body = json.dumps({"w": {"dtype": "Q4", "shape": [2], "data_offsets": [0, 1]}}).encode()
    blob = struct.pack("<Q", len(body)) + body + b"\0"
    with pytest.raises(HeaderFormatError) as info:
        parse_header(blob, len(blob))
    assert info.value.code == "DTYPE_UNKNOWN"
    blob = struct.pack("<Q", 5) + b"{oops"
    with pytest.raises(HeaderFormatError) as info:
        parse_header(blob, len(blob))
    assert info.value.code == "HEADER_JSON"


def test_subbyte_dtype_bytes() -> None:
    assert tensor_nbytes("F4", (64, 32)) == 1024
    assert tensor_nbytes("F4", (3,)) is None  # 12 bits is not a whole byte count
    assert tensor_nbytes("F8_E4M3", (64, 4)) == 256


@pytest.mark.parametrize(
    "name,ok",
    [
        ("model-00001-of-00002.safetensors", True),
        ("sub/x.safetensors", True),
        ("../x.safetensors", False),
        ("/etc/passwd", False),
        ("a/../../x.safetensors", False),
        ("c:\\x.safetensors", False),
    ],
)
def test_shard_name_is_safe(name: str, ok: bool) -> None:
    assert shard_name_is_safe(name) is ok
