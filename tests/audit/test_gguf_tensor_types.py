"""A GGUF whose tensor has a ggml type the loader cannot load is refused naming the tensor and the type.

llama.cpp's gguf reader (ggml/src/gguf.cpp, its lines in the embedded engine's binary, xllamacpp 2026.10.11549)
refuses a type id outside ``[0, GGML_TYPE_COUNT)`` ("tensor '%s' has invalid ggml type %d") and a removed one, whose
block size is 0 ("... not a multiple of block size (0)"; ggml.c names them "TYPE_Q4_0_4_4 REMOVED, use Q4_0 with
runtime repacking", ...). The file is written with llama.cpp's ``gguf`` package and its tensor's type id patched.
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from clirun import cli

from .test_llamacpp_pairs import _gguf

gguf = pytest.importorskip("gguf")


def _with_type(src: Path, dst: Path, tensor: str, type_id: int) -> Path:
    raw = bytearray(src.read_bytes())
    name = tensor.encode()
    at = raw.find(struct.pack("<Q", len(name)) + name) + 8 + len(name)  # tensor info: name, n_dims, dims, type
    (n_dims,) = struct.unpack_from("<I", raw, at)
    struct.pack_into("<I", raw, at + 4 + 8 * n_dims, type_id)
    dst.write_bytes(bytes(raw))
    return dst


@pytest.mark.parametrize(
    ("type_id", "said"),
    [
        (31, "ggml type 31 (Q4_0_4_4, removed: use Q4_0, repacked at runtime)"),
        (4, "ggml type 4 (Q4_2, removed)"),
        (99, "ggml type 99 (a type id gguf-py does not know)"),
    ],
)
def test_a_tensor_type_the_loader_cannot_load_is_named_with_its_tensor(
    tmp_path: Path, type_id: int, said: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # before: "not a readable GGUF file; found: ...: ValueError: np.uint32(31) is not a valid GGMLQuantizationType",
    # fix "re-download or re-convert": no tensor named, and re-downloading the same file does not help
    good = _gguf(tmp_path / "t.gguf")
    bad = _with_type(good, tmp_path / "bad.gguf", "blk.0.attn_norm.weight", type_id)
    for argv in (["audit", str(bad)], ["audit", str(good), "--draft", str(bad)]):
        code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
        text = out + err
        assert code == 2, text
        assert "llama.cpp cannot load a tensor type of this GGUF" in text
        assert f"tensor 'blk.0.attn_norm.weight': {said}" in text
        assert "Traceback" not in text
