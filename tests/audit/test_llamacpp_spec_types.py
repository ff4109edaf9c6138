"""Which GGUF drafts llama.cpp's pair rule judges at all.

``common_speculative_are_compatible`` (ggml-org/llama.cpp common/speculative.cpp @001d906a; its log lines are in
the embedded engine's binary, xllamacpp 2026.10.11549) is called only by the ``draft-simple`` implementation. With no
``--spec-type``, llama-server first asks ``common_speculative_types_from_gguf`` (same file; called from
common/arg.cpp when ``spec_types_is_default``) what the draft file is: ``general.architecture`` ``dflash`` is
``draft-dflash`` (``draft-dspark`` when it stores ``markov_w1.weight``), and a file whose last block
``blk.{block_count-1}`` stores ``nextn.eh_proj.weight`` is ``draft-mtp``; neither implementation compares the two
vocabularies. Any other draft needs ``--spec-type draft-simple``, which runs the pair rule.

Pairs are two real GGUF files written with llama.cpp's ``gguf`` package (tests/audit/test_llamacpp_pairs.py's
writer), judged through ``specscope audit TARGET.gguf --draft DRAFT.gguf -f json``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from specscope.cli import app

from .test_llamacpp_pairs import HID, N, _gguf, _tokens

gguf = pytest.importorskip("gguf")


def _audit(target: Path, draft: Path) -> tuple[int, list[dict[str, object]]]:
    out = CliRunner().invoke(app, ["audit", str(target), "--draft", str(draft), "-f", "json"])
    return out.exit_code, json.loads(out.stdout)["findings"]


def _draft(path: Path, *, arch: str, blocks: int, extra: tuple[str, ...], tokens: list[str]) -> Path:
    """A draft GGUF of ``blocks`` blocks whose tokenizer is ``tokens`` (SPM, as the target's) plus tensors
    ``extra`` (each [HID] float32)."""
    w = gguf.GGUFWriter(path, arch)
    w.add_block_count(blocks)
    w.add_embedding_length(HID)
    if arch == "dflash":  # llama_model_dflash::load_arch_hparams refuses a file without it (LLAMACPP_DFLASH_LAYERS)
        w.add_array("dflash.target_layers", [1])
    w.add_tokenizer_model("llama")
    w.add_token_list(tokens)
    w.add_token_types([2, 3, 3] + [1] * (len(tokens) - 3))
    w.add_tensor("token_embd.weight", np.zeros((len(tokens), HID), dtype=np.float32))
    for name in extra:
        w.add_tensor(name, np.zeros((HID,), dtype=np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


# (draft architecture, blocks, tensors) -> the type llama.cpp picks for it with no --spec-type
AUTO = [
    ("dflash", 1, ("blk.0.attn_norm.weight",), "draft-dflash"),
    ("dflash", 1, ("blk.0.attn_norm.weight", "markov_w1.weight"), "draft-dspark"),
    ("qwen3", 2, ("blk.0.attn_norm.weight", "blk.1.nextn.eh_proj.weight"), "draft-mtp"),
]


@pytest.mark.parametrize(("arch", "blocks", "extra", "spec_type"), AUTO)
def test_an_auto_detected_draft_is_not_judged_by_the_draft_simple_rule(
    tmp_path: Path, arch: str, blocks: int, extra: tuple[str, ...], spec_type: str
) -> None:
    # before: a DFlash / DSpark / MTP draft 200 tokens longer than its target was LLAMACPP_DRAFT_INCOMPATIBLE/size
    # (exit 1), although llama.cpp runs that rule only for draft-simple and loads this draft as spec_type
    target = _gguf(tmp_path / "t.gguf")
    draft = _draft(tmp_path / "d.gguf", arch=arch, blocks=blocks, extra=extra, tokens=_tokens(N + 200))
    code, found = _audit(target, draft)
    assert code == 0
    assert [(f["code"], f["severity"]) for f in found] == [("LLAMACPP_DRAFT_TYPE_AUTO", "info")]
    (f,) = found
    assert f["details"] == {"spec_type": spec_type, "architecture": arch}
    assert f"llama.cpp loads this draft as {spec_type}" in str(f["message"])
    assert "common_speculative_types_from_gguf" in str(f["message"])


def test_an_auto_detected_draft_keeps_the_generic_vocabulary_error(tmp_path: Path) -> None:
    # the pair rule does not run, so it vouches for nothing: texts that differ stay the generic check's ERROR
    # (a DFlash converter copies the target's tokenizer; another one means another target)
    toks = _tokens()
    toks[7] = "other"
    draft = _draft(tmp_path / "d.gguf", arch="dflash", blocks=1, extra=("blk.0.attn_norm.weight",), tokens=toks)
    code, found = _audit(_gguf(tmp_path / "t.gguf"), draft)
    assert code == 1
    assert {(f["code"], f["severity"]) for f in found} == {
        ("DRAFT_TOKENIZER_DIFFERS", "error"),
        ("LLAMACPP_DRAFT_TYPE_AUTO", "info"),
    }


@pytest.mark.parametrize(
    ("arch", "blocks", "extra"),
    [
        # the MTP head in a block that is not the last one: common_speculative_types_from_gguf looks only at
        # blk.{block_count-1}
        ("qwen3", 2, ("blk.0.nextn.eh_proj.weight", "blk.1.attn_norm.weight")),
        # a Markov head outside general.architecture dflash: the DSpark test is made only for a dflash file
        ("llama", 1, ("blk.0.attn_norm.weight", "markov_w1.weight")),
    ],
)
def test_a_draft_llama_cpp_does_not_auto_detect_is_still_judged_by_the_rule(
    tmp_path: Path, arch: str, blocks: int, extra: tuple[str, ...]
) -> None:
    draft = _draft(tmp_path / "d.gguf", arch=arch, blocks=blocks, extra=extra, tokens=_tokens(N + 200))
    code, found = _audit(_gguf(tmp_path / "t.gguf"), draft)
    assert code == 1
    assert [(f["code"], f["details"]["rule"]) for f in found] == [("LLAMACPP_DRAFT_INCOMPATIBLE", "size")]


def _split_mtp(tmp_path: Path, *, head_first: bool) -> Path:
    """A split MTP draft (gguf-py split_max_tensors=2: NAME-00001-of-00002.gguf ...) of 2 blocks, 200 tokens longer
    than the target, whose head blk.1.nextn.eh_proj.weight is in the first shard or in the second."""
    toks = _tokens(N + 200)
    w = gguf.GGUFWriter(tmp_path / "d.gguf", "qwen3", split_max_tensors=2)
    w.add_block_count(2)
    w.add_embedding_length(HID)
    w.add_tokenizer_model("llama")
    w.add_token_list(toks)
    w.add_token_types([2, 3, 3] + [1] * (len(toks) - 3))
    tensors = {
        "blk.1.nextn.eh_proj.weight": np.zeros((HID,), dtype=np.float32),
        "blk.0.attn_norm.weight": np.zeros((HID,), dtype=np.float32),
        "token_embd.weight": np.zeros((len(toks), HID), dtype=np.float32),
    }
    for name in list(tensors) if head_first else list(tensors)[::-1]:  # two tensors to a shard
        w.add_tensor(name, tensors[name])
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return tmp_path / "d-00001-of-00002.gguf"


@pytest.mark.parametrize("head_first", [True, False])
def test_a_split_draft_is_typed_from_its_first_shard_alone(tmp_path: Path, head_first: bool) -> None:
    # common/arg.cpp: "reads only the first split - sharded drafts need an explicit --spec-type": an MTP head stored
    # in a later shard is not seen, the draft is draft-simple and the pair rule refuses it
    target = _gguf(tmp_path / "t.gguf")
    code, found = _audit(target, _split_mtp(tmp_path, head_first=head_first))
    if head_first:
        assert (code, [(f["code"], f["details"]) for f in found]) == (
            0,
            [("LLAMACPP_DRAFT_TYPE_AUTO", {"spec_type": "draft-mtp", "architecture": "qwen3"})],
        )
    else:
        assert (code, [(f["code"], f["details"].get("rule")) for f in found]) == (
            1,
            [("LLAMACPP_DRAFT_INCOMPATIBLE", "size")],
        )
        # the refusal names the way out: the head is there, llama-server did not look for it (aud62)
        assert "--spec-type draft-mtp" in str(found[0]["fix"]), found[0]["fix"]
        assert "blk.1.nextn.eh_proj.weight" in str(found[0]["fix"]) and found[0]["details"]["spec_type"] == "draft-mtp"


def _eagle3(path: Path, layers: list[int] | None, tokens: list[str]) -> Path:
    """An EAGLE-3 draft GGUF (general.architecture eagle3) whose eagle3.target_layers is ``layers`` (None: absent;
    the key as the embedded engine's loader spells it: LLM_KV "%s.target_layers" in its binary)."""
    w = gguf.GGUFWriter(path, "eagle3")
    w.add_block_count(1)
    w.add_embedding_length(HID)
    if layers is not None:
        w.add_array("eagle3.target_layers", layers)
    w.add_uint32("eagle3.target_hidden_size", HID)
    w.add_tokenizer_model("llama")
    w.add_token_list(tokens)
    w.add_token_types([2, 3, 3] + [1] * (len(tokens) - 3))
    w.add_tensor("token_embd.weight", np.zeros((len(tokens), HID), dtype=np.float32))
    w.add_tensor("blk.0.attn_norm.weight", np.zeros((HID,), dtype=np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


@pytest.mark.parametrize(
    ("layers", "expected"),
    [
        # the target has 1 block (n_layer 1): ids < 1 tap a layer's input, id == 1 the final hidden state
        ([0, 0, 1], []),
        # draft-eagle3's constructor: GGML_ABORT("EAGLE3: target layer id %d exceeds target n_layer %d")
        ([0, 1, 2], [("LLAMACPP_EAGLE3_LAYERS", "error", "range")]),
        # llama_model_eagle3::load_arch_hparams: "EAGLE3 requires exactly 3 entries in 'extract_layers'"
        ([0, 1], [("LLAMACPP_EAGLE3_LAYERS", "error", "count")]),
        # the same: "EAGLE3 model requires 'extract_layers' in GGUF metadata"
        (None, [("LLAMACPP_EAGLE3_LAYERS", "error", "missing")]),
    ],
)
def test_an_eagle3_draft_is_judged_by_draft_eagle3_not_by_the_pair_rule(
    tmp_path: Path, layers: list[int] | None, expected: list[tuple[str, str, str]]
) -> None:
    # before: an EAGLE-3 GGUF draft was judged by the draft-simple pair rule (200 tokens longer:
    # LLAMACPP_DRAFT_INCOMPATIBLE/size, exit 1) and its target layers were never read. llama.cpp runs it only with
    # --spec-type draft-eagle3 (not inferred from the file at @001d906a), which does not call
    # common_speculative_are_compatible but reads the draft's three target layer ids
    target = _gguf(tmp_path / "t.gguf")
    code, found = _audit(target, _eagle3(tmp_path / "d.gguf", layers, _tokens(N + 200)))
    got = [(f["code"], f["severity"], f["details"].get("rule")) for f in found]
    assert got == [*expected, ("LLAMACPP_DRAFT_TYPE_AUTO", "info", None)]  # errors first
    assert code == (1 if expected else 0)
    assert found[-1]["details"] == {"spec_type": "draft-eagle3", "architecture": "eagle3"}
    assert "--spec-type draft-eagle3" in str(found[-1]["message"])
    if layers == [0, 1, 2]:
        assert '"EAGLE3: target layer id 2 exceeds target n_layer 1"' in str(found[0]["message"])


def _dflash(path: Path, layers: list[int] | None, extra: tuple[str, ...] = ()) -> Path:
    """A DFlash draft GGUF (general.architecture dflash) with ``dflash.target_layers`` ``layers`` (None: absent; the
    key llama_model_dflash::load_arch_hparams reads as LLM_KV_TARGET_LAYERS, "%s.target_layers")."""
    toks = _tokens(N)
    w = gguf.GGUFWriter(path, "dflash")
    w.add_block_count(1)
    w.add_embedding_length(HID)
    if layers is not None:
        w.add_array("dflash.target_layers", layers)
    w.add_tokenizer_model("llama")
    w.add_token_list(toks)
    w.add_token_types([2, 3, 3] + [1] * (len(toks) - 3))
    w.add_tensor("token_embd.weight", np.zeros((len(toks), HID), dtype=np.float32))
    for name in ("blk.0.attn_norm.weight", *extra):
        w.add_tensor(name, np.zeros((HID,), dtype=np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


@pytest.mark.parametrize(("extra", "spec_type"), [((), "draft-dflash"), (("markov_w1.weight",), "draft-dspark")])
def test_a_dflash_draft_without_target_layers_does_not_load(tmp_path: Path, extra: tuple[str, ...], spec_type: str):
    # src/models/dflash.cpp llama_model_dflash::load_arch_hparams (ggml-org/llama.cpp): "DFlash model requires
    # 'target_layers' in GGUF metadata" (DSpark files are general.architecture dflash too); it passed with exit 0
    target = _gguf(tmp_path / "t.gguf")
    code, found = _audit(target, _dflash(tmp_path / "ok.gguf", [1, 2]))
    assert (code, [f["code"] for f in found]) == (0, ["LLAMACPP_DRAFT_TYPE_AUTO"])
    code, found = _audit(target, _dflash(tmp_path / "d.gguf", None, extra))
    got = [(f["code"], f["severity"], f["details"].get("rule")) for f in found]
    assert (code, got) == (
        1,
        [("LLAMACPP_DFLASH_LAYERS", "error", "missing"), ("LLAMACPP_DRAFT_TYPE_AUTO", "info", None)],
    )
    assert "DFlash model requires 'target_layers' in GGUF metadata" in str(found[0]["message"])
    assert found[1]["details"]["spec_type"] == spec_type
