"""MTP head layers stored past the count the engine builds, judged for every family whose loader was read for it
(architectures.toml ``past_layers``), on each family's complete checkpoint from tests/audit/test_families.py.

Before (issue 36 leftover): only Qwen3-Next, Qwen3.5 and DeepSeek were judged; a GLM-4.5 head with a second stored
layer (``model.layers.{N+1}.*`` with ``num_nextn_predict_layers: 1``), a MiMo head with ``model.mtp_layers.1.*``, an
ERNIE head with ``model.mtp_block.1.*`` ... were exit 0 with no word, though MiMo's, ERNIE's, EXAONE's and
LongCat-Flash's loaders raise on them (the server does not start) and GLM's, openPangu's and Step-3.5's skip them.

Per family: the complete checkpoint exits 0 with no MTP_LAYERS_NOT_BUILT; with one more stored layer (layer 0's
tensors copied to the first index past the count built) the loader's verdict is named: ``MTP_LAYERS_NOT_BUILT``
(error, exit 1) where it raises, ``/fixed`` (error) where it also reads no more whatever the key declares,
``/skipped`` (warning, exit 0) where it skips them. A family whose loader was not read stays unjudged, and the
generated table says so.

Kimi-K3 (issue 36 leftover): its MTP loader skips such layers, but the target's own loader (vLLM
vllm/models/kimi_k3/nvidia/model.py @006193b5 KimiLinearModel.load_weights) reads the checkpoint first and raises
KeyError on them: the warning ``/skipped`` (exit 0) is now ``/target`` (error, exit 1).

DeepSeek-V3 / Kimi-K2 and GLM-4.5 / GLM-5 (issue 36 leftover): the same. Their MTP loaders skip such layers, but
the targets' loaders (vLLM deepseek_v2.py @002d6073 DeepseekV2Model.load_weights, also GLM-5's class; glm4_moe.py
@002d6073 Glm4MoeModel.load_weights via AutoWeightsLoader) skip only the names the MTP layer picker matches
(layers.{N+i} for i < num_nextn_predict_layers, pinned by vLLM tests/models/test_utils.py @c9b26b9d) and raise on
model.layers.{N+num_nextn_predict_layers}.*: the warning ``/skipped`` (exit 0) is now ``/target`` (error, exit 1).

Before (issue 36, the eight families "not judged"): Kimi-K3, dots3 note, MiMo-V2, HY-V4 and Nemotron-H (whose loaders
skip such layers) and Qwen4-Exp (whose AutoWeightsLoader raises on them) were exit 0 with no word; each loader is now
named in architectures.toml ``engines``. HY-V3 (issue 36 leftover): its loader's picker (models/utils.py) is pinned by
vLLM's own test tests/models/test_utils.py @c9b26b9d; a model.layers.{N+1}.* past one declared layer was exit 0 with
no word, now MTP_LAYERS_NOT_BUILT/skipped (warning).

GLM-OCR (issue 36 leftover, aud57): the layer picker its MTP loader imports from glm4.py was in no stored copy read,
so a model.language_model.layers.{N+1}.* past one declared layer was exit 0 with no word. Read in a vLLM fork that
carries glm_ocr_mtp.py (eigen-hub/vllm glm4.py @cca57d42: layers.{N+i}. for i < num_nextn_predict_layers): the MTP
loader skips the layer, but the target's text model (glm4_1v.py @cca57d42 builds GLM-OCR's language model as
Glm4ForCausalLM; Glm4Model.load_weights skips only the picked names and indexes params_dict for the rest) raises
KeyError first: MTP_LAYERS_NOT_BUILT/target (error, exit 1).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from specscope.audit import audit_checkpoint, families
from specscope.audit.architectures import Family, main_layer_prefix

from .ckmaker import write
from .test_families import CASES

DOC = Path(__file__).parents[2] / "docs" / "architectures.md"

#: the verdict each family's loader gives (read from the loader named in architectures.toml ``engines``)
EXPECTED = {
    "deepseek_mtp": "skips-target",
    "deepseek_v4_mtp": "skips",
    "bailing_mtp": "skips",
    "glm4_moe_mtp": "skips-target",
    "openpangu_mtp": "skips",
    "step3p5_mtp": "skips",
    "intern_s2_mtp": "skips",
    "intern_s2_mobius_mtp": "skips",
    "mimo_mtp": "raises",
    "exaone_mtp": "raises",
    "ernie_mtp": "raises-fixed",
    "longcat_flash_mtp": "raises-fixed",
    "kimi_k3_mtp": "skips-target",
    "dots3_note_mtp": "skips",
    "mimo_v2_mtp": "skips",
    "hy_v4_mtp": "skips",
    "qwen4_exp_mtp": "raises",
    "nemotron_h_mtp": "skips",
    "hy_v3_mtp": "skips",
    "glm_ocr_mtp": "skips-target",
}
JUDGED = sorted(k for k, f in families().items() if f.kind == "mtp" and f.past_layers and k in CASES)


def _verdict(fam: Family) -> str:
    target = "-target" if fam.target_past_layers == "raises" else ""
    return fam.past_layers + ("-fixed" if fam.layers_fixed else "") + target


def _with_past_layer(key: str) -> tuple[dict[str, list[int]], dict, int, list[str]]:
    """The family's complete checkpoint plus one stored layer at the first draft index past the count declared (for a
    pattern family, the step's physical layers copied one step on)."""
    case, fam = CASES[key], families()[key]
    cfg = case.config.get("text_config", case.config)
    declared = int(cfg.get(fam.layers_key) or fam.default_layers or 1)
    n_main = int(cfg["num_hidden_layers"])
    main = main_layer_prefix(set(case.shapes))

    def prefixes(i: int) -> list[str]:
        if fam.pattern_key:  # Nemotron-H: draft layer i is physical layers i*P .. i*P + P - 1
            width = len(cfg[fam.pattern_key])
            return [f"{fam.head_prefix}layers.{i * width + j}." for j in range(width)]
        return [fam.layer_prefix.format(head=fam.head_prefix, i=i, n=n_main + i, main=main)]

    pasts = prefixes(declared)
    extra = {
        past + n.removeprefix(first): s
        for first, past in zip(prefixes(0), pasts, strict=True)
        for n, s in case.shapes.items()
        if n.startswith(first)
    }
    assert extra and not set(extra) & set(case.shapes), key
    return case.shapes | extra, case.config, declared, pasts


