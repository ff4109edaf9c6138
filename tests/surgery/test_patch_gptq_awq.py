"""``MTP_UNQUANTIZED_NOT_EXCLUDED`` on GPTQ and AWQ checkpoints: the fix the audit prints is a command that repairs
them (before, ``patch-config`` refused both as an "unsupported quantization dialect", exit 2).

Formats: GPTQModel ``dynamic`` (``"-:REGEX"`` keys skip a module; vLLM ``quantization/utils/gptq_utils.py``
``get_dynamic_override`` ``re.match``es them against the engine's layer name, which is the fused ``qkv_proj`` /
``gate_up_proj`` for packed layers); AWQ ``modules_to_not_convert`` (vLLM ``awq.py`` ``is_layer_skipped_awq``: a
substring of the layer name). Public report: sgl-project/sglang PR #36158 / ROCm/ATOM PR #755 (an MTP head stored BF16
but not declared excluded: load error or ~0 % acceptance; case C06), here in the GPTQ / AWQ dialects.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import save_file
from typer.testing import CliRunner

from specscope.audit import audit_checkpoint
from specscope.audit.quantcfg import entry_covers
from specscope.cli import app
from specscope.surgery.configs import CONFIG, add_exclusions

H, V = 16, 64
_LINEARS = {"self_attn.q_proj": [H, H], "self_attn.k_proj": [H, H], "mlp.up_proj": [32, H], "mlp.down_proj": [H, 32]}


def _checkpoint(root: Path, qc: dict) -> Path:
    """DeepSeek-layout model: 2 GPTQ-packed main layers, MTP layer 2 in F16 (unquantized)."""
    t: dict[str, np.ndarray] = {"model.embed_tokens.weight": np.zeros([V, H], np.float16)}
    t["lm_head.weight"] = np.zeros([V, H], np.float16)
    for i in range(3):
        p = f"model.layers.{i}."
        t[p + "input_layernorm.weight"] = np.zeros([H], np.float16)
        for m, (o, n) in _LINEARS.items():
            if i < 2:
                t[p + m + ".qweight"] = np.zeros([n // 8, o], np.int32)
                t[p + m + ".scales"] = np.zeros([1, o], np.float16)
            else:
                t[p + m + ".weight"] = np.zeros([o, n], np.float16)
    p = "model.layers.2."
    t |= {p + "enorm.weight": np.zeros([H], np.float16), p + "hnorm.weight": np.zeros([H], np.float16)}
    t |= {
        p + "eh_proj.weight": np.zeros([H, 2 * H], np.float16),
        p + "shared_head.norm.weight": np.zeros([H], np.float16),
    }
    root.mkdir(parents=True)
    save_file(t, str(root / "model.safetensors"))
    cfg = {"model_type": "deepseek_v3", "num_hidden_layers": 2, "num_nextn_predict_layers": 1, "hidden_size": H}
    (root / CONFIG).write_text(json.dumps({**cfg, "vocab_size": V, "quantization_config": qc}))
    return root


GPTQ = {"quant_method": "gptq", "bits": 4, "group_size": 128, "dynamic": {"+:model\\.layers\\.0\\..*": {"bits": 8}}}
AWQ = {"quant_method": "awq", "bits": 4, "group_size": 128, "modules_to_not_convert": ["visual"]}


@pytest.mark.parametrize("qc", [GPTQ, AWQ], ids=["gptq", "awq"])
def test_the_audits_fix_command_repairs_the_checkpoint(tmp_path: Path, qc: dict) -> None:
    ck = _checkpoint(tmp_path / "ck", qc)
    (f,) = audit_checkpoint(ck).by_code("MTP_UNQUANTIZED_NOT_EXCLUDED")
    (command,) = re.findall(r"`(specscope [^`]+)`", f.fix or "")
    argv = [a if a != "NEW_FOLDER" else str(tmp_path / "fixed") for a in shlex.split(command)[1:]]
    out = CliRunner().invoke(app, argv)
    assert out.exit_code == 0, out.output
    assert audit_checkpoint(tmp_path / "fixed").findings == []
    fixed = json.loads((tmp_path / "fixed" / CONFIG).read_text())["quantization_config"]
    if qc is GPTQ:  # the positive rule is kept, one negative rule per module, matching vLLM's fused layer names too
        assert list(fixed["dynamic"])[0] == "+:model\\.layers\\.0\\..*"
        negatives = [k[2:] for k in fixed["dynamic"] if k.startswith("-:")]
        assert len(negatives) == 5
        for layer in ("model.layers.2.self_attn.qkv_proj", "model.layers.2.mlp.down_proj", "model.layers.2.eh_proj"):
            assert any(re.match(n, layer) for n in negatives), layer
        assert not any(re.match(n, "model.layers.20.mlp.down_proj") for n in negatives)
    else:
        assert fixed["modules_to_not_convert"][0] == "visual" and len(fixed["modules_to_not_convert"]) == 6


def test_gptq_negative_rules_are_read_back_as_exclusions() -> None:
    configs = {CONFIG: {"quantization_config": dict(GPTQ)}}
    out = add_exclusions(configs, ["mtp.fc", "mtp.layers.0.mlp.gate_proj"])
    keys = list(out[CONFIG]["quantization_config"]["dynamic"])
    assert all(entry_covers("re:" + k[2:], "mtp.fc", "gptq") for k in keys[1:2])
    assert configs[CONFIG]["quantization_config"]["dynamic"] == GPTQ["dynamic"]  # the input is not mutated
    again = add_exclusions(out, ["mtp.fc", "mtp.layers.0.mlp.gate_proj"])
    assert again == out  # idempotent
