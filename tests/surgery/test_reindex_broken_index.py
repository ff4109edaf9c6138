"""``surgery reindex`` on a folder whose index is broken: the audit and every surgery command say "rebuild it with
reindex", and reindex refused the same index with the same fix (fresh-user check, 2026-12-05). reindex needs nothing
from the old index, so it sets it aside, says why, and rebuilds from the shard headers; the source is not touched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_cli import run

from conftest import make_qwen36_checkpoint, tree_hashes
from specscope.audit import audit_checkpoint

INDEX = "model.safetensors.index.json"


@pytest.mark.parametrize(
    ("label", "text"),
    [
        ("truncated", '{"metadata": {"total_size": 1}, "weight_map": {"a": '),
        ("list", json.dumps({"metadata": {}, "weight_map": ["model-00001-of-00003.safetensors"]})),
        ("non-string", json.dumps({"metadata": {"total_size": "big"}, "weight_map": {"lm_head.weight": 3}})),
    ],
)
def test_reindex_rebuilds_a_broken_index_and_leaves_the_source(tmp_path: Path, label: str, text: str):
    src = make_qwen36_checkpoint(tmp_path / "src")
    good = json.loads((src / INDEX).read_text())["weight_map"]
    (src / INDEX).write_text(text)
    audit = run("compare", str(src), str(src), cwd=tmp_path)
    assert audit.returncode == 2 and f"surgery reindex {src} --out NEW_FOLDER" in audit.stderr
    before = tree_hashes(src)
    out = tmp_path / "fixed"
    p = run("reindex", str(src), "--out", str(out), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    said = p.stdout + p.stderr  # the plan (and its notes) is printed on stderr, the result on stdout
    assert "the old index was set aside" in said and "rebuilt from the shard headers" in said
    assert json.loads((out / INDEX).read_text())["weight_map"] == good
    assert tree_hashes(src) == before
    assert audit_checkpoint(out).exit_code == 0


def test_a_leftover_shard_set_is_refused_with_the_repair_that_keeps_what_the_index_names(tmp_path: Path):
    """A folder that still holds an older shard set beside the one its index names (unslothai/unsloth-zoo PR #808: a
    granite repo shipped a leftover model-0000N-of-0000M set; syv-ai/qwen38-27b-rtx3090 PR #123: an MTP module left in
    a hardlinked shard loaded over its replacement). reindex cannot tell which copy is current and refuses (exit 2,
    nothing written); its fix now names the command that repairs exactly this, prune-unindexed, which keeps what the
    index assigns (it named no command: "remove the stale copy first")."""
    import shutil

    src = make_qwen36_checkpoint(tmp_path / "src")
    shutil.copy(src / "model-00003-of-00003.safetensors", src / "model-00001-of-00002.safetensors")  # the old set
    before = tree_hashes(src)
    p = run("reindex", str(src), "--out", str(tmp_path / "o"), cwd=tmp_path)
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    assert "is stored twice" in p.stderr
    assert "found: model-00001-of-00002.safetensors and model-00003-of-00003.safetensors" in p.stderr
    assert f"fix: keep the copies the index names: specscope surgery prune-unindexed {src} --out NEW_FOLDER" in p.stderr
    assert not (tmp_path / "o").exists() and tree_hashes(src) == before
    p = run("prune-unindexed", str(src), "--out", str(tmp_path / "pruned"), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert not (tmp_path / "pruned" / "model-00001-of-00002.safetensors").exists()
