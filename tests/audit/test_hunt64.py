"""Round 64 of the new-user checkpoint hunt (issue 36): MoE draft models judged layer by layer, as vLLM builds them,
audited the way a user runs ``specscope audit TARGET --draft DRAFT`` (shapes shrunk to ``H``).

- Qwen3-MoE (vllm-project/vllm qwen3_moe.py @2e0831b0 Qwen3MoeDecoderLayer) and Qwen2-MoE (qwen2_moe.py @8bbabf03
  Qwen2MoeDecoderLayer): layer i is sparse when i is not in ``mlp_only_layers``, ``num_experts`` > 0 and
  (i + 1) % ``decoder_sparse_step`` == 0 (Hugging Face config defaults: 128 / 60 experts, step 1); a sparse layer
  holds ``mlp.gate`` and ``mlp.experts.{e}.gate_proj / up_proj / down_proj`` for each expert (the loader's
  make_expert_params_mapping), Qwen2-MoE's also ``mlp.shared_expert_gate`` and, when
  ``shared_expert_intermediate_size`` > 0 (default 5632), ``mlp.shared_expert.gate_proj / up_proj / down_proj``; a
  dense layer holds ``mlp.gate_proj / up_proj / down_proj``. A draft missing one expert, or the router, in one layer
  passed with exit 0 (a layer holding any ``mlp.experts.`` name had its MLP not judged).
- Mixtral (mixtral.py @f0e26957 MixtralDecoderLayer): every layer is sparse, ``block_sparse_moe.gate`` and
  ``block_sparse_moe.experts.{e}.w1 / w2 / w3`` for ``num_local_experts`` experts (default 8); it was judged from its
  own layers (DRAFT_FORMAT_UNKNOWN/own-layers, exit 0 with an expert missing).
- Left: HunYuan dense (hunyuan_v1.py @e87ba1e1 HunYuanDecoderLayer): a layer whose index is not a multiple of
  _get_cla_factor (cla_share_factor with use_cla, else 1) is HunYuanCrossAttention (q_proj / o_proj, no k / v), and
  load_weights also reads mlp.gate_and_up_proj; block_moe's per-layer rule replaces the MLP only (not attention
  names, and not by "index % key != 0"), and FUSED_SPELLINGS gives one fused spelling per name (gate_up_proj), so
  the block cannot be stated without a second per-layer rule and a second fused spelling. Falcon stays own-layout
  (test_hunt63.py): its three norm layouts are exclusive alternatives chosen by parallel_attn,
  new_decoder_architecture and num_ln_in_parallel_attn's value, which block_when's all-true conditions cannot state.
- Checked, no change: DRAFT_VOCAB_SIZE_DIFFERS's fix names use_heterogeneous_vocab with greedy draft sampling and not
  use_local_argmax_reduction. No stored copy of vLLM's speculative config refuses that pair (its _verify_args refuses
  use_heterogeneous_vocab only without method draft_model or with draft_sample_method other than greedy); the
  proposer's _greedy_sample in the copies read takes the local-argmax branch before the vocabulary mapping, so the
  pair should not be suggested, and the fix does not.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from specscope.audit import audit_checkpoint

from .ckmaker import H, dense_config, dense_model, write
from .test_families import V

NORMS = ("input_layernorm.weight", "post_attention_layernorm.weight")
ATTN = ("self_attn.q_proj.weight", "self_attn.k_proj.weight", "self_attn.v_proj.weight", "self_attn.o_proj.weight")
QK = ("self_attn.q_norm.weight", "self_attn.k_norm.weight")
DENSE_MLP = ("mlp.gate_proj.weight", "mlp.up_proj.weight", "mlp.down_proj.weight")
QWEN_EXPERT = ("mlp.experts.{e}.gate_proj.weight", "mlp.experts.{e}.up_proj.weight", "mlp.experts.{e}.down_proj.weight")
MIXTRAL_EXPERT = tuple(f"block_sparse_moe.experts.{{e}}.{w}.weight" for w in ("w1", "w2", "w3"))
QWEN2_SHARED = ("mlp.shared_expert.gate_proj.weight", "mlp.shared_expert.up_proj.weight")
QWEN2_SHARED += ("mlp.shared_expert.down_proj.weight",)


def _layer(common: tuple[str, ...], sparse: bool, router: tuple[str, ...], expert: tuple[str, ...], n: int) -> list:
    """One layer's names: ``common``, then the router and ``n`` experts when ``sparse``, else the dense MLP."""
    if not sparse:
        return [*common, *DENSE_MLP]
    return [*common, *router, *(x.format(e=e) for e in range(n) for x in expert)]


