"""MTP heads the config does not declare, and a whole model with an MTP head given as ``--draft`` (issue 27
follow-up, defects 7 and 13), on checkpoints these tests write.

Engines build the layers a config declares (vLLM ``qwen3_5_mtp.py`` reads ``mtp_num_hidden_layers``,
``deepseek_mtp.py`` ``num_nextn_predict_layers``): a head stored without its declaration is never loaded, so it is
named and left out of the target's per-step bytes. A model given as a draft is run whole (vLLM ``draft_model.py``):
its MTP head is not the draft.
"""

from __future__ import annotations

from pathlib import Path

from specscope.audit import audit_checkpoint

from .ckmaker import H, dense_config, dense_model, layer, nbytes, vocab, write

V = 64


def _head() -> dict[str, list[int]]:
    shapes = {"mtp.fc.weight": [H, 2 * H], "mtp.norm.weight": [H]}
    shapes |= {"mtp.pre_fc_norm_hidden.weight": [H], "mtp.pre_fc_norm_embedding.weight": [H]}
    return shapes | layer("mtp.layers.0.")


def test_an_undeclared_qwen_head_is_named_and_not_counted_as_target_bytes(tmp_path: Path) -> None:
    """Qwen3.5 (vLLM speculative.py @002e77c1 reads mtp_num_hidden_layers); a Qwen3-Next head with neither key is the
    one layer vLLM builds by default (test_qwen3_next_counts_its_head_by_num_nextn_predict_layers)."""
    base = write(tmp_path / "base", dense_model(2, V), {**dense_config(2, V), "model_type": "qwen3_5_text"})
    extra = write(tmp_path / "extra", dense_model(2, V) | _head(), {**dense_config(2, V), "model_type": "qwen3_5_text"})
    r = audit_checkpoint(extra)
    (f,) = r.findings
    assert (f.severity.value, f.code) == ("warning", "MTP_UNDECLARED")
    assert f.message == (
        f"{len(_head())} tensors ({nbytes(_head()):,} bytes) under mtp. form an MTP head the config does not declare "
        "(mtp_num_hidden_layers: absent)"
    )
    assert r.census.target_bytes_per_token == audit_checkpoint(base).census.target_bytes_per_token
    assert r.census.bytes_by_group["mtp_draft"] == nbytes(_head())


def test_a_deepseek_layer_past_num_hidden_layers_with_nextn_zero_is_named(tmp_path: Path) -> None:
    cfg = {**dense_config(2, V), "model_type": "deepseek_v3", "num_nextn_predict_layers": 0}
    r = audit_checkpoint(write(tmp_path / "ds", dense_model(2, V) | layer("model.layers.2."), cfg))
    (f,) = r.findings
    assert f.code == "MTP_UNDECLARED" and f.details["prefixes"] == ["model.layers.2."]
    assert "(num_nextn_predict_layers: 0)" in f.message
    plain = audit_checkpoint(write(tmp_path / "plain", dense_model(2, V), cfg))
    assert r.census.target_bytes_per_token == plain.census.target_bytes_per_token


def test_a_whole_model_with_an_mtp_head_as_draft_is_a_draft_model(tmp_path: Path) -> None:
    target = write(tmp_path / "t", dense_model(2, V), dense_config(2, V), tokens=vocab(V))
    qwen_cfg = {**dense_config(1, V), "model_type": "qwen3_next", "mtp_num_hidden_layers": 1}
    qwen_cfg["architectures"] = ["Qwen3NextForCausalLM"]
    draft = write(tmp_path / "q", dense_model(1, V) | _head(), qwen_cfg, tokens=vocab(V))
    r = audit_checkpoint(target, draft=draft)
    assert sorted((f.severity.value, f.code) for f in r.findings) == [
        ("info", "DRAFT_HAS_MTP_HEAD"),
        ("warning", "DRAFT_ARCHITECTURE_DIFFERS"),
    ]
    assert (
        r.by_code("DRAFT_ARCHITECTURE_DIFFERS")[0].message
        == "draft model_type qwen3_next differs from the target's llama"
    )
    alone = audit_checkpoint(write(tmp_path / "q_plain", dense_model(1, V), qwen_cfg | {"mtp_num_hidden_layers": 0}))
    assert r.census.draft_bytes_per_step == alone.census.target_bytes_per_token  # the whole model, not the head
    assert r.census.draft_rule.startswith("separate draft model")


