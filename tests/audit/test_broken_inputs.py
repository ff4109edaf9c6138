"""Inputs that are broken rather than wrong (issue 27 follow-up, defects 2, 9 and 12): dangling symlinks (a hub-cache
snapshot whose blob was never downloaded), symlink loops, a missing shard that holds the MTP head, files that are not
GGUF, a truncated GGUF, an index whose weight_map values are not file names, a ``d2t`` stored as floats.

Each is named for what it is, with found / expected / fix; none is a clean pass or a raw exception text. Hub cache
layout: huggingface_hub ``snapshots/<rev>/<file> -> ../../blobs/<sha>`` (file_download.py).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from specscope.audit import audit_checkpoint
from specscope.errors import CheckpointError

from .ckmaker import H, dense_config, dense_model, layer, vocab, write


def _codes(report) -> list[tuple[str, str, str | None]]:
    return [(f.severity.value, f.code, f.file) for f in report.findings]


def _folder_with_link(root: Path, dest: str) -> Path:
    root.mkdir()
    (root / "config.json").write_text(json.dumps(dense_config(1, 64)))
    os.symlink(dest, root / "model.safetensors")
    return root


def test_a_dangling_weights_symlink_is_an_error_naming_the_link(tmp_path: Path) -> None:
    ck = _folder_with_link(tmp_path / "snap", "../../blobs/0123abcd")
    r = audit_checkpoint(ck)
    assert _codes(r) == [("error", "BROKEN_SYMLINK", "model.safetensors")]
    (f,) = r.findings
    assert (
        f.message
        == "model.safetensors is a dangling symlink: model.safetensors -> ../../blobs/0123abcd, which does not exist"
    )
    assert f.expected == "model.safetensors resolving to a readable file (weights)"
    assert r.exit_code == 1


def test_a_symlink_loop_is_an_error_not_no_weights(tmp_path: Path) -> None:
    r = audit_checkpoint(_folder_with_link(tmp_path / "loop", "model.safetensors"))
    assert _codes(r) == [("error", "BROKEN_SYMLINK", "model.safetensors")]
    assert r.findings[0].found == "a symlink loop (model.safetensors -> model.safetensors)"


def test_a_dangling_shard_in_an_indexed_folder_names_the_link_and_not_a_graft(tmp_path: Path) -> None:
    """The MTP head lives in the shard that is a dangling link: the shard's finding names the cause; the head is not
    also reported missing with a graft fix."""
    from .qwen36 import build

    root = build(tmp_path / "ck")  # shard 2 holds lm_head and the 15 MTP tensors
    shard2 = root / "model-00002-of-00002.safetensors"
    n2 = sum(
        1
        for s in json.loads((root / "model.safetensors.index.json").read_text())["weight_map"].values()
        if s == shard2.name
    )
    shard2.unlink()
    os.symlink("../../blobs/feedface", shard2)
    r = audit_checkpoint(root)
    codes = [c for _, c, _ in _codes(r)]
    assert "BROKEN_SYMLINK" in codes
    assert not {"MTP_WEIGHTS_MISSING", "MTP_INCOMPLETE", "INDEX_SHARD_MISSING"} & set(codes), codes
    (f,) = r.by_code("BROKEN_SYMLINK")
    assert f.expected == f"model-00002-of-00002.safetensors resolving to a readable file ({n2} indexed tensors)"
    os.unlink(shard2)  # now plainly absent: the index names a missing shard
    r = audit_checkpoint(root)
    assert [c for _, c, _ in _codes(r) if c.startswith(("MTP_", "INDEX_SHARD"))] == ["INDEX_SHARD_MISSING"]
    (missing,) = r.by_code("INDEX_SHARD_MISSING")
    examples = "lm_head.weight, mtp.fc.weight, mtp.layers.0.input_layernorm.weight"
    assert missing.expected == f"{shard2.name} ({n2} indexed tensors, e.g. {examples})"


def test_a_dangling_safetensors_target_is_named_a_broken_symlink(tmp_path: Path) -> None:
    os.symlink("/nonexistent/blob", tmp_path / "model.safetensors")
    with pytest.raises(CheckpointError) as info:
        audit_checkpoint(tmp_path / "model.safetensors")
    assert info.value.message == "target is a broken symlink"
    assert "a dangling symlink: model.safetensors -> /nonexistent/blob" in str(info.value.found)


@pytest.mark.parametrize(
    "content,found",
    [(b"", "an empty file (0 bytes)"), (b"hello world", "11 bytes starting b'hello wo', not the magic b'GGUF'")],
)
def test_a_dot_gguf_that_is_not_gguf_says_so(tmp_path: Path, content: bytes, found: str) -> None:
    (tmp_path / "m.gguf").write_bytes(content)
    with pytest.raises(CheckpointError) as info:
        audit_checkpoint(tmp_path / "m.gguf")
    assert info.value.message == "target is not a GGUF file (empty, truncated or another format)"
    assert info.value.found == f"{tmp_path / 'm.gguf'}: {found}"
    assert "existing checkpoint folder" not in str(info.value.expected)


def test_a_truncated_gguf_says_truncated_not_an_index_error(tmp_path: Path) -> None:
    gguf = pytest.importorskip("gguf")
    w = gguf.GGUFWriter(tmp_path / "full.gguf", "llama")
    w.add_block_count(1)
    w.add_token_list(vocab(64))
    w.add_tensor("token_embd.weight", np.zeros((64, 8), dtype=np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    (tmp_path / "cut.gguf").write_bytes((tmp_path / "full.gguf").read_bytes()[:40])
    with pytest.raises(CheckpointError) as info:
        audit_checkpoint(tmp_path / "cut.gguf")
    assert (
        info.value.found
        == f"{tmp_path / 'cut.gguf'}: truncated: the header declares more than the file's 40 bytes hold "
        "(kv_count at byte 16 says 3, but the 16 bytes left in the file hold at most 1)"
    )


def test_a_weight_map_with_a_number_for_a_file_names_the_entry(tmp_path: Path) -> None:
    root = write(tmp_path / "ck", dense_model(1, 64), dense_config(1, 64))
    (root / "model.safetensors.index.json").write_text(json.dumps({"weight_map": {"mtp.fc.weight": 5}}))
    with pytest.raises(CheckpointError) as info:
        audit_checkpoint(root)
    assert info.value.found == "1 of 1 entries are not tensor name -> shard file name; first 'mtp.fc.weight': 5"


def test_a_float_d2t_is_named_by_its_dtype(tmp_path: Path) -> None:
    shapes = {"fc.weight": [H, 3 * H], "norm.weight": [H], "lm_head.weight": [16, H], **layer("layers.0.")}
    shapes["layers.0.hidden_norm.weight"] = [H]
    cfg = {"architectures": ["LlamaForCausalLMEagle3"], "hidden_size": H, "vocab_size": 64, "draft_vocab_size": 16}
    r = audit_checkpoint(write(tmp_path / "e3", shapes, cfg, arrays={"d2t": np.zeros(16, dtype=np.float32)}))
    (f,) = r.by_code("DRAFT_VOCAB_MAP")
    assert (f.message, f.found) == ("d2t is stored as F32 [16]: a vocabulary map holds integer offsets", "F32 [16]")


def test_a_single_file_that_duplicates_the_shards_is_to_be_deleted_not_renamed(tmp_path: Path) -> None:
    """Renaming model.safetensors and reindexing fails when every tensor in it is also in the indexed shards."""
    shapes = dense_model(1, 64)
    root = write(tmp_path / "ck", shapes, dense_config(1, 64))
    shard = root / "model-00001-of-00001.safetensors"
    shard.write_bytes((root / "model.safetensors").read_bytes())
    index = {"metadata": {"total_size": 0}, "weight_map": {n: shard.name for n in shapes}}
    (root / "model.safetensors.index.json").write_text(json.dumps(index))
    (f,) = audit_checkpoint(root).by_code("SINGLE_FILE_SHADOWS_INDEX")
    assert f.fix is not None and f.fix.startswith(f"delete model.safetensors (`rm {root}/model.safetensors`)")
    assert f.details["copies_elsewhere"] == len(shapes)


@pytest.mark.parametrize("name", ["config.json", "model.safetensors.index.json"])
def test_a_folder_named_like_a_json_file_is_refused_not_read_as_absent(tmp_path: Path, name: str) -> None:
    """A folder ``config.json`` was read as "no config" and the audit said "no findings", exit 0 (fresh-user check,
    2026-12-05)."""
    root = write(tmp_path / "ck", dense_model(1, 64), dense_config(1, 64))
    if (root / name).exists():
        (root / name).unlink()
    (root / name).mkdir()
    with pytest.raises(CheckpointError) as info:
        audit_checkpoint(root)
    assert info.value.message == f"{name} is a folder, not a file"
    assert info.value.found == f"{root}/{name}: a directory"


@pytest.mark.parametrize("name", ["config.json", "hf_quant_config.json", "model.safetensors.index.json"])
def test_a_json_file_holding_null_is_not_a_json_object_not_absent(tmp_path: Path, name: str) -> None:
    """A ``config.json`` holding ``null`` was read as "no config": no findings, exit 0 (fresh-user check,
    2026-12-05), where ``[]`` is refused with exit 2. JSON ``null`` is a file that is there and is not an object."""
    root = write(tmp_path / "ck", dense_model(1, 64), dense_config(1, 64))
    (root / name).write_text("null\n")
    with pytest.raises(CheckpointError) as info:
        audit_checkpoint(root)
    assert info.value.message == f"{name} is not a JSON object"
    assert info.value.found == f"{root}/{name}: null"


def test_a_null_config_is_refused_by_surgery_too(tmp_path: Path) -> None:
    """``read_config_file`` (patch-config, graft, prune) read a ``null`` file as absent in the same way."""
    from specscope.checkpoint.schema import read_config_file

    (tmp_path / "config.json").write_text("null")
    with pytest.raises(CheckpointError) as info:
        read_config_file(tmp_path / "config.json")
    assert info.value.message == "config.json is not a JSON object"
    assert read_config_file(tmp_path / "absent.json") is None
