"""Every family of audit/architectures.toml on a checkpoint these tests write: complete -> clean; a missing required
tensor -> an ERROR whose fix names that tensor and the family's source (and no other family's tensors); an omitted
shareable tensor -> no finding.

The tensor names below are written from the engines' loaders, not from the table (sources: vLLM qwen3_5_mtp.py,
deepseek_mtp.py, glm4_moe_mtp.py, mimo_mtp.py @0bb55d60, ernie_mtp.py @028aedf6, llama_eagle.py, llama_eagle3.py
@00bd1493, qwen3_dflash.py @036a00d1, medusa.py @01dbb081, mlp_speculator.py @0531c222, draft_model.py; DeepSeek-V3's
index for layer 61).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from specscope.audit import audit_checkpoint, families

from .ckmaker import H, I, dense_config, dense_model, layer, write
from .qwen36 import build as build_qwen36

V = 64


@dataclass
class Case:
    """A family's minimal complete checkpoint: tensors, config, the tensor to drop, the shareable ones."""

    key: str
    shapes: dict[str, list[int]]
    config: dict
    drop: str
    source: str
    shareable: dict[str, list[int]] = field(default_factory=dict)
    as_draft: bool = False


def _mtp_main(model_type: str, n_main: int = 2) -> tuple[dict[str, list[int]], dict]:
    shapes = dense_model(n_main, V)
    cfg = {**dense_config(n_main, V), "model_type": model_type, "num_nextn_predict_layers": 1}
    return shapes, cfg


def _deepseek_like(key: str, model_type: str, source: str, *, glue: tuple[str, ...]) -> Case:
    shapes, cfg = _mtp_main(model_type)
    p = "model.layers.2."
    shapes.update(layer(p))
    shapes.update({p + "enorm.weight": [H], p + "hnorm.weight": [H], p + "eh_proj.weight": [H, 2 * H]})
    shapes[p + "shared_head.norm.weight"] = [H]
    shareable = {p + "embed_tokens.weight": [V, H], p + "shared_head.head.weight": [V, H]}
    return Case(key, shapes, cfg, p + glue[0], source, shareable)


