"""MTP heads whose engine builds fewer layers than the config declares are judged on the layers the engine reads.

Source: vllm-project/vllm ``vllm/model_executor/models/mimo_v2_mtp.py`` @037951aa (``_MIMO_V2_PRO_NUM_MTP_LAYERS = 1``,
``_MIMO_V2_FLASH_NUM_MTP_LAYERS = 1``: "MiMo-V2 checkpoints contain multiple MTP layers, but vLLM currently supports
only the first layer") and ``vllm/config/speculative.py`` @002e77c1 (``hf_config_override`` sets
``num_nextn_predict_layers`` to that constant for MiMoV2ForCausalLM / MiMoV2OmniForCausalLM / MiMoV2FlashForCausalLM,
whatever the checkpoint declares). A MiMo-V2-Flash checkpoint that declares 3 MTP layers and carries only
``model.mtp.layers.0.*`` serves: it was ERROR MTP_INCOMPLETE with a graft fix for layers 1-2.
"""

from __future__ import annotations

from pathlib import Path

from specscope.audit import audit_checkpoint

from .ckmaker import write
from .test_families import CASES


def _mimo_v2(root: Path, *, declared: int, stored: int, drop: str = "") -> Path:
    case = CASES["mimo_v2_mtp"]
    shapes = {n: s for n, s in case.shapes.items() if n != drop}
    layer0 = {n: s for n, s in shapes.items() if n.startswith("model.mtp.layers.0.")}
    for i in range(1, stored):
        shapes |= {n.replace("layers.0.", f"layers.{i}.", 1): s for n, s in layer0.items()}
    return write(root, shapes, {**case.config, "num_nextn_predict_layers": declared})


def test_a_mimo_v2_head_declaring_three_layers_with_layer_0_stored_serves(tmp_path: Path) -> None:
    r = audit_checkpoint(_mimo_v2(tmp_path / "ck", declared=3, stored=1))
    assert r.errors == [] and r.exit_code == 0, [(f.code, f.message) for f in r.errors]
    assert r.facts["mtp"]["layers"] == 1
    assert "model.mtp.layers.1." not in r.facts["mtp"]["prefixes"]


def test_a_mimo_v2_head_with_all_three_layers_is_clean_and_judged_on_layer_0(tmp_path: Path) -> None:
    r = audit_checkpoint(_mimo_v2(tmp_path / "ck", declared=3, stored=3))
    assert r.errors == [] and r.exit_code == 0 and r.facts["mtp"]["layers"] == 1


def test_layer_0_glue_missing_is_still_named(tmp_path: Path) -> None:
    r = audit_checkpoint(_mimo_v2(tmp_path / "ck", declared=3, stored=3, drop="model.mtp.layers.0.eh_proj.weight"))
    (f,) = r.by_code("MTP_INCOMPLETE")
    assert "model.mtp.layers.0.eh_proj.weight" in f.message and "layers.1." not in f.message and r.exit_code == 1