def test_every_family_whose_loader_was_read_is_judged_as_read() -> None:
    assert {k: _verdict(families()[k]) for k in JUDGED} == EXPECTED


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_complete_exits_0_and_a_layer_past_the_built_count_is_named(tmp_path: Path, key: str) -> None:
    case = CASES[key]
    ok = audit_checkpoint(write(tmp_path / "ok", case.shapes, case.config))
    assert ok.exit_code == 0 and ok.by_code("MTP_LAYERS_NOT_BUILT") == [], key
    shapes, cfg, declared, pasts = _with_past_layer(key)
    r = audit_checkpoint(write(tmp_path / "past", shapes, cfg))
    (f,) = r.by_code("MTP_LAYERS_NOT_BUILT")  # the variants (/skipped, /fixed) report the base code
    verdicts = {"skips": ("warning", 0), "raises": ("error", 1), "raises-fixed": ("error", 1)}
    severity, exit_code = (verdicts | {"skips-target": ("error", 1)})[EXPECTED[key]]
    assert (f.severity.value, r.exit_code) == (severity, exit_code), key
    assert f.details["stored_past"] == [declared] and f.details["built"] == declared, key
    assert f.details["prefixes"] == pasts and all(t.startswith(tuple(pasts)) for t in f.details["tensors"]), key
    assert f.details["family"] == key
    assert f.fix is not None and f.consequence is not None
    if EXPECTED[key] == "raises-fixed":
        assert f.fix.startswith(f"re-export the checkpoint without layer(s) {declared} (the engine's loader for ")
        assert "does not make it load the others" in f.fix and "raises on the first" in f.consequence
    elif EXPECTED[key] == "skips-target":  # the target's loader raises first (Kimi-K3's KimiLinearModel @006193b5)
        assert f.consequence.startswith("the target model's own loader reads the checkpoint before the MTP loader")
        assert f.fix.startswith(f"set {families()[key].layers_key}: {declared + 1} in config.json"), key
    elif EXPECTED[key] == "raises":
        assert f.fix.startswith(f"set {families()[key].layers_key}: {declared + 1} in config.json"), key
        assert "raises on the first" in f.consequence
    else:
        assert f.consequence.startswith("the engine's loader skips them"), key


def test_the_generated_table_names_each_family_verdict_and_the_unread_ones() -> None:
    doc = DOC.read_text(encoding="utf-8")
    for key, fam in families().items():
        if fam.kind != "mtp":
            continue
        (row,) = [line for line in doc.splitlines() if line.startswith(f"| `{key}` |")]
        if not fam.past_layers:
            assert "not judged (the loader was not read for it)" in row, key
        elif fam.target_past_layers == "raises":
            assert "the target's loader raises first: `MTP_LAYERS_NOT_BUILT/target` (error)" in row, key
        elif fam.layers_fixed:
            assert "`MTP_LAYERS_NOT_BUILT/fixed` (error)" in row, key
        elif fam.past_layers == "raises":
            assert "the loader raises: `MTP_LAYERS_NOT_BUILT` (error)" in row, key
        else:
            assert "`MTP_LAYERS_NOT_BUILT/skipped` (warning)" in row, key