def test_a_head_without_any_config_is_not_called_undeclared(tmp_path: Path) -> None:
    """`surgery extract` writes the head alone, with no config.json: there is no declaration to miss."""
    root = write(tmp_path / "head", _head(), {})
    (root / "config.json").unlink()
    assert audit_checkpoint(root).by_code("MTP_UNDECLARED") == []


def test_a_moe_mla_model_as_draft_is_not_judged_by_dense_layer_names(tmp_path: Path) -> None:
    """DeepSeek-style layers hold MLA attention (kv_a_proj_with_mqa) and routed experts, not q/k/v and gate/up/down."""
    target = write(tmp_path / "t", dense_model(2, V), dense_config(2, V), tokens=vocab(V))
    shapes = {"model.embed_tokens.weight": [V, H], "model.norm.weight": [H], "lm_head.weight": [V, H]}
    p = "model.layers.0."
    shapes |= {p + "input_layernorm.weight": [H], p + "post_attention_layernorm.weight": [H]}
    shapes |= {p + "self_attn.q_proj.weight": [H, H], p + "self_attn.kv_a_proj_with_mqa.weight": [8, H]}
    shapes |= {p + "self_attn.kv_b_proj.weight": [16, 8], p + "self_attn.o_proj.weight": [H, H]}
    shapes |= {p + "mlp.gate.weight": [2, H]} | {p + f"mlp.experts.{e}.up_proj.weight": [32, H] for e in range(2)}
    cfg = {**dense_config(1, V), "model_type": "deepseek_v3", "architectures": ["DeepseekV3ForCausalLM"]}
    r = audit_checkpoint(target, draft=write(tmp_path / "ds", shapes, cfg, tokens=vocab(V)))
    assert r.by_code("DRAFT_TENSORS_MISSING") == [] and r.exit_code == 0
    missing_attn = {n: s for n, s in shapes.items() if "self_attn" not in n}
    r = audit_checkpoint(target, draft=write(tmp_path / "ds2", missing_attn, cfg, tokens=vocab(V)))
    assert r.by_code("DRAFT_TENSORS_MISSING")  # no attention at all is still missing


def test_qwen3_next_counts_its_head_by_num_nextn_predict_layers(tmp_path: Path) -> None:
    """vLLM qwen3_next_mtp.py @055e47c2 builds getattr(config, "num_nextn_predict_layers", 1) layers and never reads
    mtp_num_hidden_layers (speculative.py @002e77c1: n_predict = num_nextn_predict_layers). With both keys the audit
    took mtp_num_hidden_layers (1) and passed a head missing the second layer vLLM builds and fails to load."""
    two = _head() | {
        "mtp.layers.1." + k.removeprefix("mtp.layers.0."): v for k, v in _head().items() if "layers.0." in k
    }
    cfg = {**dense_config(2, V), "model_type": "qwen3_next", "mtp_num_hidden_layers": 1, "num_nextn_predict_layers": 2}
    r = audit_checkpoint(write(tmp_path / "one", dense_model(2, V) | _head(), cfg))
    assert r.facts["mtp"]["family"] == "qwen3_next_mtp" and r.facts["mtp"]["layers"] == 2
    (f,) = [f for f in r.errors if f.code == "MTP_INCOMPLETE"]
    assert f.details["missing"][0] == "mtp.layers.1.input_layernorm.weight"
    assert audit_checkpoint(write(tmp_path / "two", dense_model(2, V) | two, cfg)).exit_code == 0
    bare = {k: v for k, v in cfg.items() if k not in ("mtp_num_hidden_layers", "num_nextn_predict_layers")}
    r = audit_checkpoint(write(tmp_path / "bare", dense_model(2, V) | _head(), bare))
    assert r.facts["mtp"]["layers"] == 1 and r.exit_code == 0 and r.findings == []
    only_qwen_key = {**cfg, "mtp_num_hidden_layers": 2}
    del only_qwen_key["num_nextn_predict_layers"]
    r = audit_checkpoint(write(tmp_path / "q", dense_model(2, V) | _head(), only_qwen_key))
    assert r.facts["mtp"]["layers"] == 1 and r.exit_code == 0  # the engine's default, not the unread key


