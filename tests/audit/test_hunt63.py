"""Round 63 of the new-user checkpoint hunt (issue 36).

- VL_PROCESSOR_CONFIG_MISSING asked every vision-language checkpoint for processor_config.json and
  video_preprocessor_config.json. Which files a model's processor reads depends on its processor class
  (transformers): Llama4Processor has an image processor and a tokenizer, no video processor, and init kwargs
  (patch_size, the image tokens) it saves to processor_config.json; Qwen3.5 / 3.6 (Qwen3VLProcessor) has a video
  processor too. The census's ``vision_processors`` table says which files beyond preprocessor_config.json an
  architecture's processor needs; an architecture not in it is asked for preprocessor_config.json only.
- OPT drafts (vLLM opt.py OPTForCausalLM, the stored copy @3374d8fa: model.decoder.embed_tokens / embed_positions /
  final_layer_norm, model.decoder.layers.{i} with self_attn q/k/v/out_proj, self_attn_layer_norm, fc1 / fc2,
  final_layer_norm; its loader puts ``model.`` before a name stored as ``decoder.``) were
  DRAFT_FORMAT_UNKNOWN/own-layout (exit 0) whatever they lacked. The norms are built by config keys as OPTDecoder /
  OPTDecoderLayer read them: a LayerNorm has a weight only with layer_norm_elementwise_affine (default true), and the
  decoder's final_layer_norm exists only with do_layer_norm_before (default true) and not _remove_final_layer_norm.
- Left: HunYuan dense (hunyuan_v1.py @00f8d445 HunYuanDecoderLayer) stays judged from its own layers
  (DRAFT_FORMAT_UNKNOWN/own-layers): with use_cla a layer whose index is not a multiple of cla_share_factor is
  cross-attention with q_proj / o_proj only, and its loader also reads mlp.gate_and_up_proj, a fused spelling the
  census does not know (a per-layer block and that spelling are needed first); query_layernorm / key_layernorm follow
  use_qk_norm. Falcon (falcon.py) stays own-layout: its norms are input_layernorm + post_attention_layernorm,
  ln_attn + ln_mlp or input_layernorm alone by parallel_attn, new_decoder_architecture and num_ln_in_parallel_attn,
  a choice of three the census's all-true conditions cannot state.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from specscope.audit import audit_checkpoint

from .ckmaker import H, dense_config, dense_model, write
from .test_families import V


def _vl(ck: Path, arch: str, files: tuple[str, ...] = ()) -> list[tuple[str, str | None]]:
    ck.mkdir()
    cfg = {"architectures": [arch], "model_type": "x", "vision_config": {}, "text_config": {"hidden_size": 8}}
    (ck / "config.json").write_text(json.dumps(cfg))
    for name in files:
        (ck / name).write_text("{}")
    r = audit_checkpoint(ck)
    return sorted((f.severity.value, f.file) for f in r.by_code("VL_PROCESSOR_CONFIG_MISSING"))


def test_a_llama4_target_is_not_asked_for_a_video_processor(tmp_path: Path) -> None:
    assert _vl(tmp_path / "a", "Llama4ForConditionalGeneration") == [
        ("error", "preprocessor_config.json"),
        ("warning", "processor_config.json"),
    ]
    assert (
        _vl(tmp_path / "b", "Llama4ForConditionalGeneration", ("preprocessor_config.json", "processor_config.json"))
        == []
    )


@pytest.mark.parametrize("arch", ["Qwen3_5ForConditionalGeneration", "Qwen3_5MoeForConditionalGeneration"])
def test_a_qwen3_5_checkpoint_is_asked_for_its_video_processor(tmp_path: Path, arch: str) -> None:
    assert _vl(tmp_path / "a", arch, ("preprocessor_config.json",)) == [
        ("warning", "processor_config.json"),
        ("warning", "video_preprocessor_config.json"),
    ]


def test_an_architecture_not_in_the_table_needs_its_preprocessor_config_only(tmp_path: Path) -> None:
    assert _vl(tmp_path / "a", "SomeNewVLForConditionalGeneration") == [("error", "preprocessor_config.json")]
    assert _vl(tmp_path / "b", "SomeNewVLForConditionalGeneration", ("preprocessor_config.json",)) == []


OPT_BLOCK = ("self_attn.q_proj.weight", "self_attn.k_proj.weight", "self_attn.v_proj.weight")
OPT_BLOCK += ("self_attn.out_proj.weight", "self_attn_layer_norm.weight", "fc1.weight", "fc2.weight")
OPT_BLOCK += ("final_layer_norm.weight",)


def _opt(layers: int, spelled: str, drop: str = "", **cfg: object) -> tuple[dict[str, list[int]], dict]:
    """An OPT draft as facebook/opt-* stores it (``decoder.`` or ``model.decoder.``), LM head tied (OPTConfig's
    default)."""
    shapes: dict[str, list[int]] = {
        f"{spelled}embed_tokens.weight": [V, H],
        f"{spelled}embed_positions.weight": [66, H],
    }
    shapes[f"{spelled}final_layer_norm.weight"] = [H]
    for i in range(layers):
        shapes |= {f"{spelled}layers.{i}.{n}": ([H] if "norm" in n else [H, H]) for n in OPT_BLOCK}
    shapes = {k: v for k, v in shapes.items() if not k.endswith(drop) or not drop}
    config = {"architectures": ["OPTForCausalLM"], "model_type": "opt", "num_hidden_layers": layers, "hidden_size": H}
    return shapes, config | {"vocab_size": V, "ffn_dim": H, "word_embed_proj_dim": H, "num_attention_heads": 2} | cfg


TARGET = (dense_model(3, V), dense_config(3, V))


@pytest.mark.parametrize("spelled", ["model.decoder.", "decoder."])
def test_an_opt_draft_is_judged_by_its_block(tmp_path: Path, spelled: str) -> None:
    """Was DRAFT_FORMAT_UNKNOWN/own-layout (exit 0) whatever it lacked."""
    r = audit_checkpoint(write(tmp_path / "t", *TARGET), draft=write(tmp_path / "d", *_opt(2, spelled)))
    assert r.errors == [] and r.exit_code == 0, [(f.code, f.message) for f in r.errors]
    assert [f for f in r.findings if f.code.startswith(("DRAFT_FORMAT", "DRAFT_TENSORS", "DRAFT_UNREAD"))] == []
    for drop in ("fc1.weight", "self_attn_layer_norm.weight"):
        r = audit_checkpoint(
            write(tmp_path / f"t-{drop}", *TARGET), draft=write(tmp_path / drop, *_opt(2, spelled, drop))
        )
        (f,) = r.errors
        assert f.code == "DRAFT_TENSORS_MISSING" and r.exit_code == 1, [(g.code, g.message) for g in r.errors]
        assert "layers.0." + drop in f.message and "layers.1." + drop in f.message, f.message


def test_an_opt_draft_without_final_norm(tmp_path: Path) -> None:
    """The decoder's final_layer_norm (model.decoder.final_layer_norm.weight) is required only when built."""
    shapes, cfg = _opt(2, "model.decoder.")
    del shapes["model.decoder.final_layer_norm.weight"]
    r = audit_checkpoint(write(tmp_path / "t", *TARGET), draft=write(tmp_path / "d", shapes, cfg))
    (f,) = r.errors
    assert f.code == "DRAFT_TENSORS_MISSING" and "model.decoder.final_layer_norm.weight" in f.message, f.message
    for off in ({"do_layer_norm_before": False}, {"_remove_final_layer_norm": True}):
        r = audit_checkpoint(write(tmp_path / f"t{off}", *TARGET), draft=write(tmp_path / f"d{off}", shapes, cfg | off))
        assert r.errors == [] and r.exit_code == 0, (off, [(g.code, g.message) for g in r.errors])


def test_an_opt_draft_without_affine_norms(tmp_path: Path) -> None:
    """layer_norm_elementwise_affine false: OPT's LayerNorms have no weight, so none is required."""
    shapes, cfg = _opt(2, "model.decoder.", "norm.weight", layer_norm_elementwise_affine=False)
    r = audit_checkpoint(write(tmp_path / "t", *TARGET), draft=write(tmp_path / "d", shapes, cfg))
    assert r.errors == [] and r.exit_code == 0, [(g.code, g.message) for g in r.errors]
