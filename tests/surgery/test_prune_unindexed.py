"""`surgery prune-unindexed` (issue 13): a shard's stale copies and unindexed tensors are dropped into a new folder;
the source is untouched; the audit of the result is clean."""

from __future__ import annotations

import json
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from conftest import make_qwen36_checkpoint, read_safetensors, tree_hashes, write_safetensors
from specscope.audit import audit_checkpoint
from specscope.errors import SurgeryError
from specscope.surgery import apply_plan
from specscope.surgery.prune import plan_prune_unindexed

INDEX = "model.safetensors.index.json"
S1, S2 = "model-00001-of-00003.safetensors", "model-00002-of-00003.safetensors"


def _with_leftovers(tmp_path: Path) -> Path:
    """Shard 1 gains a stale F32 copy of mtp.norm.weight (indexed to shard 2) and an unindexed tensor."""
    root = make_qwen36_checkpoint(tmp_path / "src", seed=0)
    s1 = read_safetensors(root / S1)
    s1["mtp.norm.weight"] = np.zeros(64, np.float32)
    s1["model.old_bias"] = np.ones(64, ml_dtypes.bfloat16)
    write_safetensors(root / S1, s1)
    return root


def test_prune_drops_stale_and_unindexed_tensors_into_a_new_folder(tmp_path: Path) -> None:
    src = _with_leftovers(tmp_path)
    before = audit_checkpoint(src)
    assert sorted(f.code for f in before.findings) == [
        "SHARD_UNINDEXED_TENSORS",
        "STALE_TENSOR_COPY",
        "TENSOR_NOT_INDEXED",
    ]
    hashes = tree_hashes(src)
    out = tmp_path / "pruned"
    plan = plan_prune_unindexed(src, out)
    assert plan.notes == [f"{S1} is rewritten without 2 tensors (384 bytes) the index does not map"]
    assert [s.name for s in plan.shards] == [S1]
    result = apply_plan(plan)
    assert result.audit_exit_code == 0 and result.audit_findings == []
    assert tree_hashes(src) == hashes  # the source is never modified
    s1 = read_safetensors(out / S1)
    assert "mtp.norm.weight" not in s1 and "model.old_bias" not in s1
    old = read_safetensors(src / S1)
    assert all(s1[k].tobytes() == old[k].tobytes() for k in s1)
    assert (out / S2).stat().st_ino == (src / S2).stat().st_ino  # untouched shards are hardlinks
    assert json.loads((out / INDEX).read_text()) == json.loads((src / INDEX).read_text())


def test_prune_refuses_a_broken_index(tmp_path: Path) -> None:
    src = make_qwen36_checkpoint(tmp_path / "src", seed=0)
    idx = json.loads((src / INDEX).read_text())
    idx["weight_map"]["mtp.ghost.weight"] = S2
    (src / INDEX).write_text(json.dumps(idx))
    with pytest.raises(SurgeryError, match="1 index entries name a tensor their shard does not hold"):
        plan_prune_unindexed(src, tmp_path / "out")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("index", ['{"weight_map": 5}', "[" * 5000 + "]" * 5000])
def test_a_broken_index_is_one_checkpoint_error(tmp_path: Path, index: str) -> None:
    from specscope.errors import CheckpointError

    src = _with_leftovers(tmp_path)
    (src / INDEX).write_text(index)
    with pytest.raises(CheckpointError):
        plan_prune_unindexed(src, tmp_path / "out")
