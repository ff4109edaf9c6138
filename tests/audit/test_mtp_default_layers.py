"""An MTP head whose config omits the layers key, where the engine builds one layer anyway.

vLLM ``vllm/config/speculative.py`` @002e77c1 ``hf_config_override`` reads ``getattr(hf_config,
"num_nextn_predict_layers", 1)`` for model types ``longcat_flash`` and ``step3p5`` / ``step3p7``: without the key,
``--speculative-config '{"method": "mtp"}'`` still builds and loads one MTP layer (the LongCat-Flash config class
defines no such key). Such a head was MTP_UNDECLARED ("the head is never loaded") and not judged: with its glue
removed it exited 0. Now it is judged as the engine's one layer; a checkpoint of those types with no MTP tensors
is an ordinary model (no MTP finding).

MiMo-V2 / MiMo-V2-Flash is keyed on the architecture and built with one MTP layer whatever the config declares
(``n_predict = _MIMO_V2_FLASH_NUM_MTP_LAYERS``): XiaomiMiMo/MiMo-V2-Flash's config.json (as copied in
ai-dynamo/aiconfigurator ``aic-core/src/aiconfigurator_core/model_configs/XiaomiMiMo--MiMo-V2-Flash_config.json``
@0b077da5) declares no ``num_nextn_predict_layers``, and its head was MTP_UNDECLARED, exit 0 with its glue removed."""

from __future__ import annotations

from pathlib import Path

import pytest

from specscope.audit import audit_checkpoint

from .ckmaker import write
from .test_families import CASES


def _without_key(key: str) -> tuple[dict[str, list[int]], dict]:
    case = CASES[key]
    cfg = {k: v for k, v in case.config.items() if k != "num_nextn_predict_layers"}
    assert cfg != case.config
    return dict(case.shapes), cfg


@pytest.mark.parametrize("key", ["longcat_flash_mtp", "step3p5_mtp", "mimo_v2_mtp"])
def test_head_without_the_key_is_judged_as_the_engine_s_one_layer(tmp_path: Path, key: str) -> None:
    shapes, cfg = _without_key(key)
    r = audit_checkpoint(write(tmp_path / "ok", shapes, cfg))
    assert r.exit_code == 0 and r.errors == []
    assert "MTP_UNDECLARED" not in [f.code for f in r.findings]
    assert r.facts["mtp"]["family"] == key and r.facts["mtp"]["layers"] == 1
    glue = CASES[key].glue
    r = audit_checkpoint(write(tmp_path / "bad", {n: s for n, s in shapes.items() if n not in glue}, cfg))
    (f,) = [f for f in r.errors if f.code == "MTP_INCOMPLETE"]
    assert r.exit_code == 1 and [g for g in glue if g not in f.message] == []


@pytest.mark.parametrize("key", ["longcat_flash_mtp", "step3p5_mtp"])
def test_no_head_and_no_key_is_an_ordinary_model(tmp_path: Path, key: str) -> None:
    shapes, cfg = _without_key(key)
    fam_prefix = "model.mtp." if key == "longcat_flash_mtp" else "model.layers.2."
    main = {n: s for n, s in shapes.items() if not n.startswith(fam_prefix)}
    r = audit_checkpoint(write(tmp_path / "plain", main, cfg))
    assert r.exit_code == 0 and r.errors == [] and "mtp" not in r.facts