def test_longcat_builds_one_layer_whatever_the_config_declares(tmp_path: Path) -> None:
    """vLLM longcat_flash_mtp.py @0bb55d60 builds one MTP layer (num_mtp_layers = 1) whatever num_nextn_predict_layers
    says. Declared 2 with layer 0 stored was MTP_INCOMPLETE (exit 1, layer 1 'missing'); with layers 0 and 1 stored it
    was exit 0, though the loader raises KeyError on model.mtp.layers.1.*. Now: the first is complete (exit 0), the
    second is MTP_LAYERS_NOT_BUILT/fixed naming layer 1."""
    case = CASES["longcat_flash_mtp"]
    cfg = {**case.config, "num_nextn_predict_layers": 2}
    one = audit_checkpoint(write(tmp_path / "one", case.shapes, cfg))
    assert one.exit_code == 0 and one.by_code("MTP_INCOMPLETE") == [] and one.by_code("MTP_LAYERS_NOT_BUILT") == []
    shapes, _, _, (past,) = _with_past_layer("longcat_flash_mtp")
    r = audit_checkpoint(write(tmp_path / "two", shapes, cfg))
    (f,) = r.by_code("MTP_LAYERS_NOT_BUILT")
    assert (f.severity.value, r.exit_code, f.details["stored_past"], f.details["built"]) == ("error", 1, [1], 1)
    assert past == "model.mtp.layers.1." and f.fix is not None and f.fix.startswith("re-export the checkpoint")


def test_ernie_reads_index_0_only_whatever_the_config_declares(tmp_path: Path) -> None:
    """vLLM ernie_mtp.py @028aedf6 builds num_nextn_predict_layers layers but _rewrite_spec_layer_name renames
    model.mtp_block.0. only: with ``num_nextn_predict_layers: 2`` and model.mtp_block.1.* stored, load_weights looks up
    model.mtp_block.1.* in params_dict and raises KeyError. That checkpoint was exit 0 with no word (layer 1 was within
    the count declared); now it is MTP_LAYERS_NOT_BUILT/fixed naming layer 1, one layer read. A head with no layer
    count stays what it was: the loader reads the key with no default, so it is an undeclared head (warning)."""
    case = CASES["ernie_mtp"]
    cfg = {**case.config, "num_nextn_predict_layers": 2}
    shapes, _, _, (past,) = _with_past_layer("ernie_mtp")
    r = audit_checkpoint(write(tmp_path / "two", shapes, cfg))
    (f,) = r.by_code("MTP_LAYERS_NOT_BUILT")
    assert (f.severity.value, r.exit_code) == ("error", 1)
    assert (f.details["stored_past"], f.details["built"], past) == ([1], 1, "model.mtp_block.1.")
    assert f.fix is not None and f.fix.startswith("re-export the checkpoint without layer(s) 1 (")  # the /fixed fix
    keyless = {k: v for k, v in case.config.items() if k != "num_nextn_predict_layers"}
    before = audit_checkpoint(write(tmp_path / "keyless", case.shapes, keyless))
    assert (before.exit_code, [x.code for x in before.findings]) == (0, ["MTP_UNDECLARED"])


def test_mimo_v2_reads_layer_0_of_the_declared_three(tmp_path: Path) -> None:
    """vLLM mimo_v2_mtp.py @037951aa builds model.mtp.layers.0 only ("vLLM currently supports only the first layer")
    and load_weights skips names it has no parameter for. A head declaring num_nextn_predict_layers: 3 with layers
    0, 1, 2 stored was exit 0 with no word; now layers 1 and 2 are MTP_LAYERS_NOT_BUILT/skipped (warning, exit 0),
    one layer built."""
    case = CASES["mimo_v2_mtp"]
    first = "model.mtp.layers.0."
    extra = {
        f"model.mtp.layers.{i}." + n.removeprefix(first): s
        for i in (1, 2)
        for n, s in case.shapes.items()
        if n.startswith(first)
    }
    cfg = {**case.config, "num_nextn_predict_layers": 3}
    r = audit_checkpoint(write(tmp_path / "three", case.shapes | extra, cfg))
    (f,) = r.by_code("MTP_LAYERS_NOT_BUILT")
    assert (f.severity.value, r.exit_code) == ("warning", 0)  # /skipped: the base code with the variant's severity
    assert f.consequence is not None and f.consequence.startswith("the engine's loader skips them")
    assert (f.details["stored_past"], f.details["built"]) == ([1, 2], 1)
    assert f.details["prefixes"] == ["model.mtp.layers.1.", "model.mtp.layers.2."]


