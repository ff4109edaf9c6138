"""graft / extract / compare on generated Qwen3.6-layout checkpoints (seed 002)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from conftest import MTP_LINEARS, MTP_SHAPES, make_qwen36_checkpoint, mtp_tensors, read_safetensors, tree_hashes
from specscope.errors import SurgeryError
from specscope.surgery import apply_plan, compare_checkpoints, plan_extract, plan_graft


def sha(a: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()


def test_graft_exact_index_configs_hashes_and_links(tmp_path: Path):
    target = make_qwen36_checkpoint(tmp_path / "target", seed=0, ignore=["lm_head"])
    official = mtp_tensors(seed=7)
    src = make_qwen36_checkpoint(tmp_path / "official", seed=3, mtp=official)
    before_t, before_s = tree_hashes(target), tree_hashes(src)
    out = tmp_path / "grafted"
    result = apply_plan(plan_graft(target, src, "mtp.", out))
    assert result.audit_exit_code == 0 and result.audit_findings == []  # the audit passes the result

    assert tree_hashes(target) == before_t and tree_hashes(src) == before_s  # sources byte-identical
    # shard 1 holds no mtp tensor: a hardlink; shard 2 rewritten without mtp; shard 3 (mtp only) dropped
    assert (out / "model-00001-of-00003.safetensors").stat().st_ino == (
        target / "model-00001-of-00003.safetensors"
    ).stat().st_ino
    assert (out / "tokenizer.json").stat().st_ino == (target / "tokenizer.json").stat().st_ino
    assert not (out / "model-00003-of-00003.safetensors").exists()
    s2 = read_safetensors(out / "model-00002-of-00003.safetensors")
    assert sorted(s2) == ["lm_head.weight", "model.norm.weight"]
    old_s2 = read_safetensors(target / "model-00002-of-00003.safetensors")
    assert all(s2[k].tobytes() == old_s2[k].tobytes() for k in s2)
    grafted = read_safetensors(out / "model-mtp.safetensors")
    assert sorted(grafted) == sorted(MTP_SHAPES)
    for n, arr in official.items():
        assert grafted[n].dtype == ml_dtypes.bfloat16 and grafted[n].tobytes() == arr.tobytes()
        assert result.tensor_sha256[n] == sha(arr)
    # index: every tensor of the result, exact total_size (tensor bytes, not file sizes)
    index = json.loads((out / "model.safetensors.index.json").read_text())
    shards = {p.name: read_safetensors(p) for p in out.glob("*.safetensors")}
    want_map = {n: s for s, t in shards.items() for n in t}
    assert index["weight_map"] == dict(sorted(want_map.items()))
    assert index["metadata"]["total_size"] == sum(a.nbytes for t in shards.values() for a in t.values())
    # the 8 grafted linears are registered as not quantized in both configs (appended by name, sorted)
    cfg = json.loads((out / "config.json").read_text())["quantization_config"]
    hf = json.loads((out / "hf_quant_config.json").read_text())["quantization"]
    assert cfg["ignore"] == ["lm_head"] + MTP_LINEARS
    assert hf["exclude_modules"] == ["lm_head"] + MTP_LINEARS
    assert len(MTP_LINEARS) == 8
    manifest = json.loads((out / "specscope-surgery.json").read_text())
    assert manifest["tensor_sha256"]["mtp.fc.weight"] == sha(official["mtp.fc.weight"])


def test_graft_is_idempotent_and_never_overwrites(tmp_path: Path):
    target = make_qwen36_checkpoint(tmp_path / "t", seed=0)
    src = make_qwen36_checkpoint(tmp_path / "s", seed=1)
    out = tmp_path / "g"
    first = apply_plan(plan_graft(target, src, "mtp.", out))
    snap = tree_hashes(out)
    again = apply_plan(plan_graft(target, src, "mtp.", out))
    assert again.up_to_date and not again.written and again.tensor_sha256 == first.tensor_sha256
    # a rerun repeats the output's audit verdict (it printed a blank "audit:" and exit 0, even for a failing output)
    assert first.audit_exit_code is not None
    assert (again.audit_exit_code, again.audit_findings) == (first.audit_exit_code, first.audit_findings)
    assert tree_hashes(out) == snap
    with pytest.raises(SurgeryError, match="already exists"):
        apply_plan(plan_graft(target, src, "mtp.layers.", out))  # a different plan into the same folder
    other = tmp_path / "occupied"
    other.mkdir()
    with pytest.raises(SurgeryError, match="already exists"):
        apply_plan(plan_graft(target, src, "mtp.", other))
    assert list(other.iterdir()) == []


def test_graft_bad_prefix_writes_nothing(tmp_path: Path):
    target = make_qwen36_checkpoint(tmp_path / "t")
    with pytest.raises(SurgeryError, match="--prefix draft. is not where a Qwen3.5 / Qwen3.6 MTP head"):
        plan_graft(target, target, "draft.", tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_extract_manifest_hashes(tmp_path: Path):
    mtp = mtp_tensors(seed=9)
    ck = make_qwen36_checkpoint(tmp_path / "ck", mtp=mtp)
    apply_plan(plan_extract(ck, "mtp.", tmp_path / "head"))
    got = read_safetensors(tmp_path / "head" / "mtp.safetensors")
    assert sorted(got) == sorted(mtp)
    man = json.loads((tmp_path / "head" / "manifest.json").read_text())
    assert [t["name"] for t in man["tensors"]] == sorted(mtp)
    for t in man["tensors"]:
        assert t["sha256"] == sha(mtp[t["name"]])
        assert t["dtype"] == "BF16" and tuple(t["shape"]) == MTP_SHAPES[t["name"]]
        assert t["nbytes"] == mtp[t["name"]].nbytes


def test_compare_seed002_shape(tmp_path: Path):
    a_mtp = mtp_tensors(seed=4)
    b_mtp = {n: a.copy() for n, a in a_mtp.items()}
    # every tensor but mtp.fc differs by one BF16 step of 2^-7 in one element (seed 002: max abs diff 0.0078125)
    for n in b_mtp:
        if n != "mtp.fc.weight":
            flat = b_mtp[n].reshape(-1).astype(np.float32)
            flat[0] = np.float32(2.0) if flat[0] < 1.5 else flat[0]
            flat[0] = flat[0] + np.float32(0.0078125)
            b_mtp[n] = flat.astype(ml_dtypes.bfloat16).reshape(a_mtp[n].shape)
    del b_mtp["mtp.norm.weight"]
    a = make_qwen36_checkpoint(tmp_path / "a", mtp=a_mtp)
    b = make_qwen36_checkpoint(tmp_path / "b", mtp=b_mtp)
    rows = {r.name: r for r in compare_checkpoints(a, b, "mtp.")}
    assert len(rows) == 15
    assert rows["mtp.fc.weight"].identical and rows["mtp.fc.weight"].cosine == pytest.approx(1.0, abs=1e-12)
    assert rows["mtp.fc.weight"].max_abs_diff == 0.0
    assert rows["mtp.norm.weight"].in_a and not rows["mtp.norm.weight"].in_b and rows["mtp.norm.weight"].cosine is None
    for n, r in rows.items():
        if n in ("mtp.fc.weight", "mtp.norm.weight"):
            continue
        x = a_mtp[n].astype(np.float64).ravel()
        y = b_mtp[n].astype(np.float64).ravel()
        assert not r.identical
        assert r.max_abs_diff == float(np.abs(x - y).max())
        assert r.cosine == pytest.approx(float(x @ y / np.linalg.norm(x) / np.linalg.norm(y)), abs=1e-12)
        assert r.dtype_a == r.dtype_b == "BF16" and r.shape_a == r.shape_b == MTP_SHAPES[n]
