"""What the engine builds for the two MTP linears whose layer type is fixed by the model file, not by the quant config:
DeepSeek-style ``eh_proj`` and ``shared_head.head``.

Sources (vllm-project/vllm): ``eh_proj`` is a plain ``nn.Linear`` with no quant_config in
vllm/model_executor/models/deepseek_mtp.py @4f7c1440 and glm4_moe_mtp.py @028aedf6 (DeepSeekMultiTokenPredictorLayer,
Glm4MoeMultiTokenPredictorLayer), whatever the method: it has no ``weight_scale`` parameter, so ``load_weights``
(``params_dict[name]``) fails on a stored scale. ``shared_head.head`` is a ``ParallelLMHead`` built with the quant
config: compressed-tensors leaves it unquantized (compressed_tensors/compressed_tensors.py @004dadbe get_quant_method:
only ``LinearBase``, ``Attention`` and ``FusedMoE`` get a method), as Fp8Config does; ModelOpt quantizes it unless
excluded (modelopt.py @00155cde ModelOptQuantConfigBase.get_quant_method: ``(LinearBase, ParallelLMHead)``).
Fresh-user check (2026-12-05): a GLM-4.5 compressed-tensors FP8 export with both quantized passed (INFO only); a
BF16 ``eh_proj`` under ModelOpt NVFP4 was reported not excluded.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

from specscope.audit import audit_checkpoint

from .ckmaker import moe_mtp_config

H, I, V = 16, 32, 64  # noqa: E741
_SIZE = {"BF16": 2, "F32": 4, "F8_E4M3": 1, "U8": 1}
P = "model.layers.2"  # the MTP layer: num_hidden_layers + 0
CT_FP8 = {
    "quant_method": "compressed-tensors",
    "format": "float-quantized",
    "ignore": ["lm_head", "re:.*mlp.gate$"],
    "config_groups": {
        "group_0": {
            "targets": ["Linear"],
            "weights": {"num_bits": 8, "type": "float", "strategy": "channel", "symmetric": True, "dynamic": False},
        }
    },
}
NVFP4 = {
    "quant_method": "modelopt",
    "quant_algo": "NVFP4",
    "group_size": 16,
    "exclude_modules": ["lm_head", "model.layers.*.mlp.gate"],
}


def _save(path: Path, tensors: dict[str, tuple[str, tuple[int, ...]]]) -> None:
    """A safetensors file (8-byte little-endian header length, JSON header, data): zeros, but scalar F32 scales hold
    0.001 (ModelOpt's ``weight_scale_2`` / ``input_scale`` convention, in (0, 1])."""
    header, data = {}, b""
    for name, (dtype, shape) in tensors.items():
        n = _SIZE[dtype]
        for d in shape:
            n *= d
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [len(data), len(data) + n]}
        data += struct.pack("<f", 0.001) if (dtype, shape) == ("F32", ()) else b"\0" * n
    raw = json.dumps(header).encode()
    raw += b" " * (-len(raw) % 8)
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + data)