def test_nemotron_h_step_past_the_one_built_names_its_physical_layers(tmp_path: Path) -> None:
    """vLLM nemotron_h_mtp.py @01ca2773 builds one step of len(mtp_hybrid_override_pattern) physical layers
    (mtp.layers.0 and mtp.layers.1 for "*E") and skips any other mtp.layers.{j}. A second step stored at
    mtp.layers.2 and mtp.layers.3 was exit 0 with no word (the family has no per-layer prefix); now it is draft layer 1,
    MTP_LAYERS_NOT_BUILT/skipped naming both physical layers."""
    shapes, cfg, _, pasts = _with_past_layer("nemotron_h_mtp")
    assert pasts == ["mtp.layers.2.", "mtp.layers.3."]
    r = audit_checkpoint(write(tmp_path / "two-steps", shapes, cfg))
    (f,) = r.by_code("MTP_LAYERS_NOT_BUILT")
    assert (f.severity.value, r.exit_code, f.details["stored_past"], f.details["built"]) == ("warning", 0, [1], 1)
    assert f.details["prefixes"] == pasts


@pytest.mark.parametrize("model_type", ["deepseek_v3", "kimi_k2", "glm4_moe", "glm4_moe_lite", "glm_moe_dsa"])
def test_deepseek_and_glm_targets_raise_on_a_layer_past_the_count(tmp_path: Path, model_type: str) -> None:
    """Each model_type of the two families (DeepSeek-V3 / Kimi-K2 on deepseek_v2.py; GLM-4.5 on glm4_moe.py, GLM-4.7
    Flash on glm4_moe_lite.py, GLM-5 on deepseek_v2.py, vLLM @002d6073 / @055e47c2): a head declaring one MTP layer
    with model.layers.{N+1}.* also stored was MTP_LAYERS_NOT_BUILT/skipped (warning, exit 0); the target's loader
    looks that name up in its parameters (KeyError / AutoWeightsLoader's ValueError), so it is now
    MTP_LAYERS_NOT_BUILT/target (error, exit 1) naming layer {N+1}."""
    key = "deepseek_mtp" if model_type in ("deepseek_v3", "kimi_k2") else "glm4_moe_mtp"
    shapes, cfg, declared, pasts = _with_past_layer(key)
    cfg = {**cfg, "model_type": model_type}
    r = audit_checkpoint(write(tmp_path / model_type, shapes, cfg))
    (f,) = r.by_code("MTP_LAYERS_NOT_BUILT")
    assert (f.severity.value, r.exit_code) == ("error", 1)  # /target reports the base code
    assert f.consequence is not None and f.consequence.startswith("the target model's own loader reads the checkpoint")
    assert f.details["family"] == key and f.details["prefixes"] == pasts and declared == 1
    assert pasts == [f"model.layers.{int(cfg['num_hidden_layers']) + 1}."]


@pytest.mark.parametrize("fused", [True, False])
def test_hy_v4_target_raises_on_fused_experts_in_a_main_layer_past_those_it_drops(tmp_path: Path, fused: bool) -> None:
    """vLLM vllm/models/hy_v4/nvidia/model.py @055e47c2: HYV4ForCausalLM.load_weights drops model.mtp_layers.* and
    model.layers.{N+i} for i < num_nextn_predict_layers; HYV4Model.load_weights skips any other name it has no parameter
    for, except fused experts (experts.gate_up_proj / experts.down_proj), which load_fused_expert_weights looks up in
    params_dict[name]: KeyError. A HY-V4 head (model.mtp_layers.0.*, one layer declared) with model.layers.{N+1}.*
    holding fused experts was exit 0 with no word; it is now MTP_LAYERS_NOT_BUILT/target (error, exit 1) naming
    them. The same layer with per-expert names only is skipped by both loaders: no such finding."""
    case = CASES["hy_v4_mtp"]
    n = int(case.config["num_hidden_layers"])
    p = f"model.layers.{n + 1}."
    extra = {p + "input_layernorm.weight": [16]}
    if fused:
        extra |= {p + "mlp.experts.gate_up_proj": [2, 64, 16], p + "mlp.experts.down_proj": [2, 16, 32]}
    else:
        extra |= {p + "mlp.experts.0.down_proj.weight": [16, 32]}
    r = audit_checkpoint(write(tmp_path / "hy", case.shapes | extra, case.config))
    found = r.by_code("MTP_LAYERS_NOT_BUILT")
    if not fused:
        assert found == [] and r.exit_code == 0, [x.code for x in r.findings]
        return
    (f,) = found
    assert (f.severity.value, r.exit_code) == ("error", 1)
    assert f.consequence is not None and f.consequence.startswith("the target model's own loader reads the checkpoint")
    assert f.details["stored_past"] == [1] and f.details["prefixes"] == [p]
    assert f.details["tensors"] == [p + "mlp.experts.down_proj", p + "mlp.experts.gate_up_proj"]