def test_a_qwen3_next_head_layer_the_engine_does_not_build_is_an_error(tmp_path: Path) -> None:
    """Qwen3-Next with mtp_num_hidden_layers: 2 and two layers stored: vLLM qwen3_next_mtp.py @055e47c2 builds
    num_nextn_predict_layers (default 1) layers and loads every mtp.* tensor with AutoWeightsLoader and no skip prefix,
    so mtp.layers.1.* raises "no module or parameter named" and the server does not start. It was exit 0 with no
    word (issue 36 trial); declaring num_nextn_predict_layers: 2 builds both and is clean."""
    two = _head() | {
        "mtp.layers.1." + k.removeprefix("mtp.layers.0."): v for k, v in _head().items() if "layers.0." in k
    }
    cfg = {**dense_config(2, V), "model_type": "qwen3_next", "mtp_num_hidden_layers": 2}
    r = audit_checkpoint(write(tmp_path / "two", dense_model(2, V) | two, cfg))
    (f,) = r.by_code("MTP_LAYERS_NOT_BUILT")
    assert f.severity.value == "error" and r.exit_code == 1
    assert f.message.startswith(
        "9 tensor(s) of MTP layer(s) 1 are stored (e.g. mtp.layers.1.input_layernorm.weight) past the 1 Qwen3-Next "
        "MTP layer(s) the engine builds (num_nextn_predict_layers absent"
    )
    assert f.fix is not None and f.fix.startswith("set num_nextn_predict_layers: 2 in config.json")
    assert f.details["stored_past"] == [1] and f.details["built"] == 1
    ok = audit_checkpoint(write(tmp_path / "ok", dense_model(2, V) | two, {**cfg, "num_nextn_predict_layers": 2}))
    assert ok.by_code("MTP_LAYERS_NOT_BUILT") == [] and ok.exit_code == 0


def _ds_head(p: str) -> dict[str, list[int]]:
    return (
        layer(p)
        | {p + "enorm.weight": [H], p + "hnorm.weight": [H], p + "eh_proj.weight": [H, 2 * H]}
        | {p + "shared_head.norm.weight": [H]}
    )