def _draft(arch: str, sparse: list[bool], names: list[list[str]], **cfg: object) -> tuple[dict, dict]:
    shapes: dict[str, list[int]] = {"model.embed_tokens.weight": [V, H], "model.norm.weight": [H]}
    for i, layer in enumerate(names):
        shapes |= {f"model.layers.{i}.{n}": ([H] if "norm" in n else [H, H]) for n in layer}
    config = dense_config(len(sparse), V, architectures=[arch], model_type=arch.lower(), **cfg)
    return shapes, config | {"tie_word_embeddings": True}


# (architecture, its config keys, per-layer sparse flags, common names, router / gate names, one expert's names)
QWEN3 = ("Qwen3MoeForCausalLM", (*NORMS, *ATTN, *QK), ("mlp.gate.weight",), QWEN_EXPERT)
QWEN2 = ("Qwen2MoeForCausalLM", (*NORMS, *ATTN), ("mlp.gate.weight", "mlp.shared_expert_gate.weight", *QWEN2_SHARED))
QWEN2 += (QWEN_EXPERT,)
MIXTRAL = ("MixtralForCausalLM", (*NORMS, *ATTN), ("block_sparse_moe.gate.weight",), MIXTRAL_EXPERT)
CASES = [
    # every layer sparse (decoder_sparse_step 1, no mlp_only_layers)
    (QWEN3, {"num_experts": 3}, [True, True]),
    # layer 0 dense by mlp_only_layers, layer 1 sparse
    (QWEN3, {"num_experts": 3, "mlp_only_layers": [0]}, [False, True]),
    # decoder_sparse_step 2: layer 0 dense, layer 1 sparse ((1 + 1) % 2 == 0)
    (QWEN3, {"num_experts": 3, "decoder_sparse_step": 2}, [False, True]),
    (QWEN2, {"num_experts": 3, "shared_expert_intermediate_size": 4}, [True, True]),
    (MIXTRAL, {"num_local_experts": 3}, [True, True]),
]
IDS = ["qwen3-all-sparse", "qwen3-mlp-only-0", "qwen3-step-2", "qwen2-shared", "mixtral"]


@pytest.mark.parametrize(("row", "cfg", "sparse"), CASES, ids=IDS)
def test_a_moe_draft_is_judged_layer_by_layer(tmp_path: Path, row: tuple, cfg: dict, sparse: list[bool]) -> None:
    """A complete MoE draft exits 0 with no own-layers warning; one expert's tensor or the router missing from the
    last layer only is DRAFT_TENSORS_MISSING (exit 1) naming it (was exit 0: the layer's MLP was not judged)."""
    arch, common, router, expert = row
    names = [_layer(common, s, router, expert, 3) for s in sparse]
    target = (dense_model(3, V), dense_config(3, V))
    d = write(tmp_path / "d", *_draft(arch, sparse, names, **cfg))
    r = audit_checkpoint(write(tmp_path / "t", *target), draft=d)
    assert r.errors == [] and r.exit_code == 0, [(f.code, f.message) for f in r.errors]
    assert [f.code for f in r.warnings if f.code.startswith(("DRAFT_FORMAT", "DRAFT_TENSORS"))] == []
    last = len(sparse) - 1
    for drop in (expert[2].format(e=1), router[0]):
        cut = [list(n) for n in names]
        cut[last].remove(drop)
        d = write(tmp_path / f"d-{drop}", *_draft(arch, sparse, cut, **cfg))
        r = audit_checkpoint(write(tmp_path / f"t-{drop}", *target), draft=d)
        (f,) = r.errors
        assert f.code == "DRAFT_TENSORS_MISSING" and r.exit_code == 1, [(g.code, g.message) for g in r.errors]
        assert f"model.layers.{last}.{drop}" in f.message, f.message
        assert f"model.layers.0.{drop}" not in f.message, f.message


