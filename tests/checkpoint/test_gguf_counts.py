"""Issue 37 (G1): a GGUF header whose counts say more than the file holds is refused by name, at once.

gguf-py's reader loops over any declared count (a 24 KB file whose ``tokenizer.ggml.token_type`` count says
10**12 took minutes and gigabytes); specscope bounds every count by the bytes left in the file first. The files are
written byte by byte here after llama.cpp's ``docs/gguf.md`` (v3, little-endian).
"""

from __future__ import annotations

import struct
import subprocess
import sys
from pathlib import Path

import pytest

from hangguard import HANG_S
from specscope.checkpoint.gguf_file import read_gguf
from specscope.errors import CheckpointError

pytest.importorskip("gguf")

_STRING, _ARRAY, _INT32 = 8, 9, 5


def _str(text: str) -> bytes:
    raw = text.encode()
    return struct.pack("<Q", len(raw)) + raw


def _kv_string(key: str, value: str) -> bytes:
    return _str(key) + struct.pack("<I", _STRING) + _str(value)


def _gguf(kvs: list[bytes], tensor_count: int = 0, tail: bytes = b"") -> bytes:
    return b"GGUF" + struct.pack("<IQQ", 3, tensor_count, len(kvs)) + b"".join(kvs) + tail


ARCH = _kv_string("general.architecture", "llama")  # bytes 24..68 after the 24-byte header
HUGE = 10**12
PAD = bytes(24_000)  # the reported file was 24 KB


CASES = {
    "token_type count 10**12": (
        _gguf([ARCH, _str("tokenizer.ggml.token_type") + struct.pack("<IIQ", _ARRAY, _INT32, HUGE)], tail=PAD),
        "key 'tokenizer.ggml.token_type' array count at byte 110 says 1,000,000,000,000, "
        "but the 24,000 bytes left in the file hold at most 6,000",
    ),
    "tokens (strings) count 10**12": (
        _gguf([ARCH, _str("tokenizer.ggml.tokens") + struct.pack("<IIQ", _ARRAY, _STRING, HUGE)], tail=PAD),
        "key 'tokenizer.ggml.tokens' array count at byte 106 says 1,000,000,000,000, "
        "but the 24,000 bytes left in the file hold at most 3,000",
    ),
    "kv_count 10**12": (
        b"GGUF" + struct.pack("<IQQ", 3, 0, HUGE) + bytes(24_000),
        "kv_count at byte 16 says 1,000,000,000,000, but the 24,000 bytes left in the file hold at most 1,846",
    ),
    "tensor_count 10**12": (
        b"GGUF" + struct.pack("<IQQ", 3, HUGE, 0) + bytes(24_000),
        "tensor_count at byte 8 says 1,000,000,000,000, but the 24,008 bytes left in the file hold at most 1,000",
    ),
    "a string length 10**12": (
        _gguf([_str("general.architecture") + struct.pack("<IQ", _STRING, HUGE)], tail=bytes(100)),
        "key 'general.architecture' length at byte 56 says 1,000,000,000,000, "
        "but the 100 bytes left in the file hold at most 100",
    ),
    "tensor n_dims 2**31": (
        _gguf([ARCH], tensor_count=1, tail=_str("t") + struct.pack("<I", 2**31) + bytes(24_000)),
        "tensor 't' n_dims at byte 78 says 2,147,483,648, but the 24,000 bytes left in the file hold at most 3,000",
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_count_larger_than_the_file_is_refused_naming_it(name: str, tmp_path: Path) -> None:
    content, says = CASES[name]
    path = tmp_path / "m.gguf"
    path.write_bytes(content)
    with pytest.raises(CheckpointError) as info:
        read_gguf(path)
    assert info.value.message == "not a readable GGUF file"
    declares = f"truncated: the header declares more than the file's {len(content):,} bytes hold"
    assert info.value.found == f"{path}: {declares} ({says})"


def test_the_cli_refuses_the_24_kb_file_with_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "m.gguf"
    path.write_bytes(CASES["token_type count 10**12"][0])
    res = subprocess.run(
        [sys.executable, "-m", "specscope", "audit", str(path)], capture_output=True, text=True, timeout=HANG_S
    )
    assert res.returncode == 2, res.stderr
    assert res.stderr.startswith("error: not a readable GGUF file; found: ")
    assert "key 'tokenizer.ggml.token_type' array count at byte 110 says 1,000,000,000,000" in res.stderr
    assert "Traceback" not in res.stderr


def test_a_well_formed_file_still_reads(tmp_path: Path) -> None:
    content = _gguf([ARCH, _str("tokenizer.ggml.token_type") + struct.pack("<IIQ", _ARRAY, _INT32, 3) + bytes(12)])
    path = tmp_path / "m.gguf"
    path.write_bytes(content)
    g = read_gguf(path)
    assert (g.architecture, g.tensors, g.metadata["tokenizer.ggml.token_type"]) == ("llama", (), "<array of 3>")
