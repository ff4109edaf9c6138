"""Issue 29, "Terminal and filesystem": names from files are printed with control characters escaped, a shard
symlink that leaves the checkpoint is refused (followed only with --follow-symlinks), and ``patch-config --sync``
on a checkpoint that is not ModelOpt says what it found."""

from __future__ import annotations

import json
import os
import struct
from pathlib import Path

from clirun import cli

EVIL = "mtp.\x1b]0;PWNED\x07\x1b[2J\x9b31m\u202e.weight"


def _checkpoint(root: Path, weight_map: dict[str, str]) -> Path:
    root.mkdir()
    (root / "config.json").write_text(json.dumps({"architectures": ["Qwen3ForCausalLM"], "num_hidden_layers": 1}))
    header = json.dumps({"model.layers.0.x": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}).encode()
    (root / "model-00001.safetensors").write_bytes(struct.pack("<Q", len(header)) + header + b"\0" * 4)
    index = {"metadata": {}, "weight_map": {"model.layers.0.x": "model-00001.safetensors", **weight_map}}
    (root / "model.safetensors.index.json").write_text(json.dumps(index))
    return root


def _no_controls(text: str) -> None:
    bad = sorted({hex(ord(c)) for c in text if (ord(c) < 32 and c not in "\n\t") or 0x7F <= ord(c) < 0xA0})
    assert not bad, bad
    assert "\u202e" not in text


def test_escape_sequences_in_a_weight_map_are_printed_escaped(tmp_path, capsys, monkeypatch):
    ck = _checkpoint(tmp_path / "ck", {EVIL: "model-00001.safetensors"})
    for fmt in ("text", "json"):
        code, out, err = cli(["audit", ck, "-f", fmt], capsys, monkeypatch, tmp_path)
        assert code == 1
        _no_controls(out)
        _no_controls(err)
        assert "\\x1b]0;PWNED" in out or "\\u001b]0;PWNED" in out


def test_escape_sequences_in_an_error_line_are_escaped(tmp_path, capsys, monkeypatch):
    code, _out, err = cli(["audit", tmp_path / "no\x1b[2Jthing"], capsys, monkeypatch, tmp_path)
    assert code == 2
    _no_controls(err)
    assert "\\x1b[2J" in err


def test_a_shard_symlink_out_of_the_checkpoint_is_refused(tmp_path, capsys, monkeypatch):
    outside = tmp_path / "outside.safetensors"
    outside.write_bytes(b"root:x:0:0:root:/root:/bin/bash\n")
    ck = _checkpoint(tmp_path / "ck", {"lm_head.weight": "model-00002.safetensors"})
    os.symlink(outside, ck / "model-00002.safetensors")
    code, out, err = cli(["audit", ck], capsys, monkeypatch, tmp_path)
    assert code == 2, out
    assert "model-00002.safetensors" in err and "symlink" in err and "--follow-symlinks" in err
    assert "header length" not in err and "HEADER_TOO_LARGE" not in out
    code, out, _err = cli(["audit", ck, "--follow-symlinks"], capsys, monkeypatch, tmp_path)
    assert code == 1 and "HEADER_TOO_LARGE" in out  # followed when asked: the file is read and judged


def test_a_symlink_inside_the_checkpoint_is_followed(tmp_path, capsys, monkeypatch):
    ck = _checkpoint(tmp_path / "ck", {})
    (ck / "blobs").mkdir()
    os.replace(ck / "model-00001.safetensors", ck / "blobs" / "abc")
    os.symlink("blobs/abc", ck / "model-00001.safetensors")  # the hub cache's own layout
    code, _out, err = cli(["audit", ck], capsys, monkeypatch, tmp_path)
    assert code in (0, 1), err


def test_patch_config_sync_on_a_non_modelopt_checkpoint_says_what_it_found(tmp_path, capsys, monkeypatch):
    ck = tmp_path / "ck"
    ck.mkdir()
    qc = {"quant_method": "compressed-tensors", "config_groups": {}}
    (ck / "config.json").write_text(json.dumps({"architectures": ["X"], "quantization_config": qc}))
    (ck / "hf_quant_config.json").write_text(json.dumps({"quantization": {"quant_algo": "NVFP4"}}))
    header = json.dumps({"lm_head.weight": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}).encode()
    (ck / "model.safetensors").write_bytes(struct.pack("<Q", len(header)) + header + b"\0" * 4)
    code, _out, err = cli(
        ["surgery", "patch-config", ck, "--sync", "--out", tmp_path / "p"], capsys, monkeypatch, tmp_path
    )
    assert code == 2
    found = err.split("found: ")[1].split("; expected: ")[0]
    expected = err.split("; expected: ")[1].split("; fix: ")[0]
    assert found != expected and "compressed-tensors" in found, err
