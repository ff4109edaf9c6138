"""quantize-draft on a W4A4 NVFP4 target: activation scales written, their source stated, the audit accepts them.

The generated Qwen3.6 checkpoints (conftest) hold W4A4 NVFP4 main MLPs (ModelOpt ``input_scale`` 5e-3 = amax 13.44;
compressed-tensors ``input_global_scale`` 200, the same range), BF16 attention and a BF16 MTP head.
Expected per case C08 A1: amax 13.44 -> ``input_scale`` 0.005 / ``input_global_scale`` 200; 5.376 -> 0.002 / 500.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from conftest import MTP_LINEARS, make_qwen36_checkpoint, read_safetensors
from specscope.audit import audit_checkpoint
from specscope.errors import SurgeryError
from specscope.surgery import apply_plan, plan_quantize_draft

MLP = [f"mtp.layers.0.mlp.{p}_proj" for p in ("down", "gate", "up")]
QKV = [f"mtp.layers.0.self_attn.{p}_proj" for p in ("k", "q", "v")]


def _amax_file(tmp_path: Path) -> Path:
    p = tmp_path / "amax.json"  # the layout of case C08's amax.json
    p.write_text(
        json.dumps(
            {
                "_note": "measured input abs-max",
                "mtp.fc": {"input_amax": 13.44},
                "mtp.layers.0.self_attn.q_proj": {"input_amax": 5.376},
            }
        )
    )
    return p


def test_modelopt_w4a4_from_target_scales_and_a_calibration_file(tmp_path: Path):
    src = make_qwen36_checkpoint(tmp_path / "src")
    out = tmp_path / "q"
    plan = plan_quantize_draft(src, out, scheme="nvfp4", input_amax=_amax_file(tmp_path))
    result = apply_plan(plan)
    assert result.audit_exit_code == 0 and result.audit_findings == []
    new = read_safetensors(out / "model-mtp-nvfp4.safetensors")
    # MLP roles exist in the target (its W4A4 MLPs): their scale is copied; fc and q/k/v come from the file;
    # o_proj has neither (the target's attention is BF16) and stays W4A16
    want = {m: np.float32(5e-3) for m in MLP}
    want["mtp.fc"] = np.float32(np.float32(13.44) / np.float32(2688))
    want.update({m: np.float32(np.float32(5.376) / np.float32(2688)) for m in QKV})  # fused: k, v share q's
    for m in MTP_LINEARS:
        if m in want:
            assert new[f"{m}.input_scale"].shape == () and new[f"{m}.input_scale"].dtype == np.float32
            assert new[f"{m}.input_scale"].tobytes() == want[m].tobytes(), m
        else:
            assert f"{m}.input_scale" not in new
    assert float(new["mtp.fc.input_scale"]) == pytest.approx(0.005) and float(
        new["mtp.layers.0.self_attn.q_proj.input_scale"]
    ) == pytest.approx(0.002)
    for name in ("config.json", "hf_quant_config.json"):
        q = json.loads((out / name).read_text())["quantization_config" if name == "config.json" else "quantization"]
        algo = {m: q["quantized_layers"][m]["quant_algo"] for m in MTP_LINEARS}
        assert algo == {m: ("NVFP4" if m in want else "W4A16_NVFP4") for m in MTP_LINEARS}
    # the source of every scale is stated: plan notes and the surgery manifest
    manifest = json.loads((out / "specscope-surgery.json").read_text())
    acts = manifest["args"]["activation_scales"]
    assert sorted(acts) == sorted(want)
    assert acts["mtp.fc"]["source"].startswith("calibration file")
    assert acts["mtp.layers.0.mlp.gate_proj"]["source"].startswith("target: largest of 1 mlp.gate_proj input scales")
    assert "shared by fused q_proj, k_proj, v_proj" in acts["mtp.layers.0.self_attn.k_proj"]["source"]
    assert any("mtp.layers.0.self_attn.o_proj: stays W4A16" in n for n in manifest["notes"])


def test_compressed_tensors_w4a4(tmp_path: Path):
    src = make_qwen36_checkpoint(tmp_path / "src", dialect="compressed-tensors")
    out = tmp_path / "q"
    result = apply_plan(plan_quantize_draft(src, out, scheme="nvfp4", input_amax=_amax_file(tmp_path)))
    assert result.audit_exit_code == 0 and result.audit_findings == []
    new = read_safetensors(out / "model-mtp-nvfp4.safetensors")
    g = new["mtp.fc.input_global_scale"]
    assert g.shape == (1,) and float(g[0]) == pytest.approx(200.0, rel=1e-6)
    assert float(new["mtp.layers.0.self_attn.v_proj.input_global_scale"][0]) == pytest.approx(500.0, rel=1e-6)
    assert new["mtp.layers.0.mlp.up_proj.input_global_scale"].tobytes() == np.array([200.0], np.float32).tobytes()
    assert "mtp.layers.0.self_attn.o_proj.input_global_scale" not in new
    groups = json.loads((out / "config.json").read_text())["quantization_config"]["config_groups"]
    assert groups["specscope_w4a16_nvfp4"]["targets"] == ["mtp.layers.0.self_attn.o_proj"]
    assert groups["specscope_w4a16_nvfp4"]["input_activations"] is None
    w4a4 = groups["specscope_w4a4_nvfp4"]
    assert w4a4["targets"] == sorted(set(MTP_LINEARS) - {"mtp.layers.0.self_attn.o_proj"})
    assert w4a4["input_activations"]["num_bits"] == 4 and w4a4["input_activations"]["dynamic"] == "local"


def test_w4a16_target_stays_w4a16_and_w4a4_needs_a_source(tmp_path: Path):
    src = make_qwen36_checkpoint(tmp_path / "src")
    for f in src.glob("*.safetensors"):  # drop the target's activation scales: a W4A16 target
        t = read_safetensors(f)
        if any(n.endswith("input_scale") for n in t):
            from conftest import write_safetensors

            write_safetensors(f, {n: a for n, a in t.items() if not n.endswith("input_scale")})
    index = json.loads((src / "model.safetensors.index.json").read_text())
    index["weight_map"] = {n: s for n, s in index["weight_map"].items() if not n.endswith("input_scale")}
    (src / "model.safetensors.index.json").write_text(json.dumps(index))
    plan = plan_quantize_draft(src, tmp_path / "q", scheme="nvfp4")
    assert plan.args["w4a4"] is False and "activation_scales" not in plan.args
    # W4A4 asked for with nothing to take the scales from: every module stays W4A16, and the notes say why
    plan = plan_quantize_draft(src, tmp_path / "q2", scheme="nvfp4-w4a4")
    assert plan.args["activation_scales"] == {}
    assert sum("stays W4A16" in n for n in plan.notes) == len(MTP_LINEARS)


@pytest.mark.parametrize(
    "content,match",
    [
        ('{"mtp.fc": -1}', "not a positive finite"),
        ('{"mtp.fc": "big"}', "not a positive finite"),
        ('{"mtp.fcc": 3.0}', "not quantized here"),
        ("[1, 2]", "not a JSON object"),
    ],
)
def test_bad_input_amax_file_is_a_clear_error(tmp_path: Path, content: str, match: str):
    src = make_qwen36_checkpoint(tmp_path / "src")
    bad = tmp_path / "amax.json"
    bad.write_text(content)
    with pytest.raises(SurgeryError, match=match):
        plan_quantize_draft(src, tmp_path / "q", scheme="nvfp4", input_amax=bad)
    assert not (tmp_path / "q").exists()


def test_audit_flags_a_w4a4_draft_without_activation_scales(tmp_path: Path):
    src = make_qwen36_checkpoint(tmp_path / "src")
    out = tmp_path / "q"
    apply_plan(plan_quantize_draft(src, out, scheme="nvfp4", input_amax=_amax_file(tmp_path)))
    shard = out / "model-mtp-nvfp4.safetensors"
    t = read_safetensors(shard)
    from conftest import write_safetensors

    t.pop("mtp.fc.input_scale")
    t["mtp.layers.0.mlp.up_proj.input_scale"] = np.array(7e-3, np.float32)  # gate/up now differ
    shard.unlink()  # a hardlink-free copy: the result's own file
    write_safetensors(shard, t)
    index = json.loads((out / "model.safetensors.index.json").read_text())
    index["weight_map"].pop("mtp.fc.input_scale")
    (out / "model.safetensors.index.json").write_text(json.dumps(index))
    rep = audit_checkpoint(out)
    codes = {f.code: f for f in rep.findings}
    assert codes["NVFP4_INPUT_SCALE_MISSING"].details["modules"] == ["mtp.fc"]
    assert codes["NVFP4_INPUT_SCALE_MISSING"].severity.value == "error" and rep.exit_code == 1
    assert "mtp.layers.0.mlp.gate_proj, mtp.layers.0.mlp.up_proj" in codes["NVFP4_INPUT_SCALE_FUSED_MISMATCH"].found


def test_cli_states_each_source_and_refuses_a_bad_file(tmp_path: Path):
    from test_cli import run

    src = make_qwen36_checkpoint(tmp_path / "src")
    p = run(
        "quantize-draft",
        str(src),
        "--scheme",
        "nvfp4",
        "--input-amax",
        str(_amax_file(tmp_path)),
        "--out",
        str(tmp_path / "q"),
        cwd=tmp_path,
    )
    assert p.returncode == 0, p.stderr
    assert "note: mtp.fc: W4A4, input amax 13.44 from calibration file: mtp.fc 13.44" in p.stderr
    assert "note: mtp.layers.0.self_attn.o_proj: stays W4A16" in p.stderr
    assert "audit: exit 0, 0 findings" in p.stdout
    bad = tmp_path / "bad.json"
    bad.write_text('{"mtp.fcc": 1.0}')
    p = run(
        "quantize-draft",
        str(src),
        "--scheme",
        "nvfp4",
        "--input-amax",
        str(bad),
        "--out",
        str(tmp_path / "q2"),
        cwd=tmp_path,
    )
    assert p.returncode == 2 and p.stderr.startswith("error: --input-amax names a module that is not quantized here")
    assert not (tmp_path / "q2").exists()
