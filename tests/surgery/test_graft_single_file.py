"""`surgery graft` into a single-file target (issue 13): the result keeps no `model.safetensors` that would shadow
its index (transformers loads the single file first), and the audit names such a leftover."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from conftest import MTP_SHAPES, make_qwen36_checkpoint, read_safetensors, write_safetensors
from specscope.audit import audit_checkpoint
from specscope.surgery import apply_plan, plan_graft

INDEX = "model.safetensors.index.json"


def _single_file_target(tmp_path: Path) -> Path:
    """The 3-shard generated checkpoint folded into one `model.safetensors` without its MTP head, no index."""
    root = make_qwen36_checkpoint(tmp_path / "target", seed=0, ignore=["lm_head"])
    tensors: dict = {}
    for shard in sorted(root.glob("model-*.safetensors")):
        tensors.update({n: a for n, a in read_safetensors(shard).items() if not n.startswith("mtp.")})
        shard.unlink()
    (root / INDEX).unlink()
    write_safetensors(root / "model.safetensors", tensors)
    return root


def test_graft_into_single_file_renames_the_backbone(tmp_path: Path) -> None:
    target = _single_file_target(tmp_path)
    src = make_qwen36_checkpoint(tmp_path / "official", seed=3)
    out = tmp_path / "grafted"
    plan = plan_graft(target, src, "mtp.", out)
    assert (
        "model.safetensors is written as model_backbone.safetensors (listed in the index) so it cannot shadow it"
        in (plan.notes)
    )
    result = apply_plan(plan)
    assert result.audit_exit_code == 0 and result.audit_findings == []
    assert not (out / "model.safetensors").exists()
    assert (target / "model.safetensors").is_file()  # the source is untouched
    assert (out / "model_backbone.safetensors").stat().st_ino == (target / "model.safetensors").stat().st_ino
    index = json.loads((out / INDEX).read_text())
    assert sorted(set(index["weight_map"].values())) == ["model-mtp.safetensors", "model_backbone.safetensors"]
    assert sorted(n for n, s in index["weight_map"].items() if s == "model-mtp.safetensors") == sorted(MTP_SHAPES)

    # a leftover model.safetensors beside that index (what the old graft left) is named by the audit
    shutil.copy(target / "model.safetensors", out / "model.safetensors")
    r = audit_checkpoint(out)
    assert [f.code for f in r.errors] == ["SINGLE_FILE_SHADOWS_INDEX"]
    assert r.errors[0].file == "model.safetensors"
