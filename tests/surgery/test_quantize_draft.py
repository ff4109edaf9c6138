"""quantize-draft on a generated Qwen3.6 ModelOpt checkpoint (seed 004) and its compressed-tensors twin."""

from __future__ import annotations

import json
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from test_nvfp4 import ref_quantize

from conftest import MTP_LINEARS, make_qwen36_checkpoint, mtp_tensors, read_safetensors, tree_hashes
from specscope.errors import SurgeryError
from specscope.surgery import apply_plan, plan_quantize_draft
from specscope.surgery.nvfp4 import dequantize_nvfp4


def group_amax(mtp: dict[str, np.ndarray], module: str) -> float:
    parent, leaf = module.rsplit(".", 1)
    groups = [("q_proj", "k_proj", "v_proj"), ("gate_proj", "up_proj")]
    members = next(([f"{parent}.{x}" for x in g] for g in groups if leaf in g), [module])
    return max(float(np.abs(mtp[f"{m}.weight"].astype(np.float32)).max()) for m in members)


def test_modelopt_layout_bits_configs_index_and_links(tmp_path: Path):
    mtp = mtp_tensors(seed=21)
    src = make_qwen36_checkpoint(tmp_path / "src", mtp=mtp)
    before = tree_hashes(src)
    out = tmp_path / "q"
    plan = plan_quantize_draft(src, out, scheme="nvfp4-w4a16")
    assert not out.exists()  # planning wrote nothing
    result = apply_plan(plan)
    assert result.audit_exit_code == 0 and result.audit_findings == []
    assert tree_hashes(src) == before
    assert (out / "model-00001-of-00003.safetensors").stat().st_ino == (
        src / "model-00001-of-00003.safetensors"
    ).stat().st_ino
    new = read_safetensors(out / "model-mtp-nvfp4.safetensors")
    for m in MTP_LINEARS:
        w = mtp[f"{m}.weight"]
        packed, scales, s2 = ref_quantize(w, amax=group_amax(mtp, m), rules="modelopt")
        assert new[f"{m}.weight"].dtype == np.uint8 and new[f"{m}.weight"].shape == (w.shape[0], w.shape[1] // 2)
        assert new[f"{m}.weight_scale"].dtype == ml_dtypes.float8_e4m3fn
        assert new[f"{m}.weight_scale"].shape == (w.shape[0], w.shape[1] // 16)
        assert new[f"{m}.weight_scale_2"].shape == () and new[f"{m}.weight_scale_2"].dtype == np.float32
        np.testing.assert_array_equal(new[f"{m}.weight"], packed)
        np.testing.assert_array_equal(new[f"{m}.weight_scale"].astype(np.float32), scales)
        assert new[f"{m}.weight_scale_2"].tobytes() == s2.tobytes()
        assert f"{m}.input_scale" not in new  # W4A16: no activation scale
    # fused groups share one per-tensor scale
    s = {m: float(new[f"{m}.weight_scale_2"]) for m in MTP_LINEARS}
    assert s["mtp.layers.0.mlp.gate_proj"] == s["mtp.layers.0.mlp.up_proj"]
    assert (
        s["mtp.layers.0.self_attn.q_proj"] == s["mtp.layers.0.self_attn.k_proj"] == s["mtp.layers.0.self_attn.v_proj"]
    )
    norms = [n for n in mtp if mtp[n].ndim == 1]
    assert len(norms) == 7
    for n in norms:
        assert new[n].dtype == ml_dtypes.bfloat16 and new[n].tobytes() == mtp[n].tobytes()
    # configs: both drop mtp* and declare the 8 modules W4A16_NVFP4; other entries untouched
    cfg = json.loads((out / "config.json").read_text())["quantization_config"]
    hf = json.loads((out / "hf_quant_config.json").read_text())["quantization"]
    assert cfg["ignore"] == ["lm_head", "model.layers.0.self_attn*"]
    assert hf["exclude_modules"] == ["lm_head", "model.layers.0.self_attn*"]
    for q in (cfg, hf):
        assert q["quant_algo"] == "MIXED_PRECISION"
        declared = {k: v for k, v in q["quantized_layers"].items() if k.startswith("mtp.")}
        assert declared == {m: {"quant_algo": "W4A16_NVFP4", "group_size": 16} for m in MTP_LINEARS}
        assert q["quantized_layers"]["model.layers.0.mlp.up_proj"] == {"quant_algo": "NVFP4", "group_size": 16}
    # index exact over the result's shards
    index = json.loads((out / "model.safetensors.index.json").read_text())
    shards = {p.name: read_safetensors(p) for p in out.glob("*.safetensors")}
    assert index["weight_map"] == dict(sorted({n: s for s, t in shards.items() for n in t}.items()))
    assert index["metadata"]["total_size"] == sum(a.nbytes for t in shards.values() for a in t.values())
    # dequantized weights stay within the NVFP4 error bound of the BF16 originals
    for m in MTP_LINEARS:
        d = dequantize_nvfp4(new[f"{m}.weight"], new[f"{m}.weight_scale"], float(new[f"{m}.weight_scale_2"]))
        x = mtp[f"{m}.weight"].astype(np.float32)
        eff = (new[f"{m}.weight_scale"].astype(np.float32) * new[f"{m}.weight_scale_2"]).repeat(16, axis=1)
        assert (np.abs(d - x) <= eff * 1.0 + 1e-12).all()


def test_compressed_tensors_layout(tmp_path: Path):
    mtp = mtp_tensors(seed=22)
    src = make_qwen36_checkpoint(tmp_path / "src", mtp=mtp, dialect="compressed-tensors")
    out = tmp_path / "q"
    result = apply_plan(plan_quantize_draft(src, out))
    assert result.audit_exit_code == 0 and result.audit_findings == []
    new = read_safetensors(out / "model-mtp-nvfp4.safetensors")
    for m in MTP_LINEARS:
        packed, scales, g_ref = ref_quantize(mtp[f"{m}.weight"], amax=group_amax(mtp, m), rules="compressed-tensors")
        np.testing.assert_array_equal(new[f"{m}.weight_packed"], packed)
        np.testing.assert_array_equal(new[f"{m}.weight_scale"].astype(np.float32), scales)
        g = new[f"{m}.weight_global_scale"]
        assert g.shape == (1,) and g.tobytes() == g_ref.tobytes()  # reciprocal convention, compressed-tensors' own
        assert g[0] >= 1.0
    qc = json.loads((out / "config.json").read_text())["quantization_config"]
    assert qc["ignore"] == ["lm_head", r"re:model\.layers\.0\.self_attn\..*"]  # re:^mtp\..* dropped (defect 3)
    grp = qc["config_groups"]["specscope_w4a16_nvfp4"]
    assert grp["targets"] == MTP_LINEARS and grp["input_activations"] is None
    assert grp["weights"]["group_size"] == 16 and grp["format"] == "nvfp4-pack-quantized"


def test_layout_must_match_target(tmp_path: Path):
    src = make_qwen36_checkpoint(tmp_path / "src")
    with pytest.raises(SurgeryError, match="layout differs"):
        plan_quantize_draft(src, tmp_path / "q", layout="compressed-tensors")
    with pytest.raises(SurgeryError, match="unknown quantization scheme"):
        plan_quantize_draft(src, tmp_path / "q", scheme="int4")


def test_nan_in_draft_rejected_before_writing(tmp_path: Path):
    mtp = mtp_tensors(seed=23)
    w = mtp["mtp.layers.0.mlp.down_proj.weight"].astype(np.float32)
    w[3, 7] = np.nan
    mtp["mtp.layers.0.mlp.down_proj.weight"] = w.astype(ml_dtypes.bfloat16)
    src = make_qwen36_checkpoint(tmp_path / "src", mtp=mtp)
    with pytest.raises(SurgeryError) as ei:
        apply_plan(plan_quantize_draft(src, tmp_path / "q"))
    assert "mtp.layers.0.mlp.down_proj.weight" in ei.value.message and "row 3" in ei.value.found
    assert not (tmp_path / "q").exists()


def test_uniform_nvfp4_config_becomes_mixed_precision(tmp_path: Path):
    src = make_qwen36_checkpoint(tmp_path / "src")
    hf_p, cfg_p = src / "hf_quant_config.json", src / "config.json"
    hf = json.loads(hf_p.read_text())
    hf["quantization"] = {
        "quant_algo": "NVFP4",
        "kv_cache_quant_algo": None,
        "group_size": 16,
        "exclude_modules": ["lm_head", "model.layers.0.self_attn*", "mtp*"],
    }
    hf_p.write_text(json.dumps(hf, indent=2))
    cfg = json.loads(cfg_p.read_text())
    cfg["quantization_config"] = {
        "quant_method": "modelopt",
        "quant_algo": "NVFP4",
        "group_size": 16,
        "ignore": ["lm_head", "model.layers.0.self_attn*", "mtp*"],
    }
    cfg_p.write_text(json.dumps(cfg, indent=2))
    apply_plan(plan_quantize_draft(src, tmp_path / "q"))
    for name, sec in (("hf_quant_config.json", "quantization"), ("config.json", "quantization_config")):
        q = json.loads((tmp_path / "q" / name).read_text())[sec]
        assert q["quant_algo"] == "MIXED_PRECISION"
        assert sorted(q["quantized_layers"]) == sorted(
            [f"model.layers.0.mlp.{p}" for p in ("down_proj", "gate_proj", "up_proj")] + MTP_LINEARS
        )
        assert q["quantized_layers"]["mtp.fc"]["quant_algo"] == "W4A16_NVFP4"
        assert q["quantized_layers"]["model.layers.0.mlp.gate_proj"]["quant_algo"] == "NVFP4"


def test_compressed_tensors_regex_ignore_entry_is_dropped(tmp_path: Path):
    """compressed-tensors ``ignore`` holds ``re:`` patterns (utils/match.py): ``re:mtp.*`` must leave the list, or the
    quantized head would stay ignored (MTP_QUANTIZED_BUT_EXCLUDED)."""
    src = make_qwen36_checkpoint(
        tmp_path / "src", dialect="compressed-tensors", ignore=["lm_head", "re:model.layers.0.self_attn.*", "re:mtp.*"]
    )
    result = apply_plan(plan_quantize_draft(src, tmp_path / "q"))
    assert result.audit_exit_code == 0 and result.audit_findings == []
    qc = json.loads((tmp_path / "q" / "config.json").read_text())["quantization_config"]
    assert qc["ignore"] == ["lm_head", "re:model.layers.0.self_attn.*"]


def _deepseek_nvfp4(root: Path) -> Path:
    """A ModelOpt MIXED_PRECISION DeepSeek-V3 checkpoint: main layer 0 (MLP NVFP4), its MTP head at layer 1 in BF16
    with the head's own copies of the embedding (``model.layers.1.embed_tokens``) and the LM head
    (``shared_head.head``), as DeepSeek-V3 / R1 ship them."""
    from conftest import INTER, H, bf16, nvfp4_stub, write_safetensors

    root.mkdir(parents=True)
    rng = np.random.default_rng(5)
    t = {"model.embed_tokens.weight": bf16(rng, (32, H)), "model.norm.weight": bf16(rng, (H,))}
    t["lm_head.weight"] = bf16(rng, (32, H))
    for layer in (0, 1):
        t[f"model.layers.{layer}.input_layernorm.weight"] = bf16(rng, (H,))
        for p in ("q_proj", "k_proj", "v_proj", "o_proj"):
            t[f"model.layers.{layer}.self_attn.{p}.weight"] = bf16(rng, (H, H))
    for proj, (o, i) in {"gate_proj": (INTER, H), "up_proj": (INTER, H), "down_proj": (H, INTER)}.items():
        for k, v in nvfp4_stub(rng, o, i, "modelopt").items():
            t[f"model.layers.0.mlp.{proj}.{k}"] = v
        t[f"model.layers.1.mlp.{proj}.weight"] = bf16(rng, (o, i))
    head = "model.layers.1."
    t[head + "embed_tokens.weight"] = bf16(rng, (32, H))
    t[head + "eh_proj.weight"] = bf16(rng, (H, 2 * H))
    for n in ("enorm", "hnorm", "shared_head.norm"):
        t[f"{head}{n}.weight"] = bf16(rng, (H,))
    t[head + "shared_head.head.weight"] = bf16(rng, (32, H))
    write_safetensors(root / "model.safetensors", t)
    layers = {f"model.layers.0.mlp.{p}": {"quant_algo": "NVFP4", "group_size": 16} for p in ("down_proj", "gate_proj")}
    layers["model.layers.0.mlp.up_proj"] = {"quant_algo": "NVFP4", "group_size": 16}
    ignore = ["lm_head", "model.layers.0.self_attn*", "model.layers.1*"]
    qc = {"quant_method": "modelopt", "quant_algo": "MIXED_PRECISION", "quantized_layers": layers, "ignore": ignore}
    cfg = {"model_type": "deepseek_v3", "hidden_size": H, "num_hidden_layers": 1, "num_nextn_predict_layers": 1}
    (root / "config.json").write_text(json.dumps(cfg | {"vocab_size": 32, "quantization_config": qc}, indent=2))
    hf = {"quantization": {"quant_algo": "MIXED_PRECISION", "quantized_layers": layers, "exclude_modules": ignore}}
    (root / "hf_quant_config.json").write_text(json.dumps(hf, indent=4))
    return root


def test_an_mtp_heads_own_embedding_table_is_not_quantized(tmp_path: Path):
    """DeepSeek's MTP layer stores its own copy of the embedding, ``model.layers.N.embed_tokens.weight`` (2-D, so it
    looked like a linear): quantize-draft packed it to NVFP4 with scales. vLLM builds it as a VocabParallelEmbedding
    with no quantization (deepseek_mtp.py @03356f8c DeepSeekMultiTokenPredictor.embed_tokens, loaded as the shared
    ``model.embed_tokens``), so the packed [32, 32] U8 table cannot load and its scales have no parameter."""
    src = _deepseek_nvfp4(tmp_path / "src")
    before = tree_hashes(src)
    out = tmp_path / "q"
    plan = plan_quantize_draft(src, out, prefix="model.layers.1.")
    apply_plan(plan)
    assert tree_hashes(src) == before
    tensors = {}
    for f in out.glob("*.safetensors"):
        tensors.update(read_safetensors(f))
    emb = "model.layers.1.embed_tokens"
    assert f"{emb}.weight_scale" not in tensors and tensors[f"{emb}.weight"].dtype == ml_dtypes.bfloat16
    original = read_safetensors(src / "model.safetensors")[f"{emb}.weight"]
    assert tensors[f"{emb}.weight"].tobytes() == original.tobytes()
    layers = json.loads((out / "config.json").read_text())["quantization_config"]["quantized_layers"]
    assert emb not in layers and "model.layers.1.self_attn.q_proj" in layers
    assert any(f"{emb} stays unquantized" in n for n in plan.notes), plan.notes


def test_a_module_the_engine_builds_unquantized_is_left_as_it_is(tmp_path: Path):
    """DeepSeek's ``eh_proj`` is a plain nn.Linear in vLLM's MTP layer (deepseek_mtp.py @03356f8c, no quant_config):
    quantize-draft packed it to NVFP4 and its own result failed the audit (``MTP_QUANTIZED_ENGINE_UNQUANTIZED``, exit
    1). The audit's rule (``rules_quant.engine_builds_unquantized``) now decides what quantize-draft leaves alone, and
    the plan says why; the result passes the audit."""
    from specscope.audit import audit_checkpoint

    src = _deepseek_nvfp4(tmp_path / "src")
    out = tmp_path / "q"
    plan = plan_quantize_draft(src, out, prefix="model.layers.1.")
    apply_plan(plan)
    tensors = {}
    for f in out.glob("*.safetensors"):
        tensors.update(read_safetensors(f))
    eh = "model.layers.1.eh_proj"
    assert f"{eh}.weight_scale" not in tensors and tensors[f"{eh}.weight"].dtype == ml_dtypes.bfloat16
    assert any(n.startswith(f"{eh} stays unquantized: eh_proj is a plain nn.Linear") for n in plan.notes), plan.notes
    exclude = json.loads((out / "hf_quant_config.json").read_text())["quantization"]["exclude_modules"]
    assert eh in exclude or any(e.endswith("*") and eh.startswith(e[:-1]) for e in exclude), exclude
    report = audit_checkpoint(out)
    assert [f.code for f in report.findings if f.severity == "ERROR"] == []


def test_refusals_name_the_choices_in_words_not_as_a_python_list(tmp_path: Path):
    """``surgery quantize-draft`` on a checkpoint of another format said ``expected: ['modelopt',
    'compressed-tensors']`` (fresh-user finding, user59): the choices are written as every other refusal writes
    them."""
    src = make_qwen36_checkpoint(tmp_path / "src")
    with pytest.raises(SurgeryError) as ei:
        plan_quantize_draft(src, tmp_path / "q", scheme="int4")
    assert ei.value.expected == "one of nvfp4-w4a16, nvfp4-w4a4, nvfp4", ei.value.one_line()
    with pytest.raises(SurgeryError) as ei:
        plan_quantize_draft(src, tmp_path / "q", layout="gptq")
    assert ei.value.expected == "one of modelopt, compressed-tensors", ei.value.one_line()
    cfg = json.loads((src / "config.json").read_text())
    cfg["quantization_config"] = {"quant_method": "quark"}
    (src / "config.json").write_text(json.dumps(cfg))
    (src / "hf_quant_config.json").unlink(missing_ok=True)
    with pytest.raises(SurgeryError) as ei:
        plan_quantize_draft(src, tmp_path / "q")
    assert "quantize-draft needs a ModelOpt or compressed-tensors checkpoint" in ei.value.one_line()
    assert ei.value.expected == "one of modelopt, compressed-tensors", ei.value.one_line()
