"""The DeepSeek-V3 / R1 FP8 release layout (``quant_method: fp8``, block scales ``weight_scale_inv``, no ignore list)
with its MTP layer's ``eh_proj``, router ``mlp.gate`` and ``shared_head.head`` in BF16, as deepseek-ai publishes it.
vLLM builds those three unquantized under Fp8Config (deepseek_mtp.py ``nn.Linear`` eh_proj, DeepseekV2MoE's
``ReplicatedLinear(quant_config=None)`` gate, ``ParallelLMHead``); a fresh-user check (2026-12-05) found every such
checkpoint failing with MTP_UNQUANTIZED_NOT_EXCLUDED and a fix that patch-config refused (dialect fp8). Shapes are
small; headers are written by hand because numpy has no float8 (the safetensors header format: 8-byte little-endian
length, JSON of dtype / shape / data_offsets, then the bytes)."""

from __future__ import annotations

import json
import struct
from pathlib import Path

from specscope.audit import audit_checkpoint
from specscope.cli import main

from .ckmaker import moe_mtp_config

H, I, V = 16, 32, 64  # noqa: E741
_SIZE = {"BF16": 2, "F32": 4, "F8_E4M3": 1}


def _save(path: Path, tensors: dict[str, tuple[str, tuple[int, ...]]]) -> None:
    header, offset = {}, 0
    for name, (dtype, shape) in tensors.items():
        n = _SIZE[dtype]
        for d in shape:
            n *= d
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [offset, offset + n]}
        offset += n
    raw = json.dumps(header).encode()
    raw += b" " * (-len(raw) % 8)
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + b"\0" * offset)


def _layer(p: str, fp8: bool, moe: bool) -> dict[str, tuple[str, tuple[int, ...]]]:
    out: dict[str, tuple[str, tuple[int, ...]]] = {
        f"{p}.input_layernorm.weight": ("BF16", (H,)),
        f"{p}.post_attention_layernorm.weight": ("BF16", (H,)),
    }

    def lin(name: str, o: int, i: int) -> None:
        if fp8:
            out[f"{name}.weight"] = ("F8_E4M3", (o, i))
            out[f"{name}.weight_scale_inv"] = ("F32", (1, 1))
        else:
            out[f"{name}.weight"] = ("BF16", (o, i))

    for n in "qkvo":
        lin(f"{p}.self_attn.{n}_proj", H, H)
    if moe:
        out[f"{p}.mlp.gate.weight"] = ("BF16", (2, H))  # the router: BF16 in the release
        for e in range(2):
            lin(f"{p}.mlp.experts.{e}.gate_proj", I, H)
            lin(f"{p}.mlp.experts.{e}.up_proj", I, H)
            lin(f"{p}.mlp.experts.{e}.down_proj", H, I)
    else:
        for n, (o, i) in {"gate_proj": (I, H), "up_proj": (I, H), "down_proj": (H, I)}.items():
            lin(f"{p}.mlp.{n}", o, i)
    return out


def _release(root: Path, mtp_fp8: bool = True) -> Path:
    t = {
        "model.embed_tokens.weight": ("BF16", (V, H)),
        "model.norm.weight": ("BF16", (H,)),
        "lm_head.weight": ("BF16", (V, H)),
    }
    t |= _layer("model.layers.0", True, moe=False) | _layer("model.layers.1", True, moe=True)
    p = "model.layers.2"  # the MTP layer: num_hidden_layers + 0
    t |= _layer(p, mtp_fp8, moe=True)
    t |= {
        f"{p}.enorm.weight": ("BF16", (H,)),
        f"{p}.hnorm.weight": ("BF16", (H,)),
        f"{p}.eh_proj.weight": ("BF16", (H, 2 * H)),
        f"{p}.shared_head.norm.weight": ("BF16", (H,)),
        f"{p}.shared_head.head.weight": ("BF16", (V, H)),
        f"{p}.embed_tokens.weight": ("BF16", (V, H)),
    }
    root.mkdir(parents=True)
    _save(root / "model.safetensors", t)
    fp8 = {"quant_method": "fp8", "fmt": "e4m3", "activation_scheme": "dynamic", "weight_block_size": [128, 128]}
    config = moe_mtp_config("DeepseekV3ForCausalLM", "deepseek_v3", V, fp8)
    (root / "config.json").write_text(json.dumps(config))
    return root


def test_the_release_layout_has_no_quantization_finding(tmp_path):
    r = audit_checkpoint(_release(tmp_path / "dsv3"))
    assert [f.code for f in r.findings if f.severity == "error"] == []
    assert r.exit_code == 0


def test_an_unquantized_mtp_decoder_layer_is_named_and_its_fix_runs(tmp_path, capsys):
    src = _release(tmp_path / "dsv3", mtp_fp8=False)
    r = audit_checkpoint(src)
    (f,) = r.by_code("MTP_UNQUANTIZED_NOT_EXCLUDED")
    p = "model.layers.2"
    want = {f"{p}.self_attn.{n}_proj" for n in "qkvo"}
    want |= {f"{p}.mlp.experts.{e}.{n}_proj" for e in (0, 1) for n in ("gate", "up", "down")}
    assert set(f.details["modules"]) == want  # not eh_proj, mlp.gate or shared_head.head: vLLM keeps those BF16
    fix = f.fix.split("`")[1].split()
    assert fix[:3] == ["specscope", "surgery", "patch-config"]
    out = tmp_path / "patched"
    fix[fix.index("NEW_FOLDER")] = str(out)
    before = (src / "config.json").read_text()
    try:
        main(fix[1:])
    except SystemExit as e:
        assert e.code in (0, None), capsys.readouterr()
    assert (src / "config.json").read_text() == before  # the source is never touched
    ignored = json.loads((out / "config.json").read_text())["quantization_config"]["ignored_layers"]
    assert want <= set(ignored)
    assert audit_checkpoint(out).by_code("MTP_UNQUANTIZED_NOT_EXCLUDED") == []
