"""Quantized tensors with no quantization config specscope reads (tests/data/modelslim/README.md: sgl-project/sglang
PR #37736, a ModelSlim W8A8 Qwen3.5 checkpoint whose MTP int8 codes were loaded as BF16 weights). The audit said
"no findings" although it judged none of the quantization: it must say so (WARNING ``QUANT_CONFIG_NOT_READ``)."""

from __future__ import annotations

import json
from pathlib import Path

from specscope.audit import audit_checkpoint

from . import qwen36 as q


def _modelslim(root: Path, *, description: bool = True) -> Path:
    """The Qwen3.6 layout with MLP / attention linears (main and MTP) in ModelSlim W8A8_DYNAMIC: I8 weight, BF16
    per-row ``weight_scale`` and ``weight_offset``; no ``quantization_config``."""
    root.mkdir(parents=True)
    q._DT.setdefault("I8", ("int8", 1))
    specs: dict[str, tuple[str, list[int]]] = {}
    desc: dict[str, str] = {"model_quant_type": "W8A8_DYNAMIC"}
    for name, (dt, shape) in q.tensor_specs().items():
        module = name.rsplit(".", 1)[0]
        layer = name.startswith(("model.language_model.layers.", "mtp.layers."))
        if layer and name.endswith(".weight") and len(shape) == 2 and (".mlp." in name or ".self_attn." in name):
            specs[name] = ("I8", shape)
            specs[module + ".weight_scale"] = ("BF16", [shape[0], 1])
            specs[module + ".weight_offset"] = ("BF16", [shape[0], 1])
            desc |= {name: "W8A8_DYNAMIC", module + ".weight_scale": "W8A8_DYNAMIC"}
        else:
            specs[name] = (dt, shape)
            desc[name] = "FLOAT"
    q.write_shard(root / "model.safetensors", specs)
    (root / "config.json").write_text(json.dumps(q.config()))
    if description:
        (root / "quant_model_description.json").write_text(json.dumps(desc))
    for n in ("preprocessor_config.json", "processor_config.json", "video_preprocessor_config.json"):
        (root / n).write_text("{}")
    return root


def test_modelslim_checkpoint_is_a_warning_that_names_the_file_not_read(tmp_path: Path) -> None:
    r = audit_checkpoint(_modelslim(tmp_path / "ck"))
    assert [(f.severity.value, f.code) for f in r.findings] == [("warning", "QUANT_CONFIG_NOT_READ")]
    (f,) = r.findings
    assert f.file == "quant_model_description.json"
    assert f.details == {"quantized": 23, "mtp_quantized": 7, "first": "model.language_model.layers.0.mlp.down_proj"}
    assert f.message == (
        "23 linear modules (7 of them in the MTP head) are stored quantized (e.g. "
        "model.language_model.layers.0.mlp.down_proj: I8 with weight_scale), described only by "
        "quant_model_description.json, which specscope does not read"
    )
    assert r.exit_code == 0


def test_quantized_tensors_with_no_description_at_all_name_config_json(tmp_path: Path) -> None:
    r = audit_checkpoint(_modelslim(tmp_path / "ck", description=False))
    (f,) = r.by_code("QUANT_CONFIG_NOT_READ")
    assert f.file == "config.json"
    assert f.message.endswith("described by no quantization_config in config.json and no hf_quant_config.json")