def _cases() -> list[Case]:
    mimo, mimo_cfg = _mtp_main("mimo")
    m = "model.mtp_layers.0."
    mimo.update(layer(m))
    mimo.update({m + "token_layernorm.weight": [H], m + "hidden_layernorm.weight": [H]})
    mimo.update({m + "input_proj.weight": [H, 2 * H], m + "final_layernorm.weight": [H]})
    ernie, ernie_cfg = _mtp_main("ernie4_5_moe")  # ERNIE-4.5 MoE: model.mtp_{emb_norm,hidden_norm,linear_proj}.0
    ernie.update(layer("model.mtp_block.0."))
    ernie.update({"model.mtp_emb_norm.0.weight": [H], "model.mtp_hidden_norm.0.weight": [H]})
    ernie["model.mtp_linear_proj.0.weight"] = [H, 2 * H]
    eagle = {"fc.weight": [H, 2 * H], **layer("layers.0.")}
    del eagle["layers.0.input_layernorm.weight"]  # EAGLE-1 runs its first layer without input_layernorm
    eagle_cfg = {**dense_config(1, V), "architectures": ["EagleLlamaForCausalLM"]}
    eagle3 = {"fc.weight": [H, 3 * H], "norm.weight": [H], "lm_head.weight": [V, H], **layer("midlayer.")}
    eagle3["midlayer.hidden_norm.weight"] = [H]
    eagle3_cfg = {**dense_config(1, V), "architectures": ["LlamaForCausalLMEagle3"], "draft_vocab_size": V}
    dflash = {"fc.weight": [H, 2 * H], "hidden_norm.weight": [H], "norm.weight": [H]}
    for i in range(2):
        dflash.update(layer(f"layers.{i}.", {"self_attn.q_norm.weight": [8], "self_attn.k_norm.weight": [8]}))
    dflash_cfg = {**dense_config(2, V), "architectures": ["DFlashDraftModel"], "model_type": "qwen3"}
    dflash_cfg["dflash_config"] = {"target_layer_ids": [0, 1], "block_size": 4}
    medusa = {f"blocks.{h}.layers.0.weight": [H, H] for h in range(2)} | {
        f"lm_heads.{h}.weight": [V, H] for h in (0, 1)
    }
    medusa_cfg = {"architectures": ["MedusaModel"], "model_type": "medusa", "hidden_size": H, "num_heads": 2}
    medusa_cfg |= {"num_hidden_layers": 1, "vocab_size": V, "truncated_vocab_size": V}
    mlp: dict[str, list[int]] = {}
    for i in range(2):
        mlp |= {f"emb.{i}.weight": [V, I], f"head.{i}.weight": [V, I], f"ln.{i}.weight": [I], f"ln.{i}.bias": [I]}
        mlp[f"proj.{i}.weight"] = [I, H if i == 0 else I]
    mlp_cfg = {"architectures": ["MLPSpeculatorPreTrainedModel"], "model_type": "mlp_speculator", "n_predict": 2}
    mlp_cfg |= {"emb_dim": H, "inner_dim": I, "vocab_size": V, "tie_weights": False}
    return [
        _deepseek_like("deepseek_mtp", "deepseek_v3", "deepseek-ai/DeepSeek-V3", glue=("eh_proj.weight",)),
        _deepseek_like("glm4_moe_mtp", "glm4_moe", "zai-org/GLM-4.6", glue=("shared_head.norm.weight",)),
        Case("mimo_mtp", mimo, mimo_cfg, m + "input_proj.weight", "XiaomiMiMo/MiMo-7B-RL"),
        Case("ernie_mtp", ernie, ernie_cfg, "model.mtp_linear_proj.0.weight", "baidu/ERNIE-4.5-21B-A3B-PT"),
        Case(
            "eagle",
            eagle,
            eagle_cfg,
            "fc.weight",
            "yuhuili/EAGLE-LLaMA3.1-Instruct-8B",
            {"embed_tokens.weight": [V, H], "lm_head.weight": [V, H]},
        ),
        Case(
            "eagle3",
            eagle3,
            eagle3_cfg,
            "midlayer.hidden_norm.weight",
            "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B",
            {"embed_tokens.weight": [V, H]},
        ),
        Case(
            "dflash",
            dflash,
            dflash_cfg,
            "layers.1.self_attn.k_norm.weight",
            "z-lab/Qwen3-8B-DFlash-b16",
            {"embed_tokens.weight": [V, H], "lm_head.weight": [V, H]},
        ),
        Case("medusa", medusa, medusa_cfg, "blocks.1.layers.0.weight", "FasterDecoding/medusa-vicuna-7b-v1.3"),
        Case("mlp_speculator", mlp, mlp_cfg, "proj.1.weight", "ibm-fms/llama3-8b-accelerator"),
        Case(
            "draft_model",
            dense_model(1, V),
            dense_config(1, V),
            "model.norm.weight",
            "meta-llama/Llama-3.2-1B-Instruct",
            as_draft=True,
        ),
    ]


CASES = {c.key: c for c in _cases()}


def _audit(root: Path, case: Case, tmp_path: Path):
    if case.as_draft:
        target = write(tmp_path / "target", dense_model(2, V), dense_config(2, V))
        return audit_checkpoint(target, draft=root)
    return audit_checkpoint(root)


def test_every_family_in_the_table_has_a_case() -> None:
    assert set(families()) == set(CASES) | {"qwen3_5_mtp"}  # Qwen3.6's case is built by tests/audit/qwen36.py


@pytest.mark.parametrize("key", sorted(CASES))
def test_complete_checkpoint_is_clean_and_named(tmp_path: Path, key: str) -> None:
    case = CASES[key]
    r = _audit(write(tmp_path / key, case.shapes, case.config), case, tmp_path)
    assert r.errors == [], [(f.code, f.message) for f in r.errors]
    facts = r.facts["draft"]["draft_family"] if case.as_draft else r.facts.get("mtp") or r.facts["draft_family"]
    assert facts["family"] == key


