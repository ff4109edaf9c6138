"""Split GGUF files (``gguf-split`` / gguf-py ``split_max_tensors``: ``NAME-00001-of-00003.gguf`` ...), read as
llama.cpp's loader reads them (ggml-org/llama.cpp src/llama-model-loader.cpp, the ``llama_model_loader``
constructor): the model is loaded from the first shard (``split.no`` 0), the other shards are found by name
(``PREFIX-%05d-of-%05d.gguf``) and their tensors added; any other shard is refused with "model must be loaded with
the first split"; a missing shard or a tensor count other than ``split.tensors.count`` is refused."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from clirun import cli
from specscope.audit import audit_checkpoint

gguf = pytest.importorskip("gguf")

HID, N, BLOCKS = 8, 300, 2


def _split(tmp_path: Path, stem: str = "m", n: int = N) -> list[Path]:
    w = gguf.GGUFWriter(tmp_path / f"{stem}.gguf", "llama", split_max_tensors=2)
    w.add_block_count(BLOCKS)
    w.add_embedding_length(HID)
    w.add_tokenizer_model("llama")
    toks = ["<unk>", "<s>", "</s>"] + [f"t{i}" for i in range(3, n)]
    w.add_token_list(toks)
    w.add_token_types([2, 3, 3] + [1] * (n - 3))
    w.add_tensor("token_embd.weight", np.zeros((n, HID), dtype=np.float32))
    for b in range(BLOCKS):
        w.add_tensor(f"blk.{b}.attn_norm.weight", np.zeros((HID,), dtype=np.float32))
        w.add_tensor(f"blk.{b}.ffn_up.weight", np.zeros((HID, HID), dtype=np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return sorted(tmp_path.glob(f"{stem}-*-of-*.gguf"))


def _all_bytes(n: int = N) -> int:
    return n * HID * 4 + BLOCKS * (HID * 4 + HID * HID * 4)


def test_the_first_shard_is_the_whole_model(tmp_path: Path) -> None:
    shards = _split(tmp_path)
    assert [p.name for p in shards] == ["m-00001-of-00003.gguf", "m-00002-of-00003.gguf", "m-00003-of-00003.gguf"]
    r = audit_checkpoint(shards[0])
    assert r.facts["gguf"]["tensors"] == 5
    assert r.census.total_bytes == _all_bytes()
    assert r.facts["gguf"]["file_bytes"] == sum(p.stat().st_size for p in shards)
    assert r.exit_code == 0


@pytest.mark.parametrize("which", [1, 2])
def test_another_shard_is_refused_as_llama_cpp_refuses_it(
    tmp_path: Path, which: int, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    shards = _split(tmp_path)
    code, _out, err = cli(["audit", str(shards[which])], capsys, monkeypatch, tmp_path)
    assert code == 2 and "Traceback" not in err
    assert "model must be loaded with the first split" in err and "m-00001-of-00003.gguf" in err
    other = tmp_path / "other"
    other.mkdir()
    alone = _split(other, "t")
    code, _out, err = cli(["audit", str(alone[0]), "--draft", str(shards[which])], capsys, monkeypatch, tmp_path)
    assert code == 2 and "model must be loaded with the first split" in err


def test_a_missing_shard_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    shards = _split(tmp_path)
    shards[2].unlink()
    code, _out, err = cli(["audit", str(shards[0])], capsys, monkeypatch, tmp_path)
    assert code == 2 and "m-00003-of-00003.gguf" in err and "Traceback" not in err


def test_a_renamed_first_shard_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    shards = _split(tmp_path)
    renamed = shards[0].rename(tmp_path / "model.gguf")
    code, _out, err = cli(["audit", str(renamed)], capsys, monkeypatch, tmp_path)
    assert code == 2 and "-00001-of-00003.gguf" in err