def test_qwen3_5_head_layers_the_engine_does_not_build_are_a_warning_deepseeks_an_error(tmp_path: Path) -> None:
    """Layers stored past the count the engine builds. vLLM qwen3_5_mtp.py @01d99805 builds mtp_num_hidden_layers
    layers and its load_weights skips a name it has no parameter for ("Parameter ... not found in params_dict, skip
    loading"); deepseek_mtp.py reads only model.layers.{N+i} for i < num_nextn_predict_layers
    (get_spec_layer_idx_from_weight_name; any other name is skipped). The server starts; the extra layers are never
    read. Both were exit 0 with no word (issue 36 leftover)."""
    qwen = _head() | {"mtp.layers.1." + k.removeprefix("mtp.layers.0."): v for k, v in _head().items() if "0." in k}
    cfg = {**dense_config(2, V), "model_type": "qwen3_5_text", "mtp_num_hidden_layers": 1}
    r = audit_checkpoint(write(tmp_path / "q", dense_model(2, V) | qwen, cfg))
    (f,) = r.by_code("MTP_LAYERS_NOT_BUILT")
    assert (f.severity.value, r.exit_code) == ("warning", 0)
    assert f.message.startswith(
        "9 tensor(s) of MTP layer(s) 1 are stored (e.g. mtp.layers.1.input_layernorm.weight) past the 1 Qwen3.5 / "
        "Qwen3.6 MTP layer(s) the engine builds (mtp_num_hidden_layers: 1)"
    )
    assert f.consequence is not None and f.consequence.startswith("the engine's loader skips them")
    assert f.fix is not None and f.fix.startswith("set mtp_num_hidden_layers: 2 in config.json")
    ok = audit_checkpoint(write(tmp_path / "q2", dense_model(2, V) | qwen, {**cfg, "mtp_num_hidden_layers": 2}))
    assert ok.by_code("MTP_LAYERS_NOT_BUILT") == [] and ok.exit_code == 0

    ds_cfg = {**dense_config(2, V), "model_type": "deepseek_v3", "num_nextn_predict_layers": 1}
    shapes = dense_model(2, V) | _ds_head("model.layers.2.") | _ds_head("model.layers.3.")
    r = audit_checkpoint(write(tmp_path / "ds", shapes, ds_cfg))
    (f,) = r.by_code("MTP_LAYERS_NOT_BUILT")
    # an error since nua55: the DeepSeek-V3 target loader (deepseek_v2.py) reads the checkpoint first and looks
    # model.layers.3.* up by name (KeyError): only the layers the MTP picker matches are skipped
    assert (f.severity.value, r.exit_code) == ("error", 1)
    assert f.details["stored_past"] == [1] and f.details["built"] == 1
    assert f.details["tensors"][0] == "model.layers.3.eh_proj.weight" and len(f.details["tensors"]) == 13
    assert f.fix is not None and f.fix.startswith("set num_nextn_predict_layers: 2 in config.json")
    ok = audit_checkpoint(write(tmp_path / "ds2", shapes, {**ds_cfg, "num_nextn_predict_layers": 2}))
    assert ok.by_code("MTP_LAYERS_NOT_BUILT") == [] and ok.exit_code == 0


def test_head_layers_the_engine_does_not_build_are_no_bytes_per_step(tmp_path: Path) -> None:
    """The layers MTP_LAYERS_NOT_BUILT names are never read per step: a Qwen3.5 head with a second, unbuilt layer was
    counted as 22 own tensors a draft step reads (10,464 bytes, not the one layer's 5,792), and DeepSeek's unbuilt
    model.layers.3 as target bytes per token (17,248, not 11,456)."""
    cfg = {**dense_config(2, V), "model_type": "qwen3_5_text", "mtp_num_hidden_layers": 1}
    one = audit_checkpoint(write(tmp_path / "q1", dense_model(2, V) | _head(), cfg)).census
    qwen = _head() | {"mtp.layers.1." + k.removeprefix("mtp.layers.0."): v for k, v in _head().items() if "0." in k}
    two = audit_checkpoint(write(tmp_path / "q2", dense_model(2, V) | qwen, cfg)).census
    assert one is not None and two is not None
    assert two.draft_bytes_per_step == one.draft_bytes_per_step == 5792
    assert two.target_bytes_per_token == one.target_bytes_per_token
    assert "MTP head under mtp.layers.1. not run here: stored, never read per step" in two.notes

    ds_cfg = {**dense_config(2, V), "model_type": "deepseek_v3", "num_nextn_predict_layers": 1}
    one = audit_checkpoint(write(tmp_path / "d1", dense_model(2, V) | _ds_head("model.layers.2."), ds_cfg)).census
    shapes = dense_model(2, V) | _ds_head("model.layers.2.") | _ds_head("model.layers.3.")
    two = audit_checkpoint(write(tmp_path / "d2", shapes, ds_cfg)).census
    assert one is not None and two is not None
    assert two.target_bytes_per_token == one.target_bytes_per_token == 11456
    assert two.draft_bytes_per_step == one.draft_bytes_per_step
    assert two.bytes_by_group["mtp_draft"] == 2 * one.bytes_by_group["mtp_draft"]