@pytest.mark.parametrize("key", sorted(CASES))
def test_missing_required_tensor_is_an_error_naming_the_tensor_and_the_source(tmp_path: Path, key: str) -> None:
    case = CASES[key]
    shapes = {n: s for n, s in case.shapes.items() if n != case.drop}
    r = _audit(write(tmp_path / key, shapes, case.config), case, tmp_path)
    (f,) = [f for f in r.errors if f.code in ("MTP_INCOMPLETE", "DRAFT_TENSORS_MISSING")]
    assert case.drop in f.message and case.drop in f.fix and case.source in f.fix, f.fix
    others = {n for k, c in CASES.items() if k != key for n in c.shapes if n not in case.shapes}
    assert not [n for n in others if re.search(rf"(?<![\w.]){re.escape(n)}(?![\w.])", f.fix)], f.fix
    if families()[key].kind == "mtp":
        assert "specscope surgery graft" in f.fix and "Qwen" not in f.fix and "mtp.fc" not in f.fix


@pytest.mark.parametrize("key", sorted(k for k, c in CASES.items() if c.shareable))
def test_shareable_tensors_omitted_or_copied_give_no_finding(tmp_path: Path, key: str) -> None:
    case = CASES[key]
    assert not set(case.shareable) & set(case.shapes)  # the complete case omits them
    r = _audit(write(tmp_path / key, {**case.shapes, **case.shareable}, case.config), case, tmp_path)
    assert r.errors == [] and r.warnings == []
    shared = (r.facts.get("mtp") or r.facts["draft_family"])["shared_with_target"]
    assert set(case.shareable) <= set(shared)


def test_glm_layer_missing_its_glue_says_which_part_is_missing(tmp_path: Path) -> None:
    """The issue's GLM case: the decoder layer is there, the MTP-specific tensors are not."""
    case = CASES["glm4_moe_mtp"]
    glue = {"enorm.weight", "hnorm.weight", "eh_proj.weight"}
    shapes = {n: s for n, s in case.shapes.items() if n.removeprefix("model.layers.2.") not in glue}
    r = audit_checkpoint(write(tmp_path / "glm", shapes, case.config))
    (f,) = r.errors
    assert f.message == (
        "config declares 1 GLM-4.5 / GLM-4.6 / GLM-4.7 / GLM-5 MTP layer(s); 10 of 13 expected tensors present "
        "(MTP-specific: 1 of 4 (missing model.layers.2.enorm.weight, model.layers.2.hnorm.weight, "
        "model.layers.2.eh_proj.weight); decoder layer 0 (as main layer 1): 9 of 9); missing: "
        "model.layers.2.enorm.weight, model.layers.2.hnorm.weight, model.layers.2.eh_proj.weight"
    )
    assert f.fix.startswith("take model.layers.2.enorm.weight from the unquantized original release of this model")
    assert f"`specscope surgery graft {tmp_path / 'glm'} --from BF16_ORIGINAL --prefix model.layers.2. --out " in f.fix


def test_qwen36_missing_fc_fix_names_mtp_fc_and_the_qwen_source(tmp_path: Path) -> None:
    r = audit_checkpoint(build_qwen36(tmp_path / "ck", with_fc=False))
    (f,) = r.errors
    assert f.code == "MTP_INCOMPLETE" and "mtp.fc.weight" in f.fix and "Qwen/Qwen3.6-27B" in f.fix
    assert "--prefix mtp." in f.fix
    assert "MTP-specific: 3 of 4 (missing mtp.fc.weight); decoder layer 0 (as main layer 3): 11 of 11" in f.message


def test_docs_table_names_every_family_and_its_source() -> None:
    doc = (Path(__file__).parents[2] / "docs" / "architectures.md").read_text()
    for key, fam in families().items():
        assert f"`{key}`" in doc, key
        assert fam.source_example.split(" (")[0].split(" for ")[0] in doc, key
