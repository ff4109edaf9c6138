"""Audit blind spots of issue 13 on checkpoints built here: stale copies (WARN naming both copies), the per-shard
unindexed summary, ``total_size`` over indexed tensors only, and a ``model.safetensors`` shadowing an index."""

from __future__ import annotations

import json
from pathlib import Path

from specscope.audit import audit_checkpoint

from .qwen36 import H, build, write_shard

INDEX = "model.safetensors.index.json"
SHARD2 = "model-00002-of-00002.safetensors"


def _codes(report) -> list[tuple[str, str]]:
    return sorted((f.severity.value, f.code) for f in report.findings)


def _index(ck: Path) -> dict:
    return json.loads((ck / INDEX).read_text())


def test_stale_copy_names_both_copies_and_the_shard_the_index_picks(tmp_path: Path) -> None:
    ck = build(tmp_path / "ck")
    # an older F32 copy of mtp.norm.weight (BF16 [64] in shard 2) in an extra indexed shard
    write_shard(ck / "model-extra.safetensors", {"mtp.norm.weight": ("F32", [H]), "extra.bias": ("BF16", [H])})
    idx = _index(ck)
    idx["weight_map"]["extra.bias"] = "model-extra.safetensors"
    idx["metadata"]["total_size"] += 2 * H
    (ck / INDEX).write_text(json.dumps(idx))
    r = audit_checkpoint(ck)
    assert _codes(r) == [("info", "SHARD_UNINDEXED_TENSORS"), ("warning", "STALE_TENSOR_COPY")]
    (f,) = r.by_code("STALE_TENSOR_COPY")
    assert f.message == (
        "mtp.norm.weight has a second copy in model-extra.safetensors (F32 [64], 256 bytes); the index picks "
        "model-00002-of-00002.safetensors (BF16 [64], 128 bytes) (they differ)"
    )
    assert f.details["index_copy"] == {"dtype": "BF16", "shape": [64], "bytes": 128}
    assert f.details["stale_copy"] == {"dtype": "F32", "shape": [64], "bytes": 256}
    assert f.details["index_shard"] == SHARD2 and not f.details["identical_header"]
    assert "prune-unindexed" in f.fix
    (s,) = r.by_code("SHARD_UNINDEXED_TENSORS")
    assert (s.file, s.details["tensors"], s.details["tensor_bytes"], s.details["stale_copies"]) == (
        "model-extra.safetensors",
        1,
        256,
        1,
    )
    assert r.exit_code == 0


def test_unindexed_tensors_do_not_count_into_total_size(tmp_path: Path) -> None:
    ck = build(tmp_path / "ck")
    idx = _index(ck)
    # shard 2 rewritten with two extra tensors the index does not list; total_size stays right for the index
    names = [n for n, s in idx["weight_map"].items() if s == SHARD2]
    from .qwen36 import tensor_specs

    specs = {n: tensor_specs()[n] for n in names}
    specs["lm_head.old_bias"] = ("BF16", [H])
    specs["lm_head.old_scale"] = ("F32", [4, H])
    write_shard(ck / SHARD2, specs)
    r = audit_checkpoint(ck)
    assert _codes(r) == [
        ("info", "SHARD_UNINDEXED_TENSORS"),
        ("warning", "TENSOR_NOT_INDEXED"),
        ("warning", "TENSOR_NOT_INDEXED"),
    ]
    (s,) = r.by_code("SHARD_UNINDEXED_TENSORS")
    assert s.message == (
        f"{SHARD2}: 2 tensors (1,152 bytes) the index does not assign to it (2 unindexed, 0 copies of tensors "
        "indexed elsewhere)"
    )
    assert s.details["names"] == ["lm_head.old_bias", "lm_head.old_scale"]


def test_total_size_mismatch_counts_indexed_tensors_only(tmp_path: Path) -> None:
    ck = build(tmp_path / "ck")
    idx = _index(ck)
    right = idx["metadata"]["total_size"]
    idx["metadata"]["total_size"] = right + 1000
    (ck / INDEX).write_text(json.dumps(idx))
    r = audit_checkpoint(ck)
    assert _codes(r) == [("warning", "INDEX_TOTAL_SIZE_MISMATCH")]
    (f,) = r.findings
    assert f.details == {"declared_bytes": right + 1000, "measured_bytes": right, "difference_bytes": 1000}


def test_single_file_beside_an_index_is_named(tmp_path: Path) -> None:
    ck = build(tmp_path / "ck")
    write_shard(ck / "model.safetensors", {"lm_head.weight": ("BF16", [32, H]), "mtp.norm.weight": ("BF16", [H])})
    r = audit_checkpoint(ck)
    assert _codes(r) == [("error", "SINGLE_FILE_SHADOWS_INDEX")]
    (f,) = r.findings
    assert f.file == "model.safetensors"
    assert f.message.startswith(
        "model.safetensors (2 tensors, 4,224 bytes) is not listed by the index, which names "
        "model-00001-of-00002.safetensors, model-00002-of-00002.safetensors: loaders that find model.safetensors"
    )
    n = len(_index(ck)["weight_map"])
    assert f.details == {"single_file_tensors": 2, "indexed_elsewhere": n, "copies_elsewhere": 2}
    assert f.fix is not None and f.fix.startswith("delete model.safetensors")  # both tensors are in the shards
    assert r.exit_code == 1


def test_total_size_is_not_judged_while_an_indexed_shard_is_absent(tmp_path: Path) -> None:
    """A shard the index names is not there (user61: a checkpoint of index and config only): its tensors' bytes are
    unknown, not 0, so ``total_size`` is not compared with them ("148,096 != 0 bytes of the tensors the index
    lists"); INDEX_SHARD_MISSING names the shard."""
    ck = build(tmp_path / "ck")
    (ck / SHARD2).unlink()
    r = audit_checkpoint(ck)
    assert r.by_code("INDEX_SHARD_MISSING") and not r.by_code("INDEX_TOTAL_SIZE_MISMATCH")
