"""A GLM-4.5 / 4.6 / 4.7 GGUF *target* (``general.architecture`` ``glm4moe``) that stores its NextN (MTP) head in the
same file, judged as the embedded engine's loader judges it.

The converter (ggml-org/llama.cpp convert_hf_to_gguf.py ``Glm4MoeModel``) writes ``block_count`` =
``num_hidden_layers + num_nextn_predict_layers`` and ``glm4moe.nextn_predict_layers``; the head's blocks are the last
``nextn_predict_layers`` ones and hold ``blk.N.nextn.{eh_proj,enorm,hnorm}`` (required) beside
``nextn.{embed_tokens,shared_head_head,shared_head_norm}`` (optional: src/models/glm4-moe.cpp
``load_arch_tensors``, ``TENSOR_NOT_REQUIRED``).

Each case below was loaded by the embedded engine itself (xllamacpp 2026.10.11549, ``llama_model_load_from_file``
through ctypes, on the same file this test writes: tests/audit/test_gguf_nextn_engine.py does it again) and the
engine's answer is quoted beside it:

- complete, one or two NextN blocks: loads (``n_layer = 2``, ``n_layer_all = 3``);
- the first NextN block's ``nextn.eh_proj.weight`` present and another required NextN tensor absent: "check_tensor_dims:
  tensor 'blk.2.nextn.enorm.weight' not found" (refused);
- the first NextN block's ``nextn.eh_proj.weight`` absent: loads, every NextN block's tensors "unused -- ignoring"
  (the trunk runs; the head is not loaded);
- NextN tensors in a block below ``block_count - nextn_predict_layers`` (the key absent, 0, or too small): "wrong
  number of tensors; expected 53, got 49" (refused);
- the key larger than the blocks that hold a head (no NextN tensors in a block it counts): loads with ``n_layer``
  short of the trunk, that block's tensors "unused -- ignoring" (the model runs without a trunk layer).

Files are written with llama.cpp's ``gguf`` package (tiny float32 tensors) and judged through ``specscope audit
TARGET.gguf -f json``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from specscope.cli import app

gguf = pytest.importorskip("gguf")

EMBD, HEADS, HEAD_DIM, EXPERTS, FF, VOCAB = 16, 2, 8, 4, 8, 300


def _f(*ggml_shape: int) -> np.ndarray:
    """Zeros in ggml order (``ne0`` first), as numpy stores them reversed."""
    return np.zeros(tuple(reversed(ggml_shape)), dtype=np.float32)


def _block(i: int) -> dict[str, np.ndarray]:
    p, qkv = f"blk.{i}.", HEADS * HEAD_DIM
    t = {p + "attn_norm.weight": _f(EMBD), p + "attn_output.weight": _f(qkv, EMBD)}
    t |= {p + "post_attention_norm.weight": _f(EMBD)}
    for x in "qkv":
        t |= {f"{p}attn_{x}.weight": _f(EMBD, qkv), f"{p}attn_{x}.bias": _f(qkv)}
    if i == 0:  # glm4moe.leading_dense_block_count = 1
        return t | {
            p + "ffn_gate.weight": _f(EMBD, FF),
            p + "ffn_up.weight": _f(EMBD, FF),
            p + "ffn_down.weight": _f(FF, EMBD),
        }
    t |= {p + "ffn_gate_inp.weight": _f(EMBD, EXPERTS), p + "exp_probs_b.bias": _f(EXPERTS)}
    t |= {p + "ffn_gate_exps.weight": _f(EMBD, FF, EXPERTS), p + "ffn_up_exps.weight": _f(EMBD, FF, EXPERTS)}
    t |= {p + "ffn_down_exps.weight": _f(FF, EMBD, EXPERTS)}
    return (
        t
        | {p + "ffn_gate_shexp.weight": _f(EMBD, FF), p + "ffn_up_shexp.weight": _f(EMBD, FF)}
        | {p + "ffn_down_shexp.weight": _f(FF, EMBD)}
    )


def _nextn(i: int) -> dict[str, np.ndarray]:
    p = f"blk.{i}.nextn."
    return {p + "eh_proj.weight": _f(2 * EMBD, EMBD), p + "enorm.weight": _f(EMBD), p + "hnorm.weight": _f(EMBD)} | {
        p + "shared_head_norm.weight": _f(EMBD)
    }


def glm4moe(
    path: Path,
    *,
    trunk: int = 2,
    heads: int = 1,
    key: int | None | str = "heads",
    drop: tuple[str, ...] = (),
    old_names: bool = False,
) -> Path:
    """A glm4moe GGUF of ``trunk`` trunk blocks and ``heads`` NextN blocks after them (``block_count`` = the sum),
    ``glm4moe.nextn_predict_layers`` = ``key`` (``"heads"``: the number of NextN blocks; None: not written), less the
    tensors ``drop`` (a name ending in ``.`` drops every tensor it starts); ``old_names``: the head's tensors named as
    convert_hf_to_gguf.py named them before llama.cpp PR #14939 renamed them (``blk.N.eh_proj.weight``,
    ``blk.N.shared_head.norm.weight``: no ``nextn.`` segment)."""
    w = gguf.GGUFWriter(path, "glm4moe")
    w.add_block_count(trunk + heads)
    w.add_context_length(64)
    w.add_embedding_length(EMBD)
    w.add_feed_forward_length(FF)
    w.add_head_count(HEADS)
    w.add_head_count_kv(HEADS)
    w.add_key_length(HEAD_DIM)
    w.add_value_length(HEAD_DIM)
    w.add_rope_dimension_count(HEAD_DIM)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_expert_feed_forward_length(FF)
    w.add_expert_count(EXPERTS)
    w.add_expert_used_count(2)
    w.add_expert_shared_count(1)
    w.add_leading_dense_block_count(1)
    if key is not None:
        w.add_nextn_predict_layers(heads if key == "heads" else int(key))
    tokens = ["<unk>", "<s>", "</s>"] + [f"t{i}" for i in range(VOCAB - 3)]
    w.add_tokenizer_model("llama")
    w.add_token_list(tokens)
    w.add_token_types([2, 3, 3] + [1] * (VOCAB - 3))
    w.add_token_scores([0.0] * VOCAB)
    tensors = {"token_embd.weight": _f(EMBD, VOCAB), "output_norm.weight": _f(EMBD), "output.weight": _f(EMBD, VOCAB)}
    for i in range(trunk + heads):
        tensors |= _block(i) | (_nextn(i) if i >= trunk else {})
    gone = {name for name in tensors for d in drop if name == d or (d.endswith(".") and name.startswith(d))}
    assert gone >= {d for d in drop if not d.endswith(".")}, drop
    for name, data in tensors.items():
        if old_names:
            name = name.replace(".nextn.shared_head_norm.", ".shared_head.norm.").replace(".nextn.", ".")
        if name not in gone:
            w.add_tensor(name, data)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


def _audit(path: Path) -> tuple[int, list[dict[str, Any]]]:
    out = CliRunner().invoke(app, ["audit", str(path), "-f", "json"])
    return out.exit_code, json.loads(out.stdout)["findings"]


@pytest.mark.parametrize("heads", [1, 2])
def test_a_complete_glm4moe_target_with_its_nextn_head_is_clean(tmp_path: Path, heads: int) -> None:
    code, found = _audit(glm4moe(tmp_path / "t.gguf", heads=heads))
    assert (code, found) == (0, [])


def test_an_optional_nextn_tensor_removed_is_still_clean(tmp_path: Path) -> None:
    # engine: loads (nextn.shared_head_norm is TENSOR_NOT_REQUIRED)
    code, found = _audit(glm4moe(tmp_path / "t.gguf", drop=("blk.2.nextn.shared_head_norm.weight",)))
    assert (code, found) == (0, [])


@pytest.mark.parametrize(
    ("heads", "removed"),
    [
        (1, "blk.2.nextn.enorm.weight"),
        (1, "blk.2.nextn.hnorm.weight"),
        (2, "blk.3.nextn.eh_proj.weight"),  # the head is present (blk.2's eh_proj): every NextN block needs its own
    ],
)
def test_a_required_nextn_tensor_removed_is_refused_naming_it(tmp_path: Path, heads: int, removed: str) -> None:
    # before: exit 0 with no finding; engine: "check_tensor_dims: tensor '<removed>' not found" (the model is refused)
    code, found = _audit(glm4moe(tmp_path / "t.gguf", heads=heads, drop=(removed,)))
    assert code == 1
    assert [(f["code"], f["severity"], f["tensor"]) for f in found] == [("LLAMACPP_NEXTN_TENSORS", "error", removed)]
    (f,) = found
    assert f"tensor '{removed}' not found" in f["message"]
    assert f["details"] == {"rule": "missing", "missing": [removed], "nextn_predict_layers": heads}


def test_a_head_without_its_first_eh_proj_loads_without_the_head(tmp_path: Path) -> None:
    # before: exit 0 with no word; engine: loads, blk.2's NextN tensors "unused -- ignoring": the trunk serves, there is
    # no MTP head to speculate with
    code, found = _audit(glm4moe(tmp_path / "t.gguf", drop=("blk.2.nextn.eh_proj.weight",)))
    assert code == 0
    assert [(f["code"], f["severity"], f["tensor"]) for f in found] == [
        ("LLAMACPP_NEXTN_TENSORS", "warning", "blk.2.nextn.eh_proj.weight")
    ]
    assert found[0]["details"] == {
        "rule": "no-head",
        "missing": ["blk.2.nextn.eh_proj.weight"],
        "nextn_predict_layers": 1,
    }


def test_a_head_block_that_stores_nothing_loads_without_the_head(tmp_path: Path) -> None:
    # llama.cpp issue #21172 (GLM-4.5-Air after a QLoRA merge: config.json keeps num_nextn_predict_layers 1, the merged
    # weights lack layer 46, the converter writes block_count 47 and no blk.46 tensor). Before: LLAMACPP_NEXTN_LAYERS
    # /trunk (a trunk block dropped), though no trunk block is lost; engine: loads (n_layer = 2), no head
    code, found = _audit(glm4moe(tmp_path / "t.gguf", drop=("blk.2.",)))
    assert code == 0
    assert [(f["code"], f["severity"], f["tensor"]) for f in found] == [
        ("LLAMACPP_NEXTN_TENSORS", "warning", "blk.2.nextn.eh_proj.weight")
    ]
    assert found[0]["details"]["rule"] == "no-head"
    assert "num_nextn_predict_layers 0" in found[0]["fix"]


def test_a_head_under_its_pre_rename_names_is_refused(tmp_path: Path) -> None:
    # llama.cpp PR #14939 (GLM-4.5 support, 2025-08-04): a GGUF converted before the NextN tensors were renamed
    # (blk.46.eh_proj.weight ...) failed with "wrong number of tensors; expected 1761, got 1755". Before: exit 1 but
    # as LLAMACPP_NEXTN_LAYERS/trunk (the model "loads without trunk block 2"); engine: "done_getting_tensors: wrong
    # number of tensors; expected 53, got 49" (refused)
    code, found = _audit(glm4moe(tmp_path / "t.gguf", old_names=True))
    assert code == 1
    assert [(f["code"], f["severity"], f["tensor"]) for f in found] == [
        ("LLAMACPP_NEXTN_TENSORS", "error", "blk.2.eh_proj.weight")
    ]
    (f,) = found
    assert "wrong number of tensors" in f["message"]
    assert f["details"] == {
        "rule": "old-names",
        "old_names": [
            "blk.2.eh_proj.weight",
            "blk.2.enorm.weight",
            "blk.2.hnorm.weight",
            "blk.2.shared_head.norm.weight",
        ],
        "nextn_predict_layers": 1,
    }
    assert "blk.2.nextn.eh_proj.weight" in f["message"]


@pytest.mark.parametrize(("heads", "key", "blocks"), [(1, None, [2]), (1, 0, [2]), (2, 1, [2])])
def test_nextn_tensors_in_a_trunk_block_are_refused(
    tmp_path: Path, heads: int, key: int | None, blocks: list[int]
) -> None:
    # before: exit 0 with no finding; engine: "done_getting_tensors: wrong number of tensors; expected N, got M"
    code, found = _audit(glm4moe(tmp_path / "t.gguf", heads=heads, key=key))
    assert code == 1
    assert [(f["code"], f["severity"]) for f in found] == [("LLAMACPP_NEXTN_LAYERS", "error")]
    (f,) = found
    assert "wrong number of tensors" in f["message"]
    assert f["details"] == {
        "rule": "undeclared",
        "block_count": 2 + heads,
        "nextn_predict_layers": key,
        "nextn_blocks": [2, 3][:heads],
        "trunk_blocks_with_nextn": blocks,
    }
    assert "glm4moe.nextn_predict_layers" in f["fix"]
    if key is not None:  # a key that is there can be set in place (gguf-set-metadata cannot add one)
        assert f"gguf-set-metadata --force {tmp_path / 't.gguf'} glm4moe.nextn_predict_layers {heads}" in f["fix"]
    else:
        assert "convert_hf_to_gguf.py" in f["fix"]


@pytest.mark.parametrize(("trunk", "heads", "key", "dropped"), [(2, 1, 2, [1]), (3, 0, 1, [2])])
def test_a_key_past_the_head_drops_trunk_blocks(
    tmp_path: Path, trunk: int, heads: int, key: int, dropped: list[int]
) -> None:
    # before: exit 0 with no finding; engine: loads with n_layer = block_count - key, the dropped blocks' tensors
    # "unused -- ignoring": the model runs without them
    code, found = _audit(glm4moe(tmp_path / "t.gguf", trunk=trunk, heads=heads, key=key))
    assert code == 1
    assert [(f["code"], f["severity"]) for f in found] == [("LLAMACPP_NEXTN_LAYERS", "error")]
    (f,) = found
    assert f["details"] == {
        "rule": "trunk",
        "block_count": trunk + heads,
        "nextn_predict_layers": key,
        "nextn_blocks": list(range(trunk, trunk + heads)),
        "trunk_blocks_dropped": dropped,
    }
    command = f"gguf-set-metadata --force {tmp_path / 't.gguf'} glm4moe.nextn_predict_layers {heads}"
    assert command in f["fix"]
    # the fix, run on a copy, makes the finding go
    fixed = shutil.copyfile(tmp_path / "t.gguf", tmp_path / "fixed.gguf")
    args = command.split()[2:]
    args[0] = str(fixed)
    subprocess.run(
        [sys.executable, "-m", "gguf.scripts.gguf_set_metadata", "--force", *args], check=True, capture_output=True
    )
    assert _audit(fixed) == (0, [])


def _census(path: Path) -> dict[str, Any]:
    out = CliRunner().invoke(app, ["audit", str(path), "-f", "json"])
    census: dict[str, Any] = json.loads(out.stdout)["census"]
    return census


def test_the_head_blocks_are_not_counted_in_a_target_step(tmp_path: Path) -> None:
    # before: the head block's 11,536 bytes a step (blk.2: 14,608 stored, MoE experts read at 2/4) were counted in
    # every target decode step, though llama.cpp's glm4moe graph runs only the n_layer trunk blocks (engine:
    # n_layer = 2, n_layer_all = 3)
    with_head = _census(glm4moe(tmp_path / "t.gguf"))
    trunk_only = _census(glm4moe(tmp_path / "trunk.gguf", heads=0, key=None))
    assert with_head["target_bytes_per_token"] == trunk_only["target_bytes_per_token"] == 34_576  # 46,112 before
    head_bytes = sum(a.nbytes for a in (_block(2) | _nextn(2)).values())
    assert with_head["bytes_by_group"]["mtp_draft"] == head_bytes == 14_608
    assert with_head["total_bytes"] == trunk_only["total_bytes"] + head_bytes
    assert with_head["draft_bytes_per_step"] is None  # a draft-mtp step is not modelled here: unknown, not 0
    assert with_head["draft_rule"].startswith("llama.cpp --spec-type draft-mtp runs the target's own NextN head blocks")
    assert (trunk_only["draft_bytes_per_step"], trunk_only["draft_rule"]) == (0, None)
    note = "NextN head blocks 2..2 (glm4moe.nextn_predict_layers = 1): not run by a target step; a draft-mtp step's"
    assert f"{note} bytes are not counted" in with_head["notes"]


def test_a_pair_judges_the_head_of_each_side(tmp_path: Path) -> None:
    # the draft is loaded by the same model loader (llama-server --model-draft): a draft whose head block lacks
    # nextn.hnorm is refused as the target would be. Before: only the pair's vocabulary rules ran (the target's head
    # and the draft's were not read)
    target = glm4moe(tmp_path / "t.gguf", drop=("blk.2.nextn.enorm.weight",))
    draft = glm4moe(tmp_path / "d.gguf", drop=("blk.2.nextn.hnorm.weight",))
    out = CliRunner().invoke(app, ["audit", str(target), "--draft", str(draft), "-f", "json"])
    assert out.exit_code == 1
    found = [(f["code"], f["file"], f["tensor"]) for f in json.loads(out.stdout)["findings"]]
    assert found == [
        ("LLAMACPP_NEXTN_TENSORS", "target", "blk.2.nextn.enorm.weight"),
        ("LLAMACPP_NEXTN_TENSORS", "draft", "blk.2.nextn.hnorm.weight"),
        ("LLAMACPP_DRAFT_TYPE_AUTO", "draft", None),  # its last block stores nextn.eh_proj: draft-mtp
    ]


def test_a_key_past_block_count_aborts_the_loader(tmp_path: Path) -> None:
    # before: LLAMACPP_NEXTN_LAYERS/trunk ("loads with -2 of its 3 blocks"); engine: "GGML_ASSERT(hparams.n_layer_nextn
    # <= hparams.n_layer_all) failed" (src/llama-model.cpp; the process aborts)
    code, found = _audit(glm4moe(tmp_path / "t.gguf", key=5))
    assert code == 1
    assert [(f["code"], f["severity"]) for f in found] == [("LLAMACPP_NEXTN_LAYERS", "error")]
    (f,) = found
    assert "GGML_ASSERT(hparams.n_layer_nextn <= hparams.n_layer_all) failed" in f["message"]
    assert f["details"] == {"rule": "count", "block_count": 3, "nextn_predict_layers": 5, "nextn_blocks": [2]}
    assert f"gguf-set-metadata --force {tmp_path / 't.gguf'} glm4moe.nextn_predict_layers 1" in f["fix"]