def _lin(name: str, o: int, i: int, scheme: str | None) -> dict[str, tuple[str, tuple[int, ...]]]:
    if scheme == "ct":
        return {f"{name}.weight": ("F8_E4M3", (o, i)), f"{name}.weight_scale": ("F32", (o, 1))}
    if scheme == "nvfp4":
        return {
            f"{name}.weight": ("U8", (o, i // 2)),
            f"{name}.weight_scale": ("F8_E4M3", (o, i // 16)),
            f"{name}.weight_scale_2": ("F32", ()),
            f"{name}.input_scale": ("F32", ()),
        }
    return {f"{name}.weight": ("BF16", (o, i))}


def _layer(p: str, scheme: str | None, moe: bool) -> dict[str, tuple[str, tuple[int, ...]]]:
    out = {f"{p}.input_layernorm.weight": ("BF16", (H,)), f"{p}.post_attention_layernorm.weight": ("BF16", (H,))}
    for n in "qkvo":
        out |= _lin(f"{p}.self_attn.{n}_proj", H, H, scheme)
    if moe:
        out[f"{p}.mlp.gate.weight"] = ("BF16", (2, H))
        for e in range(2):
            out |= _lin(f"{p}.mlp.experts.{e}.gate_proj", I, H, scheme)
            out |= _lin(f"{p}.mlp.experts.{e}.up_proj", I, H, scheme)
            out |= _lin(f"{p}.mlp.experts.{e}.down_proj", H, I, scheme)
    else:
        for n, (o, i) in {"gate_proj": (I, H), "up_proj": (I, H), "down_proj": (H, I)}.items():
            out |= _lin(f"{p}.mlp.{n}", o, i, scheme)
    return out


def _build(
    root: Path,
    family: str,
    scheme: str,
    *,
    eh_proj: bool,
    head: bool,
    exclude: tuple[str, ...] = (),
    embed: str | None = None,
    main_embed: bool = False,
) -> Path:
    """A 2-layer DeepSeek-V3 or GLM-4.5 MoE with one MTP layer, quantized with ``scheme`` (``ct``: compressed-tensors
    FP8 per channel; ``nvfp4``: ModelOpt NVFP4); ``eh_proj`` / ``head``: whether those two are quantized too;
    ``embed``: the MTP layer's own embedding copy (``P.embed_tokens``): absent (None), ``"bf16"`` or ``scheme``;
    ``main_embed``: the target's ``model.embed_tokens`` stored with ``scheme`` (else BF16)."""
    t = {
        **_lin("model.embed_tokens", V, H, scheme if main_embed else None),
        "model.norm.weight": ("BF16", (H,)),
        "lm_head.weight": ("BF16", (V, H)),
    }
    t |= _layer("model.layers.0", scheme, moe=False) | _layer("model.layers.1", scheme, moe=True)
    t |= _layer(P, scheme, moe=True)
    t |= {f"{P}.enorm.weight": ("BF16", (H,)), f"{P}.hnorm.weight": ("BF16", (H,))}
    t |= _lin(f"{P}.eh_proj", H, 2 * H, scheme if eh_proj else None)
    t |= {f"{P}.shared_head.norm.weight": ("BF16", (H,))}
    t |= _lin(f"{P}.shared_head.head", V, H, scheme if head else None)
    if embed is not None:
        t |= _lin(f"{P}.embed_tokens", V, H, None if embed == "bf16" else scheme)
    root.mkdir(parents=True)
    _save(root / "model.safetensors", t)
    qc = dict(CT_FP8 if scheme == "ct" else NVFP4)
    key = "ignore" if scheme == "ct" else "exclude_modules"
    qc[key] = [*qc[key], *exclude]
    arch, model_type = {"ds": ("DeepseekV3ForCausalLM", "deepseek_v3"), "glm": ("Glm4MoeForCausalLM", "glm4_moe")}[
        family
    ]
    config = moe_mtp_config(arch, model_type, V, qc, moe_intermediate_size=I)
    (root / "config.json").write_text(json.dumps(config))
    if scheme == "nvfp4":
        hf = {"producer": {"name": "modelopt"}, "quantization": {k: v for k, v in qc.items() if k != "quant_method"}}
        (root / "hf_quant_config.json").write_text(json.dumps(hf))
    return root


def _errors(r) -> list[str]:
    return [f.code for f in r.findings if f.severity == "error"]


def test_ct_fp8_quantized_eh_proj_and_shared_head_are_an_error_naming_both(tmp_path: Path) -> None:
    r = audit_checkpoint(_build(tmp_path / "ck", "glm", "ct", eh_proj=True, head=True))
    assert _errors(r) == ["MTP_QUANTIZED_ENGINE_UNQUANTIZED"]
    (f,) = r.by_code("MTP_QUANTIZED_ENGINE_UNQUANTIZED")
    assert f.details["modules"] == [f"{P}.eh_proj", f"{P}.shared_head.head"]
    assert f.details["tensors"] == [
        f"{P}.eh_proj.weight",
        f"{P}.eh_proj.weight_scale",
        f"{P}.shared_head.head.weight",
        f"{P}.shared_head.head.weight_scale",
    ]
    assert f.file == "config.json" and f.tensor == f"{P}.eh_proj.weight_scale"
    assert "nn.Linear" in f.expected and "ParallelLMHead" in f.expected
    assert f.fix is not None and "BF16 original" in f.fix and "ignore" in f.fix
    assert r.exit_code == 1


def test_ct_fp8_bf16_eh_proj_and_shared_head_not_ignored_are_right(tmp_path: Path) -> None:
    """The engine builds both unquantized under compressed-tensors: BF16 needs no ignore entry."""
    r = audit_checkpoint(_build(tmp_path / "ck", "glm", "ct", eh_proj=False, head=False))
    assert _errors(r) == [] and r.exit_code == 0


def test_ct_fp8_quantized_but_ignored_eh_proj_gets_the_engine_finding_not_include_quantized(tmp_path: Path) -> None:
    """Taking eh_proj out of ``ignore`` (MTP_QUANTIZED_BUT_EXCLUDED's fix) would not make vLLM build it quantized."""
    ck = _build(tmp_path / "ck", "ds", "ct", eh_proj=True, head=False, exclude=(f"{P}.eh_proj",))
    r = audit_checkpoint(ck)
    assert _errors(r) == ["MTP_QUANTIZED_ENGINE_UNQUANTIZED"]
    assert r.by_code("MTP_QUANTIZED_ENGINE_UNQUANTIZED")[0].details["modules"] == [f"{P}.eh_proj"]


def test_nvfp4_bf16_eh_proj_not_excluded_is_right(tmp_path: Path) -> None:
    r = audit_checkpoint(_build(tmp_path / "ck", "ds", "nvfp4", eh_proj=False, head=True))
    assert _errors(r) == [] and r.exit_code == 0


def test_nvfp4_bf16_shared_head_not_excluded_is_still_an_error_alone(tmp_path: Path) -> None:
    """ModelOpt builds ParallelLMHead quantized unless excluded: the BF16 head needs its exclude entry; eh_proj not."""
    r = audit_checkpoint(_build(tmp_path / "ck", "ds", "nvfp4", eh_proj=False, head=False))
    assert _errors(r) == ["MTP_UNQUANTIZED_NOT_EXCLUDED"]
    assert r.by_code("MTP_UNQUANTIZED_NOT_EXCLUDED")[0].details["modules"] == [f"{P}.shared_head.head"]


def test_nvfp4_quantized_eh_proj_is_an_error_and_a_quantized_head_is_not(tmp_path: Path) -> None:
    r = audit_checkpoint(_build(tmp_path / "ck", "ds", "nvfp4", eh_proj=True, head=True))
    assert _errors(r) == ["MTP_QUANTIZED_ENGINE_UNQUANTIZED"]
    (f,) = r.by_code("MTP_QUANTIZED_ENGINE_UNQUANTIZED")
    assert f.details["modules"] == [f"{P}.eh_proj"]
    assert f.file == "hf_quant_config.json" or f.file == "config.json"


def test_nvfp4_mtp_embedding_copy_is_an_error_through_the_cli(tmp_path: Path, capsys, monkeypatch) -> None:
    """DeepSeek's MTP layer keeps its own embedding copy; vLLM builds it as a VocabParallelEmbedding with no
    quant_config (deepseek_mtp.py), so a packed NVFP4 table with scales cannot load. Before: 0 errors, exit 0."""
    from clirun import cli

    ck = _build(tmp_path / "ck", "ds", "nvfp4", eh_proj=False, head=True, embed="nvfp4")
    code, out, _ = cli(["audit", ck, "--format", "json"], capsys, monkeypatch, tmp_path)
    assert code == 1
    (f,) = [f for f in json.loads(out)["findings"] if f["code"] == "MTP_QUANTIZED_ENGINE_UNQUANTIZED"]
    assert f["details"]["modules"] == [f"{P}.embed_tokens"]
    assert f["details"]["tensors"] == [
        f"{P}.embed_tokens.input_scale",
        f"{P}.embed_tokens.weight",
        f"{P}.embed_tokens.weight_scale",
        f"{P}.embed_tokens.weight_scale_2",
    ]
    assert "VocabParallelEmbedding" in f["expected"] and f["fix"]


def test_bf16_mtp_embedding_copy_under_nvfp4_is_right(tmp_path: Path) -> None:
    """The BF16 copy needs no exclude entry: the engine never quantizes it."""
    r = audit_checkpoint(_build(tmp_path / "ck", "ds", "nvfp4", eh_proj=False, head=True, embed="bf16"))
    assert _errors(r) == [] and r.exit_code == 0


def test_a_quantized_target_embedding_shared_by_the_mtp_head_is_named(tmp_path: Path, capsys, monkeypatch) -> None:
    """The target's own embedding stored NVFP4 (a ModelOpt mixed-precision recipe; SGLang serves it since PR #34222)
    and an MTP head that shares it: SGLang's draft worker hands the head the table's bare packed weight without its
    scales (``get_embed_and_head`` / ``set_embed_and_head``), so the head fails at load or at its first step
    (sgl-project/sglang PR #38366's report: "size of tensor a (5120) must match ... (2560)"). It passed with an INFO
    only; now a WARNING naming the table and its tensors (exit 0: it is one engine's limit)."""
    from clirun import cli

    ck = _build(tmp_path / "ck", "ds", "nvfp4", eh_proj=False, head=True, main_embed=True)
    code, out, _ = cli(["audit", ck, "--format", "json"], capsys, monkeypatch, tmp_path)
    (f,) = [f for f in json.loads(out)["findings"] if f["code"] == "MTP_SHARED_EMBEDDING_QUANTIZED"]
    assert f["severity"] == "warning" and code == 0
    assert f["details"] == {
        "module": "model.embed_tokens",
        "tensors": [
            "model.embed_tokens.input_scale",
            "model.embed_tokens.weight",
            "model.embed_tokens.weight_scale",
            "model.embed_tokens.weight_scale_2",
        ],
        "family": "deepseek_mtp",
    }
    assert "SGLang" in f["consequence"] and f["fix"]


def test_a_bf16_target_embedding_is_not_named(tmp_path: Path) -> None:
    r = audit_checkpoint(_build(tmp_path / "ck", "ds", "nvfp4", eh_proj=False, head=True))
    assert r.by_code("MTP_SHARED_EMBEDDING_QUANTIZED") == []


def test_a_quantized_target_embedding_shared_by_an_eagle_draft_is_named(tmp_path: Path) -> None:
    """A separate EAGLE draft takes the target's embedding too (SGLang ``set_embed_and_head`` for EAGLE, the
    embedding alone for EAGLE-3): the same warning, naming the draft's family, on the target's file."""
    from .ckmaker import write
    from .test_families import CASES

    target = _build(tmp_path / "ck", "ds", "nvfp4", eh_proj=False, head=True, main_embed=True)
    eagle = CASES["eagle"]
    draft = write(tmp_path / "eagle", eagle.shapes, eagle.config)
    r = audit_checkpoint(target, draft=draft)
    found = r.by_code("MTP_SHARED_EMBEDDING_QUANTIZED")
    assert [(f.details["family"], f.file) for f in found] == [
        ("deepseek_mtp", "model.safetensors"),
        ("eagle", "model.safetensors"),
    ]
