"""Weights stored as PyTorch pickle files (``*.bin``, ``*.pt``) and no safetensors: the engines load them, specscope
reads safetensors headers only, so the tensors are not judged and the finding says so (it said "no safetensors
weights found" with the fix "download the weights", though the weights were there).

Sources: vllm-project/vllm ``vllm/model_executor/model_loader/default_loader.py`` @0e06f498 ``_prepare_weights``
(load format auto: the first of ``*.safetensors``, ``*.bin``, ``*.pt`` that matches a top-level file is loaded;
``filter_files_not_needed_for_inference`` drops ``training_args.bin``, ``optimizer.bin``, ``optimizer.pt``,
``scheduler.pt``, ``scaler.pt``); SafeAILab/EAGLE ``eagle/model/ea_model.py`` (``from_pretrained`` reads the draft's
``pytorch_model.bin`` first, ``model.safetensors`` only when that fails) and SafeAILab/EAGLE issue #60 (the EAGLE
drafts are published as ``pytorch_model.bin``: 1.4 GB for EAGLE-Vicuna-7B, fp32).
"""

from __future__ import annotations

import json
from pathlib import Path

from specscope.audit import audit_checkpoint

from .ckmaker import dense_config, dense_model, write

V = 64
PICKLE = b"PK\x03\x04" + bytes(60)  # the first bytes of torch.save's zip container; never unpickled here


def _eagle1_as_published(root: Path, files: dict[str, bytes]) -> Path:
    """A yuhuili/EAGLE-LLaMA3-Instruct-8B-like folder: config.json (architectures LlamaForCausalLM) and pickle files."""
    root.mkdir(parents=True)
    (root / "config.json").write_text(json.dumps(dense_config(1, V)))
    for name, data in files.items():
        (root / name).write_bytes(data)
    return root


def test_a_draft_published_as_pytorch_model_bin_is_named_unread_not_missing(tmp_path: Path) -> None:
    target = write(tmp_path / "target", dense_model(2, V), dense_config(2, V))
    draft = _eagle1_as_published(tmp_path / "draft", {"pytorch_model.bin": PICKLE, "training_args.bin": PICKLE})
    r = audit_checkpoint(target, draft=draft)
    (f,) = r.by_code("NO_WEIGHTS")
    assert (f.severity.value, f.file) == ("warning", "draft")
    assert f.message == (
        "the weights are PyTorch pickle files (pytorch_model.bin), which specscope does not read: their tensors were "
        "not audited"
    )
    assert f.details == {"pickle_weights": ["pytorch_model.bin"]}
    assert "download" not in (f.fix or "") and "`specscope audit NEW_FOLDER`" in (f.fix or "")
    assert "vLLM loads *.bin, then *.pt" in (f.consequence or "") and r.exit_code == 0


def test_sharded_pickle_weights_are_all_named(tmp_path: Path) -> None:
    shards = {f"pytorch_model-0000{i}-of-00002.bin": PICKLE for i in (1, 2)}
    index = json.dumps({"weight_map": {"lm_head.weight": "pytorch_model-00002-of-00002.bin"}}).encode()
    root = _eagle1_as_published(tmp_path / "ck", {**shards, "pytorch_model.bin.index.json": index})
    (f,) = audit_checkpoint(root).by_code("NO_WEIGHTS")
    assert f.details == {"pickle_weights": sorted(shards)}


def test_training_files_alone_are_not_weights(tmp_path: Path) -> None:
    """What vLLM filters out is not a checkpoint: a folder with only training_args.bin and optimizer.pt has no
    weights (the plain NO_WEIGHTS, with its download fix)."""
    root = _eagle1_as_published(tmp_path / "ck", {"training_args.bin": PICKLE, "optimizer.pt": PICKLE})
    (f,) = audit_checkpoint(root).by_code("NO_WEIGHTS")
    assert f.message == "no safetensors weights found: only the configs were audited" and f.details == {}