def test_a_dense_layer_of_a_moe_draft_needs_its_dense_mlp(tmp_path: Path) -> None:
    """qwen3_moe.py: a layer in mlp_only_layers is Qwen3MoeMLP (gate_proj / up_proj / down_proj); without its
    down_proj it is DRAFT_TENSORS_MISSING naming it, and the sparse layer's experts are not asked of it."""
    arch, common, router, expert = QWEN3
    names = [_layer(common, s, router, expert, 2) for s in (False, True)]
    names[0].remove("mlp.down_proj.weight")
    target = (dense_model(3, V), dense_config(3, V))
    d = write(tmp_path / "d", *_draft(arch, [False, True], names, num_experts=2, mlp_only_layers=[0]))
    r = audit_checkpoint(write(tmp_path / "t", *target), draft=d)
    (f,) = r.errors
    assert f.code == "DRAFT_TENSORS_MISSING" and "model.layers.0.mlp.down_proj.weight" in f.message, f.message
    assert "model.layers.0.mlp.experts" not in f.message and "model.layers.0.mlp.gate.weight" not in f.message


def test_qwen2_moe_without_a_shared_expert_still_needs_its_gate(tmp_path: Path) -> None:
    """qwen2_moe.py Qwen2MoeSparseMoeBlock builds shared_expert only when shared_expert_intermediate_size > 0, but
    shared_expert_gate always: with the size 0, a draft without shared_expert.* exits 0, without the gate exits 1."""
    arch, common, _, expert = QWEN2
    router = ("mlp.gate.weight", "mlp.shared_expert_gate.weight")
    names = [_layer(common, True, router, expert, 2) for _ in range(2)]
    target = (dense_model(3, V), dense_config(3, V))
    cfg = {"num_experts": 2, "shared_expert_intermediate_size": 0}
    d = write(tmp_path / "d", *_draft(arch, [True] * 2, names, **cfg))
    r = audit_checkpoint(write(tmp_path / "t", *target), draft=d)
    assert r.errors == [] and r.exit_code == 0, [(f.code, f.message) for f in r.errors]
    names[1].remove("mlp.shared_expert_gate.weight")
    d = write(tmp_path / "d2", *_draft(arch, [True] * 2, names, **cfg))
    r = audit_checkpoint(write(tmp_path / "t2", *target), draft=d)
    (f,) = r.errors
    assert f.code == "DRAFT_TENSORS_MISSING" and "model.layers.1.mlp.shared_expert_gate.weight" in f.message


def test_the_vocab_size_fix_never_pairs_heterogeneous_vocab_with_local_argmax(tmp_path: Path) -> None:
    """DRAFT_VOCAB_SIZE_DIFFERS's fix offers use_heterogeneous_vocab with greedy draft sampling (what vLLM's
    _verify_args requires of it) and never with use_local_argmax_reduction, whose branch in the proposer's
    _greedy_sample comes before the vocabulary mapping."""
    target = write(tmp_path / "t", dense_model(2, 128), dense_config(2, 128))
    r = audit_checkpoint(target, draft=write(tmp_path / "d", dense_model(1, V), dense_config(1, V)))
    (f,) = r.by_code("DRAFT_VOCAB_SIZE_DIFFERS")
    assert f.fix is not None and "use_heterogeneous_vocab" in f.fix and "greedy" in f.fix, f.fix
    assert "local_argmax" not in f.fix, f.fix
